// The acceptance scenario, by hand-built tables: a laptop run with a 30-minute suspend in the
// middle, read from kern.log (local time +08:00, no year, 1 s stamps + `[mono]`), a raw dmesg
// (monotonic only) and journal JSON entries (UTC µs, _BOOT_ID). Every Xid must land within
// 10 ms of its true UTC instant, before and after the suspend, and appear once.
#include <gtest/gtest.h>

#include <cstdlib>

#include "align_fixtures.hpp"

namespace gpucost {
namespace {

using namespace test;

constexpr const char* kBoot = "c4b33c96f240457abc130dcb73da2b24";
constexpr const char* kXid13 =
    "NVRM: Xid (PCI:0000:01:00): 13, pid=2117, name=python3, Graphics SM Warp Exception on (GPC 0, TPC 0, SM 0): "
    "Out Of Range Address";
constexpr const char* kOther = "usb 1-1: new high-speed USB device number 3 using xhci_hcd";

struct Truth {
  TimeNs boot = at(2026, 11, 29, 1, 0, 0, 123'456'789);
  TimeNs slept = 30 * kNsPerMin;
  TimeNs entry = secs(3600.5);       // `PM: suspend entry (deep)`
  TimeNs sleep_at = secs(3600.9);    // the monotonic clock stops here
  TimeNs exit = secs(3601.2);        // `PM: suspend exit`
  TimeNs wall(TimeNs mono) const { return boot + mono + (mono >= sleep_at ? slept : 0); }
};

class ScopedUtc {
 public:
  ScopedUtc() {
    if (const char* old = std::getenv("TZ")) saved_ = old, had_ = true;
    ::setenv("TZ", "UTC", 1);
  }
  ~ScopedUtc() {
    if (had_) ::setenv("TZ", saved_.c_str(), 1);
    else ::unsetenv("TZ");
  }

