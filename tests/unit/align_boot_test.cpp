// Monotonic -> UTC through anchors: epochs across a suspend, 1 s interval intersection, late
// syslog stamps, several boots, files without anchors tied to a boot.
#include <gtest/gtest.h>

#include "align/internal.hpp"
#include "align_fixtures.hpp"

namespace gpucost {
namespace {

using namespace test;
using align_detail::AnchorPoint;
using align_detail::build_epochs;
using align_detail::MonoCycle;

constexpr const char* kBootA = "c4b33c96f240457abc130dcb73da2b24";
constexpr const char* kBootB = "5e0f4a8d3f7c4c2e9a1b0d6c7e8f9a0b";

// A journal anchor (µs wall, received `delay` after mono) in a boot whose true clock is `wall_of`.
template <typename WallOf>
An journal_anchor(std::uint32_t file, std::uint64_t line, TimeNs mono, WallOf wall_of, const char* boot = kBootA) {
  return An{.file = file, .line = line, .mono = mono, .wall_kind = WallKind::kUtc,
            .wall = floor_to(wall_of(mono), kNsPerUs), .precision = kNsPerUs, .boot_id = boot};
}

TEST(AlignEpochs, SuspendSplitsTheBootInTwoEpochs) {
  const TimeNs boot = at(2026, 11, 29, 1, 0, 0, 123'456'789);
  const TimeNs slept = 30 * kNsPerMin;
  const TimeNs sleep_mono = secs(3600.9);
  auto wall = [&](TimeNs m) { return boot + m + (m >= sleep_mono ? slept : 0); };
  std::vector<AnchorPoint> anchors;
  for (TimeNs m = secs(10); m < secs(7200); m += secs(61.37))
    if (m < secs(3600.5) || m > secs(3601.2)) anchors.push_back({m, floor_to(wall(m), kNsPerUs) - m, kNsPerUs, 0, false});
  const std::vector<MonoCycle> cycles{{secs(3600.5), secs(3601.2)}};
  const auto epochs = build_epochs(anchors, cycles);
  ASSERT_EQ(epochs.size(), 2u);
  EXPECT_NEAR(static_cast<double>(epochs[0].offset - boot), 0, 1000);
  EXPECT_NEAR(static_cast<double>(epochs[1].offset - boot - slept), 0, 1000);
  // `PM: suspend entry` (3600.5) belongs before, `PM: suspend exit` (3601.2) after.
  EXPECT_GT(epochs[1].begin_mono, secs(3600.5));
  EXPECT_LE(epochs[1].begin_mono, secs(3601.2));
  // Without the cycle the split lies between the anchors around the suspend.
  const auto plain = build_epochs(anchors, {});
  ASSERT_EQ(plain.size(), 2u);
  EXPECT_GT(plain[1].begin_mono, secs(3500));
  EXPECT_LT(plain[1].begin_mono, secs(3700));
}

TEST(AlignEpochs, OneSecondAnchorsIntersect) {
  // True offset X + 0.25 s; syslog stamps are floored to the second.
  const TimeNs x = at(2026, 11, 29, 1, 0, 0);
  const TimeNs boot = x + secs(0.25);
  std::vector<AnchorPoint> anchors;
  for (double m : {100.70, 200.745, 300.755, 400.80}) {
    const TimeNs mono = secs(m);
    anchors.push_back({mono, floor_to(boot + mono, kNsPerSec) - mono, kNsPerSec, 0, false});
  }
  const auto epochs = build_epochs(anchors, {});
  ASSERT_EQ(epochs.size(), 1u);
  // Intervals: [x-0.70, x+0.30), [x-0.745, x+0.255), [x+0.245, x+1.245), [x+0.20, x+1.20):
  // the intersection [x+0.245, x+0.255) is 10 ms wide.
  EXPECT_EQ(epochs[0].uncertainty, secs(0.005));
  EXPECT_EQ(epochs[0].offset, x + secs(0.25));
  EXPECT_EQ(epochs[0].anchors, 4u);
}

TEST(AlignEpochs, LateSyslogStampsAtBootAreNotAnEpoch) {
  // rsyslog started at mono 12 s and read the first boot messages then: their wall stamps are
  // late; from mono 12 s on, lines are stamped as printed.
  const TimeNs boot = at(2026, 11, 29, 1, 0, 0, 400'000'000);
  const TimeNs rsyslog_start = boot + secs(12);
  std::vector<AnchorPoint> anchors;
  for (double m : {0.5, 1.7, 4.2, 8.9, 11.3}) {
    const TimeNs mono = secs(m);
    anchors.push_back({mono, floor_to(rsyslog_start, kNsPerSec) - mono, kNsPerSec, 0, false});
  }
  for (double m : {15.1, 80.65, 200.3, 500.9}) {
    const TimeNs mono = secs(m);
    anchors.push_back({mono, floor_to(boot + mono, kNsPerSec) - mono, kNsPerSec, 0, false});
  }
  const auto epochs = build_epochs(anchors, {});
  ASSERT_EQ(epochs.size(), 1u);
  EXPECT_LE(std::llabs(epochs[0].offset - boot), secs(0.5));
  EXPECT_LT(epochs[0].anchors, anchors.size());  // the late ones are left out
}

TEST(AlignEpochs, OneLateStampInTheMiddleIsAnOutlier) {
  const TimeNs boot = at(2026, 11, 29, 1, 0, 0);
  std::vector<AnchorPoint> anchors;
  for (int i = 0; i < 10; ++i) {
    const TimeNs mono = secs(100 + 50 * i);
    const TimeNs delay = i == 4 ? secs(3) : 0;  // the daemon stalled once
    anchors.push_back({mono, floor_to(boot + mono + delay, kNsPerUs) - mono, kNsPerUs, 0, false});
  }
  const auto epochs = build_epochs(anchors, {});
  ASSERT_EQ(epochs.size(), 1u);
  EXPECT_TRUE(anchors[4].outlier);
  EXPECT_EQ(epochs[0].offset, boot);
}

TEST(AlignEpochs, SubSecondSuspendSeenByPreciseAnchorsDespiteSecondStamps) {
  // A 400 ms s2idle suspend: kern.log's 1 s intervals still overlap across it, the journal's µs
  // anchors do not.
  const TimeNs boot = at(2026, 11, 29, 1, 0, 0, 100'000'000);
  const TimeNs slept = secs(0.4);
  const TimeNs sleep_at = secs(500);
  auto wall = [&](TimeNs m) { return boot + m + (m >= sleep_at ? slept : 0); };
  std::vector<AnchorPoint> anchors;
  for (int i = 0; i < 20; ++i) {
    const TimeNs m = secs(10 + 47.3 * i);
    anchors.push_back({m, floor_to(wall(m), kNsPerUs) - m, kNsPerUs, 0, false});
    anchors.push_back({m + secs(0.2), floor_to(wall(m + secs(0.2)), kNsPerSec) - m - secs(0.2), kNsPerSec, 1, false});
  }
  std::sort(anchors.begin(), anchors.end(), [](const AnchorPoint& a, const AnchorPoint& b) { return a.mono < b.mono; });
  const auto epochs = build_epochs(anchors, {});
  ASSERT_EQ(epochs.size(), 2u);
  EXPECT_LE(std::llabs(epochs[1].offset - (boot + slept)), 2000);
}

TEST(AlignBoots, KernLogLinesUseMonotonicTimeNotTheirSecondStamp) {
  Input b;
  const TimeNs boot = at(2026, 11, 29, 1, 0, 0, 123'456'000);
  auto wall = [&](TimeNs m) { return boot + m; };
  const auto j = b.file("journal.json", FormatId::journal_json, at(2026, 11, 30));
  const auto k = b.file("kern.log", FormatId::syslog, at(2026, 11, 30));
  for (int i = 0; i < 20; ++i) b.anchor(journal_anchor(j, i + 1, secs(5 + 60 * i), wall));
  // `Nov 29 01:17:31 host kernel: [ 1051.500000] NVRM: Xid ...` in UTC: the wall stamp says
  // 01:17:31, the kernel printed it at 01:17:31.623456.
  const TimeNs mono = secs(1051.5);
  b.anchor({.file = k, .line = 1, .mono = mono, .wall_kind = WallKind::kLocalNoYear,
            .wall = no_year(11, 29, 1, 17, 31), .precision = kNsPerSec});
  b.event({.file = k, .line = 1, .wall_kind = WallKind::kLocalNoYear, .wall = no_year(11, 29, 1, 17, 31), .mono = mono,
           .text = kXid31});
  AlignOptions o;
  o.tz = "UTC";
  const Timeline t = align(b.in, o);
  ASSERT_EQ(t.events.rows(), 1u);
  EXPECT_EQ(ts_of(t.events, 0), boot + mono);
  EXPECT_TRUE(t.events.column(event_col::flags).get_int(0) & kFlagFromMonotonic);
  ASSERT_EQ(t.boots.size(), 1u);  // kern.log's unnamed boot is the journal's
  EXPECT_EQ(t.boots[0].boot_id, kBootA);
  EXPECT_EQ(t.boots[0].anchors, 21u);
}

// Two boots: the journal names them; kern.log counts them (boot_seq 0, 1). The same mono in
// both boots must not merge; each kern.log copy joins its own boot's journal copy.
TEST(AlignBoots, TwoBoots) {
  Input b;
  const TimeNs boot1 = at(2026, 11, 29, 1, 0, 0, 500'000'000);
  const TimeNs boot2 = at(2026, 11, 29, 9, 0, 0, 250'000'000);
  const auto j = b.file("journal.json", FormatId::journal_json, at(2026, 11, 30));
  const auto k = b.file("kern.log", FormatId::syslog, at(2026, 11, 30));
  std::uint64_t jl = 1, kl = 1;
  for (auto [boot, id, seq] : {std::tuple{boot1, kBootA, 0}, std::tuple{boot2, kBootB, 1}}) {
    auto wall = [start = boot](TimeNs m) { return start + m; };  // clang 14 cannot capture a binding
    for (int i = 0; i < 30; ++i) {
      const TimeNs m = secs(3 + 97.3 * i);
      b.anchor(journal_anchor(j, jl++, m, wall, id));
      b.anchor({.file = k, .line = kl++, .mono = m, .wall_kind = WallKind::kLocalNoYear,
                .wall = as_no_year(floor_to(wall(m), kNsPerSec), 2026), .boot_seq = seq});
    }
    const TimeNs xid = secs(1000.25);
    b.event({.file = j, .line = jl++, .wall_kind = WallKind::kUtc, .wall = floor_to(wall(xid) + 3 * kNsPerMs, kNsPerUs),
             .mono = xid, .boot_id = id, .text = kXid79});
    b.event({.file = k, .line = kl++, .wall_kind = WallKind::kLocalNoYear,
             .wall = as_no_year(floor_to(wall(xid), kNsPerSec), 2026), .mono = xid, .boot_seq = seq,
             .text = kXid79});
  }
  AlignOptions o;
  o.tz = "UTC";
  const Timeline t = align(b.in, o);
  ASSERT_EQ(t.boots.size(), 2u);
  EXPECT_EQ(t.boots[0].boot_id, kBootA);
  EXPECT_EQ(t.boots[1].boot_id, kBootB);
  EXPECT_LE(std::llabs(t.boots[0].boot_wall_ns - boot1), 1000);
  EXPECT_LE(std::llabs(t.boots[1].boot_wall_ns - boot2), 1000);
  const auto xids = rows_of(t, EventKind::xid);
  ASSERT_EQ(xids.size(), 2u);
  EXPECT_LE(std::llabs(ts_of(t.events, xids[0]) - (boot1 + secs(1000.25))), 1000);
  EXPECT_LE(std::llabs(ts_of(t.events, xids[1]) - (boot2 + secs(1000.25))), 1000);
  for (auto r : xids) EXPECT_EQ(t.origin_begin[r + 1] - t.origin_begin[r], 2u);
}

// A raw dmesg (no wall stamps at all) beside a journal with two boots: one of its messages is
// also in the journal (same text, same mono) in boot A, so the whole file is boot A, even though
// its monotonic range resembles boot B's.
TEST(AlignBoots, DmesgTiedToItsBootByMatchedText) {
  Input b;
  const TimeNs boot1 = at(2026, 11, 29, 1, 0, 0, 500'000'000);
  const TimeNs boot2 = at(2026, 11, 29, 9, 0, 0, 250'000'000);
  const auto j = b.file("journal.json", FormatId::journal_json, at(2026, 11, 30));
  const auto d = b.file("dmesg.txt", FormatId::dmesg, at(2026, 11, 30));
  auto w1 = [&](TimeNs m) { return boot1 + m; };
  auto w2 = [&](TimeNs m) { return boot2 + m; };
  for (int i = 0; i < 100; ++i) b.anchor(journal_anchor(j, i + 1, secs(2 + 100 * i), w1, kBootA));
  for (int i = 0; i < 3; ++i) b.anchor(journal_anchor(j, 200 + i, secs(2 + 10 * i), w2, kBootB));
  b.event({.file = j, .line = 150, .kind = EventKind::ac_online, .wall_kind = WallKind::kUtc,
           .wall = floor_to(w1(secs(0.841701)), kNsPerUs), .mono = secs(0.841701), .boot_id = kBootA, .text = kAcOnline});
  // dmesg: `[    0.841701] ACPI: AC: AC Adapter [ADP1] (on-line)`, `[   25.500000] ... Xid 79`
  b.event({.file = d, .line = 1, .kind = EventKind::ac_online, .mono = secs(0.841701), .text = kAcOnline});
  b.event({.file = d, .line = 2, .mono = secs(25.5), .text = kXid79});
  Diagnostics diag;
  AlignOptions o;
  o.tz = "UTC";
  const Timeline t = align(b.in, o, &diag);
  const auto xids = rows_of(t, EventKind::xid);
  ASSERT_EQ(xids.size(), 1u);
  EXPECT_LE(std::llabs(ts_of(t.events, xids[0]) - (boot1 + secs(25.5))), 1000);
  EXPECT_EQ(t.events.column(event_col::flags).get_int(xids[0]) & kFlagApproxTime, 0);
  EXPECT_EQ(rows_of(t, EventKind::ac_online).size(), 1u);  // the two copies merged
  bool noted = false;
  for (const auto& n : diag.files.at(d).notes) noted = noted || n.find("tied to boot " + std::string(kBootA)) != std::string::npos;
  EXPECT_TRUE(noted);
}

// Ubuntu 24.04's kern.log prints RFC 3339 stamps and no `[mono]`: it has no anchors. Its copies
// of the dmesg messages pair up into anchors (kern.log wall - dmesg mono), across the suspend.
TEST(AlignBoots, DmesgPlacedThroughCopiesWithWallStampsOnly) {
  Input b;
  const TimeNs boot = at(2026, 11, 29, 1, 0, 0, 777'000'000);
  const TimeNs slept = 30 * kNsPerMin;
  const TimeNs sleep_at = secs(3600.9);
  auto wall = [&](TimeNs m) { return boot + m + (m >= sleep_at ? slept : 0); };
  const auto d = b.file("dmesg.txt", FormatId::dmesg, at(2026, 11, 30));
  const auto k = b.file("kern.log", FormatId::syslog, at(2026, 11, 30));
  std::uint64_t dl = 1, kl = 1;
  auto both = [&](EventKind kind, double mono, const char* text) {
    b.event({.file = d, .line = dl++, .kind = kind, .mono = secs(mono), .text = text});
    // `2026-11-29T09:17:31.625456+08:00 laptop kernel: NVRM: Xid ...`, received 1.5 ms late
    b.event({.file = k, .line = kl++, .kind = kind, .wall_kind = WallKind::kUtc,
             .wall = floor_to(wall(secs(mono)) + secs(0.0015), kNsPerUs), .text = text});
  };
  both(EventKind::ac_online, 0.841701, kAcOnline);
  both(EventKind::xid, 1051.5, kXid31);
  both(EventKind::suspend, 3600.5, kSuspendEntry);
  both(EventKind::resume, 3601.2, kSuspendExit);
  both(EventKind::xid, 4000.25, kXid31);  // same text again, after the resume
  b.event({.file = d, .line = dl++, .kind = EventKind::pcie_aer, .mono = secs(5000), .text = kAer});  // dmesg only
  const Timeline t = align(b.in);
  const auto xids = rows_of(t, EventKind::xid);
  ASSERT_EQ(xids.size(), 2u);
  EXPECT_LE(std::llabs(ts_of(t.events, xids[0]) - wall(secs(1051.5))), 5 * kNsPerMs);
  EXPECT_LE(std::llabs(ts_of(t.events, xids[1]) - wall(secs(4000.25))), 5 * kNsPerMs);
  for (auto r : xids) EXPECT_EQ(t.origin_begin[r + 1] - t.origin_begin[r], 2u);
  const auto aer = rows_of(t, EventKind::pcie_aer);
  ASSERT_EQ(aer.size(), 1u);
  EXPECT_LE(std::llabs(ts_of(t.events, aer[0]) - wall(secs(5000))), 5 * kNsPerMs);
  ASSERT_EQ(t.boots.size(), 1u);
  EXPECT_EQ(t.boots[0].epochs, 2u);
}

TEST(AlignBoots, OneWallCopyFromAnotherBootIsNotAnAnchor) {
  // syslog.1 holds the previous boot's `AC Adapter (on-line)`; the dmesg prints it in this boot.
  Input b;
  const TimeNs mtime = at(2026, 11, 29, 12, 0, 0);
  const auto d = b.file("dmesg.txt", FormatId::dmesg, mtime);
  const auto s1 = b.file("syslog.1", FormatId::syslog, at(2026, 11, 22));
  b.event({.file = d, .line = 1, .kind = EventKind::ac_online, .mono = secs(0.841701), .text = kAcOnline});
  b.event({.file = d, .line = 2, .mono = secs(600), .text = kXid79});
  b.event({.file = s1, .line = 1, .kind = EventKind::ac_online, .wall_kind = WallKind::kUtc,
           .wall = at(2026, 11, 22, 8, 0, 0, 841'000'000), .text = kAcOnline});
  const Timeline t = align(b.in);
  const auto xids = rows_of(t, EventKind::xid);
  ASSERT_EQ(xids.size(), 1u);
  EXPECT_EQ(ts_of(t.events, xids[0]), mtime);  // placed from the mtime, not a week early
  EXPECT_TRUE(t.events.column(event_col::flags).get_int(xids[0]) & kFlagApproxTime);
  EXPECT_EQ(rows_of(t, EventKind::ac_online).size(), 2u);
}

TEST(AlignBoots, DmesgWithoutMatchesUsesTheManifestBootTime) {
  Input b;
  const auto d = b.file("dmesg.txt", FormatId::dmesg, at(2026, 11, 30));
  Manifest m;
  m.boot_time_ns = at(2026, 11, 29, 7, 0, 0);
  b.in.manifest = m;
  b.event({.file = d, .line = 1, .mono = secs(1843.308145), .text = kXid79});
  const Timeline t = align(b.in);
  ASSERT_EQ(t.events.rows(), 1u);
  EXPECT_EQ(ts_of(t.events, 0), at(2026, 11, 29, 7, 0, 0) + secs(1843.308145));
  ASSERT_EQ(t.boots.size(), 1u);
  EXPECT_EQ(t.boots[0].boot_wall_ns, at(2026, 11, 29, 7, 0, 0));
}

TEST(AlignBoots, DmesgAloneIsPlacedFromItsModificationTime) {
  Input b;
  const TimeNs mtime = at(2026, 11, 29, 12, 0, 0);
  const auto d = b.file("dmesg.txt", FormatId::dmesg, mtime);
  b.event({.file = d, .line = 1, .mono = secs(1451.785035), .text = kXid31});
  b.event({.file = d, .line = 2, .kind = EventKind::pcie_aer, .mono = secs(1500), .text = kAer});
  Diagnostics diag;
  const Timeline t = align(b.in, {}, &diag);
  ASSERT_EQ(t.events.rows(), 2u);
  // boot ≈ mtime - last mono: the last line falls at the mtime.
  EXPECT_EQ(ts_of(t.events, 1), mtime);
  EXPECT_EQ(ts_of(t.events, 0), mtime - secs(1500) + secs(1451.785035));
  EXPECT_TRUE(t.events.column(event_col::flags).get_int(0) & kFlagApproxTime);
  bool noted = false;
  for (const auto& n : diag.files.at(d).notes) noted = noted || n.find("approximate") != std::string::npos;
  EXPECT_TRUE(noted);
}

// Sparse anchors (none within 150 s of the suspend): the kernel's suspend entry/exit messages
// say where the epoch changes, so a message 20 s after the resume is not read 30 minutes early.
TEST(AlignBoots, ResumeEventsPlaceTheEpochBoundary) {
  Input b;
  const TimeNs boot = at(2026, 11, 29, 1, 0, 0);
  const TimeNs slept = 30 * kNsPerMin;
  const TimeNs sleep_at = secs(3600.9);
  auto wall = [&](TimeNs m) { return boot + m + (m >= sleep_at ? slept : 0); };
  const auto j = b.file("journal.json", FormatId::journal_json);
  std::uint64_t line = 1;
  for (TimeNs m = secs(100); m <= secs(3500); m += secs(100)) b.anchor(journal_anchor(j, line++, m, wall));
  for (TimeNs m = secs(3800); m <= secs(7000); m += secs(100)) b.anchor(journal_anchor(j, line++, m, wall));
  auto kernel = [&](EventKind k, TimeNs m, const char* text) {
    b.event({.file = j, .line = line++, .kind = k, .wall_kind = WallKind::kUtc, .wall = floor_to(wall(m), kNsPerUs),
             .mono = m, .boot_id = kBootA, .text = text});
  };
  kernel(EventKind::xid, secs(3580), kXid31);
  kernel(EventKind::suspend, secs(3600.5), kSuspendEntry);
  kernel(EventKind::resume, secs(3601.2), kSuspendExit);
  kernel(EventKind::xid, secs(3620), kXid79);
  const Timeline t = align(b.in);
  const auto xids = rows_of(t, EventKind::xid);
  ASSERT_EQ(xids.size(), 2u);
  EXPECT_LE(std::llabs(ts_of(t.events, xids[0]) - wall(secs(3580))), 1000);
  EXPECT_LE(std::llabs(ts_of(t.events, xids[1]) - wall(secs(3620))), 1000);
  ASSERT_EQ(t.suspends.size(), 1u);
  EXPECT_LE(std::llabs(t.suspends[0].end_ns - t.suspends[0].begin_ns - (slept + secs(0.7))), 1000);
}

TEST(AlignBoots, KernLogRotatedAcrossALongSuspendIsOneBoot) {
  // kern.log.1 ends before an overnight suspend (10 h) 40 minutes after boot; kern.log starts
  // after it with a resume line. Longer suspended than booted: still the same boot.
  Input b;
  const TimeNs boot = at(2026, 11, 29, 14, 0, 0, 300'000'000);
  const TimeNs slept = 10 * kNsPerHour;
  const auto k1 = b.file("kern.log.1", FormatId::syslog, at(2026, 11, 29, 14, 41));
  const auto k0 = b.file("kern.log", FormatId::syslog, at(2026, 11, 30, 2));
  auto stamp = [&](TimeNs w) { return as_no_year(floor_to(w, kNsPerSec), 2026); };
  for (int i = 0; i < 20; ++i) {
    const TimeNs m = secs(30 + 120.37 * i);
    b.anchor({.file = k1, .line = static_cast<std::uint64_t>(i + 1), .mono = m, .wall_kind = WallKind::kLocalNoYear,
              .wall = stamp(boot + m)});
  }
  const TimeNs exit_mono = secs(2450.2);
  b.event({.file = k0, .line = 1, .kind = EventKind::resume, .wall_kind = WallKind::kLocalNoYear,
           .wall = stamp(boot + slept + exit_mono), .mono = exit_mono, .text = kSuspendExit});
  for (int i = 0; i < 20; ++i) {
    const TimeNs m = exit_mono + secs(0.1 + 60.61 * i);
    b.anchor({.file = k0, .line = static_cast<std::uint64_t>(i + 1), .mono = m, .wall_kind = WallKind::kLocalNoYear,
              .wall = stamp(boot + slept + m)});
  }
  AlignOptions o;
  o.tz = "UTC";
  const Timeline t = align(b.in, o);
  ASSERT_EQ(t.boots.size(), 1u);
  EXPECT_EQ(t.boots[0].epochs, 2u);
  EXPECT_LE(std::llabs(t.boots[0].boot_wall_ns - boot), secs(1));
}

}  // namespace
}  // namespace gpucost
