// gpucost fleet: per-key sums of the per-job rows (GPU rows for hours and costs, node rows for
// incidents), nulls counted rather than read as 0, malformed lines reported with file:line and
// never fatal, mixed currencies not summed, the block reader across 1 MiB boundaries, and the
// CLI on rows written by `analyze --format ndjson`.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <simdjson.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gpucost/fleet/fleet.hpp"
#include "run_binary.hpp"
#include "xml_check.hpp"

namespace fs = std::filesystem;
using namespace gpucost::fleet;

namespace {

std::string gpu_row(const std::string& job, const std::string& user, const std::string& host, double alloc,
                    double busy, double idle, const std::string& currency = "USD") {
  return fmt::format(
      R"({{"schema":"gpucost.job_row","schema_version":2,"row":"gpu","job_id":"{}","user":"{}","host":"{}",)"
      R"("gpu_model":"NVIDIA A100","allocated_gpu_hours":{},"busy_gpu_hours":{},"idle_gpu_hours":{},)"
      R"("effective_gpu_hours":{},"energy_kwh":0.5,"local_cost":{},"idle_cost":{},"cloud_cost":{},"xid_events":1,)"
      R"("incidents":null,"gpu_lost_s":null,"currency":"{}","cloud_preset":"aws-p4d"}})",
      job, user, host, alloc, busy, idle, busy, alloc * 2, idle * 2, busy * 3, currency);
}

std::string node_row(const std::string& job, const std::string& user, const std::string& host, int incidents) {
  return fmt::format(
      R"({{"schema":"gpucost.job_row","schema_version":2,"row":"node","job_id":"{}","user":"{}","host":"{}",)"
      R"("gpu_model":"NVIDIA A100","allocated_gpu_hours":100,"busy_gpu_hours":100,"xid_events":7,)"
      R"("incidents":{},"currency":"USD"}})",
      job, user, host, incidents);
}

TEST(Fleet, SumsGpuRowsPerKeyAndIncidentsFromNodeRows) {
  FleetSummary s;
  FleetReader r(s);
  const std::string f = "rows.ndjson";
  r.add_line(gpu_row("1", "alice", "n1", 2, 1.5, 0.5), f, 1);
  r.add_line(gpu_row("1", "alice", "n1", 2, 0.5, 1.5), f, 2);
  r.add_line(node_row("1", "alice", "n1", 2), f, 3);
  r.add_line(gpu_row("2", "bob", "n2", 4, 4, 0), f, 4);
  r.add_line(node_row("2", "bob", "n2", 0), f, 5);
  r.finish();
  EXPECT_EQ(s.rows, 5u);
  EXPECT_EQ(s.malformed, 0u);
  const Totals& j1 = s.by_job.at("1");
  EXPECT_EQ(j1.gpu_rows, 2u);
  EXPECT_EQ(j1.node_rows, 1u);
  EXPECT_DOUBLE_EQ(j1.allocated_gpu_hours.value, 4);  // the node row's 100 h are not added again
  EXPECT_DOUBLE_EQ(j1.busy_gpu_hours.value, 2);
  EXPECT_DOUBLE_EQ(j1.idle_cost.value, 4);
  EXPECT_DOUBLE_EQ(j1.incidents.value, 2);
  EXPECT_DOUBLE_EQ(j1.xid_events.value, 7);  // the machine's count, from the node row
  EXPECT_DOUBLE_EQ(s.by_user.at("bob").allocated_gpu_hours.value, 4);
  EXPECT_DOUBLE_EQ(s.by_node.at("n1").busy_gpu_hours.value, 2);
  EXPECT_DOUBLE_EQ(s.by_model.at("NVIDIA A100").allocated_gpu_hours.value, 8);
  EXPECT_DOUBLE_EQ(s.fleet.local_cost.value, 16);
  EXPECT_DOUBLE_EQ(s.fleet.cloud_cost.value, 18);
  // gpu_lost_s was null in every GPU row: unknown, not 0.
  EXPECT_EQ(s.fleet.gpu_lost_s.known, 0u);
  EXPECT_EQ(s.fleet.gpu_lost_s.missing, 3u);
  const std::string json = render_fleet(s, FleetFormat::kJson, 0);
  simdjson::dom::parser p;
  simdjson::dom::element doc;
  ASSERT_EQ(p.parse(json).get(doc), simdjson::SUCCESS) << json;
  EXPECT_TRUE(doc["fleet"]["gpu_lost_s"].is_null());
  std::string_view verdict;
  ASSERT_EQ(doc["fleet"]["verdict"].get(verdict), simdjson::SUCCESS);
  EXPECT_EQ(verdict.substr(0, 5), "buy: ");  // 16 owned vs 18 rented
  std::string_view cheaper;
  ASSERT_EQ(doc["fleet"]["cheaper"].get(cheaper), simdjson::SUCCESS);
  EXPECT_EQ(cheaper, "local");
}

TEST(Fleet, MalformedLinesAreCountedWithFileAndLineNeverFatal) {
  FleetSummary s;
  FleetReader r(s);
  const std::string f = "d/2026-11-29/n1/7.ndjson";
  r.add_line(gpu_row("7", "u", "n1", 1, 1, 0), f, 1);
  r.add_line("{\"schema\":\"gpucost.job_row\",\"schema_version\":1,\"row\":\"gpu\",\"busy_gpu_hours\":\"1 h\"}", f, 2);
  r.add_line("{not json", f, 3);
  r.add_line("[1,2]", f, 4);
  r.add_line("{\"schema\":\"gpucost.job_row\",\"row\":\"gpu\"}", f, 5);
  r.add_line("{\"schema\":\"gpucost.job_row\",\"schema_version\":1,\"row\":\"rack\"}", f, 6);
  r.add_line("   ", f, 7);
  r.add_line(gpu_row("7", "u", "n1", 1, 1, 0), f, 8);
  r.finish();
  EXPECT_EQ(s.rows, 2u);
  EXPECT_EQ(s.malformed, 5u);
  EXPECT_EQ(s.blank_lines, 1u);
  ASSERT_EQ(s.problems.size(), 5u);
  EXPECT_EQ(s.problems[0].file, f);
  EXPECT_EQ(s.problems[0].line, 2u);
  EXPECT_EQ(s.problems[0].reason, "busy_gpu_hours is not a number or null");
  EXPECT_EQ(s.problems[1].line, 3u);
  EXPECT_EQ(s.problems[4].line, 6u);
  // A malformed row adds nothing, not even to its job.
  EXPECT_DOUBLE_EQ(s.by_job.at("7").allocated_gpu_hours.value, 2);
  const std::string table = render_fleet(s, FleetFormat::kTable, 0);
  EXPECT_NE(table.find(f + ":2: bad_field: busy_gpu_hours is not a number or null"), std::string::npos) << table;
}

TEST(Fleet, MixedCurrenciesAreNotSummed) {
  FleetSummary s;
  FleetReader r(s);
  r.add_line(gpu_row("1", "a", "n1", 1, 1, 0, "USD"), "f", 1);
  r.add_line(gpu_row("2", "a", "n1", 1, 1, 0, "EUR"), "f", 2);
  r.finish();
  const std::string json = render_fleet(s, FleetFormat::kJson, 0);
  simdjson::dom::parser p;
  simdjson::dom::element doc;
  ASSERT_EQ(p.parse(json).get(doc), simdjson::SUCCESS);
  EXPECT_TRUE(doc["fleet"]["local_cost"].is_null());
  EXPECT_TRUE(doc["currency"].is_null());
  std::string_view verdict;
  ASSERT_EQ(doc["fleet"]["verdict"].get(verdict), simdjson::SUCCESS);
  EXPECT_NE(verdict.find("2 currencies"), std::string_view::npos);
  // Hours still add up.
  EXPECT_DOUBLE_EQ(s.fleet.allocated_gpu_hours.value, 2);
}

TEST(Fleet, FilesAreReadAcrossBlockBoundariesAndWithoutAFinalNewline) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("fleet_blocks." + std::to_string(::getpid()));
  fs::create_directories(dir / "2026-11-29" / "n1");
  const std::size_t n = 12000;  // about 3 MiB: several 1 MiB blocks, lines cut by block ends
  {
    std::ofstream out(dir / "2026-11-29" / "n1" / "big.ndjson", std::ios::binary);
    for (std::size_t i = 0; i < n; ++i)
      out << gpu_row(std::to_string(i % 1000), fmt::format("u{}", i % 7), "n1", 1, 0.25, 0.75) << "\r\n";
    out << gpu_row("last", "u", "n1", 1, 1, 0);  // no newline at the end
  }
  { std::ofstream(dir / "notes.txt") << "not a row\n"; }  // not *.ndjson: not read
  FleetSummary s;
  {
    FleetReader r(s);
    r.read_tree(dir.string());
    r.finish();
  }
  fs::remove_all(dir);
  EXPECT_EQ(s.files, 1u);
  EXPECT_EQ(s.malformed, 0u) << (s.problems.empty() ? "" : s.problems[0].reason);
  EXPECT_EQ(s.rows, n + 1);
  EXPECT_EQ(s.by_job.size(), 1001u);
  EXPECT_EQ(s.by_user.size(), 8u);
  EXPECT_DOUBLE_EQ(s.fleet.allocated_gpu_hours.value, static_cast<double>(n + 1));
  EXPECT_DOUBLE_EQ(s.by_job.at("last").busy_gpu_hours.value, 1);
}

