// nvidia-smi --query-gpu CSV: headers with units, nounits, noheader, `column -t`, [N/A], devices.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "gpucost/ingest/ingest.hpp"
#include "ingest/formats/formats.hpp"
#include "ingest/formats/nvidia_smi_common.hpp"

namespace gpucost {
namespace {

std::string read_data(const std::string& rel) {
  std::ifstream in(std::string(GPUCOST_TEST_DATA) + "/" + rel, std::ios::binary);
  EXPECT_TRUE(in.good()) << rel;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Parsed {
  IngestResult out;
  Diagnostics diag;
  const FileDiagnostics& file() const { return diag.files.at(0); }
  std::uint64_t nonblank() const { return file().lines - file().blank; }
  std::size_t count(Problem p) const { return file().problems[static_cast<std::size_t>(p)]; }
};

Parsed parse_data(const std::string& rel) {
  Parsed p;
  IngestStage(IngestOptions{}).run_buffer(read_data(rel), rel, FormatId::unknown, p.out, p.diag);
  return p;
}

std::optional<double> metric(const Parsed& p, std::size_t row, GpuMetric m) {
  const Column& c = p.out.samples.column(sample_metric_col(m));
  if (!c.is_valid(row)) return std::nullopt;
  return c.get_float(row);
}

std::int64_t col_int(const Parsed& p, std::size_t row, std::size_t col) {
  EXPECT_TRUE(p.out.samples.column(col).is_valid(row)) << "row " << row << " col " << col;
  return p.out.samples.column(col).get_int(row);
}

const ProblemSample* sample_of(const Parsed& p, Problem kind) {
  for (const auto& s : p.file().samples)
    if (s.problem == kind) return &s;
  return nullptr;
}

bool noted(const Parsed& p, std::string_view what) {
  for (const auto& n : p.file().notes)
    if (n.find(what) != std::string::npos) return true;
  return false;
}

TEST(QueryGpuFormat, RealSamplesAreDetectedAndFullyAccepted) {
  for (const char* f : {"real/querygpu/2gpu-1080ti-1060-no-timestamp.txt", "real/querygpu/rtx2060-busid-driver460.txt"}) {
    const Parsed p = parse_data(f);
    EXPECT_EQ(p.file().format, FormatId::query_gpu_csv) << f;
    EXPECT_EQ(p.file().accepted, p.nonblank()) << f;
    EXPECT_EQ(p.file().rejected(), 0u) << f;
    EXPECT_TRUE(p.out.samples.consistent()) << f;
  }
}

TEST(QueryGpuFormat, UnitsAndGpusByNameWithoutIndex) {
  // GeForce GTX 1080 Ti, 29 %, 11175 MiB, 2856 MiB, 36 %, 60, 106.56 W, 1936 MHz, 5508 MHz
  const Parsed p = parse_data("real/querygpu/2gpu-1080ti-1060-no-timestamp.txt");
  ASSERT_EQ(p.out.samples.rows(), 2u);
  EXPECT_EQ(col_int(p, 0, sample_col::gpu), 0);
  EXPECT_EQ(col_int(p, 1, sample_col::gpu), 1);
  EXPECT_EQ(metric(p, 0, GpuMetric::fan_pct), 29.0);
  EXPECT_EQ(metric(p, 0, GpuMetric::mem_total_mb), 11175.0);
  EXPECT_EQ(metric(p, 0, GpuMetric::fb_mb), 2856.0);
  EXPECT_EQ(metric(p, 0, GpuMetric::sm_pct), 36.0);
  EXPECT_EQ(metric(p, 0, GpuMetric::gpu_temp_c), 60.0);
  EXPECT_EQ(metric(p, 0, GpuMetric::power_w), 106.56);
  EXPECT_EQ(metric(p, 0, GpuMetric::pclk_mhz), 1936.0);
  EXPECT_EQ(metric(p, 0, GpuMetric::mclk_mhz), 5508.0);
  EXPECT_EQ(metric(p, 1, GpuMetric::power_w), 5.68);
  EXPECT_EQ(metric(p, 1, GpuMetric::fb_mb), 4.0);
  EXPECT_EQ(metric(p, 1, GpuMetric::mem_pct), std::nullopt);  // not queried
  for (std::size_t r = 0; r < 2; ++r) {
    EXPECT_EQ(static_cast<WallKind>(col_int(p, r, sample_col::wall_kind)), WallKind::kRelative);
    EXPECT_EQ(col_int(p, r, sample_col::wall_raw_ns), 0);
    EXPECT_EQ(col_int(p, r, sample_col::interval_ns), kNsPerSec);
  }
  ASSERT_EQ(p.out.devices.size(), 2u);
  EXPECT_EQ(p.out.devices[0].name, "GeForce GTX 1080 Ti");
  EXPECT_EQ(p.out.devices[0].memory_total_mib, 11175.0);
  EXPECT_FALSE(p.out.devices[0].index.has_value());
  EXPECT_EQ(p.out.devices[1].name, "GeForce GTX 1060 6GB");
  EXPECT_EQ(p.out.devices[1].memory_total_mib, 6078.0);
}

TEST(QueryGpuFormat, BusIdDriverAndUnreadFields) {
  const Parsed p = parse_data("real/querygpu/rtx2060-busid-driver460.txt");
  ASSERT_EQ(p.out.samples.rows(), 1u);
  EXPECT_EQ(metric(p, 0, GpuMetric::sm_pct), 20.0);
  EXPECT_EQ(metric(p, 0, GpuMetric::mem_pct), 8.0);
  EXPECT_EQ(metric(p, 0, GpuMetric::fb_mb), 682.0);
  EXPECT_EQ(metric(p, 0, GpuMetric::gpu_temp_c), 36.0);
  EXPECT_EQ(metric(p, 0, GpuMetric::pclk_mhz), 300.0);
  ASSERT_EQ(p.out.devices.size(), 1u);
  const GpuDevice& d = p.out.devices[0];
  EXPECT_EQ(d.pci_bus, "0000:09:00");
  EXPECT_EQ(d.driver_version, "460.91.03");
  EXPECT_EQ(d.name, "GeForce RTX 2060");
  EXPECT_EQ(d.memory_total_mib, 5934.0);
  EXPECT_TRUE(noted(p, "`memory.free`"));
  EXPECT_TRUE(noted(p, "`clocks.max.graphics`"));
}

TEST(QueryGpuFormat, TimestampsAndStableGpusByBusId) {
  const Parsed p = parse_data("gpu/query-units-timestamp-busid-3gpu.txt");
  EXPECT_EQ(p.file().format, FormatId::query_gpu_csv);
  EXPECT_EQ(p.file().accepted, p.nonblank());
  ASSERT_EQ(p.out.samples.rows(), 8u);
  // 0B, 3B, 8B in order of first appearance; later rounds print them in another order.
  const std::int64_t gpus[] = {0, 1, 2, 1, 0, 2, 0, 2};
  for (std::size_t r = 0; r < 8; ++r) {
    EXPECT_EQ(col_int(p, r, sample_col::gpu), gpus[r]) << r;
    EXPECT_EQ(static_cast<WallKind>(col_int(p, r, sample_col::wall_kind)), WallKind::kLocal);
    // Rounds start at 02.201, 12.305 and 22.398: steps 10.104 s and 10.093 s; the lower median.
    EXPECT_EQ(col_int(p, r, sample_col::interval_ns), 10'093 * kNsPerMs);
  }
  // 2024/06/03 09:14:12.305, ..., 00000000:3B:00.0, ..., P0, 4, 4, 42, 61 %, 18 %, 40960 MiB, 2210 MiB, 38127 MiB
  EXPECT_EQ(col_int(p, 3, sample_col::wall_raw_ns), civil_to_ns(CivilTime{2024, 6, 3, 9, 14, 12, 305'000'000}));
  EXPECT_EQ(metric(p, 3, GpuMetric::pstate), 0.0);
  EXPECT_EQ(metric(p, 3, GpuMetric::gpu_temp_c), 42.0);
  EXPECT_EQ(metric(p, 3, GpuMetric::sm_pct), 61.0);
  EXPECT_EQ(metric(p, 3, GpuMetric::mem_pct), 18.0);
  EXPECT_EQ(metric(p, 3, GpuMetric::fb_mb), 38127.0);
  EXPECT_EQ(metric(p, 3, GpuMetric::mem_total_mb), 40960.0);
  ASSERT_EQ(p.out.devices.size(), 3u);
  EXPECT_EQ(p.out.devices[0].pci_bus, "0000:0b:00");
  EXPECT_EQ(p.out.devices[1].pci_bus, "0000:3b:00");
  EXPECT_EQ(p.out.devices[2].pci_bus, "0000:8b:00");
  for (const auto& d : p.out.devices) {
    EXPECT_EQ(d.name, "NVIDIA A100-SXM4-40GB");
    EXPECT_EQ(d.driver_version, "545.23.08");
    EXPECT_EQ(d.pcie_gen_max, 4);
    EXPECT_EQ(d.pcie_gen_current, 4);
    EXPECT_EQ(d.memory_total_mib, 40960.0);
  }
}

TEST(QueryGpuFormat, NounitsNullsAndRejectedRows) {
  const Parsed p = parse_data("gpu/query-nounits-index-na.txt");
  EXPECT_EQ(p.file().format, FormatId::query_gpu_csv);
  EXPECT_EQ(p.count(Problem::bad_number), 1u);
  EXPECT_EQ(p.count(Problem::column_mismatch), 1u);
  const ProblemSample* bad = sample_of(p, Problem::bad_number);
  ASSERT_NE(bad, nullptr);
  EXPECT_EQ(bad->line, 5u);
  EXPECT_NE(bad->reason.find("`utilization.gpu`"), std::string::npos) << bad->reason;
  const ProblemSample* mismatch = sample_of(p, Problem::column_mismatch);
  ASSERT_NE(mismatch, nullptr);
  EXPECT_EQ(mismatch->line, 6u);
  EXPECT_EQ(mismatch->reason, "row has 7 fields, header has 8");

  ASSERT_EQ(p.out.samples.rows(), 4u);
  const std::int64_t lines[] = {2, 3, 4, 7};
  const std::int64_t gpus[] = {0, 1, 0, 0};
  const TimeNs raws[] = {0, 0, kNsPerSec, 2 * kNsPerSec};
  for (std::size_t r = 0; r < 4; ++r) {
    EXPECT_EQ(col_int(p, r, sample_col::line), lines[r]);
    EXPECT_EQ(col_int(p, r, sample_col::gpu), gpus[r]);
    EXPECT_EQ(col_int(p, r, sample_col::wall_raw_ns), raws[r]);
    EXPECT_EQ(metric(p, r, GpuMetric::power_limit_w), 350.0);
  }
  EXPECT_EQ(metric(p, 0, GpuMetric::power_w), 287.41);
  EXPECT_EQ(metric(p, 1, GpuMetric::power_w), std::nullopt);  // [N/A]
  EXPECT_EQ(metric(p, 1, GpuMetric::fan_pct), std::nullopt);  // [Not Supported]
  EXPECT_EQ(metric(p, 1, GpuMetric::sm_pct), 97.0);
  EXPECT_EQ(metric(p, 3, GpuMetric::fb_mb), 21036.0);
  ASSERT_EQ(p.out.devices.size(), 2u);
  EXPECT_EQ(p.out.devices[0].index, 0);
  EXPECT_EQ(p.out.devices[1].index, 1);
  EXPECT_EQ(p.out.devices[1].power_limit_w, 350.0);
}

TEST(QueryGpuFormat, NoHeaderBindsToTheCollectionList) {
  const Parsed p = parse_data("gpu/query-noheader-collect-list.txt");
  EXPECT_EQ(p.file().format, FormatId::query_gpu_csv);
  EXPECT_EQ(p.file().accepted, p.nonblank());
  EXPECT_TRUE(noted(p, "collection list"));
  ASSERT_EQ(p.out.samples.rows(), 5u);
  // 2026/11/29 19:50:45.123, 0, NVIDIA GeForce RTX 4090, 00000000:01:00.0, 550.54.14, P2, 63, 92 %, 41 %,
  // 18211 MiB, 24564 MiB, 338.52 W, 450.00 W, 2730 MHz, 10501 MHz, 54 %
  EXPECT_EQ(col_int(p, 0, sample_col::wall_raw_ns), civil_to_ns(CivilTime{2026, 11, 29, 19, 50, 45, 123'000'000}));
  EXPECT_EQ(col_int(p, 0, sample_col::gpu), 0);
  EXPECT_EQ(metric(p, 0, GpuMetric::pstate), 2.0);
  EXPECT_EQ(metric(p, 0, GpuMetric::gpu_temp_c), 63.0);
  EXPECT_EQ(metric(p, 0, GpuMetric::sm_pct), 92.0);
  EXPECT_EQ(metric(p, 0, GpuMetric::mem_pct), 41.0);
  EXPECT_EQ(metric(p, 0, GpuMetric::fb_mb), 18211.0);
  EXPECT_EQ(metric(p, 0, GpuMetric::mem_total_mb), 24564.0);
  EXPECT_EQ(metric(p, 0, GpuMetric::power_w), 338.52);
  EXPECT_EQ(metric(p, 0, GpuMetric::power_limit_w), 450.0);
  EXPECT_EQ(metric(p, 0, GpuMetric::pclk_mhz), 2730.0);  // clocks.sm stands in for the graphics clock
  EXPECT_EQ(metric(p, 0, GpuMetric::mclk_mhz), 10501.0);
  EXPECT_EQ(metric(p, 0, GpuMetric::fan_pct), 54.0);
  EXPECT_EQ(col_int(p, 1, sample_col::gpu), 1);
  EXPECT_EQ(metric(p, 1, GpuMetric::pstate), 8.0);
  EXPECT_EQ(metric(p, 3, GpuMetric::power_w), std::nullopt);
  // Rounds start at 45.123, 50.140 and 55.151: steps 5.017 s and 5.011 s.
  EXPECT_EQ(col_int(p, 4, sample_col::interval_ns), 5'011 * kNsPerMs);
  ASSERT_EQ(p.out.devices.size(), 2u);
  EXPECT_EQ(p.out.devices[0].pci_bus, "0000:01:00");
  EXPECT_EQ(p.out.devices[1].pci_bus, "0000:41:00");
  EXPECT_EQ(p.out.devices[1].index, 1);
  EXPECT_EQ(p.out.devices[1].driver_version, "550.54.14");
  EXPECT_EQ(p.out.devices[1].power_limit_w, 450.0);
  EXPECT_EQ(p.out.devices[1].memory_total_mib, 24564.0);
}

TEST(QueryGpuFormat, NoHeaderWithOtherFieldsIsBoundByTheValuesShapes) {
  // 13 fields, not the collection list's 16, and no pasted command line: the values say what
  // they are (timestamp, name, bus id, driver, P-state, the two `%` utilizations); the bare
  // numbers and the MiB sizes stay unread.
  const Parsed p = parse_data("gpu/query-noheader-foreign-13-fields.txt");
  EXPECT_EQ(p.file().format, FormatId::query_gpu_csv);
  EXPECT_EQ(p.file().rejected(), 0u);
  ASSERT_EQ(p.out.samples.rows(), 3u);
  EXPECT_TRUE(noted(p, "shapes of the first row")) << p.file().notes.at(0);
  EXPECT_EQ(metric(p, 2, GpuMetric::sm_pct), 61.0);
  EXPECT_EQ(metric(p, 2, GpuMetric::mem_pct), 18.0);
  EXPECT_EQ(metric(p, 0, GpuMetric::pstate), 0.0);
  EXPECT_EQ(metric(p, 0, GpuMetric::fb_mb), std::nullopt);
  EXPECT_EQ(col_int(p, 0, sample_col::gpu), 0);  // by bus id, in order of appearance
  EXPECT_EQ(col_int(p, 1, sample_col::gpu), 1);
  EXPECT_EQ(col_int(p, 2, sample_col::gpu), 1);
}

// Many GPUs without a header, `timestamp, index, ...` (the order of the collection list and of
// most scripts; lines written for this test in nvidia-smi's csv,noheader layout): the small
// number after the timestamp is the GPU index, so eight GPUs are eight GPUs in both rounds.
TEST(QueryGpuFormat, NoHeaderManyGpusTakeTheIndexAfterTheTimestamp) {
  std::string text;
  for (int round = 0; round < 2; ++round)
    for (int g = 7; g >= 0; --g)
      text += fmt::format("2024/05/02 03:00:0{}.123, {}, NVIDIA H100 80GB HBM3, 00000000:{:02X}:00.0, {} %, 30 %, 650.50 W\n",
                          round, g, 0x18 + g, 90 + g);
  Parsed p;
  IngestStage(IngestOptions{}).run_buffer(text, "q.csv", FormatId::unknown, p.out, p.diag);
  EXPECT_EQ(p.file().format, FormatId::query_gpu_csv);
  EXPECT_EQ(p.file().rejected(), 0u);
  ASSERT_EQ(p.out.samples.rows(), 16u);
  EXPECT_TRUE(noted(p, "timestamp,index,name,pci.bus_id,utilization.gpu,utilization.memory,power.draw"))
      << p.file().notes.at(0);
  for (std::size_t r = 0; r < 16; ++r) {
    EXPECT_EQ(col_int(p, r, sample_col::gpu), 7 - static_cast<std::int64_t>(r % 8)) << r;
    EXPECT_EQ(metric(p, r, GpuMetric::sm_pct), 97.0 - static_cast<double>(r % 8)) << r;
  }
}

TEST(QueryGpuFormat, NoHeaderThatNothingNamesIsRejectedWithItsReason) {
  const std::string text = "1, 2, 3, 4\n5, 6, 7, 8\n";
  Parsed p;
  IngestStage(IngestOptions{}).run_buffer(text, "q.csv", FormatId::query_gpu_csv, p.out, p.diag);
  EXPECT_EQ(p.out.samples.rows(), 0u);
  EXPECT_EQ(p.count(Problem::no_header), 2u);
  const ProblemSample* s = sample_of(p, Problem::no_header);
  ASSERT_NE(s, nullptr);
  EXPECT_NE(s->reason.find("4 fields"), std::string::npos) << s->reason;
  EXPECT_NE(s->reason.find("16 of the collection list"), std::string::npos) << s->reason;
  EXPECT_NE(s->reason.find("no pasted"), std::string::npos) << s->reason;
}

TEST(QueryGpuFormat, NoHeaderBoundByThePastedCommandLine) {
  const std::string text =
      "user@trainbox:~$ nvidia-smi --query-gpu=index,temperature.gpu,utilization.gpu,memory.used,power.draw "
      "--format=csv,noheader,nounits -l 5\n"
      "0, 67, 100, 22716, 287.41\n"
      "1, 63, 97, 22716, 279.05\n"
      "0, 68, 100, 22716, 290.12\n"
      "1, 63, 98, 22716, 281.77\n";
  Parsed p;
  IngestStage(IngestOptions{}).run_buffer(text, "q.txt", FormatId::unknown, p.out, p.diag);
  EXPECT_EQ(p.file().format, FormatId::query_gpu_csv);
  EXPECT_EQ(p.file().rejected(), 0u);
  EXPECT_EQ(p.file().prompts, 1u);
  ASSERT_EQ(p.out.samples.rows(), 4u);
  EXPECT_EQ(col_int(p, 1, sample_col::gpu), 1);
  EXPECT_EQ(metric(p, 0, GpuMetric::gpu_temp_c), 67.0);
  EXPECT_EQ(metric(p, 1, GpuMetric::sm_pct), 97.0);
  EXPECT_EQ(metric(p, 3, GpuMetric::power_w), 281.77);
  // `-l 5`: the rounds are 5 s apart.
  EXPECT_EQ(col_int(p, 2, sample_col::wall_raw_ns) - col_int(p, 0, sample_col::wall_raw_ns), 5 * kNsPerSec);
  EXPECT_EQ(col_int(p, 3, sample_col::interval_ns), 5 * kNsPerSec);
}

TEST(QueryGpuFormat, ColumnAlignedOutput) {
  const Parsed p = parse_data("gpu/query-column-t.txt");
  EXPECT_EQ(p.file().format, FormatId::query_gpu_csv);
  EXPECT_EQ(p.file().accepted, p.nonblank());
  ASSERT_EQ(p.out.samples.rows(), 2u);
  EXPECT_EQ(col_int(p, 0, sample_col::gpu), 0);
  EXPECT_EQ(col_int(p, 1, sample_col::gpu), 1);
  EXPECT_EQ(metric(p, 0, GpuMetric::power_w), 128.40);
  EXPECT_EQ(metric(p, 1, GpuMetric::power_w), std::nullopt);
  EXPECT_EQ(metric(p, 0, GpuMetric::gpu_temp_c), 39.0);
  EXPECT_EQ(metric(p, 1, GpuMetric::fan_pct), 70.0);
  EXPECT_EQ(metric(p, 1, GpuMetric::pclk_mhz), 1721.0);
  EXPECT_EQ(metric(p, 1, GpuMetric::mclk_mhz), 4873.0);
  ASSERT_EQ(p.out.devices.size(), 2u);
  EXPECT_EQ(p.out.devices[0].name, "GeForce GTX 1080");
}

TEST(QueryGpuFormat, CollectionListConstant) {
  EXPECT_EQ(formats::nvsmi::kCollectQueryFields,
            "timestamp,index,name,pci.bus_id,driver_version,pstate,temperature.gpu,utilization.gpu,"
            "utilization.memory,memory.used,memory.total,power.draw,power.limit,clocks.sm,clocks.mem,fan.speed");
}

TEST(QueryGpuFormat, Scores) {
  const LogFormat& f = formats::query_gpu_csv_format();
  EXPECT_EQ(f.score("name, pci.bus_id, driver_version, utilization.gpu [%], memory.total [MiB]"), 100);
  EXPECT_EQ(f.score("index   name               power.draw [W]   temperature.gpu   fan.speed [%]"), 100);
  EXPECT_GT(f.score("2024/06/03 09:14:02.201, NVIDIA A100-SXM4-40GB, 00000000:0B:00.0, 545.23.08, P0"), 50);
  EXPECT_GT(f.score("GeForce GTX 1080 Ti, 29 %, 11175 MiB, 2856 MiB, 36 %, 60, 106.56 W"), 0);
  EXPECT_GT(f.score("0       GeForce GTX 1080   128.40 W         39                70 %"), 0);
  EXPECT_EQ(f.score("    0    119     59      -    100      0      0      0      0      0   6800   1665"), 0);
  EXPECT_EQ(f.score("# gpu    pwr  gtemp  mtemp     sm    mem"), 0);
  EXPECT_EQ(f.score("    Product Name                          : NVIDIA A10G"), 0);
  EXPECT_EQ(f.score("Nov 29 19:50:45 host kernel: NVRM: Xid (PCI:0000:01:00): 79, pid=1, GPU has fallen off the bus."), 0);
}

// Issue 14: each row's current PCIe link is a sample (the link trains down at idle), the
// device record keeps the last.
TEST(QueryGpuFormat, CurrentPcieLinkIsASampleOfEveryRow) {
  const Parsed p = parse_data("gpu/h200/collect/nvidia-smi-query-gpu.csv");
  ASSERT_GT(p.out.samples.rows(), 0u);
  EXPECT_EQ(metric(p, 0, GpuMetric::pcie_gen), 5.0);
  EXPECT_EQ(metric(p, 0, GpuMetric::pcie_width), 16.0);
}

// Issue 14: clock-event (throttle) reasons by cause, `Active` / `Not Active`, under the current
// (clocks_event_reasons.*) and the older (clocks_throttle_reasons.*) names: samples, not errors.
TEST(QueryGpuFormat, ClockEventReasonsAreSamples) {
  const std::string text =
      "timestamp, index, utilization.gpu [%], clocks_event_reasons.hw_slowdown, clocks_event_reasons.hw_thermal_slowdown, "
      "clocks_event_reasons.hw_power_brake_slowdown, clocks_event_reasons.sw_power_cap, "
      "clocks_event_reasons.sw_thermal_slowdown\n"
      "2026/11/30 00:41:24.050, 0, 100 %, Not Active, Not Active, Not Active, Active, Not Active\n"
      "2026/11/30 00:41:25.056, 0, 100 %, Active, Active, Not Active, Not Active, Active\n";
  Parsed p;
  IngestStage(IngestOptions{}).run_buffer(text, "q.csv", FormatId::unknown, p.out, p.diag);
  EXPECT_EQ(p.file().format, FormatId::query_gpu_csv);
  EXPECT_EQ(p.file().rejected(), 0u);
  ASSERT_EQ(p.out.samples.rows(), 2u);
  EXPECT_EQ(metric(p, 0, GpuMetric::reason_sw_power_cap), 1.0);
  EXPECT_EQ(metric(p, 0, GpuMetric::reason_hw_slowdown), 0.0);
  EXPECT_EQ(metric(p, 1, GpuMetric::reason_hw_slowdown), 1.0);
  EXPECT_EQ(metric(p, 1, GpuMetric::reason_hw_thermal), 1.0);
  EXPECT_EQ(metric(p, 1, GpuMetric::reason_hw_power_brake), 0.0);
  EXPECT_EQ(metric(p, 1, GpuMetric::reason_sw_thermal), 1.0);
  const std::string older =
      "index, utilization.gpu [%], clocks_throttle_reasons.sw_power_cap\n"
      "0, 97 %, Active\n";
  Parsed o;
  IngestStage(IngestOptions{}).run_buffer(older, "q.csv", FormatId::unknown, o.out, o.diag);
  ASSERT_EQ(o.out.samples.rows(), 1u);
  EXPECT_EQ(metric(o, 0, GpuMetric::reason_sw_power_cap), 1.0);
}

}  // namespace
}  // namespace gpucost
