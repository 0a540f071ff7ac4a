// AC switches (DEFINITIONS.md rules), battery time, lid, suspend/resume, recovery, boots and the
// GPU time lost to power events (F004).
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gpucost/align/align.hpp"
#include "gpucost/ingest/ingest.hpp"
#include "timeline_builder.hpp"

namespace gpucost {
namespace {

using namespace test;
using M = GpuMetric;

TEST(FeaturesPowerEvents, AcSwitchesFollowTheAgreedRules) {
  TimelineBuilder b;
  const auto k = b.file("kern.log", FormatId::syslog);
  b.samples(b.file("dmon.txt", FormatId::dmon), 0, 1000, 0, {{M::sm_pct, 80}});
  b.event(k, at(0), EventKind::boot);
  b.event(k, at(10), EventKind::ac_online);    // within 60 s of the boot: initial state, not counted
  b.event(k, at(12), EventKind::ac_online);    // a copy (10 s, same state)
  b.event(k, at(100), EventKind::ac_offline);  // 1
  b.event(k, at(103), EventKind::ac_offline);  // acpid copy
  b.event(k, at(105), EventKind::ac_offline);  // upower copy, 2 s after the previous copy
  b.event(k, at(200), EventKind::ac_offline);  // a new report of the known state: not counted
  b.event(k, at(300), EventKind::ac_online);   // 2
  b.event(k, at(305), EventKind::ac_offline);  // 3: the other state, even within 10 s
  b.event(k, at(400), EventKind::ac_online, {}, {}, {}, 30 * kNsPerSec);  // mono 30 s: initial state again
  b.event(k, at(500), EventKind::ac_offline);  // 4
  b.event(k, kNoTime, EventKind::ac_online);   // not placed: ignored
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(host(fs, "ac_switches"), 4));
  // Copies merge into reports: 10, 100, 200, 300, 305, 400, 500.
  EXPECT_EQ(host(fs, "ac_switches").evidence, "7 AC reports from 11 events; first kern.log:2");
  EXPECT_TRUE(has_value(host(fs, "ac_switches_per_hour"), 4 / (1000.0 / 3600)));
  EXPECT_TRUE(has_value(host(fs, "F005"), 14.4));
  // On battery [100,300) + [305,400) + [500, end of window 1000).
  EXPECT_TRUE(has_value(host(fs, "battery_s"), 200 + 95 + 500));
  EXPECT_TRUE(has_value(host(fs, "laptop_signals"), 1));
}

TEST(FeaturesPowerEvents, FirstAcReportWithoutKnownStateCounts) {
  TimelineBuilder b;
  const auto k = b.file("journal.txt", FormatId::journal_short);
  b.event(k, at(1000), EventKind::ac_offline);
  b.event(k, at(1200), EventKind::ac_online);
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(host(fs, "ac_switches"), 2));
  EXPECT_TRUE(is_null_with(host(fs, "ac_switches_per_hour"), "no GPU samples"));
  EXPECT_TRUE(has_value(host(fs, "battery_s"), 200));
}

TEST(FeaturesPowerEvents, NoLogIsNullAndAQuietLogIsZero) {
  TimelineBuilder none;
  none.samples(none.file("dmon.txt", FormatId::dmon), 0, 10, 0, {{M::sm_pct, 80}});
  const FeatureSet n = run_features(none.build());
  TimelineBuilder quiet;
  quiet.samples(quiet.file("dmon.txt", FormatId::dmon), 0, 10, 0, {{M::sm_pct, 80}});
  quiet.file("journal.txt", FormatId::journal_json);
  const FeatureSet q = run_features(quiet.build());
  for (auto name : {"ac_switches", "ac_switches_per_hour", "battery_s", "lid_closes", "laptop_signals", "suspends",
                    "suspended_s", "boots", "unclean_reboots", "reboot_downtime_s", "power_event_loss_s",
                    "power_event_loss_fraction"}) {
    EXPECT_TRUE(is_null_with(host(n, name), "no kernel or system log")) << name;
    EXPECT_TRUE(has_value(host(q, name), 0)) << name;
  }
  EXPECT_TRUE(is_null_with(host(q, "resume_recovery_s_mean"), "no suspend interrupted a busy GPU"));
  EXPECT_TRUE(is_null_with(host(q, "ac_switch_recovery_s_mean"), "no AC switch interrupted a busy GPU"));
}

