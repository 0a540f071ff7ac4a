// Issue 35 on a real machine: an H200 collection (tests/data/gpu/h200/collect-bursts, README.md
// there) whose board sits at its 700 W default power limit under dense bf16 work. Power-bound by
// design is information, never a warning; the same collection with the limit rewritten to 450 W
// is a warning that names both limits and the command that restores the default; the idle
// stretch between the two bursts reads whole although dmon skipped a second inside it.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "cli/cost_options.hpp"
#include "gpucost/findings/findings.hpp"
#include "unit/ground_truth.hpp"

namespace gpucost::findings {
namespace {

namespace fs = std::filesystem;

const fs::path kDir = fs::path(GPUCOST_TEST_DATA) / "gpu" / "h200" / "collect-bursts";

std::vector<Finding> findings_of(const PipelineResult& r) {
  cli::CostCliOptions o;
  o.draws = 200;
  std::vector<std::string> gpus;
  for (const auto& d : r.timeline.devices)
    if (!d.name.empty() && std::find(gpus.begin(), gpus.end(), d.name) == gpus.end()) gpus.push_back(d.name);
  const auto cost = cli::compute_cost(o, &r.features, gpus);
  return find(r.timeline, r.features, cost.get(), {});
}

const Finding* by_rule(const std::vector<Finding>& fs, std::string_view rule) {
  for (const auto& f : fs)
    if (f.rule == rule) return &f;
  return nullptr;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every `from` in `text` replaced by `to`; how many there were.
std::size_t replace_all(std::string& text, std::string_view from, std::string_view to) {
  std::size_t n = 0;
  for (auto p = text.find(from); p != std::string::npos; p = text.find(from, p + to.size()), ++n)
    text.replace(p, from.size(), to);
  return n;
}

TEST(FindingsH200, PowerBoundAtTheDefaultLimitIsNoWarning) {
  const auto& c = ground_truth::pipeline_on(kDir);
  // The -q reports keep the board's own limits.
  std::size_t defaults = 0, actions = 0;
  for (const auto& d : c.result->timeline.devices) {
    if (d.power_default_limit_w) {
      ++defaults;
      EXPECT_EQ(*d.power_default_limit_w, 700);
      ASSERT_TRUE(d.power_max_limit_w);
      EXPECT_EQ(*d.power_max_limit_w, 700);
    }
    if (!d.recovery_action.empty()) {
      ++actions;
      EXPECT_EQ(d.recovery_action, "None");
    }
  }
  EXPECT_EQ(defaults, 3u);  // -q at the start, under load, and -d POWER
  EXPECT_EQ(actions, 2u);   // -d POWER has no `GPU Recovery Action` line

  const auto fs = findings_of(*c.result);
  for (const auto& f : fs) {
    EXPECT_EQ(f.severity, Severity::kInfo) << f.id << " " << f.title;
    // Fans and paste only where temperature is the cause: 63 °C at most, 17 °C below slowdown.
    EXPECT_EQ(f.next_step.find("paste"), std::string::npos) << f.id << " " << f.next_step;
    EXPECT_EQ(f.next_step.find("fans"), std::string::npos) << f.id << " " << f.next_step;
  }
  EXPECT_EQ(by_rule(fs, "thermal_or_power_throttling"), nullptr);
  const Finding* p = by_rule(fs, "power_capped");
  ASSERT_NE(p, nullptr);
  EXPECT_NE(p->title.find("Power-bound at its 700 W default limit"), std::string::npos) << p->title;
  EXPECT_NE(p->title.find("normal for dense tensor work"), std::string::npos) << p->title;
  EXPECT_NE(p->title.find("the clock ran at 75 % of its maximum"), std::string::npos) << p->title;
  EXPECT_NE(p->money.basis.find("costs nothing"), std::string::npos) << p->money.basis;
}

TEST(FindingsH200, TheIdleStretchBetweenTheBurstsIsOneRun) {
  // 25 s idle between the bursts; dmon skipped 02:04:20 inside it.
  const auto& c = ground_truth::pipeline_on(kDir);
  const FeatureValue* longest = c.result->features.find("gpu_longest_idle_s");
  ASSERT_NE(longest, nullptr);
  ASSERT_TRUE(longest->value) << longest->reason;
  EXPECT_GE(*longest->value, 23);
  EXPECT_LE(*longest->value, 27);
}

// The same collection with the limit lowered to 450 W, as `nvidia-smi -pl 450` leaves it: -q's
// Current and Requested Power Limit and query-gpu's power.limit and enforced.power.limit say 450 W,
// the Default Power Limit stays 700 W.
fs::path lowered_copy() {
  const fs::path dir = sim::testing::temp_dir("h200-limit-450");
  fs::create_directories(dir);
  std::size_t q_lines = 0, csv_rows = 0;
  for (const auto& e : fs::directory_iterator(kDir)) {
    std::string text = slurp(e.path());
    const std::string name = e.path().filename().string();
    if (name.rfind("nvidia-smi-q-", 0) == 0) {
      for (const char* key : {"Current Power Limit", "Requested Power Limit"}) {
        const std::string pad(47 - std::string_view(key).size(), ' ');
        q_lines += replace_all(text, std::string(key) + pad + ": 700.00 W", std::string(key) + pad + ": 450.00 W");
      }
    } else if (name == "nvidia-smi-query-gpu.csv") {
      csv_rows = replace_all(text, " W, 700.00 W, 700.00 W,", " W, 450.00 W, 450.00 W,");
    }
    std::ofstream(dir / e.path().filename(), std::ios::binary) << text;
  }
  EXPECT_EQ(q_lines, 6u);  // -q at the start, under load and -d POWER: Current and Requested each
  EXPECT_GT(csv_rows, 100u);
  return dir;
}

TEST(FindingsH200, ALimitBelowTheDefaultIsAWarningNamingBothLimits) {
  const auto& c = ground_truth::pipeline_on(lowered_copy());
  const auto fs = findings_of(*c.result);
  const Finding* p = by_rule(fs, "power_capped");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->severity, Severity::kWarning) << p->title;
  EXPECT_NE(p->title.find("power limit 450 W, below its 700 W default"), std::string::npos) << p->title;
  EXPECT_NE(p->next_step.find("`sudo nvidia-smi -i 0 -pl 700`"), std::string::npos) << p->next_step;
  // Still no heat: no thermal finding, no fan advice.
  EXPECT_EQ(by_rule(fs, "thermal_or_power_throttling"), nullptr);
  for (const auto& f : fs) {
    if (f.rule == "power_capped") continue;
    EXPECT_EQ(f.severity, Severity::kInfo) << f.id << " " << f.title;
  }
}

// query-gpu alone says it too: power.limit below power.default_limit.
TEST(FindingsPowerLimit, QueryGpuDefaultLimitAboveTheEnforcedOne) {
  const fs::path dir = sim::testing::temp_dir("querygpu-default-limit");
  fs::create_directories(dir);
  {
    std::ofstream q(dir / "query.csv");
    q << "timestamp, index, name, pci.bus_id, utilization.gpu [%], power.draw [W], power.limit [W], "
         "power.default_limit [W], power.max_limit [W], gpu_recovery_action\n";
    for (int s = 0; s < 120; ++s)
      q << fmt::format("2026/12/04 02:{:02}:{:02}.100, 0, NVIDIA H100 80GB HBM3, 00000000:18:00.0, 100 %, 299.1 W, "
                       "300.00 W, 700.00 W, 700.00 W, None\n",
                       s / 60, s % 60);
  }
  const auto& c = ground_truth::pipeline_on(dir);
  ASSERT_FALSE(c.result->timeline.devices.empty());
  const GpuDevice& d = c.result->timeline.devices.front();
  ASSERT_TRUE(d.power_default_limit_w);
  EXPECT_EQ(*d.power_default_limit_w, 700);
  EXPECT_EQ(d.recovery_action, "None");
  FindingOptions o;
  const auto fs = find(c.result->timeline, c.result->features, nullptr, o);
  const Finding* p = by_rule(fs, "power_capped");
  ASSERT_NE(p, nullptr);
  // No pviol or clock-event reason columns: the lowered limit alone is the warning, and the
  // finding says what would show how often it caps the work.
  EXPECT_EQ(p->severity, Severity::kWarning) << p->title;
  EXPECT_NE(p->to_confirm.find("pviol"), std::string::npos) << p->to_confirm;
  EXPECT_NE(p->title.find("GPU 0 power limit 300 W, below its 700 W default"), std::string::npos) << p->title;
  EXPECT_NE(p->next_step.find("nvidia-smi -i 0 -pl 700"), std::string::npos) << p->next_step;
}

}  // namespace
}  // namespace gpucost::findings
