// The whole run gives the same bytes whatever --threads says: files are parsed on several threads
// and merged in file order, features are computed on several threads into fixed slots. The
// directories are large enough (over 100 000 sample and process rows) for features to use threads.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace gpucost
