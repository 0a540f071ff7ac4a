// Xid classes, per-GPU attribution, maintenance incidents and the actions they imply, PCIe AER,
// taint and the other kernel event counts.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "timeline_builder.hpp"

namespace gpucost {
namespace {

using namespace test;
using M = GpuMetric;

TEST(FeaturesIncidents, XidClassesAndPerGpuAttribution) {
  TimelineBuilder b;
  const auto k = b.file("dmesg.txt", FormatId::dmesg);
  const auto d = b.file("dmon.txt", FormatId::dmon);
  b.samples(d, 0, 2, 0, {{M::sm_pct, 1}}).samples(d, 0, 2, 1, {{M::sm_pct, 1}});
  b.device(device(0, "0000:01:00")).device(device(1, "0000:02:00"));
  b.event(k, at(1), EventKind::xid, 13, "PCI:0000:01:00");
  b.event(k, at(2), EventKind::xid, 31, "0000:02:00.0");
  b.event(k, at(3), EventKind::xid, 32, "00000000:01:00.0");
  b.event(k, at(4), EventKind::xid, 48, "1");  // an index names GPU 1
  b.event(k, at(5), EventKind::xid, 74, "0000:01:00");
  b.event(k, at(6), EventKind::xid, 79, "0000:01:00");
  b.event(k, at(7), EventKind::xid, 154, "0000:01:00");
  b.event(k, at(8), EventKind::xid, 999);        // unknown code, no GPU: host only
  b.event(k, kNoTime, EventKind::xid);           // no code, no GPU: host only
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(host(fs, "xid_events"), 9));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "xid_events"), 5));
  EXPECT_TRUE(has_value(of_gpu(fs, 1, "xid_events"), 2));
  EXPECT_TRUE(has_value(host(fs, "xid_application_events"), 2));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "xid_application_events"), 1));
  EXPECT_TRUE(has_value(host(fs, "xid_driver_firmware_events"), 1));
  EXPECT_TRUE(has_value(host(fs, "xid_memory_ecc_events"), 1));
  EXPECT_TRUE(has_value(of_gpu(fs, 1, "xid_memory_ecc_events"), 1));
  EXPECT_TRUE(has_value(host(fs, "xid_bus_events"), 2));
  EXPECT_TRUE(has_value(host(fs, "xid_recovery_action_events"), 1));
  EXPECT_TRUE(has_value(host(fs, "xid_other_events"), 2));
  EXPECT_TRUE(has_value(host(fs, "xid_distinct_codes"), 8));
  EXPECT_EQ(host(fs, "xid_distinct_codes").evidence, "9 Xid events; first dmesg.txt:1; codes 13,31,32,48,74,79,154,999");
  EXPECT_TRUE(has_value(of_gpu(fs, 1, "xid_distinct_codes"), 2));
  // Issue 14: every code once here, so the lowest one leads; GPU 1 has 31 and 48.
  EXPECT_TRUE(has_value(host(fs, "xid_top_code_events"), 1));
  EXPECT_EQ(host(fs, "xid_top_code_events").evidence, "Xid 13: 1 of 8 Xid events with a code (8 codes); first dmesg.txt:1");
  EXPECT_TRUE(has_value(of_gpu(fs, 1, "xid_top_code_events"), 1));
  // Two GPU rows each 1 s: the host sampled 2 s, [0 s, 2 s); only the Xid at 1 s lies inside it.
}

// Issue 14: the code that repeats most, per GPU and for the host.
TEST(FeaturesIncidents, TheXidCodeThatRepeatsMost) {
  TimelineBuilder b;
  const auto k = b.file("dmesg.txt", FormatId::dmesg);
  const auto d = b.file("dmon.txt", FormatId::dmon);
  b.samples(d, 0, 2, 0, {{M::sm_pct, 1}}).samples(d, 0, 2, 1, {{M::sm_pct, 1}});
  b.device(device(0, "0000:01:00")).device(device(1, "0000:02:00"));
  for (double t : {1.0, 2.0, 3.0}) b.event(k, at(t), EventKind::xid, 119, "0000:01:00");  // GSP timeouts
  b.event(k, at(4), EventKind::xid, 13, "0000:01:00");
  for (double t : {5.0, 6.0}) b.event(k, at(t), EventKind::xid, 48, "0000:02:00");
  b.event(k, at(7), EventKind::xid);  // no code: not counted
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "xid_top_code_events"), 3));
  EXPECT_EQ(of_gpu(fs, 0, "xid_top_code_events").evidence, "Xid 119: 3 of 4 Xid events with a code (2 codes); first dmesg.txt:1");
  EXPECT_TRUE(has_value(of_gpu(fs, 1, "xid_top_code_events"), 2));
  EXPECT_TRUE(has_value(host(fs, "xid_top_code_events"), 3));
  TimelineBuilder none;
  none.file("dmesg.txt", FormatId::dmesg);
  EXPECT_TRUE(has_value(host(run_features(none.build()), "xid_top_code_events"), 0));
}

