// The job summary the Slurm epilog keeps in AdminComment (issue 38): made from the rows that
// analyze writes, bounded in length, read back from `sacct -P -o JobID,User,Partition,AdminComment`
// output beside what an operator keeps there, and not counted twice with the NDJSON rows of the
// same node and window.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gpucost/fleet/fleet.hpp"
#include "gpucost/fleet/job_summary.hpp"
#include "run_binary.hpp"

namespace fs = std::filesystem;
using namespace gpucost::fleet;

namespace {

const std::string kExample = (fs::path(GPUCOST_SOURCE_DIR) / "examples" / "laptop-training").string();

std::string example_rows() {
  const auto r = gpucost::testing::run_gpucost({"analyze", kExample, "--since", "2026-11-20T01:00:00Z", "--until",
                                                "2026-11-20T03:00:00Z", "--job-id", "4242", "--user", "alice",
                                                "--host", "gpu-node-01", "--format", "ndjson", "--no-timings"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

TEST(JobSummary, TheExampleRowsGiveOneBoundedSegmentThatParsesBack) {
  const auto sums = summaries_of_rows(example_rows());
  ASSERT_EQ(sums.size(), 1u);
  const JobSummary& s = sums[0];
  EXPECT_EQ(s.host, "gpu-node-01");
  EXPECT_EQ(s.window_start, "2026-11-20T01:00:00.000000Z");
  ASSERT_EQ(s.per_gpu.size(), 1u);
  EXPECT_EQ(s.per_gpu[0].id, "0");
  const std::string seg = render_summary(s);
  EXPECT_LE(seg.size(), kMaxSummaryBytes);
  EXPECT_EQ(seg.rfind("gpucost:1 host=gpu-node-01 win=2026-11-20T01:00:00.000000Z/", 0), 0u) << seg;
  EXPECT_EQ(seg.find_first_of(";|\n"), std::string::npos) << seg;
  EXPECT_NE(seg.find(" gpu=0:2/1.21917"), std::string::npos) << seg;
  EXPECT_NE(seg.find(" model=NVIDIA%20GeForce%20RTX%204060%20Laptop%20GPU"), std::string::npos) << seg;
  std::string why;
  const auto back = parse_summary(seg, why);
  ASSERT_TRUE(back) << why;
  EXPECT_EQ(back->host, s.host);
  EXPECT_EQ(back->window_end, s.window_end);
  EXPECT_EQ(back->model, s.model);
  EXPECT_EQ(back->gpus, 1u);
  ASSERT_TRUE(back->busy_gpu_hours && s.busy_gpu_hours);
  EXPECT_NEAR(*back->busy_gpu_hours, *s.busy_gpu_hours, 1e-5);
  ASSERT_TRUE(back->incidents);
  EXPECT_EQ(*back->incidents, 2);
  // The findings that fit, in their order, and how many did not.
  ASSERT_FALSE(back->findings.empty());
  EXPECT_EQ(back->findings.size() + back->findings_left_out, s.findings.size()) << seg;
  EXPECT_TRUE(std::equal(back->findings.begin(), back->findings.end(), s.findings.begin()));
}

TEST(JobSummary, ALongSummaryDropsFindingsFirstAndSaysHowMany) {
  JobSummary s;
  s.host = "n1";
  s.window_start = "2026-11-20T01:00:00.000000Z", s.window_end = "2026-11-20T03:00:00.000000Z";
  s.gpus = 8;
  s.busy_gpu_hours = 1.5;
  for (int i = 0; i < 8; ++i) s.per_gpu.push_back({fmt::format("{}", i), 2.0, 1.25});
  for (int i = 0; i < 40; ++i) s.findings.push_back(fmt::format("finding_number_{}", i));
  const std::string seg = render_summary(s);
  EXPECT_LE(seg.size(), kMaxSummaryBytes);
  EXPECT_NE(seg.find(" gpu=0:2/1.25,1:2/1.25"), std::string::npos) << seg;
  EXPECT_NE(seg.find(" find=finding_number_0,"), std::string::npos) << seg;
  std::string why;
  const auto back = parse_summary(seg, why);
  ASSERT_TRUE(back) << why;
  EXPECT_GT(back->findings_left_out, 0u);
  EXPECT_EQ(back->findings.size() + back->findings_left_out, 40u) << seg;
}

TEST(FleetSacct, SummariesAreReadBesideWhatAnOperatorKeepsInAdminComment) {
  const std::string n1 =
      "gpucost:1 host=n1 win=2026-11-20T01:00:00.000000Z/2026-11-20T03:00:00.000000Z gpus=2 alloc_h=4 busy_h=3 "
      "idle_h=0.5 unmeas_h=0.5 eff_h=2.5 kwh=1.5 xid=2 inc=1 own=8 idle_cost=1 rent=7.5 cur=USD cloud=aws-p4d "
      "model=NVIDIA%20A100 gpu=0:2/1.5,1:2/1.5 find=gpu_memory_errors";
  const std::string n2 =
      "gpucost:1 host=n2 win=2026-11-20T01:00:00.000000Z/2026-11-20T03:00:00.000000Z gpus=1 alloc_h=2 busy_h=1 "
      "idle_h=1 unmeas_h=0 eff_h=1 kwh=0.5 xid=0 inc=0 own=4 idle_cost=2 rent=3 cur=USD model=NVIDIA%20A100";
  std::istringstream sacct("JobID|User|Partition|AdminComment\n"
                           "4242|alice|gpu|jobstats JS1:H4sIAAAA|x; " + n1 + "; " + n2 + "\n"
                           "4242.batch|||\n"
                           "4242.0|||\n"
                           "4243|bob|cpu|\n"
                           "4244|carol|gpu|gpucost:1 host=n3 alloc_h=1e400\n"
                           "4245|dave|gpu|gpucost:1 host=n3 win=a/b busy_h=-2\n"
                           "not sacct output\n");
  FleetSummary s;
  FleetReader r(s);
  r.read_sacct(sacct, "sacct.txt");
  r.finish();
  EXPECT_EQ(s.summaries, 2u);
  EXPECT_EQ(s.rows, 2u);
  EXPECT_EQ(s.malformed, 3u);
  EXPECT_EQ(s.refused.at("bad_summary"), 1u);
  EXPECT_EQ(s.refused.at("negative"), 1u);
  EXPECT_EQ(s.refused.at("not_sacct"), 1u);
  ASSERT_EQ(s.problems.size(), 3u);
  EXPECT_EQ(s.problems[0].file, "sacct.txt");
  EXPECT_EQ(s.problems[0].line, 6u);
  ASSERT_EQ(s.by_job.size(), 1u);
  const Totals& job = s.by_job.at("4242");
  EXPECT_EQ(job.gpu_rows, 3u);
  EXPECT_EQ(job.node_rows, 2u);
  EXPECT_DOUBLE_EQ(job.allocated_gpu_hours.value, 6);
  EXPECT_DOUBLE_EQ(job.busy_gpu_hours.value, 4);
  EXPECT_DOUBLE_EQ(job.unmeasured_gpu_hours.value, 0.5);
  EXPECT_DOUBLE_EQ(job.effective_gpu_hours.value, 3.5);
  EXPECT_DOUBLE_EQ(job.incidents.value, 1);
  EXPECT_DOUBLE_EQ(job.local_cost.value, 12);
  EXPECT_DOUBLE_EQ(s.by_user.at("alice").cloud_cost.value, 10.5);
  EXPECT_DOUBLE_EQ(s.by_model.at("NVIDIA A100").allocated_gpu_hours.value, 6);
  EXPECT_EQ(s.by_node.count("n2"), 1u);
}

TEST(FleetSacct, ALineOver16MiBIsRefusedAndTheNextOneRead) {
  std::istringstream sacct("4242|alice|gpu|" + std::string((16u << 20) + 10, 'x') + "\n" +
                           "4243|bob|gpu|gpucost:1 host=n1 win=a/b gpus=1 alloc_h=1");  // no final newline
  FleetSummary s;
  FleetReader r(s);
  r.read_sacct(sacct, "big");
  r.finish();
  EXPECT_EQ(s.refused.at("line_too_long"), 1u);
  ASSERT_EQ(s.problems.size(), 1u);
  EXPECT_EQ(s.problems[0].line, 1u);
  EXPECT_EQ(s.lines, 2u);
  EXPECT_EQ(s.summaries, 1u);
  EXPECT_DOUBLE_EQ(s.by_job.at("4243").allocated_gpu_hours.value, 1);
}

TEST(FleetSacct, TheNdjsonRowsOfTheSameNodeAndWindowWinOverItsSummary) {
  const std::string rows = example_rows();
  const JobSummary sum = summaries_of_rows(rows).at(0);
  FleetSummary s;
  FleetReader r(s);
  std::istringstream sacct("4242|alice|gpu|" + render_summary(sum) + "\n");
  r.read_sacct(sacct, "-");
  std::istringstream lines(rows);
  std::uint64_t n = 0;
  for (std::string l; std::getline(lines, l);) r.add_line(l, "4242.ndjson", ++n);
  r.finish();
  EXPECT_EQ(s.duplicates, 1u);
  ASSERT_EQ(s.duplicate_rows.size(), 1u);
  EXPECT_EQ(s.duplicate_rows[0].file, "-");
  EXPECT_EQ(s.duplicate_rows[0].kept_file, "4242.ndjson");
  EXPECT_EQ(s.by_job.at("4242").gpu_rows, 1u);
  EXPECT_DOUBLE_EQ(s.fleet.allocated_gpu_hours.value, 2);
}

TEST(FleetSacctCli, TheEpilogsSummaryIsMadeAndReadBackFromAFileOrStdin) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("fleet_sacct." + std::to_string(::getpid()));
  fs::create_directories(dir);
  { std::ofstream(dir / "4242.ndjson") << example_rows(); }
  const auto made = gpucost::testing::run_gpucost({"fleet", (dir / "4242.ndjson").string(), "--format", "summary"});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  ASSERT_EQ(made.out.rfind("gpucost:1 host=gpu-node-01 ", 0), 0u) << made.out;
  { std::ofstream(dir / "sacct.txt") << "JobID|User|Partition|AdminComment\n4242|alice|gpu|" << made.out; }
  const auto read = gpucost::testing::run_gpucost({"fleet", "--sacct", (dir / "sacct.txt").string(), "--format", "csv"});
  fs::remove_all(dir);
  EXPECT_EQ(read.exit_code, 0) << read.err;
  EXPECT_NE(read.out.find("\njob,4242,1,1,2,"), std::string::npos) << read.out;
  EXPECT_NE(read.out.find("\nuser,alice,1,1,2,"), std::string::npos) << read.out;
  EXPECT_EQ(gpucost::testing::run_gpucost({"fleet"}).exit_code, 2);
}

}  // namespace
