// Issue 38: a GPU that several processes share (time-slicing, MPS) has each process's estimated
// part of its busy time, from pmon's SM shares, in `gpus[].processes` and a `Shared:` table line.
#include <gtest/gtest.h>
#include <simdjson.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "run_binary.hpp"

namespace fs = std::filesystem;
using gpucost::testing::run_gpucost;

namespace gpucost {
namespace {

// Ten dmon rows of a busy GPU 0, and pmon intervals: train.py at 60 % SM, infer.py at 20 % (and,
// with `idle`, a third process listed at 0 %, which used nothing).
fs::path shared_dir(const std::string& name, bool idle) {
  fs::path d = fs::temp_directory_path() / ("gpucost_shared_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  std::ofstream dmon(d / "dmon.txt");
  dmon << "# gpu   pwr gtemp mtemp    sm   mem   enc   dec  mclk  pclk\n"
          "# Idx     W     C     C     %     %     %     %   MHz   MHz\n";
  for (int i = 0; i < 10; ++i) dmon << "    0   100    50     -    80    10     0     0  5000  1500\n";
  std::ofstream pmon(d / "pmon.txt");
  pmon << "# gpu         pid   type     sm    mem    enc    dec    command\n"
          "# Idx           #    C/G      %      %      %      %    name\n";
  for (int i = 0; i < 10; ++i) {
    pmon << "    0        100     C     60     5      -      -    train.py\n"
            "    0        200     C     20     5      -      -    infer.py\n";
    if (idle) pmon << "    0        300     C      0     0      -      -    idle.py\n";
  }
  return d;
}

TEST(SharedGpu, BusyTimeIsSplitByEachProcesssSmShareAndCalledAnEstimate) {
  const fs::path d = shared_dir("two", true);
  auto r = run_gpucost({"analyze", d.string(), "--format", "json", "--no-timings", "--tz", "UTC"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element root = parser.parse(r.out);
  simdjson::dom::element g = simdjson::dom::array(root["gpus"]).at(0);
  simdjson::dom::element p = g["processes"];
  EXPECT_NE(std::string_view(p["basis"]).find("estimate"), std::string_view::npos);
  EXPECT_EQ(uint64_t(p["processes"]), 2u) << "a process that used no SM has no share";
  simdjson::dom::array top = p["top"];
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(int64_t(top.at(0)["pid"]), 100);
  EXPECT_EQ(std::string_view(top.at(0)["command"]), "train.py");
  EXPECT_DOUBLE_EQ(double(top.at(0)["sm_share"]), 0.75);
  EXPECT_DOUBLE_EQ(double(top.at(0)["busy_s"]), 7.5);  // 75 % of the 10 s the GPU was busy
  EXPECT_DOUBLE_EQ(double(top.at(1)["busy_s"]), 2.5);
  EXPECT_EQ(uint64_t(top.at(1)["intervals"]), 10u);

  auto t = run_gpucost({"analyze", d.string(), "--no-timings", "--tz", "UTC"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.out.find("Shared: GPU 0: 2 processes; SM use (an estimate of each one's part of the busy time): "
                       "train.py (pid 100) 75 %, about 8 s busy, infer.py (pid 200) 25 %, about 2 s busy\n"),
            std::string::npos)
      << t.out.substr(0, 1200);
}

TEST(SharedGpu, AGpuOneProcessHasToItselfListsNoShares) {
  const fs::path d = shared_dir("one", false);
  std::ofstream(d / "pmon.txt") << "# gpu         pid   type     sm    mem    enc    dec    command\n"
                                   "# Idx           #    C/G      %      %      %      %    name\n"
                                   "    0        100     C     60     5      -      -    train.py\n";
  auto r = run_gpucost({"analyze", d.string(), "--format", "json", "--no-timings", "--tz", "UTC"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element root = parser.parse(r.out);
  simdjson::dom::element g = simdjson::dom::array(root["gpus"]).at(0);
  simdjson::dom::element p;
  EXPECT_NE(g["processes"].get(p), simdjson::SUCCESS);
}

}  // namespace
}  // namespace gpucost
