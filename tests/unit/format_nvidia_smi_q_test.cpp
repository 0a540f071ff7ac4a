// nvidia-smi -q reports (alone and inside nvidia-bug-report.log): one GpuDevice per GPU.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gpucost/ingest/ingest.hpp"
#include "ingest/formats/formats.hpp"

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
};

Parsed parse_text(const std::string& text, const std::string& name) {
  Parsed p;
  IngestStage(IngestOptions{}).run_buffer(text, name, FormatId::unknown, p.out, p.diag);
  return p;
}

TEST(NvidiaSmiQFormat, TwoGpusWithX16AndX8Links) {
  const Parsed p = parse_text(read_data("gpu/q-2gpu-x16-x8-driver535.txt"), "nvidia-smi-q.txt");
  EXPECT_EQ(p.file().format, FormatId::nvidia_smi_q);
  EXPECT_EQ(p.file().accepted, p.nonblank());
  EXPECT_EQ(p.file().rejected(), 0u);
  EXPECT_EQ(p.out.samples.rows(), 0u);
  ASSERT_EQ(p.out.devices.size(), 2u);
  const GpuDevice& a = p.out.devices[0];
  EXPECT_EQ(a.pci_bus, "0000:17:00");
  EXPECT_EQ(a.name, "NVIDIA RTX A5000");
  EXPECT_EQ(a.uuid, "GPU-6f1d2c7a-3b8e-4a51-9c0d-2e7b5a914c3f");
  EXPECT_EQ(a.index, 0);
  EXPECT_EQ(a.driver_version, "535.154.05");
  EXPECT_EQ(a.pcie_gen_max, 4);
  EXPECT_EQ(a.pcie_gen_current, 4);
  EXPECT_EQ(a.pcie_width_max, 16);
  EXPECT_EQ(a.pcie_width_current, 16);
  EXPECT_EQ(a.power_limit_w, 230.0);  // `Current Power Limit`; the module's is N/A
  EXPECT_EQ(a.memory_total_mib, 24564.0);
  EXPECT_EQ(a.line, 8u);
  const GpuDevice& b = p.out.devices[1];
  EXPECT_EQ(b.pci_bus, "0000:65:00");
  EXPECT_EQ(b.uuid, "GPU-b04e91d3-77c2-4f0a-8e6b-5d13c2a8f096");
  EXPECT_EQ(b.index, 1);
  EXPECT_EQ(b.pcie_gen_max, 4);
  EXPECT_EQ(b.pcie_gen_current, 1);
  EXPECT_EQ(b.pcie_width_max, 16);
  EXPECT_EQ(b.pcie_width_current, 8);
  EXPECT_EQ(b.driver_version, "535.154.05");
}

// A MIG-enabled GPU's report nests a `MIG Device` section per device (the XML's <mig_devices>),
// each with its own `ECC Errors` and `FB Memory Usage`: they are the device's, and read as its
// MIG devices; the devices' ECC counts were added to the GPU's (14 uncorrected where it had 0),
// and a device's memory would replace the GPU's where it came after the GPU's own. No real
// `-q` of a MIG GPU is at hand: the real H200 report with its MIG mode switched on and two MIG
// Device sections laid out as the report's other sections are.
TEST(NvidiaSmiQFormat, MigDeviceSectionsAreTheDevicesNotTheGpus) {
  std::string q = read_data("real/collect-h200-580/nvidia-smi-q-start.txt");
  const std::string mode = "    MIG Mode\n        Current                                        : Disabled\n";
  ASSERT_NE(q.find(mode), std::string::npos);
  std::string mig = "    MIG Mode\n        Current                                        : Enabled\n";
  const std::string pending = "        Pending                                        : Disabled\n";
  std::string devices = "    MIG Devices\n";
  for (int i = 0; i < 2; ++i)
    devices += fmt::format(
        "        MIG Device\n"
        "            Index                                      : {}\n"
        "            GPU Instance ID                            : {}\n"
        "            Compute Instance ID                        : 0\n"
        "            Device Attributes\n"
        "                Shared\n"
        "                    Multiprocessor count               : 32\n"
        "            ECC Errors\n"
        "                Volatile\n"
        "                    SRAM Uncorrectable                 : 7\n"
        "            FB Memory Usage\n"
        "                Total                                  : 35840 MiB\n"
        "                Used                                   : 0 MiB\n",
        i, i + 1);
  q.replace(q.find(mode), mode.size() + pending.size(), mig + pending + devices);
  const Parsed p = parse_text(q, "nvidia-smi-q.txt");
  EXPECT_EQ(p.file().format, FormatId::nvidia_smi_q);
  EXPECT_EQ(p.file().rejected(), 0u);
  ASSERT_EQ(p.out.devices.size(), 1u);
  const GpuDevice& d = p.out.devices[0];
  EXPECT_EQ(d.memory_total_mib, 143771.0);
  EXPECT_EQ(d.ecc_volatile_uncorrected, 0.0);
  ASSERT_EQ(d.mig_devices.size(), 2u);
  EXPECT_EQ(d.mig_devices[0].device, 0);
  EXPECT_EQ(d.mig_devices[1].device, 1);
  EXPECT_EQ(d.mig_devices[1].gpu_instance, 2);
  EXPECT_EQ(d.mig_devices[1].compute_instance, 0);
  EXPECT_DOUBLE_EQ(d.mig_devices[0].memory_gb, 35.0);
  // 35840 of 143771 MiB: 1.99 of 8 slices, so 2 eighths.
  EXPECT_EQ(d.mig_devices[0].share, 0.25);
}

