// Issue 18's findings stage: each rule fires on the generated scenarios where the generator
// injected its cause (truth.json decides, not the features the rule reads), stays silent where it
// did not and on a healthy machine's logs, points its evidence at the real lines of the generated
// files, honours its thresholds, and docs/findings.md is the rule table's rendering.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "cli/cost_options.hpp"
#include "gpucost/findings/findings.hpp"
#include "run_binary.hpp"
#include "unit/ground_truth.hpp"

namespace gpucost::findings {
namespace {

using ground_truth::Case;
using sim::ScenarioKind;
namespace fs = std::filesystem;

struct Scenario {
  ScenarioKind kind;
  std::uint64_t seed;
  double hours;
};

// The ground-truth suite's runs (shared: each directory is generated and analyzed once).
const Scenario kScenarios[] = {
    {ScenarioKind::kLaptop, 8, 2}, {ScenarioKind::kLaptop, 15, 2}, {ScenarioKind::kServer, 1, 1.5},
    {ScenarioKind::kNoDmon, 8, 2}, {ScenarioKind::kDatacenter, 3, 1.5},
};

std::shared_ptr<const cost::CostResult> cost_of(const PipelineResult& r) {
  cli::CostCliOptions o;
  o.draws = 200;  // the verdict's probability needs draws, not precision
  std::vector<std::string> gpus;
  for (const auto& d : r.timeline.devices)
    if (!d.name.empty() && std::find(gpus.begin(), gpus.end(), d.name) == gpus.end()) gpus.push_back(d.name);
  return cli::compute_cost(o, &r.features, gpus);
}

std::vector<Finding> run(const PipelineResult& r, const FindingOptions& o = {}) {
  const auto c = cost_of(r);
  return find(r.timeline, r.features, c.get(), o);
}

const Finding* by_rule(const std::vector<Finding>& fs, std::string_view rule) {
  for (const auto& f : fs)
    if (f.rule == rule) return &f;
  return nullptr;
}

std::int64_t xids_of(const ground_truth::Truth& t, const std::string& cls) {
  auto it = t.xid_by_class.find(cls);
  return it == t.xid_by_class.end() ? 0 : it->second;
}

class FindingsOnScenario : public ::testing::TestWithParam<Scenario> {
 protected:
  const Case& c() const { return ground_truth::scenario(GetParam().kind, GetParam().seed, GetParam().hours); }
};

TEST_P(FindingsOnScenario, EachRuleFiresExactlyWhereItsCauseWasInjected) {
  const Case& k = c();
  const auto& t = k.truth;
  const auto fs = run(*k.result);
  const bool dmon = GetParam().kind != ScenarioKind::kNoDmon;
  // Xids by the catalog's class.
  EXPECT_EQ(by_rule(fs, "gpu_fell_off_bus") != nullptr, xids_of(t, "bus") > 0 || t.count("fallen_off_bus") > 0);
  EXPECT_EQ(by_rule(fs, "gpu_memory_errors") != nullptr, xids_of(t, "memory_ecc") > 0);
  EXPECT_EQ(by_rule(fs, "driver_firmware_errors") != nullptr, xids_of(t, "driver_firmware") > 0);
  EXPECT_EQ(by_rule(fs, "application_gpu_faults") != nullptr, xids_of(t, "application") > 0);
  EXPECT_EQ(by_rule(fs, "rma_candidate") != nullptr, xids_of(t, "memory_ecc") + xids_of(t, "bus") >= 3);
  // Power: suspends or a minute on battery.
  TimeNs battery = 0;
  for (const auto& [b, e] : t.battery) battery += e - b;
  EXPECT_EQ(by_rule(fs, "laptop_power_interruptions") != nullptr,
            !t.suspends.empty() || battery >= 60 * kNsPerSec);
  EXPECT_EQ(by_rule(fs, "pcie_link_degraded") != nullptr, t.count("pcie_link_degraded") > 0);
  const auto benign = t.host.find("benign_driver_messages");
  if (benign != t.host.end() && benign->second) {
    EXPECT_EQ(by_rule(fs, "benign_driver_messages") != nullptr, *benign->second > 0);
  }
  // Without dmon no GPU idle share is known: the input-pipeline rule cannot claim anything.
  if (!dmon) {
    EXPECT_EQ(by_rule(fs, "input_pipeline_bound"), nullptr);
  }
  // The two answers are always a finding, in the cost section's words; priced only when the usage
  // and the price are known (a few hours of simulated logs leave the usage unknown).
  const Finding* v = by_rule(fs, "buy_or_rent");
  ASSERT_NE(v, nullptr);
  const auto cost = cost_of(*k.result);
  EXPECT_EQ(v->title, fmt::format("Own: {}; buy: {}", cost::own_decision_name(cost->own.decision),
                                  cost::buy_decision_name(cost->buy.decision)));
  if (cost->inputs.price_unknown || !cost->break_even.hours_per_month) {
    EXPECT_FALSE(v->money.per_month) << v->title;
  }
}

TEST_P(FindingsOnScenario, EvidencePointsAtTheRealLineOfTheGeneratedFile) {
  const Case& k = c();
  std::size_t checked = 0;
  for (const auto& f : run(*k.result)) {
    EXPECT_LE(f.events.size(), f.events_total) << f.rule;
    for (const auto& e : f.events) {
      const auto lines = sim::testing::read_lines(k.dir / e.file);
      ASSERT_GE(e.line, 1u) << f.rule;
      ASSERT_LE(e.line, lines.size()) << f.rule << " " << e.file;
      // The journal's JSON escapes quotes; compare a stretch without any.
      std::string needle = e.text.substr(0, std::min<std::size_t>(e.text.size(), 24));
      if (auto q = needle.find('"'); q != std::string::npos) needle.resize(q);
      EXPECT_NE(lines[e.line - 1].find(needle), std::string::npos)
          << f.rule << " " << e.file << ":" << e.line << " does not hold '" << needle << "'";
      ++checked;
    }
    for (const auto& fe : f.features) EXPECT_FALSE(fe.id.empty()) << f.rule;
  }
  // The healthy data-centre machine has nothing injected, so no finding points at a line.
  if (GetParam().kind != ScenarioKind::kDatacenter) {
    EXPECT_GT(checked, 0u);
  }
}

TEST_P(FindingsOnScenario, MoneyIsInTheReportCurrencyAndScalesToTheMeasuredUsage) {
  const Case& k = c();
  const auto cost = cost_of(*k.result);
  const auto fs = find(k.result->timeline, k.result->features, cost.get(), {});
  const auto busy_s = k.result->features.find("F017")->value;
  for (const auto& f : fs) {
    if (!f.money.per_month && !f.money.over_span) {
      EXPECT_FALSE(f.money.basis.empty()) << f.rule << ": unpriced findings say why";
      continue;
    }
    EXPECT_EQ(f.money.currency, cost->inputs.currency) << f.rule;
    if (f.rule == "buy_or_rent" || !f.money.over_span || !f.money.per_month) continue;
    ASSERT_TRUE(busy_s && *busy_s > 0);
    // per month = over the span x (usage a month / busy hours of the logs).
    EXPECT_NEAR(*f.money.per_month, *f.money.over_span * cost->break_even.hours_per_month.value_or(0) / (*busy_s / 3600.0),
                1e-9 * (1 + *f.money.per_month))
        << f.rule;
  }
  // Sorted: severity first.
  for (std::size_t i = 1; i < fs.size(); ++i) EXPECT_GE(fs[i - 1].severity, fs[i].severity);
}

INSTANTIATE_TEST_SUITE_P(Scenarios, FindingsOnScenario, ::testing::ValuesIn(kScenarios),
                         [](const auto& info) {
                           std::string name(sim::scenario_name(info.param.kind));
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name + "_seed" + std::to_string(info.param.seed);
                         });

// Issue 35: a healthy data-centre machine busy at its default power limit (the simulator's
// datacenter scenario: the server without any injected fault, its job drawing more than the
// 400 W limit) raises no warning; being power-bound is information. The troubled laptop keeps
// its warnings.
TEST(Findings, AHealthyDataCentreMachineAtItsPowerLimitRaisesNoWarning) {
  const Case& k = ground_truth::scenario(ScenarioKind::kDatacenter, 3, 1.5);
  EXPECT_TRUE(k.truth.xid_by_class.empty());
  const auto fs = run(*k.result);
  for (const auto& f : fs) EXPECT_EQ(f.severity, Severity::kInfo) << f.id << " " << f.title;
  const Finding* p = by_rule(fs, "power_capped");
  ASSERT_NE(p, nullptr);
  EXPECT_NE(p->title.find("Power-bound at its 400 W default limit"), std::string::npos) << p->title;
  EXPECT_EQ(by_rule(fs, "thermal_or_power_throttling"), nullptr);

  const auto laptop = run(*ground_truth::scenario(ScenarioKind::kLaptop, 8, 2).result);
  for (const char* rule : {"thermal_or_power_throttling", "laptop_power_interruptions", "gpu_fell_off_bus"}) {
    const Finding* f = by_rule(laptop, rule);
    ASSERT_NE(f, nullptr) << rule;
    EXPECT_GE(f->severity, Severity::kWarning) << rule;
  }
}

TEST(Findings, ThresholdsAreOptions) {
  const Case& k = ground_truth::scenario(ScenarioKind::kLaptop, 8, 2);
  FindingOptions strict;
  strict.idle_fraction = 1.0;       // idle all the time, never reached
  strict.throttled_fraction = 1.0;  // every sample throttled, never reached
  strict.battery_s = 1e9;
  strict.rma_hardware_xids = 1000;
  const auto fs = run(*k.result, strict);
  EXPECT_EQ(by_rule(fs, "input_pipeline_bound"), nullptr);
  EXPECT_EQ(by_rule(fs, "thermal_or_power_throttling"), nullptr);
  EXPECT_EQ(by_rule(fs, "rma_candidate"), nullptr);
  FindingOptions loose;
  loose.idle_fraction = 0;
  loose.cpu_competing_pct = 0;
  loose.throttled_fraction = 0;
  const auto fl = run(*k.result, loose);
  EXPECT_NE(by_rule(fl, "input_pipeline_bound"), nullptr);
  EXPECT_NE(by_rule(fl, "thermal_or_power_throttling"), nullptr);
}

// Healthy machines shaped like each scenario: GPUs busy at 95 % and cool, no throttling, one
// process on the CPU, a kernel log with nothing but a boot, a driver load and (laptop) AC on
// line. Only the verdict is a finding. `gpus` 0: no dmon (the no-dmon scenario's sources).
struct Healthy {
  const char* name;
  int gpus;
  bool laptop;
};

class FindingsHealthy : public ::testing::TestWithParam<Healthy> {};

TEST_P(FindingsHealthy, OnlyTheVerdict) {
  const Healthy& h = GetParam();
  const fs::path dir = sim::testing::temp_dir(std::string("findings-healthy-") + h.name);
  fs::create_directories(dir);
  {
    if (h.gpus > 0) {
      std::ofstream d(dir / "dmon.log");
      d << "#Date        Time         gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk  pviol  tviol     fb   bar1   ccpm  sbecc  dbecc    pci  rxpci  txpci \n";
      d << "#YYYYMMDD    HH:MM:SS     Idx      W      C      C      %      %      %      %      %      %    MHz    MHz      %   bool     MB     MB     MB   errs   errs   errs   MB/s   MB/s \n";
      for (int s = 0; s < 600; ++s)
        for (int g = 0; g < h.gpus; ++g)
          d << fmt::format(" 20261120    10:{:02}:{:02}     {:3}    250     62      -     95     40      0      0      0      0  10501   2520      0      0  20000      5      0      -      -      0    900     40 \n",
                           s / 60, s % 60, g);
    }
    std::ofstream p(dir / "ps.txt");
    for (int m = 0; m < 10; ++m) {
      p << fmt::format("### gpucost-ps 2026-11-20T10:{:02}:30+00:00\n", m);
      p << "USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND\n";
      p << "root           1  0.1  0.0 168532 13064 ?        Ss   09:00   0:00 /sbin/init\n";
      p << "alice       4242 99.0 12.0 9999999 2000000 ?     Rl   10:00   9:00 python train.py\n";
    }
    std::ofstream k(dir / "dmesg.txt");
    k << "[    0.000000] Linux version 6.8.0-48-generic (buildd@lcy02-amd64-010) (gcc 13.2.0) #48-Ubuntu SMP\n";
    if (h.laptop) k << "[    2.310000] ACPI: AC: AC Adapter [ADP1] (on-line)\n";
    k << "[    5.120000] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.120  Fri Sep 13 10:10:16 UTC 2024\n";
  }
  const Case& c = ground_truth::pipeline_on(dir);
  EXPECT_EQ(c.result->timeline.samples.rows(), static_cast<std::size_t>(600 * h.gpus));
  EXPECT_GT(c.result->timeline.events.rows(), 0u);
  const auto fs = run(*c.result);
  ASSERT_FALSE(fs.empty());
  for (const auto& f : fs) EXPECT_EQ(f.rule, "buy_or_rent") << f.title;
}

const Healthy kHealthy[] = {{"laptop", 1, true}, {"server", 4, false}, {"no_dmon", 0, true}};
INSTANTIATE_TEST_SUITE_P(Scenarios, FindingsHealthy, ::testing::ValuesIn(kHealthy),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(Findings, RulesHaveUniqueIdsNamesAndRationales) {
  std::set<std::string_view> ids, names;
  for (const auto& r : finding_rules()) {
    EXPECT_TRUE(ids.insert(r.id).second) << r.id;
    EXPECT_TRUE(names.insert(r.name).second) << r.name;
    EXPECT_FALSE(r.fires_when.empty()) << r.id;
    EXPECT_FALSE(r.money.empty()) << r.id;
    EXPECT_FALSE(r.rationale.empty()) << r.id;
    EXPECT_FALSE(r.normal.empty()) << r.id << ": each rule says what it takes as normal";
    EXPECT_TRUE(is_rule(r.id) && is_rule(r.name)) << r.id;
  }
  EXPECT_GE(finding_rules().size(), 16u);
}

TEST(Findings, DocsAreGeneratedFromTheRuleTable) {
  const std::string path = std::string(GPUCOST_SOURCE_DIR) + "/docs/findings.md";
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << path;
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(doc, render_finding_rules("md"))
      << "docs/findings.md is stale: run `./build/gpucost findings --format md -o docs/findings.md`";
  EXPECT_THROW(render_finding_rules("csv"), std::invalid_argument);
}

// The outputs carry the findings: the table leads with them, Prometheus has one series each.
TEST(FindingsInReports, TableLeadsWithTheAnswerAndPromHasASeriesPerFinding) {
  const std::string example = (fs::path(GPUCOST_SOURCE_DIR) / "examples" / "laptop-training").string();
  const auto table = gpucost::testing::run_gpucost({"analyze", example, "--no-timings"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  const auto summary = table.out.find("\nAnswer\n"), verdict = table.out.find("  Own it?  ");
  const auto findings = table.out.find("\nFindings ("), cost = table.out.find("\nCost model");
  const auto features = table.out.find("feature (host)");
  ASSERT_NE(summary, std::string::npos);
  ASSERT_NE(findings, std::string::npos);
  ASSERT_NE(cost, std::string::npos);
  ASSERT_NE(features, std::string::npos);
  EXPECT_LT(summary, verdict);
  EXPECT_LT(verdict, findings);
  EXPECT_LT(findings, cost);
  EXPECT_LT(cost, features);

  const auto prom = gpucost::testing::run_gpucost({"analyze", example, "--no-timings", "--format", "prom"});
  ASSERT_EQ(prom.exit_code, 0) << prom.err;
  EXPECT_NE(prom.out.find("# TYPE gpucost_finding gauge"), std::string::npos);
  EXPECT_NE(prom.out.find("gpucost_finding{host=\"unknown\",rule=\"gpu_fell_off_bus\",id=\"R05\",severity=\"critical\"} 1"),
            std::string::npos)
      << prom.out.substr(prom.out.find("gpucost_finding"), 600);
}

}  // namespace
}  // namespace gpucost::findings
