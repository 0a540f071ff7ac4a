// run_pipeline: every stage, in order, up to the one asked for; cost and findings on usable input.
#include "gpucost/pipeline/pipeline.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "gpucost/cost/presets.hpp"

namespace gpucost {
namespace {

std::vector<std::string> stages(const PipelineResult& r) {
  std::vector<std::string> out;
  for (const auto& t : r.timings) out.push_back(t.stage);
  return out;
}

PipelineOptions with_cost() {
  PipelineOptions o;
  o.align.tz = "UTC";
  auto setup = std::make_shared<CostSetup>();
  setup->catalog = cost::load_presets({}, {});
  o.cost = setup;
  return o;
}

const std::string kLogs = std::string(GPUCOST_TEST_DATA) + "/report/logs";

TEST(Pipeline, RunsEveryStageInOrder) {
  PipelineResult r;
  run_pipeline(kLogs, with_cost(), r);
  EXPECT_EQ(stages(r), (std::vector<std::string>{"ingest", "align", "features", "cost", "findings"}));
  ASSERT_TRUE(r.cost);
  EXPECT_FALSE(r.cost->summary.empty());
}

TEST(Pipeline, CostTakesMeasuredInputsUnlessToldNot) {
  PipelineResult measured, told_not;
  run_pipeline(kLogs, with_cost(), measured);
  PipelineOptions o = with_cost();
  auto setup = std::make_shared<CostSetup>(*o.cost);
  setup->measured = false;
  o.cost = setup;
  run_pipeline(kLogs, o, told_not);
  ASSERT_TRUE(measured.cost && told_not.cost);
  const auto& why = told_not.cost->inputs[cost::InputId::kPowerW];
  EXPECT_NE(why.origin, measured.cost->inputs[cost::InputId::kPowerW].origin);
}

TEST(Pipeline, StopsWhereAsked) {
  PipelineResult aligned, featured;
  run_pipeline(kLogs, with_cost(), aligned, PipelineStage::kAlign);
  EXPECT_EQ(stages(aligned), (std::vector<std::string>{"ingest", "align"}));
  EXPECT_TRUE(aligned.features.host.empty());
  run_pipeline(kLogs, with_cost(), featured, PipelineStage::kFeatures);
  EXPECT_EQ(stages(featured), (std::vector<std::string>{"ingest", "align", "features"}));
  EXPECT_FALSE(featured.cost);
}

TEST(Pipeline, NoCostWithoutUsableInputOrSetup) {
  const auto empty = std::filesystem::path(::testing::TempDir()) / "gpucost-pipeline-empty";
  std::filesystem::create_directories(empty);
  PipelineResult none;
  run_pipeline(empty, with_cost(), none);
  EXPECT_FALSE(none.cost);
  EXPECT_TRUE(none.findings.empty());
  PipelineOptions no_setup;
  no_setup.align.tz = "UTC";
  PipelineResult unpriced;
  run_pipeline(kLogs, no_setup, unpriced);
  EXPECT_FALSE(unpriced.cost);
  EXPECT_EQ(stages(unpriced).back(), "findings");
}

TEST(Pipeline, CostSetupMistakesAreUsageErrors) {
  PipelineOptions o = with_cost();
  auto setup = std::make_shared<CostSetup>(*o.cost);
  setup->request.selection.local = "no-such-gpu";
  o.cost = setup;
  PipelineResult r;
  EXPECT_THROW(run_pipeline(kLogs, o, r), std::invalid_argument);
}

}  // namespace
}  // namespace gpucost
