// `gpucost breakeven` and the cost section of `gpucost analyze`, run as a user would.
#include <gtest/gtest.h>
#include <simdjson.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "gpucost/features/features.hpp"

namespace gpucost {
namespace {

struct CliRun {
  int rc = -1;
  std::string out, err;
};

CliRun run(const std::string& args) {
  // One file per process and call: ctest may run these tests in parallel.
  static int calls = 0;
  const std::string err_path =
      ::testing::TempDir() + "gpucost_cost_cli_stderr." + std::to_string(::getpid()) + "." + std::to_string(++calls);
  const std::string cmd = std::string(GPUCOST_BINARY) + " " + args + " 2>" + err_path;
  CliRun r;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int status = ::pclose(p);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream e(err_path);
  std::ostringstream ss;
  ss << e.rdbuf();
  r.err = ss.str();
  std::remove(err_path.c_str());
  return r;
}

std::string data(const std::string& rel) { return std::string(GPUCOST_TEST_DATA) + "/" + rel; }

double round3(double v) { return std::round(v * 1000) / 1000; }

TEST(CostCli, SeedArticleJsonReproducesTheArticlesFigures) {
  const CliRun r = run("breakeven --preset seed-article --format json");
  ASSERT_EQ(r.rc, 0) << r.err;
  simdjson::dom::parser p;
  simdjson::dom::element doc = p.parse(r.out);
  auto local = doc["local"];
  EXPECT_EQ(round3(double(local["amortization_per_hour"])), 0.746);
  EXPECT_EQ(round3(double(local["electricity_per_hour"])), 0.071);
  EXPECT_EQ(round3(double(local["cooling_per_hour"])), 0.014);
  EXPECT_EQ(round3(double(local["maintenance_per_hour"])), 0.196);
  EXPECT_DOUBLE_EQ(double(local["effective_utilization"]), 0.7666);
  // 1.0271275 / 0.7666 = 1.3398 exactly; the article's 1.338 is the same sum of rounded terms.
  EXPECT_NEAR(double(local["cost_per_effective_hour"]), 1.338, 0.002);
  EXPECT_EQ(std::string_view(doc["break_even"]["verdict"]), "local_always_cheaper");
  EXPECT_TRUE(doc["break_even"]["job_hours"].is_null());
  EXPECT_TRUE(doc["break_even"]["job_hours_at_target_premium"].is_null());
}

TEST(CostCli, ImpossibleInputIsAUsageErrorOnOneLine) {
  const CliRun r = run("breakeven --preset seed-article --local-purchase-price -4299");
  EXPECT_EQ(r.rc, 2);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("local.purchase_price = -4299 CNY (cli) is impossible"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  EXPECT_EQ(run("breakeven --cloud-utilization 1.5").rc, 2);
  EXPECT_EQ(run("breakeven --config " + data("cost/config/negative.json")).rc, 2);
  EXPECT_EQ(run("breakeven --config " + data("cost/config/typo.json")).rc, 2);
  EXPECT_EQ(run("breakeven --preset no-such-scenario").rc, 2);
}

TEST(CostCli, ConfigFileValuesSayConfig) {
  const CliRun r = run("breakeven --format json --config " + data("cost/config/cny-laptop.json") + " --cloud-cold-start-s 60");
  ASSERT_EQ(r.rc, 0) << r.err;
  simdjson::dom::parser p;
  simdjson::dom::element doc = p.parse(r.out);
  auto in = doc["inputs"];
  EXPECT_EQ(std::string_view(in["local"]["power_w"]["origin"]), "config");
  EXPECT_EQ(double(in["local"]["power_w"]["value"]), 90);
  EXPECT_EQ(std::string_view(in["cloud"]["hourly_rate"]["origin"]), "config");
  EXPECT_EQ(std::string_view(in["cloud"]["cold_start_s"]["origin"]), "cli");
  EXPECT_EQ(std::string_view(in["local"]["purchase_price"]["origin"]), "preset:seed-article");
  EXPECT_EQ(double(in["query"]["job_hours"]["value"]), 2);
  // 90 W * 0.62 / 1000 = 0.0558 per hour
  EXPECT_NEAR(double(doc["local"]["electricity_per_hour"]), 0.0558, 1e-12);
}

TEST(CostCli, CsvAndTableAndListing) {
  const CliRun csv = run("breakeven --preset seed-article --format csv");
  ASSERT_EQ(csv.rc, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("id,name,value,unit,layer,reason,scope\n", 0), 0u);
  EXPECT_NE(csv.out.find("\nC040,break_even.verdict,,,cost,local_always_cheaper"), std::string::npos);
  const CliRun table = run("breakeven --preset seed-article");
  ASSERT_EQ(table.rc, 0);
  EXPECT_NE(table.out.find("Own it? "), std::string::npos);
  EXPECT_NE(table.out.find("Buy it? "), std::string::npos);
  EXPECT_EQ(table.out.find("Verdict: "), std::string::npos);  // the job length is a detail, not a verdict
  const CliRun list = run("breakeven --list-presets");
  ASSERT_EQ(list.rc, 0);
  EXPECT_NE(list.out.find("seed-article"), std::string::npos);
}

// What analyze should say for one measured input, whatever the feature catalog holds today.
void expect_measured_or_explained(simdjson::dom::element input, std::string_view feature,
                                  std::optional<double> expected) {
  const std::string_view origin = input["origin"];
  const std::string_view note = input["note"].is_null() ? std::string_view() : std::string_view(input["note"]);
  const auto idx = feature_index(feature);
  if (idx == kNoFeature) {
    EXPECT_EQ(origin.rfind("measured:", 0), std::string_view::npos) << feature;
    EXPECT_NE(note.find(feature), std::string_view::npos) << note;
    return;
  }
  if (origin.rfind("measured:", 0) == 0) {
    EXPECT_EQ(origin, "measured:" + std::string(feature_catalog()[idx].id));
    if (expected) {
      EXPECT_NEAR(double(input["value"]), *expected, 1e-9);
    }
  } else {
    EXPECT_NE(note.find("is null"), std::string_view::npos) << note;  // a null feature, said so
  }
}

TEST(CostCli, AnalyzeUsesMeasuredValuesAndSaysSo) {
  const CliRun r = run("analyze " + data("cost/analyze") + " --format json --no-timings");
  ASSERT_EQ(r.rc, 0) << r.err;
  simdjson::dom::parser p;
  simdjson::dom::element doc = p.parse(r.out);
  auto local = doc["cost"]["inputs"]["local"];
  // 3 of 10 samples idle -> 1 - 0.3 (the other shares are 0 in these logs).
  auto u = local["effective_utilization"];
  const std::string_view origin = u["origin"];
  ASSERT_EQ(origin.rfind("measured:", 0), 0u) << origin;
  const auto eff = feature_index("effective_utilization");
  const auto idle = feature_index("gpu_idle_fraction");
  const std::string id(feature_catalog()[eff != kNoFeature ? eff : idle].id);
  EXPECT_EQ(origin, "measured:" + id);
  EXPECT_NEAR(double(u["value"]), 0.7, 1e-9);
  // Mean of the dmon pwr column: 910 / 10 = 91 W.
  expect_measured_or_explained(local["power_w"], "gpu_power_mean_w", 91.0);
  expect_measured_or_explained(local["incidents_per_hour"], "incidents_per_hour", std::nullopt);
  EXPECT_FALSE(std::string_view(doc["cost"]["break_even"]["verdict"]).empty());

  const CliRun off = run("analyze " + data("cost/analyze") + " --format json --no-timings --no-measured");
  ASSERT_EQ(off.rc, 0) << off.err;
  simdjson::dom::element d2 = p.parse(off.out);
  auto u2 = d2["cost"]["inputs"]["local"]["effective_utilization"];
  EXPECT_EQ(std::string_view(u2["origin"]).rfind("measured:", 0), std::string_view::npos);
  EXPECT_NE(std::string_view(u2["note"]).find("--no-measured"), std::string_view::npos);
}

TEST(CostCli, BreakevenWithAnalyzesInputsReproducesItsVerdict) {
  const std::string example = std::string(GPUCOST_SOURCE_DIR) + "/examples/laptop-training";
  const CliRun a = run("analyze " + example + " --format json --no-timings");
  ASSERT_EQ(a.rc, 0) << a.err;
  simdjson::dom::parser pa;
  simdjson::dom::element da = pa.parse(a.out);
  const std::string cfg = ::testing::TempDir() + "gpucost_cost_inputs." + std::to_string(::getpid()) + ".json";
  {
    std::ofstream f(cfg);
    f << simdjson::minify(da["cost"]["inputs"]);
  }
  const CliRun b = run("breakeven --config " + cfg + " --format json");
  std::remove(cfg.c_str());
  ASSERT_EQ(b.rc, 0) << b.err;
  simdjson::dom::parser pb;
  simdjson::dom::element db = pb.parse(b.out);
  auto ca = da["cost"];
  // Values travel through JSON at 10 significant digits: categories match exactly, numbers closely.
  EXPECT_EQ(std::string_view(ca["break_even"]["verdict"]), std::string_view(db["break_even"]["verdict"]));
  EXPECT_EQ(bool(ca["verdict"]["buy_pays"]), bool(db["verdict"]["buy_pays"]));
  EXPECT_EQ(bool(ca["verdict"]["flips_within_speed_bracket"]), bool(db["verdict"]["flips_within_speed_bracket"]));
  EXPECT_EQ(std::string_view(ca["currency"]), std::string_view(db["currency"]));
  auto near = [](simdjson::dom::element x, simdjson::dom::element y) {
    if (x.is_null() || y.is_null()) {
      EXPECT_EQ(x.is_null(), y.is_null());
      return;
    }
    EXPECT_NEAR(double(x), double(y), 1e-7 * std::max(1.0, std::fabs(double(x))));
  };
  near(ca["break_even"]["job_hours"], db["break_even"]["job_hours"]);
  near(ca["break_even"]["usage_threshold_hours_per_month"]["value"], db["break_even"]["usage_threshold_hours_per_month"]["value"]);
  near(ca["usage"]["hours_per_month"]["value"], db["usage"]["hours_per_month"]["value"]);
  EXPECT_EQ(std::string_view(ca["verdict"]["own"]["decision"]), std::string_view(db["verdict"]["own"]["decision"]));
  EXPECT_EQ(std::string_view(ca["verdict"]["buy"]["decision"]), std::string_view(db["verdict"]["buy"]["decision"]));
  near(ca["relative_speed"]["used"]["value"], db["relative_speed"]["used"]["value"]);
  near(ca["relative_speed"]["compute_bound"], db["relative_speed"]["compute_bound"]);
  near(ca["relative_speed"]["bandwidth_bound"], db["relative_speed"]["bandwidth_bound"]);
  EXPECT_EQ(uint64_t(ca["uncertainty"]["seed"]), uint64_t(db["uncertainty"]["seed"]));
  EXPECT_EQ(uint64_t(ca["uncertainty"]["draws"]), uint64_t(db["uncertainty"]["draws"]));
  // The same draws from the same ranges: a draw within 1e-9 of the threshold could flip, no more.
  // (null on both sides while the usage is unknown: no draw can compare the threshold with anything)
  if (ca["uncertainty"]["probability_buy_cheaper"].is_null() || db["uncertainty"]["probability_buy_cheaper"].is_null())
    EXPECT_EQ(ca["uncertainty"]["probability_buy_cheaper"].is_null(), db["uncertainty"]["probability_buy_cheaper"].is_null());
  else
    EXPECT_NEAR(double(ca["uncertainty"]["probability_buy_cheaper"]),
                double(db["uncertainty"]["probability_buy_cheaper"]), 2e-4);
  near(ca["uncertainty"]["usage_threshold_hours_per_month"]["p50"], db["uncertainty"]["usage_threshold_hours_per_month"]["p50"]);
  EXPECT_EQ(simdjson::dom::object(ca["inputs"]["ranges"]).size(), simdjson::dom::object(db["inputs"]["ranges"]).size());
}

TEST(CostCli, AnH200IsPricedAsAnH200) {
  // The H200 fixture: the verdict is about an H200 against renting an H200, never about another GPU.
  const CliRun r = run("analyze " + data("gpu/h200/collect") + " --format json --no-timings");
  ASSERT_EQ(r.rc, 0) << r.err;
  simdjson::dom::parser p;
  simdjson::dom::element c = p.parse(r.out)["cost"];
  EXPECT_EQ(std::string_view(c["local_gpu"]["preset"]), "h200");
  EXPECT_EQ(std::string_view(c["local_gpu"]["label"]), "NVIDIA H200");
  const std::string_view offer = c["cloud_offer"]["preset"];
  EXPECT_NE(offer.find("h200"), std::string_view::npos) << offer;
  EXPECT_NEAR(double(c["relative_speed"]["compute_bound"]), 1.0, 1e-12);
  const std::string_view summary = c["verdict"]["summary"];
  EXPECT_NE(summary.find("NVIDIA H200"), std::string_view::npos) << summary;
  EXPECT_EQ(summary.find("4090"), std::string_view::npos) << summary;
}

TEST(CostCli, CatalogFileReplacesAPriceAndOldPricesAreFlagged) {
  const std::string cat = ::testing::TempDir() + "gpucost_catalog." + std::to_string(::getpid()) + ".csv";
  {
    std::ofstream f(cat);
    f << "Name,Provider,InstanceType,AcceleratorName,AcceleratorCount,Region,Price,SpotPrice,Currency,Source,"
         "ObservedOn\n"
         "aws-g6.xlarge,AWS,g6.xlarge,L4,1,us-east-1,0.70,0.30,usd,https://example.org/prices,2020-01-01\n";
  }
  const CliRun r = run("breakeven --catalog " + cat + " --pricing spot");
  const CliRun j = run("breakeven --catalog " + cat + " --format json");
  std::remove(cat.c_str());
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("Warning: the hourly rate of aws-g6.xlarge was observed on 2020-01-01"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("spot price; https://example.org/prices; observed 2020-01-01"), std::string::npos) << r.out;
  ASSERT_EQ(j.rc, 0) << j.err;
  simdjson::dom::parser p;
  simdjson::dom::element c = p.parse(j.out);
  EXPECT_EQ(double(c["inputs"]["cloud"]["hourly_rate"]["value"]), 0.70);
  EXPECT_EQ(std::string_view(c["cloud"]["price_observed_on"]), "2020-01-01");
  EXPECT_EQ(std::string_view(c["cloud"]["pricing"]), "on-demand");
}

TEST(CostCli, TheTornadoShowsWhenUsageFlipsTheBuyVerdict) {
  // RTX 4090 desktop (host, wall power and resale by its class) against renting one at 0.60 USD/h:
  // buying pays above 77.3 h a month; at 80 h, -20 % (64 h) does not pay and +20 % (96 h) does.
  const CliRun r =
      run("breakeven --local rtx-4090 --cloud runpod-rtx-4090 --cloud-hourly-rate 0.60 --hours-per-month 80");
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto row = r.out.find("  local.hours_per_month ", r.out.find("Sensitivity of"));
  ASSERT_NE(row, std::string::npos) << r.out;
  const std::string line = r.out.substr(row, r.out.find('\n', row) - row);
  EXPECT_NE(line.find("buying pays: no / yes"), std::string::npos) << line;
  EXPECT_NE(r.out.find("Buy it? Buying NVIDIA GeForce RTX 4090 instead of renting RunPod RTX 4090 (Community Cloud pod) (1x RTX4090): buy:"),
            std::string::npos)
      << r.out;
}

TEST(CostCli, AnalyzeCsvAndTableCarryTheCostBlock) {
  const CliRun csv = run("analyze " + data("cost/analyze") + " --format csv --no-timings");
  ASSERT_EQ(csv.rc, 0) << csv.err;
  EXPECT_NE(csv.out.find("\nC025,local.effective_utilization,0.7,ratio,cost,"), std::string::npos) << csv.out;
  const CliRun table = run("analyze " + data("cost/analyze") + " --no-timings");
  ASSERT_EQ(table.rc, 0);
  EXPECT_NE(table.out.find("Cost model (currency USD"), std::string::npos);
  const CliRun bad = run("analyze " + data("cost/analyze") + " --preset nope");
  EXPECT_EQ(bad.rc, 2);
}

}  // namespace
}  // namespace gpucost
