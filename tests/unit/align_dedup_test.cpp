// One kernel message read from dmesg, kern.log and the journal is one event; identical lines of
// one file stay separate; dmesg -T copies yield to anchored ones.
#include <gtest/gtest.h>

#include <algorithm>

#include "align_fixtures.hpp"

namespace gpucost {
namespace {

using namespace test;

constexpr const char* kBoot = "c4b33c96f240457abc130dcb73da2b24";

std::vector<std::pair<std::uint32_t, std::uint64_t>> origins_of(const Timeline& t, std::size_t row) {
  std::vector<std::pair<std::uint32_t, std::uint64_t>> v;
  for (auto i = t.origin_begin[row]; i < t.origin_begin[row + 1]; ++i) v.emplace_back(t.origins[i].file, t.origins[i].line);
  return v;
}

AlignOptions utc() {
  AlignOptions o;
  o.tz = "UTC";
  return o;
}

TEST(AlignDedup, OneMessageFromThreeSources) {
  Input b;
  const TimeNs boot = at(2026, 11, 29, 1, 0, 0, 123'456'789);
  const auto d = b.file("dmesg.txt", FormatId::dmesg, at(2026, 11, 30));
  const auto j = b.file("journal.json", FormatId::journal_json, at(2026, 11, 30));
  const auto k = b.file("kern.log", FormatId::syslog, at(2026, 11, 30));
  for (int i = 0; i < 30; ++i) {
    const TimeNs m = secs(5 + 61.3 * i);
    b.anchor({.file = j, .line = static_cast<std::uint64_t>(100 + i), .mono = m, .wall = floor_to(boot + m, kNsPerUs),
              .precision = kNsPerUs, .boot_id = kBoot});
    b.anchor({.file = k, .line = static_cast<std::uint64_t>(100 + i), .mono = m, .wall_kind = WallKind::kLocalNoYear,
              .wall = as_no_year(floor_to(boot + m, kNsPerSec), 2026)});
  }
  const TimeNs xid = secs(1451.785035);
  b.event({.file = d, .line = 7, .mono = xid, .text = kXid31});
  b.event({.file = j, .line = 42, .wall_kind = WallKind::kUtc, .wall = floor_to(boot + xid + 2 * kNsPerMs, kNsPerUs),
           .mono = xid, .boot_id = kBoot, .text = kXid31});
  b.event({.file = k, .line = 9, .wall_kind = WallKind::kLocalNoYear, .wall = as_no_year(floor_to(boot + xid, kNsPerSec), 2026),
           .mono = xid, .text = kXid31});
  Diagnostics diag;
  const Timeline t = align(b.in, utc(), &diag);
  ASSERT_EQ(t.events.rows(), 1u);
  EXPECT_LE(std::llabs(ts_of(t.events, 0) - (boot + xid)), 1000);
  auto o = origins_of(t, 0);
  ASSERT_EQ(o.size(), 3u);
  // The kept copy first (all three are placed by monotonic time: the first file wins).
  EXPECT_EQ(o[0], std::make_pair(d, std::uint64_t{7}));
  std::sort(o.begin(), o.end());
  EXPECT_EQ(o[1], std::make_pair(j, std::uint64_t{42}));
  EXPECT_EQ(o[2], std::make_pair(k, std::uint64_t{9}));
  EXPECT_EQ(t.events.column(event_col::file).get_int(0), d);
  EXPECT_EQ(t.origin_begin.size(), 2u);
}

TEST(AlignDedup, BestPlacedCopyIsKept) {
  Input b;
  // A journal copy with a UTC wall stamp only (no anchors, no mono) and a kern.log copy in local
  // time: the UTC copy is kept even though kern.log comes first.
  const auto k = b.file("kern.log", FormatId::syslog);
  const auto j = b.file("journal.txt", FormatId::journal_short);
  b.event({.file = k, .line = 3, .kind = EventKind::ac_online, .wall_kind = WallKind::kLocal,
           .wall = at(2026, 11, 29, 19, 50, 45), .text = kAcOnline});
  b.event({.file = j, .line = 8, .kind = EventKind::ac_online, .wall_kind = WallKind::kUtc,
           .wall = at(2026, 11, 29, 11, 50, 45, 600'000'000), .text = kAcOnline});
  AlignOptions o;
  o.tz = "+08:00";
  const Timeline t = align(b.in, o);
  ASSERT_EQ(t.events.rows(), 1u);
  EXPECT_EQ(t.events.column(event_col::file).get_int(0), j);
  EXPECT_EQ(ts_of(t.events, 0), at(2026, 11, 29, 11, 50, 45, 600'000'000));
  EXPECT_EQ(origins_of(t, 0).size(), 2u);
}

// Issue 14: one AC unplug is the kernel's ACPI line and acpid's "received" and "completed" lines,
// milliseconds apart: one event whose origins list all three; a second unplug a minute later is
// another event, and so is a lid close in the same second.
TEST(AlignDedup, ReportsOfOnePhysicalEventAreOneRow) {
  Input b;
  const auto s = b.file("syslog", FormatId::syslog);
  const TimeNs t0 = at(2026, 11, 29, 11, 0, 0);
  auto ac = [&](std::uint64_t line, TimeNs t, const char* text, EventKind k = EventKind::ac_offline) {
    b.event({.file = s, .line = line, .kind = k, .wall_kind = WallKind::kUtc, .wall = t, .text = text});
  };
  ac(1, t0, "ACPI: AC: AC Adapter [ADP1] (off-line)");
  ac(2, t0 + 9 * kNsPerMs, "received netlink event \"ac_adapter ACPI0003:00 00000080 00000000\"");
  ac(3, t0 + 10 * kNsPerMs, "completed netlink event \"ac_adapter ACPI0003:00 00000080 00000000\"");
  ac(4, t0 + 500 * kNsPerMs, "received input layer event \"button/lid LID close\"", EventKind::lid_close);
  ac(5, t0 + 501 * kNsPerMs, "Lid closed.", EventKind::lid_close);
  ac(6, t0 + 60 * kNsPerSec, "ACPI: AC: AC Adapter [ADP1] (off-line)");
  const Timeline t = align(b.in);
  ASSERT_EQ(rows_of(t, EventKind::ac_offline).size(), 2u);
  ASSERT_EQ(rows_of(t, EventKind::lid_close).size(), 1u);
  const auto first = rows_of(t, EventKind::ac_offline).front();
  EXPECT_EQ(origins_of(t, first).size(), 3u);
  EXPECT_EQ(ts_of(t.events, first), t0);
  EXPECT_EQ(origins_of(t, rows_of(t, EventKind::lid_close).front()).size(), 2u);
}

TEST(AlignDedup, RepeatedLinesOfOneFileStaySeparate) {
  Input b;
  const TimeNs mtime = at(2026, 11, 29, 12, 0, 0);
  const auto d = b.file("dmesg.txt", FormatId::dmesg, mtime);
  const auto s = b.file("syslog", FormatId::syslog);
  // dmesg printed the same Xid twice one microsecond apart; syslog (no kernel stamps) twice in
  // the same second.
  b.event({.file = d, .line = 1, .mono = secs(100.000001), .text = kXid79});
  b.event({.file = d, .line = 2, .mono = secs(100.000002), .text = kXid79});
  b.event({.file = s, .line = 1, .kind = EventKind::ac_online, .wall_kind = WallKind::kUtc, .wall = at(2026, 11, 29, 11, 0, 0),
           .text = kAcOnline});
  b.event({.file = s, .line = 2, .kind = EventKind::ac_online, .wall_kind = WallKind::kUtc, .wall = at(2026, 11, 29, 11, 0, 0),
           .text = kAcOnline});
  const Timeline t = align(b.in);
  EXPECT_EQ(rows_of(t, EventKind::xid).size(), 2u);
  EXPECT_EQ(rows_of(t, EventKind::ac_online).size(), 2u);
  ASSERT_EQ(t.origin_begin.size(), 5u);
  for (std::size_t r = 0; r < 4; ++r) EXPECT_EQ(t.origin_begin[r + 1] - t.origin_begin[r], 1u);
}

// A flood of one message in one file (issue 16's event-dense day) takes the path without a
// cluster per row: a line repeated with the very same printk stamp (the log appended twice)
// still joins the copy before it, every other line stays its own event, in time order.
TEST(AlignDedup, FloodOfOneMessageInOneFileKeepsRepeatsAndOrder) {
  Input b;
  const auto d = b.file("dmesg.txt", FormatId::dmesg, at(2026, 11, 29, 12, 0, 0));
  constexpr int kLines = 500;
  for (int i = 0; i < kLines; ++i) b.event({.file = d, .line = static_cast<std::uint64_t>(i + 1), .mono = secs(100 + i), .text = kXid79});
  // The second half of the file is the first 100 lines again.
  for (int i = 0; i < 100; ++i)
    b.event({.file = d, .line = static_cast<std::uint64_t>(kLines + i + 1), .mono = secs(100 + i), .text = kXid79});
  const Timeline t = align(b.in);
  const auto rows = rows_of(t, EventKind::xid);
  ASSERT_EQ(rows.size(), static_cast<std::size_t>(kLines));
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const auto o = origins_of(t, rows[k]);
    ASSERT_EQ(o.size(), k < 100 ? 2u : 1u) << k;
    EXPECT_EQ(o.front().second, k + 1);  // the first copy is kept, the repeat listed after it
    if (k < 100) {
      EXPECT_EQ(o.back().second, kLines + k + 1);
    }
    if (k) {
      EXPECT_LT(ts_of(t.events, rows[k - 1]), ts_of(t.events, rows[k]));
    }
  }
}

TEST(AlignDedup, CopiesNeedTheSameMonoOrCloseWallTimes) {
  Input b;
  const auto a = b.file("a.log", FormatId::journal_short);
  const auto c = b.file("c.log", FormatId::journal_short);
  const TimeNs t0 = at(2026, 11, 29, 11, 0, 0);
  // Wall only: 1.5 s apart merge, 3 s apart do not.
  b.event({.file = a, .line = 1, .kind = EventKind::ac_online, .wall_kind = WallKind::kUtc, .wall = t0, .text = kAcOnline});
  b.event({.file = c, .line = 1, .kind = EventKind::ac_online, .wall_kind = WallKind::kUtc, .wall = t0 + secs(1.5), .text = kAcOnline});
  b.event({.file = a, .line = 2, .kind = EventKind::lid_close, .wall_kind = WallKind::kUtc, .wall = t0, .text = "Lid closed."});
  b.event({.file = c, .line = 2, .kind = EventKind::lid_close, .wall_kind = WallKind::kUtc, .wall = t0 + secs(3), .text = "Lid closed."});
  // Same text, different kind: never one event.
  b.event({.file = c, .line = 3, .kind = EventKind::user, .wall_kind = WallKind::kUtc, .wall = t0, .text = kAcOnline});
  Timeline t = align(b.in);
  EXPECT_EQ(rows_of(t, EventKind::ac_online).size(), 1u);
  EXPECT_EQ(rows_of(t, EventKind::lid_close).size(), 2u);
  EXPECT_EQ(rows_of(t, EventKind::user).size(), 1u);
  // The window is an option.
  AlignOptions o;
  o.dedup_window_ns = 5 * kNsPerSec;
  t = align(b.in, o);
  EXPECT_EQ(rows_of(t, EventKind::lid_close).size(), 1u);
}

TEST(AlignDedup, MonotonicCopiesFurtherThanAMicrosecondAreDistinct) {
  Input b;
  const TimeNs boot = at(2026, 11, 29, 1, 0, 0);
  const auto j = b.file("journal.json", FormatId::journal_json);
  const auto d = b.file("dmesg.txt", FormatId::dmesg);
  for (int i = 0; i < 5; ++i)
    b.anchor({.file = j, .line = static_cast<std::uint64_t>(i + 1), .mono = secs(10 + i), .wall = boot + secs(10 + i),
              .precision = kNsPerUs, .boot_id = kBoot});
  b.event({.file = j, .line = 9, .kind = EventKind::pcie_aer, .wall_kind = WallKind::kUtc, .wall = boot + secs(12),
           .mono = secs(12), .boot_id = kBoot, .text = kAer});
  b.event({.file = d, .line = 1, .kind = EventKind::pcie_aer, .mono = secs(12), .text = kAer});      // the copy: ties dmesg
  b.event({.file = d, .line = 2, .mono = secs(13), .text = kXid79});
  b.event({.file = j, .line = 10, .wall_kind = WallKind::kUtc, .wall = boot + secs(13), .mono = secs(13) + 2 * kNsPerUs,
           .boot_id = kBoot, .text = kXid79});  // 2 µs later: another printk
  const Timeline t = align(b.in);
  EXPECT_EQ(rows_of(t, EventKind::pcie_aer).size(), 1u);
  EXPECT_EQ(rows_of(t, EventKind::xid).size(), 2u);
}

TEST(AlignDedup, DmesgCtimeCopyYieldsToTheAnchoredCopyAfterASuspend) {
  Input b;
  const TimeNs boot = at(2026, 11, 29, 1, 0, 0, 250'000'000);
  const TimeNs slept = 30 * kNsPerMin;
  const auto j = b.file("journal.json", FormatId::journal_json);
  const auto dt = b.file("dmesg-T.txt", FormatId::dmesg);
  for (int i = 0; i < 10; ++i) {
    const TimeNs m = secs(100 + 100 * i);
    b.anchor({.file = j, .line = static_cast<std::uint64_t>(i + 1), .mono = m, .wall = boot + m, .precision = kNsPerUs, .boot_id = kBoot});
  }
  for (int i = 0; i < 10; ++i) {
    const TimeNs m = secs(1500 + 100 * i);
    b.anchor({.file = j, .line = static_cast<std::uint64_t>(20 + i), .mono = m, .wall = boot + slept + m,
              .precision = kNsPerUs, .boot_id = kBoot});
  }
  const TimeNs xid = secs(2000.5);
  b.event({.file = j, .line = 50, .wall_kind = WallKind::kUtc, .wall = boot + slept + xid, .mono = xid, .boot_id = kBoot,
           .text = kXid79});
  // `[Sun Nov 29 01:33:20 2026] NVRM: Xid ...`: boot + mono, 30 minutes early; the machine is UTC.
  b.event({.file = dt, .line = 4, .wall_kind = WallKind::kLocal, .wall = floor_to(boot + xid, kNsPerSec), .text = kXid79,
           .flags = kFlagUnreliableWall});
  // A -T line with no copy elsewhere is kept, flagged, with its own stamp.
  b.event({.file = dt, .line = 5, .kind = EventKind::pcie_aer, .wall_kind = WallKind::kLocal, .wall = boot + secs(2100),
           .text = kAer, .flags = kFlagUnreliableWall});
  const Timeline t = align(b.in, utc());
  const auto xids = rows_of(t, EventKind::xid);
  ASSERT_EQ(xids.size(), 1u);
  EXPECT_EQ(ts_of(t.events, xids[0]), boot + slept + xid);
  EXPECT_EQ(t.events.column(event_col::file).get_int(xids[0]), j);
  EXPECT_EQ(origins_of(t, xids[0]).size(), 2u);
  const auto aer = rows_of(t, EventKind::pcie_aer);
  ASSERT_EQ(aer.size(), 1u);
  EXPECT_EQ(ts_of(t.events, aer[0]), boot + secs(2100));
  EXPECT_TRUE(t.events.column(event_col::flags).get_int(aer[0]) & kFlagUnreliableWall);
}

}  // namespace
}  // namespace gpucost