TEST(NvidiaSmiQFormat, OldLayoutPrefersTheEnforcedPowerLimit) {
  const Parsed p = parse_text(read_data("gpu/q-1gpu-driver410-enforced-limit.txt"), "q.txt");
  EXPECT_EQ(p.file().format, FormatId::nvidia_smi_q);
  EXPECT_EQ(p.file().accepted, p.nonblank());
  ASSERT_EQ(p.out.devices.size(), 1u);
  const GpuDevice& d = p.out.devices[0];
  EXPECT_EQ(d.name, "Tesla V100-PCIE-32GB");
  EXPECT_EQ(d.uuid, "GPU-49658c1e-79e3-7941-12cb-1dfe9c53a7d2");
  EXPECT_EQ(d.pci_bus, "0000:18:00");
  EXPECT_EQ(d.driver_version, "410.48");
  EXPECT_EQ(d.power_limit_w, 225.0);  // Enforced (225) over Power Limit (250)
  EXPECT_EQ(d.memory_total_mib, 32480.0);
  EXPECT_EQ(d.pcie_gen_max, 3);
  EXPECT_EQ(d.pcie_width_current, 16);
}

TEST(NvidiaSmiQFormat, RepeatedReportsUpdateOneDevice) {
  std::string one = read_data("gpu/q-1gpu-driver410-enforced-limit.txt");
  std::string two = one;
  const auto at = two.find("Enforced Power Limit        : 225.00 W");
  ASSERT_NE(at, std::string::npos);
  two.replace(at, std::string("Enforced Power Limit        : 225.00 W").size(), "Enforced Power Limit        : 200.00 W");
  const Parsed p = parse_text(one + two, "q-loop.txt");
  ASSERT_EQ(p.out.devices.size(), 1u);
  EXPECT_EQ(p.out.devices[0].power_limit_w, 200.0);
}

TEST(NvidiaSmiQFormat, BugReportIsAcceptedWhole) {
  const Parsed p = parse_text(read_data("gpu/nvidia-bug-report-excerpt.log"), "nvidia-bug-report.log");
  EXPECT_EQ(p.file().format, FormatId::nvidia_smi_q);
  EXPECT_EQ(p.file().accepted, p.nonblank());
  ASSERT_EQ(p.out.devices.size(), 1u);  // the nvlink section's `GPU 0: ...` is no -q GPU
  const GpuDevice& d = p.out.devices[0];
  EXPECT_EQ(d.pci_bus, "0000:17:00");
  EXPECT_EQ(d.driver_version, "535.154.05");
  EXPECT_EQ(d.pcie_width_current, 16);
  EXPECT_EQ(d.power_limit_w, 230.0);
}

