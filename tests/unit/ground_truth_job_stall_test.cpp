// Issue 34 against the simulator's truth: the job's own stalls (idle while its process keeps its
// memory on the GPU: an input pipeline, an evaluation or a checkpoint on the CPU) are measured from
// dmon's sm and fb columns as cloud.job_stall_fraction, close to the share the generator planned;
// the idle with no job (before the job starts, after a crash) is not counted.
#include <gtest/gtest.h>

#include "gpucost/cost/from_logs.hpp"
#include "unit/ground_truth.hpp"

namespace gpucost::ground_truth {
namespace {

using sim::ScenarioKind;

// The true share: stall rows over busy plus stall rows, summed over the GPUs (1 s rows).
struct StallTruth {
  double stall_s = 0, busy_s = 0, idle_s = 0;
  double fraction() const { return stall_s / (busy_s + stall_s); }
};
StallTruth stall_truth(const fs::path& dir) {
  simdjson::dom::parser parser;
  const simdjson::dom::element root =
      parser.parse(simdjson::padded_string(sim::testing::read_file(dir / "truth.json")));
  StallTruth t;
  for (simdjson::dom::element g : root["extra"]["per_gpu_sums"].get_array()) {
    const double rows = double(int64_t(g["rows"])), idle = double(int64_t(g["idle_rows"]));
    t.stall_s += double(g["job_stall_s"]);
    t.busy_s += rows - idle;
    t.idle_s += idle;
  }
  return t;
}

struct Run {
  ScenarioKind kind;
  std::uint64_t seed;
  double hours;
};
class JobStalls : public ::testing::TestWithParam<Run> {};

TEST_P(JobStalls, AreMeasuredWithinHalfAPointOfTheTruth) {
  const Case& c = scenario(GetParam().kind, GetParam().seed, GetParam().hours);
  const StallTruth truth = stall_truth(c.dir);
  ASSERT_GT(truth.stall_s, 0) << "every scenario plans stalls of the job";
  ASSERT_GT(truth.idle_s, truth.stall_s) << "and idle with no job beside them";
  const cost::MeasuredInput m = cost::measure_job_stalls(c.result->timeline, c.result->features);
  ASSERT_TRUE(m.value) << m.note;
  EXPECT_EQ(m.origin, "measured:dmon");
  // The framebuffer falls over some seconds after a crash: those idle seconds still look held.
  EXPECT_NEAR(*m.value, truth.fraction(), 0.005) << m.note;
  // Counting every idle second instead would be far off: the test can tell the two apart.
  EXPECT_GT(truth.idle_s / (truth.busy_s + truth.idle_s) - truth.fraction(), 0.02);
}

INSTANTIATE_TEST_SUITE_P(Scenarios, JobStalls,
                         ::testing::Values(Run{ScenarioKind::kLaptop, 42, 2.5}, Run{ScenarioKind::kLaptop, 7, 2.5},
                                           Run{ScenarioKind::kServer, 1, 1.5}, Run{ScenarioKind::kServer, 5, 1.5}));

TEST(JobStalls, NeedTheFramebufferColumn) {
  Timeline tl;
  FeatureSet fs;
  const cost::MeasuredInput m = cost::measure_job_stalls(tl, fs);
  EXPECT_FALSE(m.value);
  EXPECT_NE(m.note.find("framebuffer"), std::string::npos) << m.note;
}

}  // namespace
}  // namespace gpucost::ground_truth