TEST(FeaturesIncidents, PerGpuXidCountsAreNullWhenAnAddressIsUnmapped) {
  TimelineBuilder b;
  const auto k = b.file("dmesg.txt", FormatId::dmesg);
  const auto d = b.file("dmon.txt", FormatId::dmon);
  b.samples(d, 0, 2, 0, {{M::sm_pct, 1}}).samples(d, 0, 2, 1, {{M::sm_pct, 1}});  // two GPUs, no bus ids
  b.event(k, at(1), EventKind::xid, 79, "0000:01:00");
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(host(fs, "xid_events"), 1));
  EXPECT_TRUE(is_null_with(of_gpu(fs, 0, "xid_events"), "1 Xid events name a GPU address that no device record maps"));
  EXPECT_TRUE(is_null_with(of_gpu(fs, 1, "xid_bus_events"), "no device record maps"));
  EXPECT_TRUE(is_null_with(of_gpu(fs, 1, "xid_distinct_codes"), "no device record maps"));
}

TEST(FeaturesIncidents, KernelMessagesNamingOneGpuMakeItGpuZero) {
  TimelineBuilder b;
  const auto k = b.file("dmesg.txt", FormatId::dmesg);
  b.event(k, at(1), EventKind::xid, 31, "PCI:0000:01:00");
  b.event(k, at(2), EventKind::xid, 79, "0000:01:00.0");
  b.event(k, at(3), EventKind::gpu_reset, {}, "0000:00:02", "i915 0000:00:02.0: Resetting chip");  // not NVIDIA's
  const FeatureSet fs = run_features(b.build());
  ASSERT_EQ(fs.gpus, (std::vector<int>{0}));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "xid_events"), 2));
  EXPECT_TRUE(is_null_with(of_gpu(fs, 0, "gpu_samples"), "no GPU samples"));
  EXPECT_TRUE(has_value(host(fs, "gpu_count"), 1));

  TimelineBuilder two;
  const auto k2 = two.file("dmesg.txt", FormatId::dmesg);
  two.event(k2, at(1), EventKind::xid, 31, "0000:01:00").event(k2, at(2), EventKind::xid, 31, "0000:02:00");
  const FeatureSet t = run_features(two.build());
  EXPECT_TRUE(t.gpus.empty());
  EXPECT_TRUE(is_null_with(host(t, "gpu_count"), "no kernel message naming one GPU"));
}

TEST(FeaturesIncidents, SingleGpuTakesEveryEventNamingAGpu) {
  TimelineBuilder b;
  const auto k = b.file("dmesg.txt", FormatId::dmesg);
  b.samples(b.file("dmon.txt", FormatId::dmon), 0, 2, 0, {{M::sm_pct, 1}});
  b.event(k, at(1), EventKind::xid, 31, "0000:01:00");
  b.event(k, at(2), EventKind::xid, 31);
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "xid_events"), 1));
  EXPECT_TRUE(has_value(host(fs, "xid_events"), 2));
}

Timeline incident_log() {
  TimelineBuilder b;
  const auto k = b.file("kern.log", FormatId::syslog);
  b.samples(b.file("dmon.txt", FormatId::dmon), 0, 720, 0, {{M::sm_pct, 80}}, 10);  // 2 h sampled
  b.event(k, at(0), EventKind::xid, 62);                                             // incident 1
  b.event(k, at(100), EventKind::xid, 45);                                           // application
  b.event(k, at(130), EventKind::xid, 13);                                           // application, same job
  b.event(k, at(200), EventKind::xid, 119);                                          // incident 1
  b.event(k, at(215), EventKind::xid, 154, {}, "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)");
  b.event(k, at(300), EventKind::xid, 31);                                           // application, new job
  b.event(k, at(2000), EventKind::xid, 79);                                          // incident 2: reboot
  b.event(k, at(2001), EventKind::fallen_off_bus);
  b.event(k, at(2400), EventKind::rm_init_failed);                                   // incident 3: reboot
  b.event(k, at(5000), EventKind::gpu_reset, {}, {}, "i915 0000:00:02.0: Resetting chip for stopped heartbeat on rcs0");
  b.event(k, at(6000), EventKind::gpu_reset, {}, {}, "NVRM: GPU at PCI:0000:01:00: GPU has been reset");  // incident 4
  b.event(k, at(7000), EventKind::xid, 154, {}, "GPU recovery action changed from 0x0 (None) to 0x0 (None)");
  b.event(k, at(8000), EventKind::xid, 154, {}, "GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)");  // 5
  b.event(k, at(9000), EventKind::gsp_error);                                        // incident 6
  b.event(k, kNoTime, EventKind::xid, 48);                                           // incident 7 (unplaced)
  b.event(k, kNoTime, EventKind::xid, 43);                                           // application, unplaced
  return b.build();
}

