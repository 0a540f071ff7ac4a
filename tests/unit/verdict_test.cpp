// The two answers (issue 33): the usage has a basis and is never invented from the window that was
// logged; the owner and the buyer each get one decision, the same in every output; what is compared
// is what the logs show; one machine per answer.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gpucost/cost/from_logs.hpp"
#include "gpucost/cost/presets.hpp"
#include "gpucost/pipeline/pipeline.hpp"
#include "gpucost/report/ndjson_writer.hpp"
#include "gpucost/report/report.hpp"

namespace gpucost {
namespace {

namespace fs = std::filesystem;
const std::string kH200 = std::string(GPUCOST_TEST_DATA) + "/collections/h200-580";

struct Run {
  PipelineResult result;
  const cost::CostResult& cost() const { return *result.cost; }
};

std::unique_ptr<Run> analyze(const std::string& dir, const std::function<void(cost::ResolveRequest&)>& tweak = {}) {
  PipelineOptions o;
  o.align.tz = "UTC";
  auto setup = std::make_shared<CostSetup>();
  setup->catalog = cost::load_presets({}, {});
  if (tweak) tweak(setup->request);
  o.cost = setup;
  auto run = std::make_unique<Run>();
  run_pipeline(dir, o, run->result);
  return run;
}

std::string render(const Run& run, ReportFormat f) {
  const Report rep = make_report(run.result, "logs", 0.05);
  return render_report(rep, f);
}

// A temporary directory removed at the end of the test.
struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / fmt::format("gpucost-verdict-{}-{}", ::getpid(), counter()++);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  static int& counter() {
    static int n = 0;
    return n;
  }
};

// A dmon log (-o DT) of `gpus` GPUs sampled every `interval_s` for `days`, busy (sm 95 %) in the
// first `busy_minutes` of every hour and idle (sm 0 %) in the rest: the truth is busy_minutes / 60
// of the sampled time, on every GPU.
void write_dmon(const fs::path& file, int gpus, double days, int interval_s, int busy_minutes) {
  std::ofstream out(file);
  out << "#Date        Time         gpu    pwr  gtemp  mtemp     sm    mem    enc    dec   mclk   pclk\n";
  out << "#YYYYMMDD    HH:MM:SS     Idx      W      C      C      %      %      %      %    MHz    MHz\n";
  const long rows = static_cast<long>(days * 86400 / interval_s);
  const long start = 1795000000;  // 2026-11-17T09:46:40Z, a whole minute
  for (long r = 0; r < rows; ++r) {
    const long t = start + r * interval_s;
    const std::time_t tt = t;
    std::tm tm{};
    gmtime_r(&tt, &tm);
    const bool busy = tm.tm_min < busy_minutes;
    for (int g = 0; g < gpus; ++g)
      out << fmt::format(" {:04}{:02}{:02}    {:02}:{:02}:{:02}    {:>4}    {:>3}     50      -     {:>2}     20      0      0   "
                         "9501   {}\n",
                         tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, g,
                         busy ? 400 : 60, busy ? 95 : 0, busy ? 1980 : 345);
  }
}

TEST(Verdict, H200CollectionKeepsAndLeavesTheUsageUnknown) {
  const auto run = analyze(kH200);
  const auto& c = run->cost();
  EXPECT_EQ(c.inputs.usage.basis, cost::UsageBasis::kUnknown);
  EXPECT_FALSE(c.break_even.hours_per_month);
  ASSERT_TRUE(c.inputs.usage.window_busy_share);
  EXPECT_GT(*c.inputs.usage.window_busy_share, 0.3);  // two bursts of 45 s and 35 s in 130 s
  EXPECT_LT(*c.inputs.usage.window_busy_share, 0.9);
  EXPECT_EQ(c.buy.decision, cost::BuyDecision::kDependsOnUsage);
  ASSERT_TRUE(c.buy.threshold_hours_per_month);
  EXPECT_NE(c.buy.summary.find(cost::human_duration(*c.buy.threshold_hours_per_month)), std::string::npos)
      << c.buy.summary;
  EXPECT_FALSE(c.buy.probability);  // nothing to compare the threshold with
  EXPECT_EQ(c.own.decision, cost::OwnDecision::kKeep);
  EXPECT_LT(c.own.running_per_effective_hour, c.own.cloud_per_effective_hour);
  EXPECT_EQ(c.inputs.gpu_count, 1u);
  // The same GPU on both sides.
  EXPECT_EQ(c.inputs.local_gpu, "h200");
  EXPECT_NE(c.inputs.cloud_label.find("H200"), std::string::npos) << c.inputs.cloud_label;
}

TEST(Verdict, RestatingTheLocalGpuChangesNothing) {
  const auto plain = analyze(kH200);
  const auto restated = analyze(kH200, [](cost::ResolveRequest& rq) { rq.selection.local = "h200"; });
  EXPECT_EQ(restated->cost().inputs.cloud_offer, plain->cost().inputs.cloud_offer);
  EXPECT_EQ(restated->cost().buy.threshold_hours_per_month, plain->cost().buy.threshold_hours_per_month);
  EXPECT_EQ(restated->cost().buy.decision, plain->cost().buy.decision);
}

TEST(Verdict, GivenUsageIsOneDecisionInEveryOutput) {
  const auto run = analyze(kH200, [](cost::ResolveRequest& rq) {
    rq.cli.values[static_cast<std::size_t>(cost::InputId::kHoursPerMonth)] = 600;
  });
  const auto& c = run->cost();
  EXPECT_EQ(c.inputs.usage.basis, cost::UsageBasis::kGiven);
  ASSERT_EQ(c.buy.decision, cost::BuyDecision::kBuy) << c.buy.summary;
  ASSERT_TRUE(c.buy.payback_months);
  EXPECT_TRUE(c.buy.probability);
  // The job length is computed at that usage, not at an assumed 8 h a day.
  EXPECT_NE(c.inputs[cost::InputId::kAmortizationHours].note.find("the usage implies"), std::string::npos);

  const std::string table = render(*run, ReportFormat::kTable);
  EXPECT_NE(table.find("Buy it?  BUY."), std::string::npos);
  EXPECT_NE(table.find("Own it?  KEEP."), std::string::npos);
  for (std::string_view contradiction : {"cannot pay for itself", "renting is cheaper", "Verdict:", "BUY IT?  RENT"})
    EXPECT_EQ(table.find(contradiction), std::string::npos) << contradiction;
  EXPECT_NE(render(*run, ReportFormat::kJson).find(R"("decision": "buy")"), std::string::npos);
  EXPECT_NE(render(*run, ReportFormat::kCsv).find(R"(verdict.buy.decision,,,cost,"buy:)"), std::string::npos);
  EXPECT_NE(render(*run, ReportFormat::kProm).find(R"(buy="buy")"), std::string::npos);
  EXPECT_NE(render(*run, ReportFormat::kHtml).find("Buy it? <b>buy</b>"), std::string::npos);
  const Report rep = make_report(run->result, "logs", 0.05);
  EXPECT_NE(render_job_rows(report_model(rep), {}).find(R"("verdict_buy":"buy")"), std::string::npos);
}

TEST(Verdict, UsageAboveAMonthIsRefused) {
  EXPECT_THROW(analyze(kH200,
                       [](cost::ResolveRequest& rq) {
                         rq.cli.values[static_cast<std::size_t>(cost::InputId::kHoursPerMonth)] = 100000;
                       }),
               std::invalid_argument);
}

TEST(Verdict, HtmlAnswersBeforeTheFindings) {
  const auto run = analyze(kH200);
  const std::string html = render(*run, ReportFormat::kHtml);
  const auto answer = html.find("id=\"answer\"");
  const auto findings = html.find("id=\"findings\"");
  ASSERT_NE(answer, std::string::npos);
  ASSERT_NE(findings, std::string::npos);
  EXPECT_LT(answer, findings);
  EXPECT_NE(html.find("Own it? <b>keep</b>"), std::string::npos);
  EXPECT_NE(html.find("Buy it? <b>depends on usage</b>"), std::string::npos);
}

TEST(Verdict, AWeekOfSamplesMeasuresTheUsagePerGpu) {
  TempDir dir;
  write_dmon(dir.path / "dmon.log", 2, 8, 60, 45);  // 45 of every 60 minutes busy: 547.9 h a month
  const auto run = analyze(dir.path.string(), [](cost::ResolveRequest& rq) { rq.selection.local = "rtx-4090"; });
  const auto& u = run->cost().inputs.usage;
  ASSERT_EQ(u.basis, cost::UsageBasis::kMeasured) << u.reason;
  ASSERT_EQ(u.gpus.size(), 2u);
  const double truth = 45.0 / 60 * cost::kMeanMonthHours;
  for (const auto& g : u.gpus) {
    ASSERT_TRUE(g.hours_per_month);
    EXPECT_NEAR(*g.hours_per_month, truth, 0.05 * truth) << "gpu " << g.gpu;
  }
  ASSERT_TRUE(run->cost().break_even.hours_per_month);
  EXPECT_NEAR(*run->cost().break_even.hours_per_month, truth, 0.05 * truth);
  EXPECT_EQ(run->cost().inputs.gpu_count, 2u);
  ASSERT_TRUE(run->cost().buy.machine_threshold_hours_per_month);
  EXPECT_DOUBLE_EQ(*run->cost().buy.machine_threshold_hours_per_month,
                   2 * *run->cost().buy.threshold_hours_per_month);
}

TEST(Verdict, ThreeDaysOfSamplesLeaveTheUsageUnknown) {
  TempDir dir;
  write_dmon(dir.path / "dmon.log", 4, 3, 60, 45);
  const auto run = analyze(dir.path.string(), [](cost::ResolveRequest& rq) { rq.selection.local = "rtx-4090"; });
  const auto& c = run->cost();
  EXPECT_EQ(c.inputs.usage.basis, cost::UsageBasis::kUnknown);
  EXPECT_NE(c.inputs.usage.reason.find("less than the 7 days"), std::string::npos) << c.inputs.usage.reason;
  EXPECT_EQ(c.buy.decision, cost::BuyDecision::kDependsOnUsage);
  EXPECT_EQ(c.inputs.gpu_count, 4u);  // the machine is answered for its 4 GPUs
  EXPECT_NE(c.buy.summary.find("for the 4 GPUs"), std::string::npos) << c.buy.summary;
  // A shorter minimum span measures it.
  const auto shorter = analyze(dir.path.string(), [](cost::ResolveRequest& rq) {
    rq.selection.local = "rtx-4090";
    rq.min_usage_span_days = 2;
  });
  EXPECT_EQ(shorter->cost().inputs.usage.basis, cost::UsageBasis::kMeasured);
}

TEST(Verdict, AThresholdNoMonthReachesIsNever) {
  // The bundled laptop against the A10: the cloud costs a little more per effective hour than the
  // laptop's running cost, so the lines cross, but only above 730.5 busy hours a month.
  // In the example's own zone (+08:00, from its stamps), as `gpucost analyze` reads it.
  PipelineOptions o;
  auto setup = std::make_shared<CostSetup>();
  setup->catalog = cost::load_presets({}, {});
  o.cost = setup;
  PipelineResult result;
  run_pipeline(std::string(GPUCOST_TEST_DATA) + "/../../examples/laptop-training", o, result);
  ASSERT_TRUE(result.cost);
  const auto& c = *result.cost;
  ASSERT_TRUE(c.break_even.usage_threshold_hours_per_month) << c.buy.summary;
  ASSERT_GT(*c.break_even.usage_threshold_hours_per_month, cost::kMeanMonthHours);
  EXPECT_EQ(c.buy.decision, cost::BuyDecision::kNever);
  EXPECT_NE(c.buy.summary.find("more than a month's 730.5 h"), std::string::npos) << c.buy.summary;
  EXPECT_EQ(c.buy.flips.find("usage:"), std::string::npos) << c.buy.flips;
}

TEST(Verdict, LogsThatNameNoGpuModelAnswerWithAPrice) {
  TempDir dir;
  fs::copy_file(kH200 + "/dmesg.txt", dir.path / "dmesg.txt");
  fs::copy_file(kH200 + "/nvidia-smi-dmon.txt", dir.path / "nvidia-smi-dmon.txt");
  const auto run = analyze(dir.path.string());
  const auto& c = run->cost();
  EXPECT_TRUE(c.inputs.local_gpu_from_logs);
  EXPECT_TRUE(c.inputs.price_unknown);
  EXPECT_NE(c.inputs.local_gpu, "rtx-4090");  // never another GPU's price
  EXPECT_EQ(c.buy.decision, cost::BuyDecision::kDependsOnPrice);
  EXPECT_NE(c.buy.summary.find("for every 100 h a month"), std::string::npos) << c.buy.summary;
  EXPECT_EQ(render(*run, ReportFormat::kTable).find("Local is cheaper for every job length"), std::string::npos);
}

TEST(Verdict, MeasuredPowerAboveThePresetsBoardPowerIsAWarning) {
  const auto run = analyze(kH200, [](cost::ResolveRequest& rq) { rq.selection.local = "rtx-4060-laptop"; });
  const auto& w = run->cost().inputs.warnings;
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("above the"), std::string::npos) << w[0];
}

TEST(Verdict, TwoMachinesInOneDirectoryAreRefused) {
  TempDir dir;
  fs::create_directories(dir.path / "h200");
  fs::create_directories(dir.path / "laptop");
  fs::copy_file(kH200 + "/nvidia-smi-q-start.txt", dir.path / "h200" / "nvidia-smi-q.txt");
  fs::copy_file(kH200 + "/nvidia-smi-dmon.txt", dir.path / "h200" / "nvidia-smi-dmon.txt");
  const std::string example = std::string(GPUCOST_TEST_DATA) + "/../../examples/laptop-training";
  fs::copy_file(example + "/nvidia-smi-q.txt", dir.path / "laptop" / "nvidia-smi-q.txt");
  fs::copy_file(example + "/dmesg.txt", dir.path / "laptop" / "dmesg.txt");
  const auto run = analyze(dir.path.string());
  EXPECT_EQ(cost::distinct_machines(run->result.timeline).size(), 2u);
  // One machine is one machine, whatever its GPUs.
  EXPECT_LE(cost::distinct_machines(analyze(kH200)->result.timeline).size(), 1u);
  const std::string cmd = fmt::format("{} analyze {} >/dev/null 2>&1", GPUCOST_BINARY, dir.path.string());
  const int rc = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(rc));
  EXPECT_EQ(WEXITSTATUS(rc), 2);
}

}  // namespace
}  // namespace gpucost
