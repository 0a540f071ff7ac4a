// The cost block in its three renderings carries the same figures.
#include "gpucost/report/cost_section.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <sstream>

#include "gpucost/cost/resolve.hpp"
#include "gpucost/text/csv.hpp"
#include "gpucost/text/json.hpp"

namespace gpucost::cost {
namespace {

CostResult seed_result() {
  ResolveRequest rq;
  rq.selection.preset = "seed-article";
  return evaluate(resolve_inputs(builtin_presets(), rq), CostQuery{});
}

TEST(CostReport, JsonHasTheContractKeys) {
  std::string out;
  JsonWriter w(out);
  write_cost_json(w, seed_result());
  simdjson::dom::parser p;
  simdjson::dom::element doc = p.parse(out);
  EXPECT_EQ(std::string_view(doc["currency"]), "CNY");
  EXPECT_EQ(double(doc["inputs"]["local"]["power_w"]["value"]), 115);
  EXPECT_EQ(std::string_view(doc["inputs"]["local"]["power_w"]["unit"]), "W");
  EXPECT_EQ(std::string_view(doc["inputs"]["local"]["power_w"]["origin"]), "preset:seed-article");
  EXPECT_EQ(std::string_view(doc["inputs"]["local"]["electricity_price"]["unit"]), "CNY/kWh");
  for (const char* k : {"amortization_per_hour", "electricity_per_hour", "cooling_per_hour", "maintenance_per_hour",
                        "cost_per_wall_hour", "effective_utilization", "cost_per_effective_hour"})
    EXPECT_TRUE(doc["local"][k].is_double()) << k;
  EXPECT_TRUE(doc["cloud"]["cost_per_effective_hour"].is_double());
  EXPECT_NEAR(double(doc["cloud"]["cold_start_cost"]), 0.1066, 1e-9);
  EXPECT_EQ(std::string_view(doc["break_even"]["verdict"]), "local_always_cheaper");
  EXPECT_TRUE(doc["break_even"]["job_hours"].is_null());
  EXPECT_TRUE(doc["break_even"]["premium_at_job_hours"].is_double());
  EXPECT_TRUE(doc["break_even"]["job_hours_at_target_premium"].is_null());
  EXPECT_TRUE(doc["break_even"]["buy_vs_rent_hours"].is_double());
  EXPECT_EQ(simdjson::dom::array(doc["sensitivity"]["rows"]).size(), kInputCount);
  EXPECT_FALSE(std::string_view(doc["verdict_text"]).empty());
}

TEST(CostReport, InfiniteCostsAreNullInJson) {
  CostInputs in = seed_result().inputs;
  in.set(InputId::kEffectiveUtilization, 0, "cli");
  std::string out;
  JsonWriter w(out);
  write_cost_json(w, evaluate(in, CostQuery{}));
  // No number is written as nan or inf (the parse below would also fail on them).
  for (const char* bad : {": nan", ": -nan", ": inf", ": -inf", ": NaN", ": Infinity"})
    EXPECT_EQ(out.find(bad), std::string::npos) << bad;
  simdjson::dom::parser p;
  simdjson::dom::element doc = p.parse(out);
  EXPECT_TRUE(doc["local"]["cost_per_effective_hour"].is_null());
  EXPECT_EQ(std::string_view(doc["break_even"]["verdict"]), "cloud_always_cheaper");
}

TEST(CostReport, CsvRowsUseTheAnalyzeLayout) {
  std::string out;
  CsvWriter c(out);
  write_cost_csv_rows(c, seed_result());
  std::istringstream lines(out);
  std::string line;
  int rows = 0;
  bool saw_power = false, saw_verdict = false;
  while (std::getline(lines, line)) {
    ++rows;
    // Seven fields; quoted fields may hold commas, so count commas outside quotes.
    int fields = 1;
    bool quoted = false;
    for (char ch : line) {
      if (ch == '"') quoted = !quoted;
      else if (ch == ',' && !quoted) ++fields;
    }
    EXPECT_EQ(fields, 7) << line;
    EXPECT_NE(line.find(",cost,"), std::string::npos) << line;
    if (line.rfind("C004,input.local.power_w,115,W,cost,", 0) == 0) saw_power = true;
    if (line.rfind("C040,break_even.verdict,,,cost,local_always_cheaper", 0) == 0) saw_verdict = true;
  }
  EXPECT_TRUE(saw_power);
  EXPECT_TRUE(saw_verdict);
  EXPECT_GT(rows, 40);
}

TEST(CostReport, TableShowsUnitsCurrencyAndVerdict) {
  std::string out;
  write_cost_table(out, seed_result());
  EXPECT_NE(out.find("currency CNY"), std::string::npos);
  EXPECT_NE(out.find("4299 CNY / 5760 h"), std::string::npos);
  EXPECT_NE(out.find("CNY/kWh"), std::string::npos);
  EXPECT_NE(out.find("Job length (a detail of the cost, not an answer): Local is cheaper for every job length"), std::string::npos);
  EXPECT_NE(out.find("Sensitivity of break_even.buy_vs_rent_hours"), std::string::npos);
}

}  // namespace
}  // namespace gpucost::cost
