// What nvidia-smi -q says about each GPU: PCIe link (x8 instead of x16), limits, memory.
#include <gtest/gtest.h>

#include "timeline_builder.hpp"

namespace gpucost {
namespace {

using namespace test;
using M = GpuMetric;

GpuDevice device(int index, int width, int width_max, int gen, int gen_max) {
  GpuDevice d;
  d.index = index;
  d.pcie_width_current = width;
  d.pcie_width_max = width_max;
  d.pcie_gen_current = gen;
  d.pcie_gen_max = gen_max;
  d.power_limit_w = index == 0 ? 115 : 450;
  d.memory_total_mib = index == 0 ? 8188 : 24564;
  return d;
}

TEST(FeaturesDevices, PcieLinkPerGpuAndTheWorstForTheHost) {
  TimelineBuilder b;
  b.file("nvidia-smi-q.txt", FormatId::nvidia_smi_q);
  b.device(device(0, 8, 16, 4, 4)).device(device(1, 16, 16, 3, 4));
  const FeatureSet fs = run_features(b.build());
  ASSERT_EQ(fs.gpus, (std::vector<int>{0, 1}));  // devices with an index are GPUs even without samples
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "pcie_link_width"), 8));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "pcie_link_width_max"), 16));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "pcie_link_width_ratio"), 0.5));
  EXPECT_TRUE(has_value(of_gpu(fs, 1, "pcie_link_width_ratio"), 1));
  EXPECT_TRUE(has_value(of_gpu(fs, 1, "pcie_link_gen"), 3));
  EXPECT_TRUE(has_value(host(fs, "pcie_link_width"), 8));
  EXPECT_TRUE(has_value(host(fs, "pcie_link_width_max"), 16));
  EXPECT_TRUE(has_value(host(fs, "pcie_link_width_ratio"), 0.5));
  EXPECT_TRUE(has_value(host(fs, "pcie_link_gen"), 3));
  EXPECT_TRUE(has_value(host(fs, "pcie_link_gen_max"), 4));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "gpu_power_limit_w"), 115));
  EXPECT_TRUE(has_value(host(fs, "gpu_power_limit_w"), 565));
  EXPECT_TRUE(has_value(host(fs, "gpu_memory_total_mib"), 8188 + 24564));
  EXPECT_TRUE(has_value(host(fs, "gpu_count"), 2));
  EXPECT_EQ(host(fs, "pcie_link_width").evidence, "2 GPU(s); lowest from nvidia-smi-q.txt:0");
}

TEST(FeaturesDevices, UnindexedDevicesCountForTheHost) {
  TimelineBuilder b;
  b.file("nvidia-smi-q.txt", FormatId::nvidia_smi_q);
  GpuDevice d = device(0, 8, 16, 4, 4);
  d.index.reset();
  b.device(d);
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(fs.gpus.empty());
  EXPECT_TRUE(has_value(host(fs, "pcie_link_width_ratio"), 0.5));
  EXPECT_TRUE(has_value(host(fs, "gpu_count"), 1));
}

TEST(FeaturesDevices, MissingReportIsNull) {
  TimelineBuilder b;
  b.samples(b.file("dmon.txt", FormatId::dmon), 0, 3, 0, {{M::sm_pct, 50}});
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(is_null_with(host(fs, "pcie_link_width"), "nvidia-smi -q"));
  EXPECT_TRUE(is_null_with(of_gpu(fs, 0, "pcie_link_width_ratio"), "nvidia-smi -q"));
  EXPECT_TRUE(is_null_with(host(fs, "gpu_power_limit_w"), "power limit"));
  EXPECT_TRUE(is_null_with(host(fs, "gpu_memory_total_mib"), "total memory"));
  EXPECT_TRUE(is_null_with(host(run_features(TimelineBuilder().build()), "pcie_link_gen"), "no nvidia-smi -q report"));
}

