// End-to-end tests of the built binary: exit codes, stdout vs stderr, -o FILE.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <fstream>

#include "run_binary.hpp"

namespace fs = std::filesystem;
using gpucost::testing::run_gpucost;

namespace {

fs::path scratch(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("gpucost_cli_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

fs::path dmesg_dir() {
  fs::path d = scratch("dmesg");
  fs::copy_file(fs::path(GPUCOST_TEST_DATA) / "real/kern/xid32-xid31-old-format-dmesg.txt", d / "dmesg.txt");
  return d;
}

int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

TEST(Cli, VersionAndHelpSucceedOnStdout) {
  auto v = run_gpucost({"--version"});
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_EQ(v.out.rfind("gpucost ", 0), 0u) << v.out;
  auto h = run_gpucost({"analyze", "--help"});
  EXPECT_EQ(h.exit_code, 0);
  EXPECT_NE(h.out.find("--idle-threshold"), std::string::npos);
  EXPECT_NE(h.out.find("Example"), std::string::npos);
  EXPECT_NE(h.out.find("Exit codes"), std::string::npos);
}

TEST(Cli, UsageErrorsExitTwoWithNothingOnStdout) {
  auto r = run_gpucost({"analyze", "--no-such-option", "x"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty());
  EXPECT_FALSE(r.err.empty());
  auto none = run_gpucost({});
  EXPECT_EQ(none.exit_code, 2);
  auto bad = run_gpucost({"analyze", dmesg_dir().string(), "--format", "xml"});
  EXPECT_EQ(bad.exit_code, 2);
  auto tz = run_gpucost({"analyze", dmesg_dir().string(), "--tz", "Mars/Olympus"});
  EXPECT_EQ(tz.exit_code, 2);
  EXPECT_NE(tz.err.find("Mars/Olympus"), std::string::npos);
  EXPECT_TRUE(tz.out.empty());
}

TEST(Cli, MissingInputIsOneClearLine) {
  auto r = run_gpucost({"analyze", "/nonexistent/gpucost-input"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty());
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("/nonexistent/gpucost-input"), std::string::npos);
}

TEST(Cli, EmptyDirectoryIsNoUsableInput) {
  auto r = run_gpucost({"analyze", scratch("empty").string()});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_TRUE(r.out.empty());
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
}

TEST(Cli, UnknownFormatOnlyIsNoUsableInput) {
  fs::path d = scratch("unknown");
  std::ofstream(d / "notes.txt") << "just some words\nnothing a machine printed\n";
  auto r = run_gpucost({"analyze", d.string()});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_TRUE(r.out.empty());
}

TEST(Cli, JsonReportParsesAndCsvHasOneHeader) {
  const fs::path d = dmesg_dir();
  auto j = run_gpucost({"analyze", d.string(), "--format", "json", "--tz", "UTC"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  simdjson::dom::parser p;
  simdjson::dom::element doc;
  ASSERT_EQ(p.parse(j.out).get(doc), simdjson::SUCCESS);
  EXPECT_EQ(std::string_view(doc["tool"]["name"]), "gpucost");
  EXPECT_GT(simdjson::dom::array(doc["features"]).size(), 0u);
  auto c = run_gpucost({"analyze", d.string(), "--format", "csv", "--tz", "UTC"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_EQ(c.out.rfind("id,name,value,unit,layer,reason,scope\n", 0), 0u);
  EXPECT_EQ(c.out.find("id,name", 1), std::string::npos);
}

// The config file's ignore_findings leave rules out as --ignore-finding does, and R16 lists them.
TEST(Cli, ConfigIgnoreFindingsLeavesTheRuleOutAndListsIt) {
  const fs::path d = dmesg_dir();
  const fs::path cfg = scratch("ignore-config") / "gpucost.json";
  std::ofstream(cfg) << R"({"ignore_findings": ["driver_firmware_errors"]})";
  auto r = run_gpucost({"analyze", d.string(), "--format", "json", "--tz", "UTC", "--config", cfg.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser p;
  simdjson::dom::element doc;
  ASSERT_EQ(p.parse(r.out).get(doc), simdjson::SUCCESS);
  bool listed = false;
  for (auto f : simdjson::dom::array(doc["findings"])) {
    const std::string_view rule = f["rule"];
    EXPECT_NE(rule, "driver_firmware_errors") << "the config ignored it";
    if (rule == "ignored_findings") {
      listed = std::string_view(f["next_step"]).find("R07 driver_firmware_errors (warning") != std::string_view::npos;
    }
  }
  EXPECT_TRUE(listed) << "R16 names the rule the config left out, with what it would have said";
  // A name that is no rule is a usage error naming the file, as on the command line.
  std::ofstream(cfg) << R"({"ignore_findings": "no_such_rule"})";
  auto bad = run_gpucost({"analyze", d.string(), "--config", cfg.string()});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("no_such_rule"), std::string::npos) << bad.err;
  EXPECT_TRUE(bad.out.empty());
  std::ofstream(cfg) << R"({"ignore_findings": [7]})";
  EXPECT_EQ(run_gpucost({"analyze", d.string(), "--config", cfg.string()}).exit_code, 2) << "a rule is a string";
}

// A finding's next step quotes NVIDIA's resolution buckets of the Xids it names (issue 35).
TEST(Cli, XidFindingsQuoteNvidiasResolutionBuckets) {
  const fs::path d = dmesg_dir();
  auto r = run_gpucost({"analyze", d.string(), "--format", "json", "--tz", "UTC"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("[NVIDIA: RESTART_APP, then WORKFLOW_XID_31]"), std::string::npos) << "Xid 31";
  EXPECT_NE(r.out.find("[NVIDIA: RESTART_APP, then CHECK_APP/CUDA]"), std::string::npos) << "Xid 32";
}

// An Xid naming a MIG GPU instance lands on its physical GPU, beside that GPU's plain Xids
// (before, its GPU was the text `PCI:0000:4b:00 GPU-I:05`, a GPU of its own).
TEST(Cli, XidOnAMigGpuInstanceIsOnItsGpu) {
  const fs::path d = scratch("mig-xid");
  std::ofstream(d / "dmesg.txt")
      << "[  100.000000] NVRM: Xid (PCI:0000:4b:00 GPU-I:05): 43, pid=1234, name=python, "
         "Ch 00000008\n"
         "[  101.000000] NVRM: Xid (PCI:0000:4b:00): 43, pid=1235, name=python, Ch 00000009\n";
  auto r = run_gpucost({"timeline", d.string(), "--tz", "UTC"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count_lines(r.out), 2) << r.out;
  std::size_t on_gpu = 0;
  for (std::size_t p = r.out.find("\"gpu\":\"0000:4b:00\""); p != std::string::npos;
       p = r.out.find("\"gpu\":\"0000:4b:00\"", p + 1))
    ++on_gpu;
  EXPECT_EQ(on_gpu, 2u) << r.out;
  EXPECT_NE(r.out.find("GPU-I:05"), std::string::npos) << "the instance stays in the text";
}

TEST(Cli, OutputFileIsWrittenAndStdoutStaysEmpty) {
  const fs::path d = dmesg_dir();
  const fs::path out = scratch("out") / "report.json";
  auto r = run_gpucost({"analyze", d.string(), "--format", "json", "-o", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty());
  ASSERT_TRUE(fs::exists(out));
  EXPECT_GT(fs::file_size(out), 100u);
  for (const auto& e : fs::directory_iterator(out.parent_path()))
    EXPECT_EQ(e.path().filename(), "report.json") << "temporary file left behind";
}

TEST(Cli, UnwritableOutputExitsFive) {
  auto r = run_gpucost({"analyze", dmesg_dir().string(), "-o", "/nonexistent-dir/report.json"});
  EXPECT_EQ(r.exit_code, 5);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("/nonexistent-dir/report.json"), std::string::npos);
}

TEST(Cli, FullDiskExitsFiveAndLeavesTheDeviceAlone) {
  ASSERT_TRUE(fs::exists("/dev/full"));  // Linux always has it
  auto r = run_gpucost({"features", "--format", "json", "-o", "/dev/full"});
  EXPECT_EQ(r.exit_code, 5);
  EXPECT_NE(r.err.find("No space left"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
}

TEST(Cli, TimelineIsJsonLines) {
  auto r = run_gpucost({"timeline", dmesg_dir().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser p;
  std::size_t start = 0, n = 0;
  while (start < r.out.size()) {
    const auto nl = r.out.find('\n', start);
    ASSERT_NE(nl, std::string::npos);
    simdjson::dom::element e;
    ASSERT_EQ(p.parse(r.out.substr(start, nl - start)).get(e), simdjson::SUCCESS);
    EXPECT_EQ(std::string_view(e["kind"]), "xid");
    start = nl + 1;
    n += std::uint64_t(e["repeat"]);  // the two Xid 32 lines of one second are one row
  }
  EXPECT_EQ(n, 3u);
}

TEST(Cli, FeaturesCatalogPrintsEveryFormat) {
  for (const char* f : {"table", "csv", "json", "md"}) {
    auto r = run_gpucost({"features", "--format", f});
    EXPECT_EQ(r.exit_code, 0) << f;
    EXPECT_NE(r.out.find("F001"), std::string::npos) << f;
  }
}

}  // namespace
