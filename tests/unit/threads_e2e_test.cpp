// The whole run gives the same bytes whatever --threads says: files are parsed on several threads
// and merged in file order, features are computed on several threads into fixed slots. The
// directories are large enough (over 100 000 sample and process rows) for features to use threads.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "robustness_util.hpp"
#include "run_binary.hpp"
#include "sim_test_util.hpp"

namespace gpucost {
namespace {

using gpucost::testing::run_gpucost;

void expect_same_for_any_thread_count(const std::string& dir) {
  const auto one = run_gpucost({"analyze", dir, "--format", "json", "--no-timings", "--threads", "1"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  ASSERT_GT(one.out.size(), 10000u);
  for (const char* threads : {"2", "3"}) {
    const auto many = run_gpucost({"analyze", dir, "--format", "json", "--no-timings", "--threads", threads});
    ASSERT_EQ(many.exit_code, 0) << many.err;
    EXPECT_TRUE(one.out == many.out) << "--threads " << threads << " changed the JSON report";
  }
  const auto t1 = run_gpucost({"timeline", dir, "--threads", "1"});
  const auto t2 = run_gpucost({"timeline", dir, "--threads", "2"});
  ASSERT_EQ(t1.exit_code, 0);
  EXPECT_FALSE(t1.out.empty());
  EXPECT_TRUE(t1.out == t2.out) << "--threads 2 changed the timeline";
}

TEST(ThreadsEndToEnd, ServerWithFourGpusGivesTheSameReport) {
  // 4 GPUs x 1 row/s x 8 h: ~115 000 sample rows, every feature per GPU.
  expect_same_for_any_thread_count(sim::testing::generated(sim::ScenarioKind::kServer, 5, 8).string());
}

TEST(ThreadsEndToEnd, LaptopOverADayGivesTheSameReport) {
  // One GPU (its rows are also the host's) and ps snapshots: ~110 000 sample rows.
  expect_same_for_any_thread_count(sim::testing::generated(sim::ScenarioKind::kLaptop, 9, 30).string());
}

TEST(ThreadsEndToEnd, ProcessRowsPlacedBesideTheSamplesGiveTheSameReport) {
  // Over 100 000 ps rows and a dmon file: align places the process rows on a thread of its own
  // (with --threads other than 1). Both series step back in time once, so that the files'
  // `time_backwards` notes come from the tallies that thread kept and the samples' own.
  robust::Scratch dir("align_threads");
  {
    std::ofstream ps(dir / "ps.txt");
    for (int snap = 0; snap < 1000; ++snap) {
      const int minute = snap == 500 ? 3 : 10 + snap / 60;  // snapshot 500 is stamped earlier
      ps << "### gpucost-ps 2026-11-20T" << (9 + minute / 60 < 10 ? "0" : "") << 9 + minute / 60 << ':'
         << (minute % 60 < 10 ? "0" : "") << minute % 60 << ':' << (snap % 60 < 10 ? "0" : "") << snap % 60
         << "+08:00\n";
      ps << "USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND\n";
      for (int p = 0; p < 110; ++p)
        ps << (p % 3 ? "root" : "ml") << ' ' << 100 + p << ' ' << (p * 7 % 100) << ".0 0.1 " << 1000 + p << ' ' << 500 + p
           << " ?        S    09:00   0:00 /usr/bin/worker --id " << p << "\n";
    }
    std::ofstream dmon(dir / "dmon.log");
    dmon << "#Date        Time         gpu    pwr  gtemp     sm    mem\n";
    dmon << "#YYYYMMDD    HH:MM:SS     Idx      W      C      %      %\n";
    for (int i = 0; i < 3000; ++i) {
      const int t = i == 1500 ? 100 : 600 + i;  // one sample stamped earlier
      dmon << " 20261120    " << (9 + t / 3600 < 10 ? "0" : "") << 9 + t / 3600 << ':' << (t / 60 % 60 < 10 ? "0" : "")
           << t / 60 % 60 << ':' << (t % 60 < 10 ? "0" : "") << t % 60 << "       0     " << 50 + i % 100 << "     60     "
           << i % 100 << "     10\n";
    }
  }
  const auto one = run_gpucost({"analyze", dir.path().string(), "--format", "json", "--no-timings", "--threads", "1"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_NE(one.out.find("time_backwards"), std::string::npos);
  for (const char* threads : {"2", "4"}) {
    const auto many = run_gpucost({"analyze", dir.path().string(), "--format", "json", "--no-timings", "--threads", threads});
    ASSERT_EQ(many.exit_code, 0) << many.err;
    EXPECT_TRUE(one.out == many.out) << "--threads " << threads << " changed the JSON report";
  }
}

}  // namespace
}  // namespace gpucost
