// Each WallKind placed on the UTC timeline; interval filling; sorting of the three tables.
#include <gtest/gtest.h>

#include "align_fixtures.hpp"

namespace gpucost {
namespace {

using namespace test;

bool has_note(const FileDiagnostics& d, std::string_view word) {
  for (const auto& n : d.notes)
    if (n.find(word) != std::string::npos) return true;
  return false;
}

TEST(AlignWall, UtcAndLocalStamps) {
  Input b;
  const auto q = b.file("query.csv", FormatId::query_gpu_csv);
  const auto d = b.file("dmon.txt", FormatId::dmon);
  b.sample(q, 2, 0, WallKind::kUtc, at(2026, 11, 29, 11, 50, 45, 123'000'000));
  // dmon -o DT `20261129 19:50:46` in +08:00
  b.sample(d, 3, 0, WallKind::kLocal, at(2026, 11, 29, 19, 50, 46));
  AlignOptions o;
  o.tz = "+08:00";
  const Timeline t = align(b.in, o);
  ASSERT_EQ(t.samples.rows(), 2u);
  EXPECT_EQ(ts_of(t.samples, 0), at(2026, 11, 29, 11, 50, 45, 123'000'000));
  EXPECT_EQ(ts_of(t.samples, 1), at(2026, 11, 29, 11, 50, 46));
  EXPECT_EQ(t.samples.column(sample_col::file).get_int(1), d);
  EXPECT_EQ(t.zone_name, "+08:00");
  EXPECT_EQ(t.zone_reason, "--tz +08:00");
}

TEST(AlignWall, LocalStampsUseAnIanaZoneWithDaylightSaving) {
  Input b;
  const auto d = b.file("dmon.txt", FormatId::dmon);
  b.sample(d, 3, 0, WallKind::kLocal, at(2026, 7, 1, 12, 0, 0));   // CEST +02:00
  b.sample(d, 4, 0, WallKind::kLocal, at(2026, 12, 1, 12, 0, 0));  // CET +01:00
  AlignOptions o;
  o.tz = "Europe/Berlin";
  const Timeline t = align(b.in, o);
  EXPECT_EQ(ts_of(t.samples, 0), at(2026, 7, 1, 10, 0, 0));
  EXPECT_EQ(ts_of(t.samples, 1), at(2026, 12, 1, 11, 0, 0));
}

TEST(AlignWall, NoYearStampTakesTheYearOption) {
  Input b;
  const auto k = b.file("kern.log", FormatId::syslog);
  // `Nov 29 19:50:45 host kernel: ...` (no monotonic stamp in this line)
  b.event({.file = k, .line = 7, .kind = EventKind::pcie_aer, .wall_kind = WallKind::kLocalNoYear,
           .wall = no_year(11, 29, 19, 50, 45), .text = kAer});
  AlignOptions o;
  o.tz = "+08:00";
  o.year = 2026;
  const Timeline t = align(b.in, o);
  ASSERT_EQ(t.events.rows(), 1u);
  EXPECT_EQ(ts_of(t.events, 0), at(2026, 11, 29, 11, 50, 45));
  EXPECT_TRUE(t.events.column(event_col::flags).get_int(0) & kFlagFromWall);
  EXPECT_EQ(t.year_reason, "--year 2026");
}

TEST(AlignWall, NoDateStampsTakeTheManifestStartDate) {
  Input b;
  const auto d = b.file("dmon.txt", FormatId::dmon);
  Manifest m;
  m.start_ns = at(2026, 11, 29, 15, 59, 58);  // 23:59:58 at +08:00
  b.in.manifest = m;
  // dmon -o T: 23:59:59 on day 0, 00:00:01 on day 1 (the parser counted the midnight rollover)
  b.sample(d, 3, 0, WallKind::kLocalNoDate, no_date(23, 59, 59));
  b.sample(d, 4, 0, WallKind::kLocalNoDate, no_date(0, 0, 1, 1));
  AlignOptions o;
  o.tz = "+08:00";
  Diagnostics diag;
  const Timeline t = align(b.in, o, &diag);
  ASSERT_EQ(t.samples.rows(), 2u);
  EXPECT_EQ(ts_of(t.samples, 0), at(2026, 11, 29, 15, 59, 59));
  EXPECT_EQ(ts_of(t.samples, 1), at(2026, 11, 29, 16, 0, 1));
  EXPECT_TRUE(has_note(diag.files.at(d), "manifest start"));
}

TEST(AlignWall, NoDateStampsFromTheModificationTime) {
  Input b;
  // Written until 2026-11-30 02:00:05 local (+08:00) = 2026-11-29T18:00:05Z.
  const auto d = b.file("dmon.txt", FormatId::dmon, at(2026, 11, 29, 18, 0, 5));
  b.sample(d, 3, 0, WallKind::kLocalNoDate, no_date(23, 0, 0));
  b.sample(d, 4, 0, WallKind::kLocalNoDate, no_date(2, 0, 0, 1));
  AlignOptions o;
  o.tz = "+08:00";
  const Timeline t = align(b.in, o);
  ASSERT_EQ(t.samples.rows(), 2u);
  EXPECT_EQ(ts_of(t.samples, 0), at(2026, 11, 29, 15, 0, 0));  // 2026-11-29 23:00 local
  EXPECT_EQ(ts_of(t.samples, 1), at(2026, 11, 29, 18, 0, 0));  // 2026-11-30 02:00 local
}

TEST(AlignWall, NoDateStampsOverlapDatedSources) {
  Input b;
  // A dated source spans 2026-11-29T10:00Z .. 12:00Z; the dmon -o T file has no mtime.
  const auto j = b.file("journal.json", FormatId::journal_json);
  const auto d = b.file("dmon.txt", FormatId::dmon);
  b.event({.file = j, .line = 1, .kind = EventKind::ac_online, .wall_kind = WallKind::kUtc,
           .wall = at(2026, 11, 29, 10, 0, 0), .text = kAcOnline});
  b.event({.file = j, .line = 2, .kind = EventKind::ac_online, .wall_kind = WallKind::kUtc,
           .wall = at(2026, 11, 29, 12, 0, 0), .text = kAcOnline});
  b.sample(d, 3, 0, WallKind::kLocalNoDate, no_date(19, 0, 0));  // 11:00Z on the 29th at +08:00
  AlignOptions o;
  o.tz = "+08:00";
  const Timeline t = align(b.in, o);
  ASSERT_EQ(t.samples.rows(), 1u);
  EXPECT_EQ(ts_of(t.samples, 0), at(2026, 11, 29, 11, 0, 0));
}

TEST(AlignWall, RelativeStampsEndAtTheModificationTime) {
  Input b;
  const TimeNs mtime = at(2026, 11, 29, 12, 0, 0);
  const auto d = b.file("dmon-notime.txt", FormatId::dmon, mtime);
  // dmon without -o: rows 2 s apart (-d 2), two GPUs per interval.
  for (int i = 0; i < 3; ++i)
    for (int g = 0; g < 2; ++g)
      b.sample(d, 3 + 2 * i + g, g, WallKind::kRelative, i * 2 * kNsPerSec, 2 * kNsPerSec);
  Diagnostics diag;
  const Timeline t = align(b.in, {}, &diag);
  ASSERT_EQ(t.samples.rows(), 6u);
  // last row ts + interval = mtime: last rows at 11:59:58, first at 11:59:54.
  EXPECT_EQ(ts_of(t.samples, 0), at(2026, 11, 29, 11, 59, 54));
  EXPECT_EQ(ts_of(t.samples, 5), at(2026, 11, 29, 11, 59, 58));
  EXPECT_EQ(t.samples.column(sample_col::gpu).get_int(4), 0);
  EXPECT_EQ(t.samples.column(sample_col::gpu).get_int(5), 1);
  EXPECT_TRUE(has_note(diag.files.at(d), "approximate"));
  EXPECT_EQ(diag.files.at(d).first_ts, at(2026, 11, 29, 11, 59, 54));
  EXPECT_EQ(diag.files.at(d).last_ts, at(2026, 11, 29, 11, 59, 58));
}

TEST(AlignWall, RelativeStampsStartAtTheManifestStart) {
  Input b;
  const auto d = b.file("dmon-notime.txt", FormatId::dmon, at(2026, 11, 30));
  Manifest m;
  m.start_ns = at(2026, 11, 29, 10, 0, 0);
  b.in.manifest = m;
  b.sample(d, 3, 0, WallKind::kRelative, 0, kNsPerSec);
  b.sample(d, 4, 0, WallKind::kRelative, kNsPerSec, kNsPerSec);
  const Timeline t = align(b.in);
  EXPECT_EQ(ts_of(t.samples, 0), at(2026, 11, 29, 10, 0, 0));
  EXPECT_EQ(ts_of(t.samples, 1), at(2026, 11, 29, 10, 0, 1));
}

TEST(AlignWall, StamplessLinesAtTheModificationTimeOrNull) {
  Input b;
  const TimeNs mtime = at(2026, 11, 29, 12, 0, 0);
  const auto pasted = b.file("pasted.txt", FormatId::dmesg, mtime);
  const auto nomtime = b.file("stdin", FormatId::dmesg);
  b.event({.file = pasted, .line = 1, .text = kXid79, .flags = kFlagApproxTime});
  b.event({.file = nomtime, .line = 1, .text = kXid79, .flags = kFlagApproxTime});
  b.event({.file = nomtime, .line = 2, .kind = EventKind::pcie_aer, .wall_kind = WallKind::kUtc,
           .wall = at(2026, 11, 29, 13, 0, 0), .text = kAer});
  const Timeline t = align(b.in);
  ASSERT_EQ(t.events.rows(), 3u);  // never dropped
  EXPECT_EQ(ts_of(t.events, 0), mtime);
  EXPECT_TRUE(t.events.column(event_col::flags).get_int(0) & kFlagApproxTime);
  EXPECT_EQ(ts_of(t.events, 1), at(2026, 11, 29, 13, 0, 0));
  EXPECT_EQ(ts_of(t.events, 2), kNoTime);  // null last
  EXPECT_EQ(t.events.column(event_col::file).get_int(2), nomtime);
  EXPECT_TRUE(t.events.column(event_col::flags).get_int(2) & kFlagApproxTime);
  // Issue 14: a line placed at its file's modification time does not widen the measured span.
  EXPECT_EQ(t.first_ns, at(2026, 11, 29, 13, 0, 0));
  EXPECT_EQ(t.last_ns, at(2026, 11, 29, 13, 0, 0));
}

TEST(AlignWall, IntervalsAreFilledAndUnplaceableSamplesDropped) {
  Input b;
  const auto q = b.file("query.csv", FormatId::query_gpu_csv);
  b.sample(q, 2, 0, WallKind::kUtc, at(2026, 11, 29, 12, 0, 0));                  // interval null
  b.sample(q, 3, 0, WallKind::kUtc, at(2026, 11, 29, 12, 0, 5), 5 * kNsPerSec);  // parser's 5 s
  b.sample(q, 4, 0, WallKind::kLocalNoDate, no_date(1, 0, 0));                   // no date anywhere
  Diagnostics diag;
  const Timeline t = align(b.in, {}, &diag);
  ASSERT_EQ(t.samples.rows(), 2u);
  EXPECT_EQ(t.samples.column(sample_col::interval_ns).get_int(0), kNsPerSec);
  EXPECT_EQ(t.samples.column(sample_col::interval_ns).get_int(1), 5 * kNsPerSec);
  EXPECT_TRUE(has_note(diag.files.at(q), "1 sample rows dropped"));
}

TEST(AlignWall, TablesAreSorted) {
  Input b;
  const auto q1 = b.file("a.csv", FormatId::query_gpu_csv);
  const auto q2 = b.file("b.csv", FormatId::query_gpu_csv);
  const auto ps = b.file("ps.txt", FormatId::ps);
  const TimeNs t0 = at(2026, 11, 29, 12, 0, 0);
  b.sample(q2, 9, 1, WallKind::kUtc, t0);
  b.sample(q2, 8, 0, WallKind::kUtc, t0);
  b.sample(q1, 5, 1, WallKind::kUtc, t0);
  b.sample(q1, 2, 0, WallKind::kUtc, t0 - kNsPerSec);
  b.process(ps, 12, 1, 300, WallKind::kUtc, t0);
  b.process(ps, 11, 1, 20, WallKind::kUtc, t0);
  b.process(ps, 3, 0, 999, WallKind::kUtc, t0 - kNsPerSec);
  const Timeline t = align(b.in);
  // (ts, gpu, file, line); b.csv's GPU 1 row at t0 repeats a.csv's (the same GPU, the same
  // second, two sources): it is not counted twice (OneSampleSourcePerGpuAtATime).
  ASSERT_EQ(t.samples.rows(), 3u);
  EXPECT_EQ(t.samples.column(sample_col::line).get_int(0), 2);
  EXPECT_EQ(t.samples.column(sample_col::line).get_int(1), 8);
  EXPECT_EQ(t.samples.column(sample_col::line).get_int(2), 5);  // gpu 1, file a.csv
  ASSERT_EQ(t.processes.rows(), 3u);
  EXPECT_EQ(t.processes.column(process_col::pid).get_int(0), 999);
  EXPECT_EQ(t.processes.column(process_col::pid).get_int(1), 20);
  EXPECT_EQ(t.processes.column(process_col::pid).get_int(2), 300);
}

// collect-logs.sh runs dmon and --query-gpu side by side: where both cover a GPU, dmon's rows
// count and the --query-gpu rows inside dmon's span are dropped, with a note; outside it, and for
// a GPU dmon does not report, they stay.
TEST(AlignWall, OneSampleSourcePerGpuAtATime) {
  Input b;
  const auto q = b.file("query.csv", FormatId::query_gpu_csv);  // first file: the order is not the rank
  const auto d = b.file("dmon.txt", FormatId::dmon);
  const TimeNs t0 = at(2026, 11, 29, 12, 0, 0);
  for (int i = 0; i < 5; ++i) b.sample(d, 3 + i, 0, WallKind::kUtc, t0 + i * kNsPerSec, kNsPerSec);
  for (int i = 0; i < 6; ++i) b.sample(q, 2 + i, 0, WallKind::kUtc, t0 + (2 + i) * kNsPerSec, kNsPerSec);
  for (int i = 0; i < 3; ++i) b.sample(q, 20 + i, 1, WallKind::kUtc, t0 + i * kNsPerSec, kNsPerSec);
  Diagnostics diag;
  const Timeline t = align(b.in, {}, &diag);
  ASSERT_EQ(t.samples.rows(), 5u + 3u + 3u);
  std::size_t from_query_gpu0 = 0;
  for (std::size_t r = 0; r < t.samples.rows(); ++r) {
    if (t.samples.column(sample_col::file).get_int(r) != q || t.samples.column(sample_col::gpu).get_int(r) != 0) continue;
    ++from_query_gpu0;
    EXPECT_GE(ts_of(t.samples, r), t0 + 5 * kNsPerSec);  // after dmon's last row's second
  }
  EXPECT_EQ(from_query_gpu0, 3u);
  bool noted = false;
  for (const auto& n : diag.notes) noted |= n.find("GPU 0: 3 of 6 sample rows of query.csv") != std::string::npos;
  EXPECT_TRUE(noted);

  // Two dmon files of different days overlap nowhere: both count.
  Input c;
  const auto d1 = c.file("dmon-1.txt", FormatId::dmon);
  const auto d2 = c.file("dmon-2.txt", FormatId::dmon);
  for (int i = 0; i < 3; ++i) c.sample(d1, 3 + i, 0, WallKind::kUtc, t0 + i * kNsPerSec, kNsPerSec);
  for (int i = 0; i < 3; ++i) c.sample(d2, 3 + i, 0, WallKind::kUtc, t0 + kNsPerDay + i * kNsPerSec, kNsPerSec);
  EXPECT_EQ(align(c.in).samples.rows(), 6u);
}

TEST(AlignWall, PsSnapshotWithoutMarkerAtModificationTime) {
  Input b;
  const TimeNs mtime = at(2026, 11, 29, 12, 0, 0);
  const auto ps = b.file("ps.txt", FormatId::ps, mtime);
  b.process(ps, 2, 0, 1, WallKind::kNone, kNoTime);
  const Timeline t = align(b.in);
  ASSERT_EQ(t.processes.rows(), 1u);
  EXPECT_EQ(ts_of(t.processes, 0), mtime);
  EXPECT_EQ(t.first_ns, mtime);  // nothing else has a time: the approximate span is all there is
}

// Issue 14: a 3 h run's report said 6 301 h because a ps file without markers sat at its
// modification time, months later: an approximate placement never widens the measured span.
TEST(AlignWall, APsFileAtItsModificationTimeDoesNotWidenTheSpan) {
  Input b;
  const auto q = b.file("query.csv", FormatId::query_gpu_csv);
  const auto ps = b.file("ps.txt", FormatId::ps, at(2027, 9, 1, 0, 0, 0));
  const TimeNs t0 = at(2026, 11, 29, 12, 0, 0);
  for (int i = 0; i < 10; ++i) b.sample(q, i + 2, 0, WallKind::kUtc, t0 + i * kNsPerSec);
  b.process(ps, 2, 0, 1, WallKind::kNone, kNoTime);
  const Timeline t = align(b.in);
  ASSERT_EQ(t.processes.rows(), 1u);
  EXPECT_EQ(ts_of(t.processes, 0), at(2027, 9, 1, 0, 0, 0));  // still placed, approximately
  EXPECT_EQ(t.first_ns, t0);
  EXPECT_EQ(t.last_ns, t0 + 9 * kNsPerSec);
}

}  // namespace
}  // namespace gpucost