TEST(FeaturesIncidents, MaintenanceIncidentsClusterAndImplyActions) {
  const FeatureSet fs = run_features(incident_log());
  EXPECT_TRUE(has_value(host(fs, "maintenance_incidents"), 7));
  EXPECT_TRUE(has_value(host(fs, "F008"), 7));
  EXPECT_TRUE(has_value(host(fs, "reboot_incidents"), 3));
  EXPECT_TRUE(has_value(host(fs, "gpu_reset_incidents"), 4));
  // Inside the 2 h sampled span: incidents 1-4 (those at 8000 s, 9000 s and the unplaced one lie outside).
  EXPECT_TRUE(has_value(host(fs, "incidents_per_hour"), 2));
  EXPECT_TRUE(has_value(host(fs, "application_xid_incidents"), 3));
  EXPECT_TRUE(has_value(host(fs, "gpu_reset_events"), 1));  // i915's reset is not counted
  EXPECT_NE(host(fs, "maintenance_incidents").evidence.find("1 unplaced events counted as one incident"), std::string::npos);
}

TEST(FeaturesIncidents, IncidentsPerHourUsesTheLogUptimeWithoutSamples) {
  TimelineBuilder b;
  const auto k = b.file("kern.log", FormatId::syslog);
  b.event(k, at(0), EventKind::xid, 79);
  b.event(k, at(7200), EventKind::xid, 79);
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(host(fs, "maintenance_incidents"), 2));
  EXPECT_TRUE(has_value(host(fs, "incidents_per_hour"), 1));
  EXPECT_NE(host(fs, "incidents_per_hour").evidence.find("log uptime"), std::string::npos);
}

TEST(FeaturesIncidents, NoKernelLogIsNullAndAQuietOneIsZero) {
  TimelineBuilder none;
  none.samples(none.file("dmon.txt", FormatId::dmon), 0, 10, 0, {{M::sm_pct, 80}});
  const FeatureSet n = run_features(none.build());
  TimelineBuilder quiet;
  quiet.samples(quiet.file("dmon.txt", FormatId::dmon), 0, 10, 0, {{M::sm_pct, 80}});
  quiet.file("dmesg.txt", FormatId::dmesg);
  const FeatureSet q = run_features(quiet.build());
  for (auto name : {"xid_events", "xid_application_events", "xid_driver_firmware_events", "xid_memory_ecc_events",
                    "xid_bus_events", "xid_recovery_action_events", "xid_other_events", "xid_distinct_codes",
                    "maintenance_incidents", "reboot_incidents", "gpu_reset_incidents",
                    "application_xid_incidents", "incidents_per_hour", "fallen_off_bus_events", "rm_init_failed_events",
                    "gsp_error_events", "nv_assert_events", "gpu_reset_events", "gpu_lost_s",
                    "driver_error_events", "pcie_aer_events", "pcie_aer_corrected_events",
                    "pcie_aer_uncorrected_events", "pcie_link_degraded_events", "benign_driver_messages", "i915_hang_events",
                    "oom_kill_events", "segfault_events"}) {
    EXPECT_TRUE(is_null_with(host(n, name), "no kernel or system log")) << name;
    EXPECT_TRUE(has_value(host(q, name), 0)) << name;
  }
  EXPECT_TRUE(is_null_with(of_gpu(n, 0, "xid_events"), "no kernel"));
  EXPECT_TRUE(has_value(of_gpu(q, 0, "xid_events"), 0));
  // A quiet log has no failures to measure a time between: null, not 0.
  EXPECT_TRUE(is_null_with(host(n, "time_between_failures_h"), "no kernel or system log"));
  EXPECT_TRUE(is_null_with(host(q, "time_between_failures_h"), "0 placed maintenance incident(s)"));
}