// Issue 14: the -q health fields become features a fleet engineer acts on, per GPU and host.
TEST(FeaturesDevices, ClockEventsEccRemapAndRetiredPages) {
  TimelineBuilder b;
  b.file("nvidia-smi-q.txt", FormatId::nvidia_smi_q);
  GpuDevice a = device(0, 16, 16, 5, 5);
  a.clock_event_sw_power_cap_us = 939093;
  a.clock_event_sw_thermal_us = 0;
  a.clock_event_hw_thermal_us = 1'500'000;
  a.clock_event_hw_power_brake_us = 500'000;
  a.ecc_volatile_uncorrected = 3;
  a.ecc_aggregate_uncorrected = 7;
  a.row_remap_pending = true;
  a.row_remap_failed = false;
  GpuDevice g = device(1, 16, 16, 5, 5);  // an older driver: no counters, pages retired instead
  g.ecc_volatile_uncorrected = 0;
  g.ecc_aggregate_uncorrected = 2;
  g.retired_pages_sbe = 4;
  g.retired_pages_dbe = 1;
  b.device(a).device(g);
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "clock_event_sw_power_cap_s"), 0.939093));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "clock_event_hw_slowdown_s"), 2.0));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "clock_event_sw_thermal_s"), 0));
  EXPECT_TRUE(is_null_with(of_gpu(fs, 1, "clock_event_hw_slowdown_s"), "Clocks Event Reasons Counters"));
  EXPECT_TRUE(has_value(host(fs, "clock_event_hw_slowdown_s"), 2.0));
  // Issue 14: the two hardware causes apart: a hot board (1.5 s) and a power brake (0.5 s).
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "clock_event_hw_thermal_s"), 1.5));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "clock_event_hw_power_brake_s"), 0.5));
  EXPECT_TRUE(is_null_with(of_gpu(fs, 1, "clock_event_hw_power_brake_s"), "Clocks Event Reasons Counters"));
  EXPECT_TRUE(has_value(host(fs, "clock_event_hw_thermal_s"), 1.5));
  EXPECT_TRUE(has_value(host(fs, "gpu_ecc_volatile_uncorrected"), 3));
  EXPECT_TRUE(has_value(host(fs, "gpu_ecc_aggregate_uncorrected"), 9));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "row_remap_attention"), 1));
  EXPECT_TRUE(is_null_with(of_gpu(fs, 1, "row_remap_attention"), "Remapped Rows"));
  EXPECT_TRUE(has_value(host(fs, "row_remap_attention"), 1));
  EXPECT_TRUE(is_null_with(of_gpu(fs, 0, "retired_pages"), "Retired Pages"));
  EXPECT_TRUE(has_value(host(fs, "retired_pages"), 5));
}

// The margin is to the GPU's own slowdown point, from its hottest sample; without samples, from
// the -q reading. The host takes the GPU closest to its limit.
TEST(FeaturesDevices, ThermalMarginToTheGpusOwnSlowdownTemperature) {
  TimelineBuilder b;
  const auto d = b.file("dmon.txt", FormatId::dmon);
  b.file("nvidia-smi-q.txt", FormatId::nvidia_smi_q);
  b.sample(d, at(0), 0, {{M::gpu_temp_c, 70}}).sample(d, at(1), 0, {{M::gpu_temp_c, 81}});
  GpuDevice a = device(0, 16, 16, 5, 5);
  a.temp_current_c = 58;
  a.temp_slowdown_c = 86;
  GpuDevice g = device(1, 16, 16, 5, 5);
  g.temp_current_c = 41;
  g.temp_slowdown_c = 87;
  b.device(a).device(g);
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "gpu_thermal_margin_c"), 86 - 81));  // the hottest row, not the -q reading
  EXPECT_TRUE(has_value(of_gpu(fs, 1, "gpu_thermal_margin_c"), 87 - 41));  // no samples of GPU 1
  EXPECT_TRUE(has_value(host(fs, "gpu_thermal_margin_c"), 5));
}

// A VBIOS flashed between two -q reports (two boots) is two versions for that GPU.
TEST(FeaturesDevices, VbiosVersionsAcrossReports) {
  TimelineBuilder b;
  b.file("q-before.txt", FormatId::nvidia_smi_q);
  b.file("q-after.txt", FormatId::nvidia_smi_q);
  GpuDevice before = device(0, 16, 16, 5, 5);
  before.pci_bus = "0000:18:00";
  before.vbios_versions = {"96.00.A5.00.1A"};
  before.file = 0;
  GpuDevice after = before;
  after.vbios_versions = {"96.00.A5.00.2B"};
  after.file = 1;
  GpuDevice other = device(1, 16, 16, 5, 5);
  other.pci_bus = "0000:2a:00";
  other.vbios_versions = {"96.00.A5.00.1A"};
  b.device(before).device(after).device(other);
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "vbios_versions"), 2));
  EXPECT_TRUE(has_value(of_gpu(fs, 1, "vbios_versions"), 1));
  EXPECT_TRUE(has_value(host(fs, "vbios_versions"), 2));
  EXPECT_NE(host(fs, "vbios_versions").evidence.find("0000:18:00: 96.00.A5.00.1A -> 96.00.A5.00.2B"), std::string::npos)
      << host(fs, "vbios_versions").evidence;
}

