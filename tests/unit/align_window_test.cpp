// --since (inclusive) / --until (exclusive) restrict all three tables; Timeline::suspends.
#include <gtest/gtest.h>

#include "align_fixtures.hpp"

namespace gpucost {
namespace {

using namespace test;

TEST(AlignWindow, SinceInclusiveUntilExclusiveOnEveryTable) {
  Input b;
  const auto q = b.file("query.csv", FormatId::query_gpu_csv);
  const auto j = b.file("journal.txt", FormatId::journal_short);
  const auto ps = b.file("ps.txt", FormatId::ps);
  const auto pasted = b.file("paste.txt", FormatId::dmesg);  // no mtime: its line has no time
  const TimeNs t0 = at(2026, 11, 29, 12, 0, 0);
  for (int i = 0; i < 10; ++i) b.sample(q, i + 2, 0, WallKind::kUtc, t0 + i * kNsPerSec);
  for (int i = 0; i < 10; ++i)
    b.event({.file = j, .line = static_cast<std::uint64_t>(i + 1), .kind = EventKind::ac_online,
             .wall_kind = WallKind::kUtc, .wall = t0 + i * kNsPerSec, .text = kAcOnline + std::to_string(i)});
  for (int i = 0; i < 10; ++i) b.process(ps, i + 2, i, 100 + i, WallKind::kUtc, t0 + i * kNsPerSec);
  b.event({.file = pasted, .line = 1, .text = kXid79, .flags = kFlagApproxTime});
  AlignOptions o;
  o.since = t0 + 3 * kNsPerSec;
  o.until = t0 + 7 * kNsPerSec;
  Diagnostics diag;
  const Timeline t = align(b.in, o, &diag);
  ASSERT_EQ(t.samples.rows(), 4u);  // 3, 4, 5, 6
  EXPECT_EQ(ts_of(t.samples, 0), t0 + 3 * kNsPerSec);
  EXPECT_EQ(ts_of(t.samples, 3), t0 + 6 * kNsPerSec);
  ASSERT_EQ(t.events.rows(), 4u);  // the untimed line cannot be shown to lie inside
  EXPECT_EQ(ts_of(t.events, 0), t0 + 3 * kNsPerSec);
  ASSERT_EQ(t.processes.rows(), 4u);
  EXPECT_EQ(t.processes.column(process_col::pid).get_int(0), 103);
  EXPECT_EQ(t.origin_begin.size(), 5u);
  EXPECT_EQ(t.window_begin, o.since);
  EXPECT_EQ(t.window_end, o.until);
  EXPECT_EQ(t.first_ns, t0 + 3 * kNsPerSec);
  EXPECT_EQ(t.last_ns, t0 + 6 * kNsPerSec);
  bool noted = false;
  for (const auto& n : diag.notes)
    noted = noted || n.find("cut 6 sample rows, 7 events and 6 process rows") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(AlignSuspends, CyclesFromSuspendAndResumeEvents) {
  Input b;
  const auto j = b.file("journal.txt", FormatId::journal_short);
  const TimeNs t0 = at(2026, 11, 29, 12, 0, 0);
  std::uint64_t line = 1;
  auto ev = [&](EventKind k, TimeNs t, const char* text) {
    b.event({.file = j, .line = line++, .kind = k, .wall_kind = WallKind::kUtc, .wall = t, .text = text});
  };
  ev(EventKind::resume, t0 - secs(100), kSuspendExit);  // no suspend before it: ignored
  // One cycle reported by logind, systemd-sleep and the kernel; resumed 30 minutes later.
  ev(EventKind::suspend, t0, "The system will suspend now!");
  ev(EventKind::suspend, t0 + secs(1), "Entering sleep state 'suspend'...");
  ev(EventKind::suspend, t0 + secs(1.5), kSuspendEntry);
  ev(EventKind::resume, t0 + secs(1801), kSuspendExit);
  ev(EventKind::resume, t0 + secs(1802), "System returned from sleep state.");
  ev(EventKind::resume, t0 + secs(1900), "Operation 'sleep' finished.");  // > 60 s later: not this cycle
  // A suspend that never resumed (the log ends).
  ev(EventKind::suspend, t0 + secs(5000), kSuspendEntry);
  const Timeline t = align(b.in);
  ASSERT_EQ(t.suspends.size(), 2u);
  EXPECT_EQ(t.suspends[0].begin_ns, t0);
  EXPECT_EQ(t.suspends[0].end_ns, t0 + secs(1802));
  EXPECT_EQ(t.suspends[1].begin_ns, t0 + secs(5000));
  EXPECT_EQ(t.suspends[1].end_ns, kNoTime);
}

TEST(AlignSuspends, SuspendsMoreThanAMinuteApartAreTwoCycles) {
  Input b;
  const auto j = b.file("journal.txt", FormatId::journal_short);
  const TimeNs t0 = at(2026, 11, 29, 12, 0, 0);
  b.event({.file = j, .line = 1, .kind = EventKind::suspend, .wall_kind = WallKind::kUtc, .wall = t0, .text = kSuspendEntry});
  b.event({.file = j, .line = 2, .kind = EventKind::suspend, .wall_kind = WallKind::kUtc, .wall = t0 + secs(61),
           .text = kSuspendEntry});
  b.event({.file = j, .line = 3, .kind = EventKind::resume, .wall_kind = WallKind::kUtc, .wall = t0 + secs(100),
           .text = kSuspendExit});
  const Timeline t = align(b.in);
  ASSERT_EQ(t.suspends.size(), 2u);
  EXPECT_EQ(t.suspends[0].end_ns, kNoTime);
  EXPECT_EQ(t.suspends[1].begin_ns, t0 + secs(61));
  EXPECT_EQ(t.suspends[1].end_ns, t0 + secs(100));
}

}  // namespace
}  // namespace gpucost