TEST(FeaturesPowerEvents, LidClosesMergeWithinTenSeconds) {
  TimelineBuilder b;
  const auto k = b.file("journal.txt", FormatId::journal_short);
  b.event(k, at(10), EventKind::lid_close).event(k, at(15), EventKind::lid_close);  // one close
  b.event(k, at(30), EventKind::lid_close).event(k, at(35), EventKind::lid_close);  // another
  b.event(k, at(40), EventKind::lid_open);
  b.event(k, kNoTime, EventKind::lid_close);  // unplaced: a close of its own
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(host(fs, "lid_closes"), 3));
  EXPECT_TRUE(has_value(host(fs, "laptop_signals"), 1));
  EXPECT_TRUE(has_value(host(fs, "ac_switches"), 0));
}

// A laptop's day: busy until a suspend at 1000 s, resumed at 1600 s and idle 10 s before work
// resumes; an AC switch at 2500 s stops the samples for 20 s.
Timeline laptop_day() {
  TimelineBuilder b;
  const auto d = b.file("dmon.txt", FormatId::dmon);
  const auto k = b.file("kern.log", FormatId::syslog);
  b.samples(d, 0, 1000, 0, {{M::sm_pct, 90}});
  b.samples(d, 1600, 10, 0, {{M::sm_pct, 0}});
  b.samples(d, 1610, 890, 0, {{M::sm_pct, 90}});
  b.samples(d, 2520, 480, 0, {{M::sm_pct, 90}});  // ends at 3000
  b.event(k, at(0), EventKind::boot, {}, {}, "Linux version 6.1.0-18-amd64");
  b.event(k, at(5), EventKind::ac_online);
  b.event(k, at(1000), EventKind::suspend).event(k, at(1600), EventKind::resume);
  b.event(k, at(2500), EventKind::ac_offline);
  b.event(k, at(3000), EventKind::suspend);
  b.suspend(at(1000), at(1600)).suspend(at(3000), kNoTime);
  b.event(k, at(4000), EventKind::shutdown);
  b.event(k, at(4100), EventKind::boot).event(k, at(4130), EventKind::boot);  // one boot, two sources
  b.event(k, at(8000), EventKind::xid, 31).event(k, at(8000), EventKind::cron);  // user space logs in this boot
  b.event(k, at(9000), EventKind::boot);  // no shutdown before: unclean
  b.event(k, at(9500), EventKind::shutdown);
  b.event(k, at(20000), EventKind::boot);  // switched off for hours: not a restart
  return b.build();
}

TEST(FeaturesPowerEvents, SuspendsAndRecovery) {
  const FeatureSet fs = run_features(laptop_day());
  EXPECT_TRUE(has_value(host(fs, "suspends"), 2));
  EXPECT_TRUE(has_value(host(fs, "suspended_s"), 600));
  EXPECT_TRUE(has_value(host(fs, "resume_recovery_s_mean"), 10));
  EXPECT_TRUE(has_value(host(fs, "ac_switches"), 1));
  EXPECT_TRUE(has_value(host(fs, "ac_switch_recovery_s_mean"), 20));
}

TEST(FeaturesPowerEvents, PowerEventLossCountsSuspendedAndSampleLessTime) {
  const FeatureSet fs = run_features(laptop_day());
  // Sampled: 1000 + 900 + 480 = 2380 s. Lost: 600 s suspended + 20 s without samples after the
  // AC switch; the 10 idle seconds after the resume are idle rows (F002), not lost here.
  EXPECT_TRUE(has_value(host(fs, "gpu_sampled_s"), 2380));
  EXPECT_TRUE(has_value(host(fs, "power_event_loss_s"), 620));
  EXPECT_TRUE(has_value(host(fs, "F004"), 620.0 / 3000));
  EXPECT_NE(host(fs, "F004").evidence.find("600 s suspended in the sampled span (1 cycles)"), std::string::npos);
}

TEST(FeaturesPowerEvents, PowerEventLossIgnoresEventsOnAnIdleGpu) {
  TimelineBuilder b;
  const auto d = b.file("dmon.txt", FormatId::dmon);
  const auto k = b.file("kern.log", FormatId::syslog);
  b.samples(d, 0, 100, 0, {{M::sm_pct, 0}});
  b.samples(d, 200, 100, 0, {{M::sm_pct, 0}});
  b.event(k, at(100), EventKind::ac_offline);  // a switch, but nothing was running
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(host(fs, "ac_switches"), 1));
  EXPECT_TRUE(has_value(host(fs, "power_event_loss_fraction"), 0));
  EXPECT_TRUE(is_null_with(host(fs, "ac_switch_recovery_s_mean"), "no AC switch interrupted a busy GPU"));
}

