// Repeated messages aggregated into runs (include/gpucost/ingest/repeat_runs.hpp) give the same
// features, findings, cost and event counts as a row per line (--keep-repeats), on generated
// floods: a benign nvidia-modeset flood, a non-benign nvidia-drm one, an Xid and an AER flood in
// kern.log (printk monotonic stamps, across a suspend), the same kernel lines in a dmesg file
// (copies merged across sources), cron every third of a second with a new pid each time in
// syslog (wall stamps only), and dmon samples that make the GPU features depend on the events.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <fstream>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <string>

#include <fmt/format.h>

#include "gpucost/ingest/repeat_runs.hpp"
#include "gpucost/records/events.hpp"
#include "gpucost/records/formats.hpp"
#include "gpucost/records/stamps.hpp"
#include "run_binary.hpp"

namespace gpucost {
namespace {

namespace fs = std::filesystem;
using gpucost::testing::run_gpucost;

// 2026-11-29 12:00:00 local, the flood's second 0; the boot 100 s before.
std::string bsd_stamp(int s) {
  const int t = 12 * 3600 + s;
  const int h = t / 3600, m = (t / 60) % 60, sec = t % 60;
  return fmt::format("Nov 29 {:02d}:{:02d}:{:02d}", h, m, sec);
}

constexpr int kFloodSeconds = 600;
constexpr int kSuspendAt = 300;        // seconds into the flood
constexpr int kSuspendSeconds = 1800;  // wall time asleep: monotonic time does not see it

struct KernelLine {
  int ms;  // monotonic milliseconds since the flood's second 0
  std::string text;
};

// The kernel's messages of the day, in monotonic order.
std::vector<KernelLine> kernel_lines() {
  std::vector<KernelLine> v;
  for (int ms = 0; ms < kFloodSeconds * 1000; ms += 50) {
    const int s = ms / 1000;
    v.push_back({ms, "nvidia-modeset: ERROR: GPU:0: Failed to query display engine channel state: 0x0000c67d:0:0:0x0000000f"});
    if (s >= 100 && s < 400 && ms % 250 == 0)
      v.push_back({ms + 1, "[drm:nv_drm_atomic_commit [nvidia_drm]] *ERROR* [nvidia-drm] [GPU ID 0x00000100] Flip event timeout on head 0"});
    if (s >= 200 && s < 260 && ms % 500 == 0)
      v.push_back({ms + 2, "NVRM: Xid (PCI:0000:01:00): 13, pid=4242, name=python3, Graphics SM Warp Exception on (GPC 0, TPC 1, SM 0): Out Of Range Address"});
    if (s < 50 && ms % 100 == 0)
      v.push_back({ms + 3, "pcieport 0000:00:01.0: AER: Corrected error received: 0000:01:00.0"});
    if (s < 50 && ms % 100 == 0)
      v.push_back({ms + 4, "nvidia 0000:01:00.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)"});
    if (ms == kSuspendAt * 1000) {
      v.push_back({ms + 5, "PM: suspend entry (deep)"});
      v.push_back({ms + 6, "PM: suspend exit"});
    }
  }
  return v;
}

std::string mono_stamp(int ms) { return fmt::format("[{:5d}.{:06d}]", 100 + ms / 1000, (ms % 1000) * 1000 + 7); }

// Wall second of a kernel line: after the suspend entry, the machine slept kSuspendSeconds.
int wall_second(const KernelLine& l) {
  const int s = l.ms / 1000;
  const bool after = l.ms > kSuspendAt * 1000 + 5;
  return s + (after ? kSuspendSeconds : 0);
}

fs::path write_flood_day(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("repeat_runs_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  const auto lines = kernel_lines();
  {
    std::ofstream kern(dir / "kern.log");
    kern << bsd_stamp(-100) << " lab kernel: [    0.000000] Linux version 6.8.0-49-generic (buildd@lcy02-amd64-103) #49-Ubuntu SMP\n";
    for (const auto& l : lines) kern << bsd_stamp(wall_second(l)) << " lab kernel: " << mono_stamp(l.ms) << ' ' << l.text << '\n';
  }
  {
    // dmesg (raw monotonic) saved during the day: the kernel lines of seconds 150-250 again.
    std::ofstream dmesg(dir / "dmesg.txt");
    dmesg << "[    0.000000] Linux version 6.8.0-49-generic (buildd@lcy02-amd64-103) #49-Ubuntu SMP\n";
    for (const auto& l : lines)
      if (l.ms >= 150'000 && l.ms < 250'000) dmesg << mono_stamp(l.ms) << ' ' << l.text << '\n';
  }
  {
    std::ofstream syslog(dir / "syslog");
    int pid = 20000;
    for (int s = 0; s < kFloodSeconds + kSuspendSeconds; ++s)
      for (int k = 0; k < 3; ++k)
        syslog << bsd_stamp(s) << " lab CRON[" << pid++ << "]: (root) CMD (command -v debian-sa1 > /dev/null && debian-sa1 1 1)\n";
  }
  {
    // Busy and hot until second 250, then less busy: the features after errors and while hot read
    // the events' times against these.
    std::ofstream dmon(dir / "dmon.txt");
    dmon << "#Date       Time        gpu    pwr  gtemp  mtemp     sm    mem    enc    dec   mclk   pclk\n"
            "#YYYYMMDD   HH:MM:SS    Idx      W      C      C      %      %      %      %    MHz    MHz\n";
    for (int s = -60; s < kFloodSeconds + kSuspendSeconds; ++s) {
      if (s > kSuspendAt && s < kSuspendAt + kSuspendSeconds) continue;  // asleep
      const int t = 12 * 3600 + s;
      dmon << fmt::format(" 20261129   {:02d}:{:02d}:{:02d}      0    {:3d}     {:2d}      -     {:2d}     30      0      0   9501   2520\n",
                          t / 3600, (t / 60) % 60, t % 60, s < 250 ? 300 : 120, s < 250 ? 88 : 60, s < 250 ? 97 : 40);
    }
  }
  return dir;
}

// The minified JSON of root[key], or a failure.
std::string member_text(simdjson::dom::element root, const char* key) {
  simdjson::dom::element e;
  if (root[key].get(e) != simdjson::SUCCESS) {
    ADD_FAILURE() << "no " << key << " in the report";
    return {};
  }
  return simdjson::minify(e);
}

std::uint64_t member_uint(simdjson::dom::element obj, const char* key) {
  std::uint64_t v = 0;
  if (obj[key].get(v) != simdjson::SUCCESS) ADD_FAILURE() << "no number " << key;
  return v;
}

struct Report {
  std::map<std::string, std::string> features;  // id -> the feature's JSON
  std::map<std::string, double> values;         // id -> value, where it has one
  std::vector<std::string> finding_titles;
  std::string cost;
  std::uint64_t events = 0, event_rows = 0;
  std::map<std::string, std::uint64_t> by_kind;
};

Report analyze(const fs::path& dir, bool keep_repeats) {
  std::vector<std::string> args{"analyze", dir.string(), "--format", "json", "--no-timings"};
  if (keep_repeats) args.emplace_back("--keep-repeats");
  const auto r = run_gpucost(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  Report out;
  simdjson::dom::parser parser;
  simdjson::dom::element root, tl;
  simdjson::dom::object kinds;
  if (parser.parse(r.out).get(root) != simdjson::SUCCESS || root["timeline"].get(tl) != simdjson::SUCCESS ||
      tl["events_by_kind"].get(kinds) != simdjson::SUCCESS) {
    ADD_FAILURE() << "not a JSON report: " << r.out.substr(0, 200) << r.err;
    return out;
  }
  simdjson::dom::array features, findings;
  EXPECT_EQ(root["features"].get(features), simdjson::SUCCESS);
  for (simdjson::dom::element f : features) {
    std::string_view id;
    EXPECT_EQ(f["id"].get(id), simdjson::SUCCESS);
    out.features[std::string(id)] = simdjson::minify(f);
    double v = 0;
    if (f["value"].get(v) == simdjson::SUCCESS) out.values[std::string(id)] = v;
  }
  EXPECT_EQ(root["findings"].get(findings), simdjson::SUCCESS);
  for (simdjson::dom::element f : findings) {
    std::string_view title;
    EXPECT_EQ(f["title"].get(title), simdjson::SUCCESS);
    out.finding_titles.emplace_back(title);
  }
  out.cost = member_text(root, "cost");
  out.events = member_uint(tl, "events");
  out.event_rows = member_uint(tl, "event_rows");
  for (auto [k, v] : kinds) out.by_kind[std::string(k)] = v.get_uint64().value_unsafe();
  return out;
}

// Events per kind in `gpucost timeline`'s JSON Lines: Σ repeat.
std::map<std::string, std::uint64_t> timeline_counts(const fs::path& dir, bool keep_repeats, std::uint64_t& lines) {
  std::vector<std::string> args{"timeline", dir.string()};
  if (keep_repeats) args.emplace_back("--keep-repeats");
  const auto r = run_gpucost(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, std::uint64_t> counts;
  simdjson::dom::parser parser;
  lines = 0;
  std::size_t at = 0;
  while (at < r.out.size()) {
    const std::size_t nl = r.out.find('\n', at);
    const std::string line = r.out.substr(at, nl - at);
    at = nl == std::string::npos ? r.out.size() : nl + 1;
    simdjson::dom::element e;
    if (parser.parse(line).get(e) != simdjson::SUCCESS) {
      ADD_FAILURE() << "not JSON: " << line;
      continue;
    }
    ++lines;
    std::string_view kind;
    if (e["kind"].get(kind) != simdjson::SUCCESS) ADD_FAILURE() << "no kind: " << line;
    counts[std::string(kind)] += member_uint(e, "repeat");
  }
  return counts;
}

TEST(RepeatRuns, AggregatedFloodsGiveTheFeaturesAndCountsOfARowPerLine) {
  const fs::path dir = write_flood_day("floods");
  const Report runs = analyze(dir, false);
  const Report rows = analyze(dir, true);

  // Aggregation happened, and only where it may: far fewer rows, every line still counted.
  EXPECT_LT(runs.event_rows * 5, runs.events) << "the floods were not aggregated";
  EXPECT_EQ(rows.event_rows, rows.events) << "--keep-repeats must keep a row per line";
  EXPECT_EQ(runs.events, rows.events);
  EXPECT_EQ(runs.by_kind, rows.by_kind);
  // The merged copies (dmesg.txt and kern.log) count once: cron 3 a second, modeset 20 a second.
  EXPECT_EQ(rows.by_kind.at("cron"), 3u * (kFloodSeconds + kSuspendSeconds));
  EXPECT_EQ(rows.by_kind.at("driver_error"), 20u * kFloodSeconds + 4u * 300u);
  EXPECT_EQ(rows.by_kind.at("xid"), 2u * 60u);
  EXPECT_EQ(rows.by_kind.at("suspend"), 1u);

  // Every feature is the same, but the three that read each error's instant against the 1 s
  // samples: a run is at its first line's instant, and a run whose second straddles a sample
  // boundary (or the flood's change from hot to cool) moves its other lines by under a second
  // (docs/timeline.md, "Repeated messages").
  const std::set<std::string> instant_features{"F060", "F064", "F065"};
  ASSERT_EQ(runs.features.size(), rows.features.size());
  for (const auto& [id, json] : rows.features) {
    if (instant_features.count(id)) {
      ASSERT_TRUE(runs.values.count(id) && rows.values.count(id)) << id;
      EXPECT_NEAR(runs.values.at(id), rows.values.at(id), 0.01 * std::abs(rows.values.at(id)) + 0.2) << id;
      continue;
    }
    EXPECT_EQ(runs.features.at(id), json) << id;
  }
  EXPECT_EQ(runs.finding_titles, rows.finding_titles);
  EXPECT_EQ(runs.cost, rows.cost);
  // The features read the floods (a comparison of nulls would prove nothing).
  EXPECT_EQ(rows.values.at("F066"), 20.0 * kFloodSeconds);  // benign_driver_messages
  EXPECT_EQ(rows.values.at("F094"), 4.0 * 300);             // driver_error_events (not benign)
  EXPECT_EQ(rows.values.at("F061"), 4.0 * 300);             // hw_error_events
  EXPECT_EQ(rows.values.at("F079"), 120.0);                 // xid_events
  EXPECT_EQ(rows.values.at("F077"), 500.0);                 // pcie_aer_corrected_events
  EXPECT_GT(rows.values.at("F064"), 100.0);                 // driver_errors_while_hot

  std::uint64_t run_lines = 0, row_lines = 0;
  const auto t_runs = timeline_counts(dir, false, run_lines);
  const auto t_rows = timeline_counts(dir, true, row_lines);
  EXPECT_EQ(t_runs, t_rows);
  EXPECT_LT(run_lines * 5, row_lines);
  EXPECT_EQ(t_rows.at("driver_error"), rows.by_kind.at("driver_error"));
}

// What FileSink does with an event: it joins the run of its message (the row's repeat count
// grows) or starts a row and a run.
void add_event(Table& t, RepeatRuns& runs, const EventFields& f) {
  const RepeatRuns::Key key = RepeatRuns::message_key(f);
  if (RepeatRuns::Run* run = runs.find_run(t, f, key)) {
    Column& c = t.column(event_col::repeat);
    c.set_int(run->row, c.get_int(run->row) + 1);
    RepeatRuns::join(*run, f);
    return;
  }
  push_event_row(t, f, FormatId::syslog, 0, 1);
  runs.started(f, static_cast<std::uint32_t>(t.rows() - 1), key);
}

// Lines with no monotonic stamp join by their wall second; another message, a kind that does not
// aggregate or the next second starts a row.
TEST(RepeatRuns, WhatJoinsARun) {
  Table t = make_event_table();
  RepeatRuns runs;
  auto add = [&](const EventFields& f) { add_event(t, runs, f); };
  EventFields cron;
  cron.kind = EventKind::cron;
  cron.wall_kind = WallKind::kLocalNoYear;
  cron.ident = "CRON";
  cron.text = "(root) CMD (true)";
  for (std::uint64_t i = 0; i < 20; ++i) {
    cron.line = i + 1;
    cron.pid = static_cast<std::int64_t>(1000 + i);
    cron.wall_raw_ns = 5 * kNsPerSec + static_cast<TimeNs>(i / 10) * kNsPerSec;  // 10 in second 5, 10 in second 6
    add(cron);
  }
  // Cron is only counted: one run per minute, whatever the pid that printed each line.
  ASSERT_EQ(t.rows(), 1u);
  EXPECT_EQ(event_repeat(t, 0), 20u);
  EXPECT_EQ(t.column(event_col::line).get_int(0), 1);  // the run's first line is its exemplar
  EXPECT_EQ(t.column(event_col::pid).get_int(0), 1000);
  cron.wall_raw_ns = 30 * kNsPerSec;  // more than 2 s after the run's latest line: a row at its instant
  add(cron);
  cron.wall_raw_ns = 31 * kNsPerSec;
  add(cron);
  cron.wall_raw_ns = 61 * kNsPerSec;  // the next minute
  add(cron);
  ASSERT_EQ(t.rows(), 3u);
  EXPECT_EQ(event_repeat(t, 1), 2u);
  EXPECT_EQ(event_total(t), 23u);
  t = make_event_table();
  runs = RepeatRuns();
  for (std::uint64_t i = 0; i < 20; ++i) {
    cron.line = i + 1;
    cron.wall_raw_ns = 5 * kNsPerSec + static_cast<TimeNs>(i / 10) * kNsPerSec;
    add(cron);
  }
  ASSERT_EQ(t.rows(), 1u);
  EventFields other = cron;
  other.text = "(root) CMD (false)";
  add(other);
  EventFields boot = cron;  // kinds that features pair or order never aggregate
  boot.kind = EventKind::boot;
  for (int i = 0; i < 12; ++i) add(boot);
  EXPECT_EQ(t.rows(), 1u + 1u + 12u);

  // Monotonic stamps: the same second joins, a stamp that does not move on (a copy) does not, nor
  // one more than RepeatRuns::kRunGapNs after the run's latest line.
  EventFields xid;
  xid.kind = EventKind::xid;
  xid.code = 13;
  xid.text = "NVRM: Xid (PCI:0000:01:00): 13, Graphics Exception";
  xid.wall_kind = WallKind::kLocalNoYear;
  const std::size_t before = t.rows();
  for (int i = 0; i < 12; ++i) {
    xid.mono_ns = 100 * kNsPerSec + i * 10'000'000;
    xid.wall_raw_ns = 7 * kNsPerSec;
    add(xid);
  }
  EXPECT_EQ(t.rows(), before + 1);
  EXPECT_EQ(event_repeat(t, before), 12u);
  xid.mono_ns = 100 * kNsPerSec + 11 * 10'000'000;  // the last line again: a copy
  add(xid);
  EXPECT_EQ(t.rows(), before + 2);
  // The same monotonic second after a suspend (the wall stamp jumped): a new row.
  xid.mono_ns = 100 * kNsPerSec + 900'000'000;
  xid.wall_raw_ns = 1800 * kNsPerSec;
  add(xid);
  EXPECT_EQ(t.rows(), before + 3);
  xid.mono_ns = 200 * kNsPerSec;
  xid.wall_raw_ns = 1900 * kNsPerSec;
  add(xid);
  xid.mono_ns = 200 * kNsPerSec + 999'000'000;  // the same second, but after a gap of 0.999 s: joins
  add(xid);
  EXPECT_EQ(t.rows(), before + 4);
}

// A run's bucket is found without division: instants before 1970 (a clock never set, read back)
// fall in whole seconds as well, [-2 s, -1 s) then [-1 s, 0).
TEST(RepeatRuns, BucketsBeforeTheEpochAreWholeSecondsToo) {
  Table t = make_event_table();
  RepeatRuns runs;
  auto add = [&](const EventFields& f) { add_event(t, runs, f); };
  EventFields xid;
  xid.kind = EventKind::xid;
  xid.code = 13;
  xid.wall_kind = WallKind::kUtc;
  xid.text = "NVRM: Xid (PCI:0000:01:00): 13, Graphics Exception";
  for (const TimeNs ms : {-1500, -1200, -1001, -1000, -999, -1, 0, 1}) {
    xid.wall_raw_ns = ms * kNsPerMs;
    add(xid);
  }
  ASSERT_EQ(t.rows(), 3u);
  EXPECT_EQ(event_repeat(t, 0), 3u);  // -1.5, -1.2 and -1.001 s
  EXPECT_EQ(event_repeat(t, 1), 3u);  // -1 s, -0.999 s, -0.001 s
  EXPECT_EQ(event_repeat(t, 2), 2u);  // 0 and 1 ms
  // By monotonic time the same: 99.9 s and 100.0 s are two seconds.
  xid.wall_raw_ns = 7 * kNsPerSec;
  for (const TimeNs ms : {99'900, 99'950, 100'000, 100'999}) {
    xid.mono_ns = ms * kNsPerMs;
    add(xid);
  }
  ASSERT_EQ(t.rows(), 5u);
  EXPECT_EQ(event_repeat(t, 3), 2u);
  EXPECT_EQ(event_repeat(t, 4), 2u);
}

// A chunk's sink numbers its boots from 0 until the merge renumbers them: the rows' ordinals and
// the open runs move alike (FileSink::renumber_boots), and an event of the renumbered boot joins
// its run, one of the old ordinal does not.
TEST(RepeatRuns, RenumberedBootsKeepTheirRuns) {
  Table t = make_event_table();
  RepeatRuns runs;
  EventFields f;
  f.kind = EventKind::xid;
  f.code = 13;
  f.wall_kind = WallKind::kLocalNoYear;
  f.wall_raw_ns = 7 * kNsPerSec;
  f.mono_ns = 100 * kNsPerSec;
  f.boot_seq = 0;
  f.text = "NVRM: Xid (PCI:0000:01:00): 13, Graphics Exception";
  const RepeatRuns::Key key = RepeatRuns::message_key(f);
  push_event_row(t, f, FormatId::syslog, 0, 1);
  runs.started(f, 0, key);
  t.column(event_col::boot_seq).set_int(0, 3);
  const std::int32_t to_file[] = {3};
  runs.renumber_boots(to_file);
  EventFields later = f;
  later.mono_ns += 1000;
  later.boot_seq = 3;
  EXPECT_EQ(runs.find(t, later, key), 0);
  later.boot_seq = 0;
  EXPECT_EQ(runs.find(t, later, key), -1);
}

// A hash is not the message: an event that differs from a run's row in any field the key stands
// for, under the same key (a collision, forged here), finds no run.
TEST(RepeatRuns, AHashCollisionFindsNoRun) {
  Table t = make_event_table();
  RepeatRuns runs;
  EventFields f;
  f.kind = EventKind::xid;
  f.wall_kind = WallKind::kLocalNoYear;
  f.wall_raw_ns = 7 * kNsPerSec;
  f.mono_ns = 100 * kNsPerSec;
  f.boot_id = "b0";
  f.boot_seq = 1;
  f.code = 13;
  f.gpu = "0000:01:00.0";
  f.process = "python3";
  f.ident = "kernel";
  f.text = "NVRM: Xid (PCI:0000:01:00): 13, Graphics Exception";
  f.flags = 4;
  const RepeatRuns::Key key = RepeatRuns::message_key(f);
  push_event_row(t, f, FormatId::syslog, 0, 1);
  runs.started(f, 0, key);
  EventFields same = f;
  same.mono_ns += 1000;
  same.pid = 77;  // the printing process's pid is no part of the message
  same.line = 2;
  EXPECT_EQ(runs.find(t, same, key), 0);
  const std::vector<std::pair<std::string_view, std::function<void(EventFields&)>>> changes = {
      {"kind", [](EventFields& g) { g.kind = EventKind::driver_error; }},
      {"wall_kind", [](EventFields& g) { g.wall_kind = WallKind::kLocal; }},
      {"boot_seq", [](EventFields& g) { g.boot_seq = 2; }},
      {"code", [](EventFields& g) { g.code = 31; }},
      {"code none", [](EventFields& g) { g.code = INT64_MIN; }},
      {"flags", [](EventFields& g) { g.flags = 5; }},
      {"text", [](EventFields& g) { g.text = "NVRM: Xid (PCI:0000:01:00): 13, Graphics Exceptio"; }},
      {"ident", [](EventFields& g) { g.ident = "kernel2"; }},
      {"no ident", [](EventFields& g) { g.ident = {}; }},
      {"gpu", [](EventFields& g) { g.gpu = "0000:02:00.0"; }},
      {"no gpu", [](EventFields& g) { g.gpu = {}; }},
      {"process", [](EventFields& g) { g.process = "python"; }},
      {"no process", [](EventFields& g) { g.process = {}; }},
      {"boot_id", [](EventFields& g) { g.boot_id = "b1"; }},
      {"no boot_id", [](EventFields& g) { g.boot_id = {}; }},
  };
  for (const auto& [what, change] : changes) {
    EventFields g = same;
    change(g);
    EXPECT_EQ(runs.find(t, g, key), -1) << what;
  }
  // And the other way round: a row without the optional strings, an event with them.
  EventFields bare = f;
  bare.gpu = bare.process = bare.ident = bare.boot_id = {};
  bare.code = INT64_MIN;
  const RepeatRuns::Key bare_key = RepeatRuns::message_key(bare);
  push_event_row(t, bare, FormatId::syslog, 0, 1);
  runs.started(bare, 1, bare_key);
  EventFields bare_same = bare;
  bare_same.mono_ns += 1000;
  EXPECT_EQ(runs.find(t, bare_same, bare_key), 1);
  const std::vector<std::pair<std::string_view, std::function<void(EventFields&)>>> additions = {
      {"code", [](EventFields& g) { g.code = 0; }},         {"ident", [](EventFields& g) { g.ident = "k"; }},
      {"gpu", [](EventFields& g) { g.gpu = "0"; }},         {"process", [](EventFields& g) { g.process = "p"; }},
      {"boot_id", [](EventFields& g) { g.boot_id = "b"; }},
  };
  for (const auto& [what, change] : additions) {
    EventFields g = bare_same;
    change(g);
    EXPECT_EQ(runs.find(t, g, bare_key), -1) << what;
  }
}

// Many messages open at once, interleaved: each finds its own run, whatever the table of runs
// grew to in between (it starts small and doubles).
TEST(RepeatRuns, ManyMessagesAtOnceKeepTheirOwnRuns) {
  Table t = make_event_table();
  RepeatRuns runs;
  std::vector<std::string> texts;
  for (int m = 0; m < 700; ++m) texts.push_back("NVRM: GPU at PCI:0000:01:00: message " + std::to_string(m));
  for (int round = 0; round < 5; ++round)
    for (int m = 0; m < 700; ++m) {
      EventFields f;
      f.kind = EventKind::driver_error;
      f.wall_kind = WallKind::kLocalNoYear;
      f.wall_raw_ns = 7 * kNsPerSec;
      f.mono_ns = 100 * kNsPerSec + (round * 700 + m) * 1000;
      f.ident = "kernel";
      f.text = texts[static_cast<std::size_t>(m)];
      add_event(t, runs, f);
    }
  ASSERT_EQ(t.rows(), 700u);
  for (std::size_t r = 0; r < t.rows(); ++r) {
    EXPECT_EQ(t.column(event_col::text).get_string(r), texts[r]);
    EXPECT_EQ(event_repeat(t, r), 5u) << r;
  }
}

// An origin (MessageMemo's serial) vouches for the strings and for nothing else: an event of
// the run's origin joins without its strings being read back from the row, while its boot, kind,
// code, flags and stamps are still checked; an event of another origin, or of none, is compared
// string by string.
TEST(RepeatRuns, AnOriginVouchesForTheStringsOnly) {
  Table t = make_event_table();
  RepeatRuns runs;
  EventFields f;
  f.kind = EventKind::driver_error;
  f.wall_kind = WallKind::kLocalNoYear;
  f.wall_raw_ns = 7 * kNsPerSec;
  f.mono_ns = 100 * kNsPerSec;
  f.boot_seq = 1;
  f.ident = "kernel";
  f.text = "nvidia-modeset: ERROR: GPU:0: Failed to query display engine channel state: 0x0000c67d:4:0:0x0000000f";
  RepeatRuns::Key key = RepeatRuns::message_key(f);
  key.origin = 5;
  push_event_row(t, f, FormatId::syslog, 0, 1);
  runs.started(f, 0, key);
  EventFields later = f;
  later.mono_ns += 1000;
  // The text differs (forged: an origin is only given to equal strings), yet the origin vouches.
  EventFields forged = later;
  forged.text = "another text";
  EXPECT_EQ(runs.find(t, forged, key), 0) << "the origin vouches for the strings";
  RepeatRuns::Key other = key;
  other.origin = 6;
  EXPECT_EQ(runs.find(t, forged, other), -1) << "another origin: the strings are compared";
  EXPECT_EQ(runs.find(t, later, other), 0) << "another origin, the same strings";
  RepeatRuns::Key none = key;
  none.origin = 0;
  EXPECT_EQ(runs.find(t, forged, none), -1) << "no origin: the strings are compared";
  EventFields reboot = later;
  reboot.boot_seq = 2;
  EXPECT_EQ(runs.find(t, reboot, key), -1) << "the boot is checked whatever the origin";
  EventFields coded = later;
  coded.code = 3;
  EXPECT_EQ(runs.find(t, coded, key), -1) << "the code is checked whatever the origin";
  EventFields copy = later;
  copy.mono_ns = f.mono_ns;
  EXPECT_EQ(runs.find(t, copy, key), -1) << "the stamps are checked whatever the origin";
  // Joining moves the run's latest line: a copy of the joined line no longer joins.
  RepeatRuns::Run* run = runs.find_run(t, later, key);
  ASSERT_NE(run, nullptr);
  RepeatRuns::join(*run, later);
  EXPECT_EQ(runs.find(t, later, key), -1);
}

}  // namespace
}  // namespace gpucost

namespace gpucost {
namespace {

// A flood after a reboot, cut into many chunks (--chunk-size) and read on 3 threads, gives the
// report of one pass: a run that goes on across a chunk boundary continues from the line the
// chunk before saw last, whatever boot number the chunk gave it before the merge.
TEST(RepeatRuns, ChunkedFloodAfterARebootIsOnePass) {
  const fs::path dir = fs::path(::testing::TempDir()) / "repeat_runs_chunked";
  fs::remove_all(dir);
  fs::create_directories(dir);
  {
    std::ofstream kern(dir / "kern.log");
    kern << bsd_stamp(-200) << " lab kernel: [    0.000000] Linux version 6.8.0-49-generic (buildd@lcy02-amd64-103) #49-Ubuntu SMP\n";
    kern << bsd_stamp(-190) << " lab kernel: [   10.000000] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.120\n";
    kern << bsd_stamp(-100) << " lab kernel: [    0.000000] Linux version 6.8.0-49-generic (buildd@lcy02-amd64-103) #49-Ubuntu SMP\n";
    for (int ms = 0; ms < 300'000; ms += 70) {
      kern << bsd_stamp(ms / 1000) << " lab kernel: " << mono_stamp(ms)
           << " nvidia-modeset: ERROR: GPU:0: Failed to query display engine channel state: 0x0000c67d:4:0:0x0000000f\n";
      if (ms % 490 == 0)
        kern << bsd_stamp(ms / 1000) << " lab kernel: " << mono_stamp(ms + 1)
             << " [drm:nv_drm_atomic_commit [nvidia_drm]] *ERROR* [nvidia-drm] [GPU ID 0x00000100] Flip event timeout on head 0\n";
    }
  }
  const auto one = run_gpucost({"analyze", dir.string(), "--format", "json", "--no-timings", "--threads", "1"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  for (const char* chunk : {"20000", "65536"}) {
    const auto many = run_gpucost(
        {"analyze", dir.string(), "--format", "json", "--no-timings", "--threads", "3", "--chunk-size", chunk});
    ASSERT_EQ(many.exit_code, 0) << many.err;
    EXPECT_TRUE(one.out == many.out) << "--chunk-size " << chunk << " changed the report";
  }
  const auto t1 = run_gpucost({"timeline", dir.string(), "--threads", "1"});
  const auto t3 = run_gpucost({"timeline", dir.string(), "--threads", "3", "--chunk-size", "20000"});
  EXPECT_TRUE(t1.out == t3.out) << "chunks changed the timeline";
  EXPECT_LT(std::count(t1.out.begin(), t1.out.end(), '\n'), 1000);  // the flood was aggregated
}

}  // namespace
}  // namespace gpucost