TEST(FeaturesIncidents, AerTaintAndOtherKernelCounts) {
  TimelineBuilder b;
  const auto k = b.file("dmesg.txt", FormatId::dmesg);
  for (std::optional<std::int64_t> sev : {std::optional<std::int64_t>(0), std::optional<std::int64_t>(0),
                                          std::optional<std::int64_t>(1), std::optional<std::int64_t>(2),
                                          std::optional<std::int64_t>()})
    b.event(k, at(1), EventKind::pcie_aer, sev);
  b.event(k, at(2), EventKind::taint, {}, {}, "nvidia: module license 'NVIDIA' taints kernel.");
  b.event(k, at(2), EventKind::taint, {}, {}, "Disabling lock debugging due to kernel taint");
  b.event(k, at(3), EventKind::pcie_link_degraded);
  b.event(k, at(4), EventKind::fallen_off_bus).event(k, at(5), EventKind::rm_init_failed);
  b.event(k, at(6), EventKind::gsp_error).event(k, at(7), EventKind::nv_assert).event(k, at(7.5), EventKind::nv_assert);
  b.event(k, at(8), EventKind::driver_load).event(k, at(9), EventKind::i915_hang);
  b.event(k, at(10), EventKind::oom_kill).event(k, at(11), EventKind::segfault).event(k, at(12), EventKind::segfault);
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(host(fs, "pcie_aer_events"), 5));
  EXPECT_TRUE(has_value(host(fs, "pcie_aer_corrected_events"), 2));
  EXPECT_TRUE(has_value(host(fs, "pcie_aer_uncorrected_events"), 2));
  EXPECT_TRUE(has_value(host(fs, "pcie_link_degraded_events"), 1));
  EXPECT_TRUE(has_value(host(fs, "fallen_off_bus_events"), 1));
  EXPECT_TRUE(has_value(host(fs, "rm_init_failed_events"), 1));
  EXPECT_TRUE(has_value(host(fs, "gsp_error_events"), 1));
  EXPECT_TRUE(has_value(host(fs, "nv_assert_events"), 2));
  EXPECT_TRUE(has_value(host(fs, "i915_hang_events"), 1));
  EXPECT_TRUE(has_value(host(fs, "oom_kill_events"), 1));
  EXPECT_TRUE(has_value(host(fs, "segfault_events"), 2));
  // Only the kernel log: the service counts are null, not 0.
  EXPECT_TRUE(is_null_with(host(fs, "gpu_service_restarts"), "no syslog or journal"));
  // rm_init_failed and fallen_off_bus 1 s apart: one incident, a reboot.
  EXPECT_TRUE(has_value(host(fs, "reboot_incidents"), 1));
}

TEST(FeaturesIncidents, ServiceRestartsFromTheJournal) {
  TimelineBuilder b;
  const auto j = b.file("journal.txt", FormatId::journal_short);
  b.event(j, at(1), EventKind::service_restart).event(j, at(50), EventKind::service_restart);
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(host(fs, "gpu_service_restarts"), 2));
}

// Issue 14: nvidia-persistenced starting with the machine is not a restart of a GPU service.
TEST(FeaturesIncidents, ADaemonStartingAtBootIsNoRestart) {
  TimelineBuilder b;
  const auto j = b.file("journal.txt", FormatId::journal_short);
  b.event(j, at(0), EventKind::boot, {}, {}, "Linux version 6.8.0-49-generic");
  b.event(j, at(5.21), EventKind::service_restart, {}, {}, "Started (1001)");
  b.event(j, at(4000), EventKind::service_restart, {}, {}, "Started (52011)");
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(host(fs, "gpu_service_restarts"), 1));
  EXPECT_NE(host(fs, "gpu_service_restarts").evidence.find("1 starts within 300 s of a boot not counted"), std::string::npos);
}

}  // namespace
}  // namespace gpucost