// Issue 14: the link as it ran for work. An idle -q snapshot says gen 1 x16 and the kernel's probe
// line gen 3; the busy query-gpu rows say gen 4 x8: those win. Without busy rows the probe line
// and -q are reconciled as before.
TEST(FeaturesDevices, PcieLinkWhileBusyComesFromBusyRows) {
  TimelineBuilder b;
  const auto q = b.file("query-gpu.csv", FormatId::query_gpu_csv);
  const auto k = b.file("kern.log", FormatId::syslog);
  b.file("nvidia-smi-q.txt", FormatId::nvidia_smi_q);
  b.sample(q, at(0), 0, {{M::sm_pct, 0}, {M::pcie_gen, 1}, {M::pcie_width, 16}});   // idle: trained down
  b.sample(q, at(1), 0, {{M::sm_pct, 95}, {M::pcie_gen, 4}, {M::pcie_width, 8}});
  b.sample(q, at(2), 0, {{M::sm_pct, 90}, {M::pcie_gen, 4}, {M::pcie_width, 16}});
  b.sample(q, at(0), 1, {{M::sm_pct, 0}, {M::pcie_gen, 1}, {M::pcie_width, 16}});   // GPU 1 never busy
  GpuDevice a = device(0, 16, 16, 1, 4);
  a.pci_bus = "0000:01:00";
  GpuDevice g = device(1, 16, 16, 1, 4);
  g.pci_bus = "0000:02:00";
  b.device(a).device(g);
  b.event(k, at(0), EventKind::pcie_link_degraded, {}, "0000:01:00",
          "pci 0000:01:00.0: 31.504 Gb/s available PCIe bandwidth, limited by 8.0 GT/s PCIe x4 link at 0000:00:01.0");
  b.event(k, at(0), EventKind::pcie_link_degraded, {}, "0000:02:00",
          "pci 0000:02:00.0: 31.504 Gb/s available PCIe bandwidth, limited by 8.0 GT/s PCIe x4 link at 0000:00:01.1");
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "pcie_link_gen"), 4));    // busy rows, not the probe's gen 3
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "pcie_link_width"), 8));  // the narrowest busy row, not -q's x16
  EXPECT_TRUE(has_value(of_gpu(fs, 1, "pcie_link_gen"), 3));    // no busy row: the probe line over -q's gen 1
  EXPECT_TRUE(has_value(of_gpu(fs, 1, "pcie_link_width"), 16));
  EXPECT_TRUE(has_value(host(fs, "pcie_link_gen"), 3));
}

// Issue 14: with query-gpu reason columns the clock-event seconds are measured inside the sampled
// window, not taken from -q's counters since the driver loaded.
TEST(FeaturesDevices, ClockEventSecondsFromQueryGpuRows) {
  TimelineBuilder b;
  const auto q = b.file("query-gpu.csv", FormatId::query_gpu_csv);
  b.file("nvidia-smi-q.txt", FormatId::nvidia_smi_q);
  b.sample(q, at(0), 0, {{M::sm_pct, 90}, {M::reason_sw_power_cap, 1}, {M::reason_hw_slowdown, 0}}, 2 * kNsPerSec);
  b.sample(q, at(2), 0, {{M::sm_pct, 90}, {M::reason_sw_power_cap, 1}, {M::reason_hw_thermal, 1}}, 2 * kNsPerSec);
  b.sample(q, at(4), 0, {{M::sm_pct, 90}, {M::reason_sw_power_cap, 0}, {M::reason_hw_power_brake, 1}}, 2 * kNsPerSec);
  GpuDevice a = device(0, 16, 16, 5, 5);
  a.clock_event_sw_power_cap_us = 939093;  // since the driver loaded: not used when rows say it
  a.clock_event_sw_thermal_us = 3'000'000;
  b.device(a);
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "clock_event_sw_power_cap_s"), 4));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "clock_event_hw_slowdown_s"), 4));  // thermal at 2 s, power brake at 4 s
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "clock_event_sw_thermal_s"), 3));   // no rows report it: -q's counter
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "clock_event_hw_thermal_s"), 2));      // the row at 2 s
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "clock_event_hw_power_brake_s"), 2));  // the row at 4 s
}

// Issue 14: the GSP firmware each GPU ran, and whether it changed between reports (a driver
// update between boots); a GPU whose reports print none (N/A, older drivers) is null.
TEST(FeaturesDevices, GspFirmwareVersionsAcrossReports) {
  TimelineBuilder b;
  b.file("q-before.txt", FormatId::nvidia_smi_q);
  b.file("q-after.txt", FormatId::nvidia_smi_q);
  GpuDevice before = device(0, 16, 16, 5, 5);
  before.pci_bus = "0000:18:00";
  before.gsp_firmware_versions = {"570.124.06"};
  before.file = 0;
  GpuDevice after = before;
  after.gsp_firmware_versions = {"580.159.04"};
  after.file = 1;
  GpuDevice other = device(1, 16, 16, 5, 5);  // no GSP firmware line
  other.pci_bus = "0000:2a:00";
  b.device(before).device(after).device(other);
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "gsp_firmware_versions"), 2));
  EXPECT_TRUE(is_null_with(of_gpu(fs, 1, "gsp_firmware_versions"), "GSP Firmware Version"));
  EXPECT_TRUE(has_value(host(fs, "gsp_firmware_versions"), 2));
  EXPECT_NE(host(fs, "gsp_firmware_versions").evidence.find("0000:18:00: 570.124.06 -> 580.159.04"), std::string::npos)
      << host(fs, "gsp_firmware_versions").evidence;
}

}  // namespace
}  // namespace gpucost
