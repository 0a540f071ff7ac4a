// The per-job rows of `analyze --format ndjson` (docs/fleet.md) on the bundled example: one line
// per GPU plus the node's, the window from --since/--until, the identifiers, sums that add up,
// nulls with reasons, --gpu selection, and the documented field table matching the output.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gpucost/report/ndjson_writer.hpp"
#include "run_binary.hpp"

namespace fs = std::filesystem;

namespace {

using gpucost::testing::run_gpucost;

const std::string kExample = (fs::path(GPUCOST_SOURCE_DIR) / "examples" / "laptop-training").string();

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::vector<std::string> rows(const std::vector<std::string>& extra) {
  std::vector<std::string> args{"analyze", kExample, "--since", "2026-11-20T01:00:00Z", "--until",
                                "2026-11-20T03:00:00Z", "--job-id", "4242", "--user", "alice",
                                "--format", "ndjson", "--no-timings"};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = run_gpucost(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return lines_of(r.out);
}

double num(simdjson::dom::element e, const char* k) {
  double d = NAN;
  if (e[k].get(d) == simdjson::SUCCESS) return d;
  std::int64_t i = 0;
  if (e[k].get(i) == simdjson::SUCCESS) return static_cast<double>(i);
  return NAN;
}

std::string str(simdjson::dom::element e, const char* k) {
  std::string_view s;
  return e[k].get(s) == simdjson::SUCCESS ? std::string(s) : std::string("<null>");
}

TEST(JobRows, OneRowPerGpuThenTheNodeWithTheJobWindow) {
  const auto lines = rows({});
  ASSERT_EQ(lines.size(), 2u);  // the example has one GPU
  simdjson::dom::parser p1, p2;
  simdjson::dom::element gpu, node;
  ASSERT_EQ(p1.parse(lines[0]).get(gpu), simdjson::SUCCESS) << lines[0];
  ASSERT_EQ(p2.parse(lines[1]).get(node), simdjson::SUCCESS) << lines[1];
  EXPECT_EQ(str(gpu, "schema"), "gpucost.job_row");
  EXPECT_EQ(num(gpu, "schema_version"), gpucost::kJobRowSchemaVersion);
  EXPECT_EQ(str(gpu, "row"), "gpu");
  EXPECT_EQ(str(node, "row"), "node");
  for (auto e : {gpu, node}) {
    EXPECT_EQ(str(e, "job_id"), "4242");
    EXPECT_EQ(str(e, "user"), "alice");
    EXPECT_EQ(str(e, "window_start"), "2026-11-20T01:00:00.000000Z");
    EXPECT_EQ(str(e, "window_end"), "2026-11-20T03:00:00.000000Z");
    EXPECT_EQ(str(e, "window_source"), "since_until");
    EXPECT_GE(str(e, "first_record"), "2026-11-20T01:00:00");
    EXPECT_LT(str(e, "last_record"), "2026-11-20T03:00:00");
    EXPECT_DOUBLE_EQ(num(e, "allocated_gpu_hours"), 2.0);
    // Busy and idle split the sampled time, which the window bounds.
    EXPECT_NEAR(num(e, "busy_gpu_hours") + num(e, "idle_gpu_hours"), num(e, "sampled_gpu_hours"), 1e-6);
    EXPECT_GT(num(e, "busy_gpu_hours"), 0);
    EXPECT_LE(num(e, "sampled_gpu_hours"), 2.0);
    EXPECT_NEAR(num(e, "idle_cost"), num(e, "idle_gpu_hours") * num(e, "local_cost_per_wall_hour"), 1e-6);
    EXPECT_NEAR(num(e, "local_cost"), 2.0 * num(e, "local_cost_per_wall_hour"), 1e-6);
    EXPECT_NEAR(num(e, "cloud_cost"), num(e, "effective_gpu_hours") * num(e, "cloud_cost_per_effective_hour"), 1e-6);
    // The cloud price's observation date (YYYY-MM-DD), or null with the reason.
    if (const auto seen = str(e, "price_seen"); seen == "<null>") {
      EXPECT_NE(str(e["null_reasons"].value_unsafe(), "price_seen"), "<null>");
    } else {
      EXPECT_EQ(seen.size(), 10u) << seen;
    }
  }
  EXPECT_EQ(str(gpu, "gpu_uuid"), "GPU-7cc4920c-bbbf-5715-2092-94f08a7195cc");
  EXPECT_EQ(str(gpu, "gpu_pci_bus_id"), "0000:01:00");
  EXPECT_EQ(str(gpu, "gpu_model"), "NVIDIA GeForce RTX 4060 Laptop GPU");
  EXPECT_EQ(num(node, "gpu_count"), 1);
  EXPECT_EQ(str(node, "gpu_uuid"), "<null>");
  // The node row sums its GPU rows.
  for (const char* k : {"allocated_gpu_hours", "busy_gpu_hours", "idle_gpu_hours", "energy_kwh", "local_cost"})
    EXPECT_NEAR(num(node, k), num(gpu, k), 1e-9) << k;
  // Incidents are counted per machine; the GPU row says so instead of writing 0.
  EXPECT_TRUE(std::isnan(num(gpu, "incidents")));
  EXPECT_EQ(str(gpu["null_reasons"], "incidents"), "counted per node: see the node row");
  EXPECT_FALSE(std::isnan(num(node, "incidents")));
}

// Issue 38: allocated = busy + idle + unmeasured, each its own column, and effective <= busy. The
// whole example holds 328 allocated GPU-hours of which samples cover 1.7 h: the rest is
// unmeasured, neither work nor idleness, and the cost of the same work rented follows the
// measured effective hours only.
TEST(JobRows, HonestHoursEffectiveAtMostBusyAtMostAllocatedWithTheUnmeasuredPartStated) {
  const auto whole = run_gpucost({"analyze", kExample, "--format", "ndjson", "--no-timings"});
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  auto all = lines_of(whole.out);
  ASSERT_EQ(all.size(), 2u);
  for (const auto& l : rows({})) all.push_back(l);
  for (std::size_t i = 0; i < all.size(); ++i) {
    simdjson::dom::parser p;
    simdjson::dom::element e;
    ASSERT_EQ(p.parse(all[i]).get(e), simdjson::SUCCESS) << all[i];
    const double alloc = num(e, "allocated_gpu_hours"), sampled = num(e, "sampled_gpu_hours"),
                 busy = num(e, "busy_gpu_hours"), idle = num(e, "idle_gpu_hours"),
                 unmeasured = num(e, "unmeasured_gpu_hours"), effective = num(e, "effective_gpu_hours");
    SCOPED_TRACE(all[i].substr(0, 200));
    ASSERT_FALSE(std::isnan(unmeasured));
    ASSERT_FALSE(std::isnan(effective));
    EXPECT_GT(effective, 0);
    EXPECT_LE(effective, busy + 1e-9);
    EXPECT_LE(busy, alloc);
    EXPECT_NEAR(unmeasured, alloc - sampled, 1e-6);
    EXPECT_NEAR(busy + idle + unmeasured, alloc, 1e-6);
    EXPECT_NEAR(num(e, "cloud_cost"), effective * num(e, "cloud_cost_per_effective_hour"), 1e-6);
  }
  simdjson::dom::parser p;
  simdjson::dom::element node;
  ASSERT_EQ(p.parse(all[1]).get(node), simdjson::SUCCESS);
  EXPECT_GT(num(node, "allocated_gpu_hours"), 300);
  EXPECT_LT(num(node, "busy_gpu_hours"), 2);
  EXPECT_GT(num(node, "unmeasured_gpu_hours"), 300);  // stated, not counted as work
  EXPECT_LT(num(node, "effective_gpu_hours"), 2);
}

TEST(JobRows, EveryNullHasAReason) {
  for (const auto& line : rows({})) {
    simdjson::dom::parser p;
    simdjson::dom::object o;
    ASSERT_EQ(p.parse(line).get(o), simdjson::SUCCESS);
    simdjson::dom::object reasons;
    ASSERT_EQ(o["null_reasons"].get(reasons), simdjson::SUCCESS);
    for (auto [k, v] : o) {
      if (!v.is_null() || k == "job_id" || k == "user" || k == "host" || k.rfind("gpu_", 0) == 0) continue;
      if (k == "currency" || k == "verdict" || k.find("preset") != std::string_view::npos) continue;
      std::string_view why;
      EXPECT_EQ(reasons[k].get(why), simdjson::SUCCESS) << k;
      EXPECT_FALSE(why.empty()) << k;
    }
  }
}

TEST(JobRows, GpuSelectorsPickTheJobsGpusByIndexUuidOrBusId) {
  EXPECT_EQ(rows({"--gpu", "0"}).size(), 2u);
  EXPECT_EQ(rows({"--gpu", "GPU-7cc4920c-bbbf-5715-2092-94f08a7195cc"}).size(), 2u);
  EXPECT_EQ(rows({"--gpu", "00000000:01:00.0"}).size(), 2u);  // nvidia-smi's form
  const auto none = rows({"--gpu", "3"});
  ASSERT_EQ(none.size(), 1u);  // only the node, with no GPU hours rather than zeros
  simdjson::dom::parser p;
  simdjson::dom::element node;
  ASSERT_EQ(p.parse(none[0]).get(node), simdjson::SUCCESS);
  EXPECT_EQ(num(node, "gpu_count"), 0);
  EXPECT_TRUE(std::isnan(num(node, "allocated_gpu_hours")));
}

TEST(JobRows, DocumentedFieldTableMatchesTheOutput) {
  std::ifstream in(fs::path(GPUCOST_SOURCE_DIR) / "docs" / "fleet.md");
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string doc = ss.str();
  const auto b = doc.find("<!-- job-row-fields: begin -->"), e = doc.find("<!-- job-row-fields: end -->");
  ASSERT_NE(b, std::string::npos);
  ASSERT_NE(e, std::string::npos);
  std::vector<std::string> documented;
  for (const auto& l : lines_of(doc.substr(b, e - b))) {
    if (l.rfind("| `", 0) != 0) continue;
    const std::string cell = l.substr(2, l.find(" |", 2) - 2);  // "`a`, `b`"
    for (std::size_t at = cell.find('`'); at != std::string::npos; at = cell.find('`', cell.find('`', at + 1) + 1))
      documented.push_back(cell.substr(at + 1, cell.find('`', at + 1) - at - 1));
  }
  const auto lines = rows({});
  ASSERT_FALSE(lines.empty());
  simdjson::dom::parser p;
  simdjson::dom::object o;
  ASSERT_EQ(p.parse(lines[0]).get(o), simdjson::SUCCESS);
  std::vector<std::string> written;
  for (auto [k, v] : o) written.emplace_back(k);
  EXPECT_EQ(documented, written);
}

}  // namespace