 private:
  std::string saved_;
  bool had_ = false;
};

// `journal_source_mono`: the journal's kernel entries carry _SOURCE_MONOTONIC_TIMESTAMP (the
// printk stamp); without it they are matched to the other copies by wall time.
void laptop_with_thirty_minute_suspend(bool journal_source_mono) {
  ScopedUtc machine_in_utc;  // so a wrong zone inference would show as an 8-hour error
  const Truth truth;
  Input b;
  const TimeNs collected = truth.wall(secs(7300));
  const auto dmesg = b.file("dmesg.txt", FormatId::dmesg, collected);
  const auto journal = b.file("journal.json", FormatId::journal_json, collected);
  const auto kern = b.file("kern.log", FormatId::syslog, collected);

  struct Msg {
    TimeNs mono;
    EventKind kind;
    const char* text;
    bool event;
  };
  std::vector<Msg> msgs;
  for (TimeNs m = secs(2.5); m < secs(7290); m += secs(53.17))
    if (m < truth.entry - secs(1) || m > truth.exit + secs(1)) msgs.push_back({m, EventKind::user, kOther, false});
  const std::vector<Msg> xids = {{secs(1000.250001), EventKind::xid, kXid31, true},
                                 {secs(2500.999999), EventKind::xid, kXid13, true},
                                 {secs(5000.75), EventKind::xid, kXid31, true},  // same text again
                                 {secs(6000.000123), EventKind::xid, kXid79, true}};
  msgs.insert(msgs.end(), xids.begin(), xids.end());
  msgs.push_back({truth.entry, EventKind::suspend, kSuspendEntry, true});
  msgs.push_back({truth.exit, EventKind::resume, kSuspendExit, true});
  std::sort(msgs.begin(), msgs.end(), [](const Msg& x, const Msg& y) { return x.mono < y.mono; });

  const TimeNs local = 8 * kNsPerHour;
  std::uint64_t dl = 0, jl = 0, kl = 0;
  for (const Msg& m : msgs) {
    // dmesg: `[ 1000.250001] NVRM: Xid ...`
    ++dl;
    if (m.event) b.event({.file = dmesg, .line = dl, .kind = m.kind, .mono = m.mono, .text = m.text});
    // journal JSON: received 2 ms after printing; __MONOTONIC/__REALTIME of the receipt are the
    // anchor, _SOURCE_MONOTONIC_TIMESTAMP the event's mono.
    ++jl;
    const TimeNs rcv = m.mono + 2 * kNsPerMs;
    b.anchor({.file = journal, .line = jl, .mono = rcv, .wall = floor_to(truth.wall(rcv), kNsPerUs), .precision = kNsPerUs,
              .boot_id = kBoot});
    if (m.event)
      b.event({.file = journal, .line = jl, .kind = m.kind, .wall_kind = WallKind::kUtc,
               .wall = floor_to(truth.wall(rcv), kNsPerUs), .mono = journal_source_mono ? m.mono : kNoTime,
               .boot_id = kBoot, .text = m.text});
    // kern.log: `Nov 29 09:16:40 laptop kernel: [ 1000.250001] NVRM: Xid ...`, received 5 ms late.
    ++kl;
    const TimeNs stamp = as_no_year(floor_to(truth.wall(m.mono + 5 * kNsPerMs) + local, kNsPerSec), 2026);
    b.anchor({.file = kern, .line = kl, .mono = m.mono, .wall_kind = WallKind::kLocalNoYear, .wall = stamp});
    if (m.event)
      b.event({.file = kern, .line = kl, .kind = m.kind, .wall_kind = WallKind::kLocalNoYear, .wall = stamp,
               .mono = m.mono, .text = m.text});
  }

  Diagnostics diag;
  const Timeline t = align(b.in, {}, &diag);

  EXPECT_EQ(t.zone_name, "+08:00");
  EXPECT_NE(t.year_reason.find("2026"), std::string::npos);
  const auto rows = rows_of(t, EventKind::xid);
  ASSERT_EQ(rows.size(), xids.size());  // each appears once
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const TimeNs want = truth.wall(xids[i].mono);
    const TimeNs got = ts_of(t.events, rows[i]);
    EXPECT_LE(std::llabs(got - want), 10 * kNsPerMs)
        << "Xid at mono " << xids[i].mono << ": got " << format_rfc3339(got, 6) << ", want " << format_rfc3339(want, 6);
    EXPECT_EQ(t.origin_begin[rows[i] + 1] - t.origin_begin[rows[i]], 3u) << "copies of Xid " << i;
    EXPECT_EQ(t.events.column(event_col::flags).get_int(rows[i]) & kFlagApproxTime, 0);
  }
  ASSERT_EQ(t.boots.size(), 1u);
  EXPECT_EQ(t.boots[0].boot_id, kBoot);
  EXPECT_EQ(t.boots[0].epochs, 2u);
  EXPECT_LE(std::llabs(t.boots[0].boot_wall_ns - truth.boot), kNsPerMs);
  ASSERT_EQ(t.suspends.size(), 1u);
  EXPECT_LE(std::llabs(t.suspends[0].begin_ns - truth.wall(truth.entry)), 10 * kNsPerMs);
  EXPECT_LE(std::llabs(t.suspends[0].end_ns - truth.wall(truth.exit)), 10 * kNsPerMs);
  // Every event of the three files appears once.
  EXPECT_EQ(t.events.rows(), xids.size() + 2);
  EXPECT_EQ(t.origins.size(), 3 * t.events.rows());
  for (std::size_t r = 1; r < t.events.rows(); ++r) EXPECT_LE(ts_of(t.events, r - 1), ts_of(t.events, r));
}

TEST(AlignAcceptance, LaptopWithThirtyMinuteSuspend) { laptop_with_thirty_minute_suspend(true); }

TEST(AlignAcceptance, LaptopWithThirtyMinuteSuspendJournalWithoutSourceMono) {
  laptop_with_thirty_minute_suspend(false);
}

}  // namespace
}  // namespace gpucost
