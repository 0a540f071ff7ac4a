// gpucost fleet, issue 38 and 39: one row per row key (a copied file counts once and is named,
// the newer copy of a key wins, two nodes of one job are one job row with both nodes' GPUs),
// implausible rows refused with a named reason, identifiers capped in length, and control bytes
// escaped in the table and on stderr.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <simdjson.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "gpucost/fleet/fleet.hpp"
#include "run_binary.hpp"

namespace fs = std::filesystem;
using namespace gpucost::fleet;

namespace {

struct Gpu {
  std::string job = "4242", host = "n1", uuid = "GPU-aaaa";
  double alloc = 2, busy = 1.5, idle = 0.25, effective = 1.2;
  std::string last = "2026-11-20T02:59:59.000000Z";
};

std::string gpu_line(const Gpu& g) {
  return fmt::format(
      R"({{"schema":"gpucost.job_row","schema_version":2,"row":"gpu","job_id":"{}","user":"alice","host":"{}",)"
      R"("gpu_index":0,"gpu_uuid":"{}","gpu_model":"NVIDIA A100","window_start":"2026-11-20T01:00:00.000000Z",)"
      R"("window_end":"2026-11-20T03:00:00.000000Z","last_record":"{}","allocated_gpu_hours":{},)"
      R"("sampled_gpu_hours":{},"busy_gpu_hours":{},"idle_gpu_hours":{},"unmeasured_gpu_hours":{},)"
      R"("effective_gpu_hours":{},"energy_kwh":0.5,"local_cost":{},"idle_cost":1,"cloud_cost":3,"xid_events":1,)"
      R"("incidents":null,"gpu_lost_s":0,"currency":"USD","cloud_preset":"aws-p4d"}})",
      g.job, g.host, g.uuid, g.last, g.alloc, g.busy + g.idle, g.busy, g.idle, g.alloc - g.busy - g.idle, g.effective,
      g.alloc);
}

std::string node_line(const std::string& job, const std::string& host, int incidents, int gpus) {
  return fmt::format(
      R"({{"schema":"gpucost.job_row","schema_version":2,"row":"node","job_id":"{}","user":"alice","host":"{}",)"
      R"("gpu_model":"NVIDIA A100","gpu_count":{},"window_start":"2026-11-20T01:00:00.000000Z",)"
      R"("window_end":"2026-11-20T03:00:00.000000Z","last_record":"2026-11-20T02:59:59.000000Z",)"
      R"("allocated_gpu_hours":{},"busy_gpu_hours":1,"xid_events":3,"incidents":{},"currency":"USD"}})",
      job, host, gpus, 2 * gpus, incidents);
}

fs::path temp_dir(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / (name + "." + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

FleetSummary read(const fs::path& dir) {
  FleetSummary s;
  FleetReader r(s);
  r.read_tree(dir.string());
  r.finish();
  return s;
}

TEST(FleetKeys, ACopiedFileGivesTheTotalsOfOneCopyAndNamesTheDuplicates) {
  const fs::path dir = temp_dir("fleet_copy");
  const std::string rows = gpu_line({}) + "\n" + node_line("4242", "n1", 2, 1) + "\n";
  write(dir / "2026-11-20" / "n1" / "4242.ndjson", rows);
  const FleetSummary one = read(dir);
  write(dir / "2026-11-20" / "n1" / "copy" / "4242.ndjson", rows);  // a retried copy, an rsync
  const FleetSummary two = read(dir);
  fs::remove_all(dir);
  EXPECT_EQ(one.duplicates, 0u);
  EXPECT_EQ(two.rows, 4u);
  EXPECT_EQ(two.duplicates, 2u);
  for (const Totals* t : {&two.fleet, &two.by_job.at("4242")}) {
    EXPECT_DOUBLE_EQ(t->allocated_gpu_hours.value, one.fleet.allocated_gpu_hours.value);
    EXPECT_DOUBLE_EQ(t->allocated_gpu_hours.value, 2);
    EXPECT_DOUBLE_EQ(t->busy_gpu_hours.value, 1.5);
    EXPECT_DOUBLE_EQ(t->xid_events.value, 3);
    EXPECT_DOUBLE_EQ(t->incidents.value, 2);
    EXPECT_EQ(t->gpu_rows, 1u);
    EXPECT_EQ(t->node_rows, 1u);
  }
  // The copy is named, with the row kept in its place (the first read: files are read in sorted order).
  ASSERT_EQ(two.duplicate_rows.size(), 2u);
  const std::string original = (dir / "2026-11-20" / "n1" / "4242.ndjson").string();
  const std::string copy = (dir / "2026-11-20" / "n1" / "copy" / "4242.ndjson").string();
  EXPECT_EQ(two.duplicate_rows[0].file, copy);
  EXPECT_EQ(two.duplicate_rows[0].kept_file, original);
  EXPECT_EQ(two.duplicate_rows[0].line, 1u);
  EXPECT_EQ(two.duplicate_rows[1].line, 2u);
  const std::string table = render_fleet(two, FleetFormat::kTable, 0);
  EXPECT_NE(table.find(fmt::format("{}:1: duplicate of {}:1", copy, original)), std::string::npos) << table;
  EXPECT_NE(table.find("2 duplicates dropped"), std::string::npos) << table;
  simdjson::dom::parser p;
  simdjson::dom::element doc;
  ASSERT_EQ(p.parse(render_fleet(two, FleetFormat::kJson, 0)).get(doc), simdjson::SUCCESS);
  std::int64_t dups = 0;
  ASSERT_EQ(doc["input"]["duplicates"].get(dups), simdjson::SUCCESS);
  EXPECT_EQ(dups, 2);
  std::string_view first;
  ASSERT_EQ(doc["input"]["duplicate_rows"].at(0)["file"].get(first), simdjson::SUCCESS);
  EXPECT_EQ(first, copy);
}

TEST(FleetKeys, TwoNodesOfOneJobGiveOneJobRowWithBothNodesGpus) {
  FleetSummary s;
  FleetReader r(s);
  Gpu a, b, c;
  b.uuid = "GPU-bbbb";
  c.host = "n2", c.uuid = "GPU-cccc";
  r.add_line(gpu_line(a), "n1.ndjson", 1);
  r.add_line(gpu_line(b), "n1.ndjson", 2);
  r.add_line(node_line("4242", "n1", 1, 2), "n1.ndjson", 3);
  r.add_line(gpu_line(c), "n2.ndjson", 1);
  r.add_line(node_line("4242", "n2", 0, 1), "n2.ndjson", 2);
  r.finish();
  EXPECT_EQ(s.duplicates, 0u);
  ASSERT_EQ(s.by_job.size(), 1u);
  const Totals& job = s.by_job.at("4242");
  EXPECT_EQ(job.gpu_rows, 3u);
  EXPECT_EQ(job.node_rows, 2u);
  EXPECT_DOUBLE_EQ(job.allocated_gpu_hours.value, 6);
  EXPECT_DOUBLE_EQ(job.incidents.value, 1);
  EXPECT_DOUBLE_EQ(job.xid_events.value, 6);  // each node's machine count once
  EXPECT_EQ(s.by_node.size(), 2u);
  EXPECT_DOUBLE_EQ(s.by_node.at("n2").allocated_gpu_hours.value, 2);
}

TEST(FleetKeys, TheNewerRowOfAKeyWinsWhateverTheOrder) {
  Gpu old_row, new_row;
  new_row.busy = 1.75, new_row.last = "2026-11-20T02:59:59.500000Z";  // more samples arrived
  for (bool newer_first : {false, true}) {
    FleetSummary s;
    FleetReader r(s);
    r.add_line(gpu_line(newer_first ? new_row : old_row), "a.ndjson", 1);
    r.add_line(gpu_line(newer_first ? old_row : new_row), "b.ndjson", 1);
    r.finish();
    EXPECT_EQ(s.duplicates, 1u);
    EXPECT_DOUBLE_EQ(s.fleet.busy_gpu_hours.value, 1.75) << newer_first;
    ASSERT_EQ(s.duplicate_rows.size(), 1u);
    EXPECT_EQ(s.duplicate_rows[0].file, newer_first ? "b.ndjson" : "a.ndjson");
  }
  // Another GPU, another window or another job is another key.
  FleetSummary s;
  FleetReader r(s);
  Gpu other_gpu, other_job;
  other_gpu.uuid = "GPU-bbbb";
  other_job.job = "4243";
  r.add_line(gpu_line(old_row), "a", 1);
  r.add_line(gpu_line(other_gpu), "a", 2);
  r.add_line(gpu_line(other_job), "a", 3);
  std::string later_window = gpu_line(old_row);
  later_window.replace(later_window.find("T03:00:00"), 9, "T04:00:00");
  r.add_line(later_window, "a", 4);
  r.finish();
  EXPECT_EQ(s.duplicates, 0u);
  EXPECT_EQ(s.fleet.gpu_rows, 4u);
}

TEST(FleetKeys, ImplausibleValuesAreRefusedPerRowWithANamedReason) {
  FleetSummary s;
  FleetReader r(s);
  Gpu fine, huge, negative, negative_cost;
  huge.uuid = "GPU-h", huge.alloc = 1.7e308;
  negative.uuid = "GPU-n", negative.busy = -5;
  r.add_line(gpu_line(fine), "f", 1);
  r.add_line(gpu_line(huge), "f", 2);
  r.add_line(gpu_line(huge), "f", 3);
  r.add_line(gpu_line(negative), "f", 4);
  std::string cost = gpu_line(fine);
  cost.replace(cost.find("\"idle_cost\":1"), 13, "\"idle_cost\":-1");
  r.add_line(cost, "f", 5);
  r.add_line(std::string(R"({"schema":"gpucost.job_row","schema_version":2,"row":"gpu","user":")") +
                 std::string(kMaxKeyBytes + 1, 'u') + "\"}",
             "f", 6);
  r.finish();
  EXPECT_EQ(s.rows, 1u);
  EXPECT_EQ(s.malformed, 5u);
  EXPECT_EQ(s.refused.at("out_of_range"), 2u);
  EXPECT_EQ(s.refused.at("negative"), 2u);
  EXPECT_EQ(s.refused.at("key_too_long"), 1u);
  ASSERT_EQ(s.problems.size(), 5u);
  EXPECT_EQ(s.problems[0].line, 2u);
  EXPECT_EQ(s.problems[0].kind, "out_of_range");
  EXPECT_EQ(s.problems[2].kind, "negative");
  EXPECT_NE(s.problems[2].reason.find("busy_gpu_hours"), std::string::npos) << s.problems[2].reason;
  EXPECT_NE(s.problems[3].reason.find("idle_cost"), std::string::npos) << s.problems[3].reason;
  EXPECT_EQ(s.problems[4].line, 6u);
  EXPECT_NE(s.problems[4].reason.find("user is 257 bytes long"), std::string::npos) << s.problems[4].reason;
  EXPECT_TRUE(std::isfinite(s.fleet.allocated_gpu_hours.value));
  EXPECT_DOUBLE_EQ(s.fleet.allocated_gpu_hours.value, 2);
  EXPECT_DOUBLE_EQ(s.fleet.idle_cost.value, 1);
  EXPECT_EQ(s.by_user.size(), 1u);
}

TEST(FleetKeys, RowsOfSchemaOneDoNotCountUnmeasuredTimeAsEffective) {
  FleetSummary s;
  FleetReader r(s);
  std::string v1 = gpu_line({});
  v1.replace(v1.find("\"schema_version\":2"), 18, "\"schema_version\":1");
  v1.replace(v1.find(",\"unmeasured_gpu_hours\""), std::string(",\"unmeasured_gpu_hours\":0.25").size(), "");
  r.add_line(v1, "old.ndjson", 1);
  r.finish();
  EXPECT_EQ(s.fleet.effective_gpu_hours.known, 0u);
  EXPECT_EQ(s.fleet.cloud_cost.known, 0u);
  EXPECT_DOUBLE_EQ(s.fleet.unmeasured_gpu_hours.value, 0.25);  // allocated - sampled
}

TEST(FleetKeys, TheTableEscapesControlBytesInKeysAndPaths) {
  FleetSummary s;
  FleetReader r(s);
  Gpu g;
  g.job = "\\u001b[2J\\u001b]52;c;ZXZpbA==\\u0007";  // ESC [2J, OSC 52 clipboard write, BEL
  g.host = "n1\\nFleet: forged";
  r.add_line(gpu_line(g), "ok.ndjson", 1);
  // UTF-8-encoded C1 CSI (C2 9B) in a user name (a raw 0x9B is not UTF-8: simdjson refuses the
  // row, so it can only come in a file name).
  std::string raw = gpu_line({});
  raw.replace(raw.find("\"alice\""), 7, "\"a\xc2\x9b" "31m\"");
  r.add_line(raw, "ok.ndjson", 2);
  r.add_line("{oops", "bad\x1b]0;title\x07\n\x9b.ndjson", 1);
  r.finish();
  const std::string table = render_fleet(s, FleetFormat::kTable, 0);
  for (char c : table) {
    const auto u = static_cast<unsigned char>(c);
    EXPECT_TRUE(u == '\n' || (u >= 0x20 && u < 0x7f)) << fmt::format("byte {:#x} in\n{}", u, table);
  }
  EXPECT_NE(table.find("\\x1b[2J\\x1b]52;c;ZXZpbA==\\x07"), std::string::npos) << table;
  EXPECT_NE(table.find("n1\\x0aFleet: forged"), std::string::npos) << table;
  EXPECT_NE(table.find("a\\xc2\\x9b31m"), std::string::npos) << table;
  EXPECT_NE(table.find("bad\\x1b]0;title\\x07\\x0a\\x9b.ndjson:1: not_json"), std::string::npos) << table;
  EXPECT_EQ(escape_control("GPU \xc3\xa9t\xc3\xa9 \\ ok"), "GPU \xc3\xa9t\xc3\xa9 \\\\ ok");  // UTF-8 kept
}

TEST(FleetKeysCli, StderrEscapesFileNamesAndACopyIsWarnedAbout) {
  const fs::path dir = temp_dir("fleet_stderr");
  write(dir / "evil\x1b[2J\x9b.ndjson", "{oops\n" + gpu_line({}) + "\n");
  write(dir / "z.ndjson", gpu_line({}) + "\n");
  const auto f = gpucost::testing::run_gpucost({"fleet", dir.string()});
  fs::remove_all(dir);
  EXPECT_EQ(f.exit_code, 0) << f.err;
  EXPECT_EQ(f.err.find('\x1b'), std::string::npos) << f.err;
  EXPECT_EQ(f.err.find('\x9b'), std::string::npos) << f.err;
  EXPECT_NE(f.err.find("evil\\x1b[2J\\x9b.ndjson:1"), std::string::npos) << f.err;
  EXPECT_NE(f.err.find("1 duplicate row(s) dropped"), std::string::npos) << f.err;
  EXPECT_EQ(f.out.find('\x1b'), std::string::npos) << f.out;
}

}  // namespace