TEST(NvidiaSmiQFormat, GzippedBugReportInADirectory) {
  const std::string text = read_data("gpu/nvidia-bug-report-excerpt.log");
  const auto dir = std::filesystem::temp_directory_path() / ("gpucost-q-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "nvidia-bug-report.log.gz").string();
  gzFile gz = gzopen(path.c_str(), "wb");
  ASSERT_NE(gz, nullptr);
  ASSERT_EQ(gzwrite(gz, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
  gzclose(gz);
  IngestResult out;
  Diagnostics diag;
  IngestStage(IngestOptions{}).run(dir, out, diag);
  std::filesystem::remove_all(dir);
  ASSERT_EQ(diag.files.size(), 1u);
  EXPECT_EQ(diag.files[0].format, FormatId::nvidia_smi_q);
  EXPECT_EQ(out.devices.size(), 1u);
}

TEST(NvidiaSmiQFormat, LinesBeforeTheBannerOfAPlainReport) {
  // The pasted command line is a prompt (issue 20: not a rejected line); a stray line before the
  // banner that is no report line is still rejected.
  const std::string text = "$ nvidia-smi -q\nsomething else\n" + read_data("gpu/q-1gpu-driver410-enforced-limit.txt");
  const Parsed p = parse_text(text, "q.txt");
  EXPECT_EQ(p.file().format, FormatId::nvidia_smi_q);
  EXPECT_EQ(p.file().prompts, 1u);
  EXPECT_EQ(p.file().problems[static_cast<std::size_t>(Problem::unparsable_line)], 1u);
  EXPECT_EQ(p.file().accepted + 2, p.nonblank());
  EXPECT_EQ(p.out.devices.size(), 1u);
}

TEST(NvidiaSmiQFormat, ReportWithoutBannerOrMinorNumbers) {
  // `-q -d MEMORY` pasted from its first GPU section: the section titles inside the GPU block
  // (`    FB Memory Usage`) are the report's, and the GPUs are numbered by their order.
  const std::string text =
      "GPU 00000000:17:00.0\n"
      "    FB Memory Usage\n"
      "        Total                             : 24564 MiB\n"
      "        Used                              : 21874 MiB\n"
      "    BAR1 Memory Usage\n"
      "        Total                             : 256 MiB\n"
      "\n"
      "GPU 0000:01:05.0\n"
      "    FB Memory Usage\n"
      "        Total                             : 4799 MiB\n";
  const Parsed p = parse_text(text, "q.txt");
  EXPECT_EQ(p.file().format, FormatId::nvidia_smi_q);
  EXPECT_EQ(p.file().rejected(), 0u);
  EXPECT_EQ(p.file().accepted, p.nonblank());
  ASSERT_EQ(p.out.devices.size(), 2u);
  EXPECT_EQ(p.out.devices[0].index, 0);
  EXPECT_EQ(p.out.devices[0].memory_total_mib, 24564.0);
  EXPECT_EQ(p.out.devices[1].index, 1);
  EXPECT_EQ(p.out.devices[1].pci_bus, "0000:01:05");
  EXPECT_EQ(p.out.devices[1].memory_total_mib, 4799.0);
}

TEST(NvidiaSmiQFormat, Scores) {
  const LogFormat& f = formats::nvidia_smi_q_format();
  EXPECT_EQ(f.score("==============NVSMI LOG=============="), 100);
  EXPECT_GE(f.score("Driver Version                            : 535.154.05"), 80);
  EXPECT_GE(f.score("Attached GPUs                             : 2"), 80);
  EXPECT_GE(f.score("GPU 00000000:01:00.0"), 80);
  EXPECT_EQ(f.score("Start of NVIDIA bug report log file.  Please include this file, along"), 100);
  EXPECT_GE(f.score("____________________________________________"), 80);
  const int kv = f.score("    Product Name                          : NVIDIA A10G");
  EXPECT_GT(kv, 20);
  EXPECT_LT(kv, 80);
  EXPECT_EQ(f.score("Nov 29 19:50:45 host kernel: NVRM: Xid (PCI:0000:01:00): 79"), 0);
  EXPECT_EQ(f.score("[ 4909.922970] NVRM: GPU at PCI:0000:01:00: GPU-abc"), 0);
  EXPECT_EQ(f.score("               NVRM: GPU Board Serial Number: 0"), 0);
  EXPECT_EQ(f.score("# gpu    pwr  gtemp  mtemp     sm    mem"), 0);
  EXPECT_EQ(f.score("name, pci.bus_id, driver_version"), 0);
}

// Issue 14: what a fleet engineer acts on in a real H200's -q report (tests/data/gpu/h200):
// clock-event counters, ECC totals, row remapping, the slowdown temperature from T.Limit offsets,
// the VBIOS.
TEST(NvidiaSmiQFormat, H200HealthFields) {
  const Parsed p = parse_text(read_data("gpu/h200/collect/nvidia-smi-q-load.txt"), "nvidia-smi-q-load.txt");
  EXPECT_EQ(p.file().rejected(), 0u);
  ASSERT_EQ(p.out.devices.size(), 1u);
  const GpuDevice& d = p.out.devices[0];
  EXPECT_EQ(d.vbios_versions, std::vector<std::string>{"96.00.A5.00.1A"});
  EXPECT_EQ(d.gsp_firmware_versions, std::vector<std::string>{"580.159.04"});
  EXPECT_EQ(d.clock_event_sw_power_cap_us, 939093.0);
  EXPECT_EQ(d.clock_event_sw_thermal_us, 0.0);
  EXPECT_EQ(d.clock_event_hw_thermal_us, 0.0);
  EXPECT_EQ(d.clock_event_hw_power_brake_us, 0.0);
  EXPECT_EQ(d.ecc_volatile_corrected, 0.0);
  EXPECT_EQ(d.ecc_volatile_uncorrected, 0.0);
  EXPECT_EQ(d.ecc_aggregate_uncorrected, 0.0);
  EXPECT_FALSE(d.retired_pages_sbe);  // N/A: the H200 remaps rows instead
  EXPECT_EQ(d.row_remap_pending, false);
  EXPECT_EQ(d.row_remap_failed, false);
  EXPECT_EQ(d.temp_current_c, 58.0);
  // 58 C now, 30 C below T.Limit, slowdown 2 C below T.Limit: slowdown at 86 C.
  EXPECT_EQ(d.temp_slowdown_c, 86.0);
}

// The same report with errors in it: the uncorrectable counts of each block are summed (SRAM
// parity + SEC-DED + DRAM), volatile and aggregate apart; a pending remap and a failed one are read.
TEST(NvidiaSmiQFormat, EccTotalsAndRemapStateAreRead) {
  std::string text = read_data("gpu/h200/collect/nvidia-smi-q-load.txt");
  auto set_nth = [&](std::string_view key, int nth, std::string_view value) {
    std::size_t at = 0;
    for (int i = 0; i <= nth; ++i) {
      at = text.find(key, i ? at + 1 : 0);
      ASSERT_NE(at, std::string::npos) << key;
    }
    const auto colon = text.find(": ", at);
    const auto eol = text.find('\n', colon);
    text.replace(colon + 2, eol - colon - 2, value);
  };
  set_nth("SRAM Uncorrectable Parity", 0, "1");
  set_nth("DRAM Uncorrectable", 0, "2");
  set_nth("DRAM Correctable", 0, "5");
  set_nth("DRAM Uncorrectable", 1, "7");
  set_nth("HW Power Braking", 0, "2500000 us");
  set_nth("HW Thermal Slowdown", 1, "500000 us");  // [0] is the `Clocks Event Reasons` state
  set_nth("        Pending ", 6, "Yes");            // the `Remapped Rows` block's
  const Parsed p = parse_text(text, "q.txt");
  ASSERT_EQ(p.out.devices.size(), 1u);
  const GpuDevice& d = p.out.devices[0];
  EXPECT_EQ(d.ecc_volatile_uncorrected, 3.0);
  EXPECT_EQ(d.ecc_volatile_corrected, 5.0);
  EXPECT_EQ(d.ecc_aggregate_uncorrected, 7.0);
  EXPECT_EQ(d.clock_event_hw_power_brake_us, 2500000.0);
  EXPECT_EQ(d.clock_event_hw_thermal_us, 500000.0);
  EXPECT_EQ(d.row_remap_pending, true);
  EXPECT_EQ(d.row_remap_failed, false);
}

// Older drivers: `GPU Slowdown Temp` itself, ECC as `Single Bit`/`Double Bit` > `Total`, retired
// pages, and no clock-event counters.
TEST(NvidiaSmiQFormat, OldLayoutHealthFields) {
  const Parsed p = parse_text(read_data("gpu/q-1gpu-driver410-enforced-limit.txt"), "q.txt");
  ASSERT_EQ(p.out.devices.size(), 1u);
  const GpuDevice& d = p.out.devices[0];
  EXPECT_EQ(d.temp_current_c, 41.0);
  EXPECT_EQ(d.temp_slowdown_c, 87.0);
  EXPECT_EQ(d.ecc_volatile_corrected, 0.0);
  EXPECT_EQ(d.ecc_volatile_uncorrected, 0.0);
  EXPECT_EQ(d.retired_pages_sbe, 0.0);
  EXPECT_EQ(d.retired_pages_dbe, 0.0);
  EXPECT_EQ(d.retired_pages_pending, false);
  EXPECT_FALSE(d.clock_event_sw_power_cap_us);
  EXPECT_FALSE(d.row_remap_pending);
  const Parsed q = parse_text(read_data("gpu/q-2gpu-x16-x8-driver535.txt"), "q.txt");
  ASSERT_EQ(q.out.devices.size(), 2u);
  EXPECT_EQ(q.out.devices[1].temp_slowdown_c, 95.0);  // `GPU T.Limit Temp : N/A`: the printed one
  EXPECT_EQ(q.out.devices[1].vbios_versions, std::vector<std::string>{"94.02.6D.00.0B"});
  // A driver before the GSP firmware line, and one that prints N/A: no version.
  EXPECT_TRUE(p.out.devices[0].gsp_firmware_versions.empty());
  std::string na = read_data("gpu/h200/collect/nvidia-smi-q-load.txt");
  const auto at = na.find("580.159.04", na.find("GSP Firmware Version"));
  ASSERT_NE(at, std::string::npos);
  na.replace(at, 10, "N/A");
  EXPECT_TRUE(parse_text(na, "q.txt").out.devices.at(0).gsp_firmware_versions.empty());
}

}  // namespace
}  // namespace gpucost
