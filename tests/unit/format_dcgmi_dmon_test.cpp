// dcgmi dmon (NVIDIA DCGM): the fixture in tests/data/gpu, the DCGM short names that become
// sample metrics, MIG entities, units lines and rejected rows. (Detection of the registered
// sample runs in format_samples_test.cpp.)
#include <gtest/gtest.h>

#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "gpucost/ingest/detect.hpp"
#include "gpucost/ingest/ingest.hpp"

namespace gpucost {
namespace {

struct Parsed {
  IngestResult out;
  Diagnostics diag;
  const FileDiagnostics& file() const { return diag.files.at(0); }
};

Parsed parse_text(const std::string& text, const std::string& name = "dcgmi.txt") {
  Parsed p;
  IngestStage(IngestOptions{}).run_buffer(text, name, FormatId::unknown, p.out, p.diag);
  return p;
}

std::optional<double> metric(const Parsed& p, std::size_t row, GpuMetric m) {
  const Column& c = p.out.samples.column(sample_metric_col(m));
  if (!c.is_valid(row)) return std::nullopt;
  return c.get_float(row);
}

std::int64_t gpu_of(const Parsed& p, std::size_t row) { return p.out.samples.column(sample_col::gpu).get_int(row); }

TEST(DcgmiDmonFormat, FixtureGivesARowPerGpuPerRoundWithTheMappedMetrics) {
  std::ifstream in(std::string(GPUCOST_TEST_DATA) + "/gpu/dcgmi-dmon-155-150-203-204-1001-2gpu.txt");
  ASSERT_TRUE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  const Parsed p = parse_text(ss.str());
  EXPECT_EQ(p.file().format, FormatId::dcgmi_dmon);
  EXPECT_EQ(p.file().rejected(), 0u);
  EXPECT_EQ(p.file().accepted, 8u);  // header, units line, 6 rows
  ASSERT_EQ(p.out.samples.rows(), 6u);
  EXPECT_EQ(gpu_of(p, 1), 1);
  EXPECT_EQ(gpu_of(p, 4), 0);
  EXPECT_DOUBLE_EQ(*metric(p, 4, GpuMetric::power_w), 297.604);
  EXPECT_DOUBLE_EQ(*metric(p, 4, GpuMetric::gpu_temp_c), 57);
  EXPECT_DOUBLE_EQ(*metric(p, 4, GpuMetric::sm_pct), 100);
  EXPECT_DOUBLE_EQ(*metric(p, 4, GpuMetric::mem_pct), 41);
  EXPECT_FALSE(metric(p, 5, GpuMetric::power_w));  // N/A is null, never 0
  // GRACT is a profiling ratio, not what a sample's sm % means: no metric reads it, and the
  // notes name it once.
  std::string notes;
  for (const auto& n : p.file().notes) notes += n + "\n";
  EXPECT_NE(notes.find("GRACT"), std::string::npos) << notes;
  EXPECT_EQ(notes.find("GRACT"), notes.rfind("GRACT")) << notes;
  // Rows carry no time: the third round of GPU 0 is two intervals after its first.
  const Column& raw = p.out.samples.column(sample_col::wall_raw_ns);
  EXPECT_EQ(raw.get_int(4) - raw.get_int(0), 2 * kNsPerSec);
  EXPECT_EQ(raw.get_int(1), raw.get_int(0));
}

// The layout dcgmi/DeviceMonitor.cpp (SetHeaderForOutput) prints: `#Entity` and the DCGM short
// names, `ID` and the units, then entity rows; the values are made up.
TEST(DcgmiDmonFormat, PowerTemperatureUtilizationAndClocksBecomeSampleMetrics) {
  const Parsed p = parse_text(
      "#Entity           POWER             TMPTR       GPUTL       MCUTL       SMCLK       MMCLK       MMTMP\n"
      "ID                W                 C                                   MHz         MHz         C\n"
      "GPU 0             286.377           61          97          41          1980        2619        70\n"
      "GPU 1             N/A               45          0           0           345         2619        N/A\n"
      "GPU 0             290.01            62          98          40          1980        2619        71\n");
  EXPECT_EQ(p.file().format, FormatId::dcgmi_dmon);
  EXPECT_EQ(p.file().rejected(), 0u);
  ASSERT_EQ(p.out.samples.rows(), 3u);
  EXPECT_DOUBLE_EQ(*metric(p, 0, GpuMetric::power_w), 286.377);
  EXPECT_DOUBLE_EQ(*metric(p, 0, GpuMetric::gpu_temp_c), 61);
  EXPECT_DOUBLE_EQ(*metric(p, 0, GpuMetric::sm_pct), 97);
  EXPECT_DOUBLE_EQ(*metric(p, 0, GpuMetric::mem_pct), 41);
  EXPECT_DOUBLE_EQ(*metric(p, 0, GpuMetric::pclk_mhz), 1980);
  EXPECT_DOUBLE_EQ(*metric(p, 0, GpuMetric::mclk_mhz), 2619);
  EXPECT_DOUBLE_EQ(*metric(p, 0, GpuMetric::mem_temp_c), 70);
  EXPECT_FALSE(metric(p, 1, GpuMetric::power_w));  // N/A is null, never 0
  EXPECT_EQ(gpu_of(p, 1), 1);
}

TEST(DcgmiDmonFormat, MigInstancesAreReadButAreNoGpuSamples) {
  const Parsed p = parse_text(
      "#Entity           POWER\n"
      "ID                W\n"
      "GPU 0             120.5\n"
      "GPU-I 3           N/A\n"
      "GPU-CI 1          N/A\n");
  EXPECT_EQ(p.file().rejected(), 0u);
  EXPECT_EQ(p.file().accepted, 5u);
  EXPECT_EQ(p.out.samples.rows(), 1u);
}

TEST(DcgmiDmonFormat, RowsThatDoNotFitTheHeaderAreRejectedWithAReason) {
  const Parsed p = parse_text(
      "#Entity           POWER             TMPTR\n"
      "ID                W                 C\n"
      "GPU 0             120.5             41\n"
      "GPU 0             121.0\n"
      "GPU 0             abc               41\n");
  EXPECT_EQ(p.file().format, FormatId::dcgmi_dmon);
  EXPECT_EQ(p.out.samples.rows(), 1u);
  EXPECT_EQ(p.file().problems[static_cast<std::size_t>(Problem::column_mismatch)], 1u);
  EXPECT_EQ(p.file().problems[static_cast<std::size_t>(Problem::bad_number)], 1u);
}

TEST(DcgmiDmonFormat, AnNvidiaSmiQueryReportIsNotTakenForDcgmi) {
  // `GPU 00000000:01:00.0` opens a GPU in nvidia-smi -q: a bus id, not an entity id.
  const Parsed p = parse_text(
      "==============NVSMI LOG==============\n\n"
      "Timestamp                           : Mon Nov  5 14:50:59 2018\n"
      "Driver Version                      : 410.48\n\n"
      "Attached GPUs                       : 1\n"
      "GPU 00000000:18:00.0\n"
      "    Product Name                    : Tesla V100-PCIE-32GB\n",
      "q.txt");
  EXPECT_EQ(p.file().format, FormatId::nvidia_smi_q);
}

// A real paste of 8 GPUs (listed from GPU 7 down, the last round cut before GPU 0) after its
// prompt; then the same run pasted again after `^C` and a prompt with `-d 500` (DCGM's delay is
// in milliseconds): one file, two runs, the second placed after the first at its own interval.
TEST(DcgmiDmonFormat, RunsPastedOneAfterAnotherWithTheirPrompts) {
  std::ifstream in(std::string(GPUCOST_TEST_DATA) + "/gpu/dcgmi-dmon-8gpu-shadeform-prompt.txt");
  ASSERT_TRUE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string run = ss.str();
  const Parsed one = parse_text(run);
  EXPECT_EQ(format_name(one.file().format), "dcgmi_dmon");
  EXPECT_EQ(one.file().prompts, 1u);
  EXPECT_EQ(one.file().rejected(), 0u);
  ASSERT_EQ(one.out.samples.rows(), 47u);  // 5 rounds of 8 GPUs and 7 of the sixth
  EXPECT_EQ(gpu_of(one, 0), 7);
  EXPECT_EQ(gpu_of(one, 8), 7);  // GPU 7 again: the second round
  EXPECT_EQ(one.out.samples.column(sample_col::wall_raw_ns).get_int(8), kNsPerSec);
  EXPECT_EQ(metric(one, 0, GpuMetric::power_w), 57.430);
  EXPECT_EQ(metric(one, 0, GpuMetric::gpu_temp_c), 45.0);
  EXPECT_EQ(metric(one, 0, GpuMetric::sm_pct), 0.0);

  std::string second = run;
  second.replace(0, second.find('\n'), "shadeform@brev-7hpnmoj9o:~$ dcgmi dmon -e 150,155,156,203,252 -d 500");
  const Parsed two = parse_text(run + "^C\n" + second);
  EXPECT_EQ(two.file().prompts, 3u);  // two prompts and the `^C`
  EXPECT_EQ(two.file().rejected(), 0u);
  ASSERT_EQ(two.out.samples.rows(), 94u);
  const Column& raw = two.out.samples.column(sample_col::wall_raw_ns);
  for (std::size_t r = 1; r < two.out.samples.rows(); ++r) EXPECT_GE(raw.get_int(r), raw.get_int(r - 1)) << r;
  EXPECT_EQ(gpu_of(two, 47), 7);  // the second run's first row starts a round of its own
  EXPECT_GT(raw.get_int(47), raw.get_int(46));
  // Each run's rows cover its own interval: 1 s (no -d), then the pasted 500 ms, rounds of the
  // second run 500 ms apart after the first run's six seconds.
  const Column& interval = two.out.samples.column(sample_col::interval_ns);
  EXPECT_EQ(interval.get_int(46), kNsPerSec);
  EXPECT_EQ(interval.get_int(93), kNsPerSec / 2);
  EXPECT_EQ(raw.get_int(47), 6 * kNsPerSec);
  EXPECT_EQ(raw.get_int(55), 6 * kNsPerSec + kNsPerSec / 2);
}

}  // namespace
}  // namespace gpucost