TEST(FeaturesPowerEvents, RecoveryIsCappedAtFiveMinutes) {
  TimelineBuilder b;
  const auto d = b.file("dmon.txt", FormatId::dmon);
  const auto k = b.file("kern.log", FormatId::syslog);
  b.samples(d, 0, 100, 0, {{M::sm_pct, 90}});
  b.samples(d, 1000, 100, 0, {{M::sm_pct, 90}});  // back 900 s after the switch
  b.event(k, at(100), EventKind::ac_offline);
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(host(fs, "ac_switch_recovery_s_mean"), 300));
  EXPECT_TRUE(has_value(host(fs, "power_event_loss_s"), 300));
  EXPECT_TRUE(has_value(host(fs, "power_event_loss_fraction"), 300.0 / 500));
}

TEST(FeaturesPowerEvents, BootsRebootsAndDowntime) {
  const FeatureSet fs = run_features(laptop_day());
  EXPECT_TRUE(has_value(host(fs, "boots"), 4));
  EXPECT_TRUE(has_value(host(fs, "unclean_reboots"), 1));
  // 4100 - 4000 (the shutdown) + 9000 - 8000 (the Xid, the last record before the crash); the
  // 10500 s before the boot at 20000 s are a machine switched off.
  EXPECT_TRUE(has_value(host(fs, "reboot_downtime_s"), 1100));
  EXPECT_EQ(host(fs, "reboot_downtime_s").evidence, "2 restarts; 1 longer gaps (machine off) not counted");
  EXPECT_TRUE(has_value(host(fs, "log_uptime_s"), 20000 - 100 - 1000 - 10500));
}

// Issue 14: an earlier boot read from kern.log alone never shows its shutdown: whether the
// reboot after it was clean is unknown, not "unclean".
TEST(FeaturesPowerEvents, RebootsAfterABootOnlyTheKernelLogCoversAreUnknown) {
  TimelineBuilder b;
  const auto k = b.file("kern.log.1", FormatId::syslog);
  b.event(k, at(0), EventKind::boot, {}, {}, "Linux version 6.1.0-18-amd64");
  b.event(k, at(30), EventKind::xid, 31);
  b.event(k, at(5000), EventKind::boot, {}, {}, "Linux version 6.1.0-18-amd64");
  b.event(k, at(5100), EventKind::cron);
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(is_null_with(host(fs, "unclean_reboots"), "1 of 1 reboots follow a boot that no syslog or journal"));
  EXPECT_TRUE(is_null_with(host(fs, "reboot_downtime_s"), "its shutdown could not be seen"));
  EXPECT_TRUE(has_value(host(fs, "boots"), 2));
}

// Issue 14: what a battery switch costs a laptop's work, at the same (busy) load.
TEST(FeaturesPowerEvents, BusyPowerAndClocksOnBatteryAgainstOnAc) {
  TimelineBuilder b;
  const auto d = b.file("dmon.txt", FormatId::dmon);
  const auto k = b.file("kern.log", FormatId::syslog);
  b.event(k, at(0), EventKind::ac_online);
  b.samples(d, 100, 100, 0, {{M::sm_pct, 95}, {M::power_w, 110}, {M::pclk_mhz, 2400}});
  b.event(k, at(200), EventKind::ac_offline);
  b.samples(d, 200, 100, 0, {{M::sm_pct, 95}, {M::power_w, 55}, {M::pclk_mhz, 1800}});
  b.samples(d, 300, 50, 0, {{M::sm_pct, 0}, {M::power_w, 8}, {M::pclk_mhz, 210}});  // idle: not compared
  b.event(k, at(350), EventKind::ac_online);
  b.samples(d, 350, 50, 0, {{M::sm_pct, 95}, {M::power_w, 110}, {M::pclk_mhz, 2400}});
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "battery_busy_power_ratio"), 0.5));
  EXPECT_TRUE(has_value(host(fs, "battery_busy_clock_ratio"), 0.75));
  EXPECT_EQ(host(fs, "battery_busy_power_ratio").evidence, "busy rows: 100 on battery, mean power_w 55; 150 on AC, mean 110");

  TimelineBuilder desk;
  desk.samples(desk.file("dmon.txt", FormatId::dmon), 0, 10, 0, {{M::sm_pct, 95}, {M::power_w, 300}});
  desk.file("kern.log", FormatId::syslog);
  EXPECT_TRUE(is_null_with(host(run_features(desk.build()), "battery_busy_power_ratio"), "no AC adapter reports"));
}

