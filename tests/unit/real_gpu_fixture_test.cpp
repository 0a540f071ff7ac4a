// Real output of a machine with an NVIDIA GPU (tests/data/gpu/h200, README.md there): the
// collection that scripts/collect-logs.sh made during a small PyTorch job on an H200, analyzed
// end to end, and the standalone nvidia-smi variants, each read in full as its true format.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <map>
#include <string>

#include "gpucost/ingest/ingest.hpp"
#include "run_binary.hpp"

namespace fs = std::filesystem;

namespace gpucost {
namespace {

const fs::path kDir = fs::path(GPUCOST_TEST_DATA) / "gpu" / "h200";

struct Analyzed {
  testing::RunResult run;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
};

const Analyzed& analyzed() {
  static Analyzed* a = [] {
    auto* r = new Analyzed;
    r->run = testing::run_gpucost({"analyze", (kDir / "collect").string(), "--format", "json"});
    if (r->parser.parse(r->run.out).get(r->doc) != simdjson::SUCCESS) r->doc = {};
    return r;
  }();
  return *a;
}

double feature(simdjson::dom::element doc, std::string_view id) {
  for (auto f : doc["features"].get_array())
    if (std::string_view(f["id"].get_string()) == id) {
      double v = 0;
      if (f["value"].get_double().get(v) != simdjson::SUCCESS) return -1;  // null
      return v;
    }
  return -2;
}

TEST(RealGpuFixture, TheCollectionIsReadInFullAsItsTrueFormats) {
  const Analyzed& a = analyzed();
  ASSERT_EQ(a.run.exit_code, 0) << a.run.err;
  const std::map<std::string, std::string> want = {
      {"dmesg.txt", "dmesg"},           {"manifest.json", "manifest"},
      {"nvidia-smi-dmon.txt", "dmon"},  {"nvidia-smi-pmon.txt", "pmon"},
      {"nvidia-smi-q-load.txt", "nvidia_smi_q"}, {"nvidia-smi-q-start.txt", "nvidia_smi_q"},
      {"nvidia-smi-query-gpu.csv", "query_gpu_csv"}, {"ps.log", "ps"},
      {"torch-trace.json", "torch_trace"}};
  std::size_t seen = 0;
  for (auto f : a.doc["files"].get_array()) {
    const std::string path(std::string_view(f["path"].get_string()));
    SCOPED_TRACE(path);
    ASSERT_TRUE(want.count(path));
    EXPECT_EQ(std::string_view(f["format"].get_string()), want.at(path));
    EXPECT_EQ(std::int64_t(f["rejected"].get_int64()), 0);
    EXPECT_EQ(std::int64_t(f["accepted"].get_int64()) + std::int64_t(f["continuations"].get_int64()) +
                  std::int64_t(f["blank"].get_int64()),
              std::int64_t(f["lines"].get_int64()));
    ++seen;
  }
  EXPECT_EQ(seen, want.size());
}

TEST(RealGpuFixture, TheJobIsFoundAndNoSecondIsCountedTwice) {
  const Analyzed& a = analyzed();
  ASSERT_EQ(a.run.exit_code, 0) << a.run.err;
  auto gpus = a.doc["gpus"].get_array();
  ASSERT_EQ(gpus.size(), 1u);
  EXPECT_EQ(std::string_view((*gpus.begin())["name"].get_string()), "NVIDIA H200");
  EXPECT_EQ(std::string_view(a.doc["zone"]["name"].get_string()), "UTC");
  // dmon and --query-gpu both sampled the GPU every second for 130 s: one of them counts.
  const double rows = feature(a.doc, "F009"), sampled = feature(a.doc, "F010");
  EXPECT_GE(rows, 120);
  EXPECT_LE(rows, 131);
  EXPECT_DOUBLE_EQ(feature(a.doc, "F017") + feature(a.doc, "F018"), sampled);
  // 80 s of matrix products and a 20 s pause inside 130 s: busy most of the time, idle a third.
  EXPECT_GT(feature(a.doc, "F002"), 0.25);
  EXPECT_LT(feature(a.doc, "F002"), 0.5);
  EXPECT_GT(feature(a.doc, "F030"), 500);  // busy power (W): an H200 under bf16 matrix products
  EXPECT_GT(feature(a.doc, "F003"), 0);    // the PyTorch profiler trace of the profiled steps
  EXPECT_EQ(feature(a.doc, "F008"), 0);    // no Xid
  // Issue 14, from the real -q reports: one GSP firmware (the driver's 580.159.04) in both, and
  // neither hardware slowdown cause in the counters (the SW power cap held the clocks 0.94 s).
  EXPECT_EQ(feature(a.doc, "F036"), 1);
  EXPECT_DOUBLE_EQ(feature(a.doc, "F026"), 0.939093);  // the load report's counter (the start's is 0)
  // The -q health fields come from the GPU's -q reports, not from the query-gpu record of the same
  // GPU (which has none of them): no remap, no uncorrected ECC, the 86 C slowdown point 19 C away.
  EXPECT_EQ(feature(a.doc, "F049"), 0);
  EXPECT_EQ(feature(a.doc, "F050"), 0);
  EXPECT_EQ(feature(a.doc, "F052"), 0);
  EXPECT_EQ(feature(a.doc, "F058"), 19);
  EXPECT_EQ(feature(a.doc, "F063"), 0);  // clock_event_hw_power_brake_s
  EXPECT_EQ(feature(a.doc, "F132"), 0);  // clock_event_hw_thermal_s
  for (auto f : a.doc["features"].get_array()) {
    if (std::string_view(f["id"].get_string()) == "F036") {
      EXPECT_NE(std::string_view(f["evidence"].get_string()).find("580.159.04"), std::string_view::npos);
    }
    // The report the counter was read from, not the query-gpu record of the same GPU.
    if (std::string_view(f["id"].get_string()) == "F026") {
      EXPECT_NE(std::string_view(f["evidence"].get_string()).find("nvidia-smi-q-load.txt"), std::string_view::npos);
    }
  }
}

TEST(RealGpuFixture, EveryStandaloneVariantIsReadAsItsFormat) {
  const std::map<std::string, FormatId> want = {
      {"dmon-default.txt", FormatId::dmon},
      {"dmon-pucvmet-o-DT.txt", FormatId::dmon},
      {"dmon-pucvmet-o-T.txt", FormatId::dmon},
      {"dmon-s-e.txt", FormatId::dmon},
      {"pmon-default.txt", FormatId::pmon},
      {"nvidia-smi-q-idle.txt", FormatId::nvidia_smi_q},
      {"nvidia-smi-q-after.txt", FormatId::nvidia_smi_q},
      {"query-gpu-units.csv", FormatId::query_gpu_csv},
  };
  for (const auto& [name, format] : want) {
    SCOPED_TRACE(name);
    IngestResult in;
    Diagnostics diag;
    IngestStage(IngestOptions{}).run(kDir / "variants" / name, in, diag);
    ASSERT_EQ(diag.files.size(), 1u);
    const FileDiagnostics& d = diag.files[0];
    EXPECT_EQ(d.format, format) << format_name(d.format);
    EXPECT_EQ(d.rejected(), 0u);
    EXPECT_EQ(d.accepted + d.continuations + d.blank, d.lines);
  }
}

// `--format=csv,noheader` with a field list of one's own: nothing says what the 6 columns are
// (docs/formats/gpu.md), so the row is rejected as no_header with a reason naming both counts.
TEST(RealGpuFixture, HeaderlessQueryOfUnknownFieldsIsRejectedWithItsReason) {
  IngestResult in;
  Diagnostics diag;
  IngestStage(IngestOptions{}).run(kDir / "variants" / "query-gpu-noheader-nounits.csv", in, diag);
  ASSERT_EQ(diag.files.size(), 1u);
  const FileDiagnostics& d = diag.files[0];
  EXPECT_EQ(d.format, FormatId::query_gpu_csv);
  EXPECT_EQ(d.problems[static_cast<std::size_t>(Problem::no_header)], 1u);
  ASSERT_FALSE(d.samples.empty());
  // nounits: no value's shape tells a measurement (`34`, `0`, `79.76` are bare numbers).
  EXPECT_NE(d.samples[0].reason.find("row's 6 fields are not the 16 of the collection list"), std::string::npos)
      << d.samples[0].reason;
  EXPECT_NE(d.samples[0].reason.find("no value's shape tells a measurement"), std::string::npos) << d.samples[0].reason;
}

}  // namespace
}  // namespace gpucost