namespace gpucost {
namespace {

using namespace test;

// Issue 14: a rate divides only the events inside the window its hours measure: an Xid from an
// older kern.log two weeks before the hour of dmon rows is not "per hour of sampling".
TEST(FeaturesIncidents, RatesCountOnlyTheEventsInsideTheirWindow) {
  TimelineBuilder b;
  const auto d = b.file("dmon.txt", FormatId::dmon);
  const auto k = b.file("kern.log", FormatId::syslog);
  b.event(k, at(-14 * 86400.0), EventKind::xid, 79, "PCI:0000:01:00");
  b.event(k, at(-14 * 86400.0 + 1000), EventKind::thermal, 1);
  b.samples(d, 0, 3600, 0, {{GpuMetric::sm_pct, 80}});
  b.event(k, at(100), EventKind::xid, 48, "PCI:0000:01:00").event(k, at(2000), EventKind::xid, 13, "PCI:0000:01:00");
  b.event(k, at(200), EventKind::thermal, 1);
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(host(fs, "xid_events"), 3));
  EXPECT_TRUE(has_value(host(fs, "maintenance_incidents"), 2));
  // Issue 14: the Xid 79 two weeks earlier and the Xid 48 at 100 s are two failures (the Xid 13
  // is the application's): one gap between them, over the whole timeline.
  EXPECT_TRUE(has_value(host(fs, "time_between_failures_h"), (100 + 14 * 86400.0) / 3600));
  EXPECT_TRUE(has_value(host(fs, "incidents_per_hour"), 1));
}

// Issue 14: which driver ran, and whether it changed across boots (it replaces a median of SM %).
TEST(FeaturesIncidents, DriverVersionsAndTheirChanges) {
  TimelineBuilder b;
  const auto k = b.file("kern.log", FormatId::syslog);
  b.event(k, at(0), EventKind::driver_load, {}, {}, "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.120  Fri Sep 13 10:10:01 UTC 2024");
  b.event(k, at(100), EventKind::driver_load, {}, {},
          "NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  570.158.01  Release Build  (dvs-builder@U22-I3-B10-02-5)  Mon Jun  2 13:13:04 UTC 2025");
  b.event(k, at(200), EventKind::driver_load, {}, {}, "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.120  Fri Sep 13 10:10:01 UTC 2024");
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(host(fs, "driver_versions"), 2));
  EXPECT_EQ(host(fs, "driver_versions").evidence,
            "3 driver loads; versions in order: 550.120, 570.158.01; 2 changes between consecutive loads");
  TimelineBuilder none;
  none.file("kern.log", FormatId::syslog);
  EXPECT_TRUE(has_value(host(run_features(none.build()), "driver_versions"), 0));
}

// Issue 14: Xid counts by the process they hit.
TEST(FeaturesIncidents, XidProcesses) {
  TimelineBuilder b;
  const auto k = b.file("kern.log", FormatId::syslog);
  const auto x = [&](double t, std::int64_t code, std::string text, std::string process) {
    b.event(k, at(t), EventKind::xid, code, "PCI:0000:01:00", std::move(text));
    if (!process.empty()) b.named_process(std::move(process));
  };
  x(1, 13, "NVRM: Xid (PCI:0000:01:00): 13, pid=2211, name=python3, Graphics Exception", "python3");
  x(2, 31, "NVRM: Xid (PCI:0000:01:00): 31, pid=2211, name=python3, Ch 00000010", "python3");
  x(3, 43, "NVRM: Xid (PCI:0000:01:00): 43, pid=3001, name=blender, Ch 00000008", "blender");
  x(4, 79, "NVRM: Xid (PCI:0000:01:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.", "");
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(host(fs, "xid_processes"), 2));
  EXPECT_EQ(host(fs, "xid_processes").evidence, "3 of 4 Xid events name a process: python3 x2, blender x1");
}

// Issue 39: a crash-looping job names a new process on every Xid. They are counted by an index
// (the list search was quadratic: 200 000 lines about 90 s) and the evidence names the busiest
// 20, not all of them.
TEST(FeaturesIncidents, XidProcessesOfACrashLoopAreCountedAndListedBriefly) {
  TimelineBuilder b;
  const auto k = b.file("kern.log", FormatId::syslog);
  constexpr int kProcesses = 30000;
  for (int i = 0; i < kProcesses; ++i) {
    b.event(k, at(1 + i * 0.01), EventKind::xid, 13, "PCI:0000:01:00",
            fmt::format("NVRM: Xid (PCI:0000:01:00): 13, pid={}, name=job{}, Graphics Exception", 1000 + i, i));
    b.named_process(fmt::format("job{}", i));
  }
  b.event(k, at(400), EventKind::xid, 13, "PCI:0000:01:00", "NVRM: Xid (PCI:0000:01:00): 13, pid=7, name=job7, x");
  b.named_process("job7");
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(host(fs, "xid_processes"), kProcesses));
  const std::string& ev = host(fs, "xid_processes").evidence;
  EXPECT_EQ(ev.rfind("30001 of 30001 Xid events name a process: job7 x2, job0 x1, job1 x1, ", 0), 0u) << ev.substr(0, 200);
  EXPECT_NE(ev.find(" and 29980 more"), std::string::npos) << ev.substr(0, 400);
  EXPECT_LT(ev.size(), 1000u);
}

}  // namespace
}  // namespace gpucost