TEST(Fleet, HtmlPageIsWellFormedAndEscapesKeys) {
  FleetSummary s;
  FleetReader r(s);
  r.add_line(gpu_row("1", "<script>alert(1)</script>", "n&1", 2, 1, 1), "a<b>.ndjson", 1);
  r.add_line("{oops", "a<b>.ndjson", 2);
  r.finish();
  const std::string html = render_fleet(s, FleetFormat::kHtml, 0);
  const auto x = gpucost::testing::check_xml(html.substr(html.find("<html")));
  EXPECT_EQ(x.error, "") << html;
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("n&amp;1"), std::string::npos);
  EXPECT_NE(html.find("a&lt;b&gt;.ndjson:2: not JSON"), std::string::npos);
  EXPECT_NE(html.find("Buy vs rent for this usage"), std::string::npos);
}

TEST(FleetCli, ReadsTheRowsThatAnalyzeWritesAndExits3WithoutRows) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("fleet_cli." + std::to_string(::getpid()));
  fs::create_directories(dir / "2026-11-20" / "laptop");
  const std::string example = (fs::path(GPUCOST_SOURCE_DIR) / "examples" / "laptop-training").string();
  const auto a = gpucost::testing::run_gpucost(
      {"analyze", example, "--since", "2026-11-20T01:00:00Z", "--until", "2026-11-20T02:00:00Z", "--job-id", "4242",
       "--user", "alice", "--format", "ndjson", "-o", (dir / "2026-11-20" / "laptop" / "4242.ndjson").string()});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  const auto f = gpucost::testing::run_gpucost({"fleet", dir.string(), "--format", "csv"});
  EXPECT_EQ(f.exit_code, 0) << f.err;
  EXPECT_NE(f.out.find("\njob,4242,1,1,1,"), std::string::npos) << f.out;
  EXPECT_NE(f.out.find("\nuser,alice,1,1,1,"), std::string::npos) << f.out;
  const fs::path empty = dir / "empty";
  fs::create_directories(empty);
  EXPECT_EQ(gpucost::testing::run_gpucost({"fleet", empty.string()}).exit_code, 3);
  EXPECT_EQ(gpucost::testing::run_gpucost({"fleet", (dir / "missing").string()}).exit_code, 2);
  fs::remove_all(dir);
}

}  // namespace