// Several battery spans, an unplug reported twice, and a last span that runs to the end: each
// busy row is on the side of the span it falls in (the spans are looked up by time).
TEST(FeaturesPowerEvents, BusyRowsFallInTheirOwnBatterySpan) {
  TimelineBuilder b;
  const auto d = b.file("dmon.txt", FormatId::dmon);
  const auto k = b.file("kern.log", FormatId::syslog);
  b.event(k, at(0), EventKind::ac_online);
  b.samples(d, 0, 100, 0, {{M::sm_pct, 90}, {M::power_w, 100}});
  b.event(k, at(100), EventKind::ac_offline);
  b.samples(d, 100, 100, 0, {{M::sm_pct, 90}, {M::power_w, 50}});
  b.event(k, at(150), EventKind::ac_offline);  // a second report of the same unplug
  b.event(k, at(200), EventKind::ac_online);
  b.samples(d, 200, 100, 0, {{M::sm_pct, 90}, {M::power_w, 100}});
  b.event(k, at(300), EventKind::ac_offline);
  b.samples(d, 300, 20, 0, {{M::sm_pct, 90}, {M::power_w, 40}});
  b.event(k, at(320), EventKind::ac_online);
  b.samples(d, 320, 80, 0, {{M::sm_pct, 90}, {M::power_w, 100}});
  b.event(k, at(400), EventKind::ac_offline);
  b.samples(d, 400, 50, 0, {{M::sm_pct, 90}, {M::power_w, 30}});
  const FeatureSet fs = run_features(b.build());
  // Battery: 100 rows at 50, 20 at 40, 50 at 30 = 7300 / 170; AC: 280 rows at 100.
  EXPECT_TRUE(has_value(host(fs, "battery_busy_power_ratio"), 7300.0 / 170 / 100, 1e-12));
  EXPECT_EQ(host(fs, "battery_busy_power_ratio").evidence, "busy rows: 170 on battery, mean power_w 42.94; 280 on AC, mean 100");
}

// Issue 14: the logs reach to their last line of any kind. A kernel log whose last recognized
// event (the Xid) is at 00:10 but whose lines go on to 07:30 covers 7.5 h, not 10 min.
TEST(FeaturesPowerEvents, LogUptimeReachesTheLastLineOfAnyKind) {
  const std::string text =
      "2026-03-03T00:00:00+00:00 gpu1 kernel: [    0.000000] Linux version 6.1.0-18-amd64\n"
      "2026-03-03T00:10:00+00:00 gpu1 kernel: [  600.000000] NVRM: Xid (PCI:0000:01:00): 31, pid=4242, "
      "name=python3, Ch 00000008, intr 10000000. MMU Fault\n"
      "2026-03-03T03:00:00+00:00 gpu1 CRON[811]: (root) CMD (command -v debian-sa1 > /dev/null && debian-sa1 1 1)\n"
      "2026-03-03T07:30:00+00:00 gpu1 CRON[812]: pam_unix(cron:session): session closed for user root\n";
  const auto dir = std::filesystem::temp_directory_path() / ("gpucost-log-end-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "syslog") << text;
  IngestResult in;
  Diagnostics diag;
  IngestStage(IngestOptions{}).run(dir, in, diag);
  std::filesystem::remove_all(dir);
  Timeline tl;
  AlignOptions o;
  o.tz = "UTC";
  AlignStage(std::move(o)).run(in, tl, diag);
  // The mark is not an event: the timeline lists the three recognized messages only.
  EXPECT_EQ(tl.events.rows(), 3u);
  ASSERT_EQ(tl.log_ends.size(), 1u);
  EXPECT_EQ(tl.log_ends[0], civil_to_ns(CivilTime{2026, 3, 3, 7, 30, 0, 0}));
  const FeatureSet fs = run_features(tl);
  // (The boot is placed 0.5 s into its whole-second syslog stamp.)
  EXPECT_TRUE(has_value(host(fs, "log_uptime_s"), 7.5 * 3600, 1e-4));
}

// The gap of a reboot runs from the previous boot's last line of any kind, not from its last
// recognized event.
TEST(FeaturesPowerEvents, RebootGapStartsAtTheBootsLastLine) {
  TimelineBuilder b;
  const auto k = b.file("kern.log", FormatId::syslog);
  b.event(k, at(0), EventKind::boot, {}, {}, "Linux version 6.1.0-18-amd64");
  b.event(k, at(100), EventKind::xid, 31);
  b.event(k, at(5000), EventKind::boot, {}, {}, "Linux version 6.1.0-18-amd64");
  b.event(k, at(6000), EventKind::xid, 31);
  Timeline tl = b.build();
  const double before = host(run_features(tl), "log_uptime_s").value.value_or(-1);
  EXPECT_DOUBLE_EQ(before, 6000 - 4900);
  tl.log_ends = {at(4000), at(8000)};  // the first boot logged until 4000 s, the second until 8000 s
  EXPECT_TRUE(has_value(host(run_features(tl), "log_uptime_s"), 8000 - 1000));
}

}  // namespace
}  // namespace gpucost
