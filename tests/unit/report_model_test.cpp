// The report model (report/model.hpp): what every writer renders. Its figures are stated as the
// JSON report states them, so the other formats agree with the JSON to the digit.
#include "gpucost/report/model.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "gpucost/report/report.hpp"
#include "gpucost/text/number.hpp"

namespace gpucost {
namespace {

TEST(ReportModel, StatedIsTheValueTheJsonWrites) {
  EXPECT_EQ(stated(0.1 + 0.2), 0.3);  // 10 significant digits, as format_number writes it
  EXPECT_EQ(stated(3066.0000000000005), 3066.0);
  EXPECT_EQ(stated(1.5), 1.5);
  EXPECT_EQ(stated(std::nullopt), std::nullopt);
  EXPECT_EQ(stated(std::numeric_limits<double>::infinity()), std::nullopt);  // the JSON's null
  EXPECT_EQ(stated(std::nan("")), std::nullopt);
  for (double v : {1e-310, 123456.789012345, -2.5e20, 1796000000.5})
    EXPECT_EQ(format_number(*stated(v)), format_number(v)) << v;
}

TEST(ReportModel, StatedTextReadsEachByteThatIsNotUtf8AsReplacement) {
  EXPECT_EQ(stated_text("plain"), "plain");
  EXPECT_EQ(stated_text("a\xff"
                        "b"),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(stated_text("\xC3\xA9"), "\xC3\xA9");  // é stays
  EXPECT_EQ(stated_text("\xC3"), "\xEF\xBF\xBD");  // a cut character
}

TEST(ReportModel, TheReportsOwnTimingIsAddedOnlyToATimedRun) {
  const auto now = std::chrono::steady_clock::now();
  EXPECT_TRUE(report_timings({}, now).empty());  // --no-timings
  const std::vector<StageTiming> stages{{"ingest", 1, 2'000'000, 10, 0}};
  const auto all = report_timings(stages, now);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[1].stage, "report");
  EXPECT_EQ(stage_mb_per_s(all[0]), 2.0);
  EXPECT_EQ(stage_mb_per_s(StageTiming{"align", 0, 5, 0, 0}), 0.0);
}

TEST(ReportModel, ListsEachGpusPerGpuFeaturesAndEveryFeatureOfTheHost) {
  PipelineOptions options;
  options.align.tz = "UTC";
  PipelineResult result;
  run_pipeline(std::string(GPUCOST_TEST_DATA) + "/report/logs", options, result);
  Report rep;
  rep.input = "logs";
  rep.result = &result;
  const ReportModel m = report_model(rep, ReportCharts::kWithout);
  EXPECT_FALSE(m.charts);
  ASSERT_FALSE(m.gpus.empty());
  EXPECT_EQ(m.features.size(), feature_catalog().size());
  for (const auto& g : m.gpus) {
    for (const auto& f : g.features) EXPECT_EQ(f.def->scope, FeatureScope::kPerGpu) << f.def->name;
    const FeatureLine* busy = g.feature(FeatureId::gpu_busy_s);
    ASSERT_NE(busy, nullptr);
    EXPECT_EQ(busy->value, result.features.find_gpu(g.index, FeatureId::gpu_busy_s));
  }
  EXPECT_EQ(m.gpus.front().feature(FeatureId::ac_switches_per_hour), nullptr);  // counted per host
  ASSERT_NE(m.host_feature(FeatureId::ac_switches_per_hour), nullptr);
  EXPECT_EQ(m.host_feature(FeatureId::ac_switches_per_hour)->value,
            result.features.find(FeatureId::ac_switches_per_hour));
  EXPECT_EQ(m.inputs.files, result.diagnostics.files.size());
  EXPECT_EQ(m.cost, result.cost.get());
  EXPECT_TRUE(report_model(rep).charts);  // the JSON report and the HTML page draw from them
}

}  // namespace
}  // namespace gpucost
