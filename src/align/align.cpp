// The align stage: the zone, what each file's stamps lack, the boots; then every row is placed,
// events are deduplicated, --since/--until applied, tables sorted, suspends found, and every
// assumption noted (docs/timeline.md).
#include "gpucost/align/align.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "align/internal.hpp"
#include "gpucost/parallel.hpp"

namespace gpucost {

using namespace align_detail;

AlignStage::AlignStage(AlignOptions options) : options_(std::move(options)) {
  if (!options_.tz.empty()) {
    Zone z;
    std::string err;
    if (!Zone::parse(options_.tz, z, err)) throw std::invalid_argument("--tz: " + err);
  }
}

namespace {

// The FileDiagnostics of every input file (ingest made one per file, in file order; hand-built
// inputs may lack them: they are added).
std::vector<FileDiagnostics*> file_diagnostics(const IngestResult& in, Diagnostics& diag) {
  auto find = [&](std::size_t f) -> FileDiagnostics* {
    if (f < diag.files.size() && diag.files[f].path == in.files[f].path) return &diag.files[f];
    for (auto& d : diag.files)
      if (d.path == in.files[f].path) return &d;
    return nullptr;
  };
  for (std::size_t f = 0; f < in.files.size(); ++f)
    if (!find(f)) {
      FileDiagnostics d;
      d.path = in.files[f].path;
      d.mtime_ns = in.files[f].mtime_ns;
      d.format = in.files[f].format;
      diag.files.push_back(std::move(d));
    }
  std::vector<FileDiagnostics*> out(in.files.size());
  for (std::size_t f = 0; f < in.files.size(); ++f) out[f] = find(f);
  return out;
}

// Problem::implausible_time in each file with dated stamps beyond its ceiling (wall_ceilings).
void note_future_stamps(const IngestResult& in, const std::vector<TimeNs>& ceilings, Diagnostics& diag) {
  const std::vector<FutureStamps> future = find_future_stamps(in, ceilings);
  if (std::none_of(future.begin(), future.end(), [](const FutureStamps& f) { return f.lines > 0; })) return;
  const auto fdiag = file_diagnostics(in, diag);
  for (std::size_t f = 0; f < future.size(); ++f) {
    const FutureStamps& s = future[f];
    if (s.lines == 0 || !fdiag[f]) continue;
    Diagnostics::record(*fdiag[f], Problem::implausible_time, s.first_line, 0, {},
                        fmt::format("wall stamp {}{} is more than a day after the file's modification time or the "
                                    "collection's end ({}): a clock set ahead or a forged entry; not used for time "
                                    "or boot anchors",
                                    format_rfc3339(s.first_raw, 6), s.first_kind == WallKind::kLocal ? " (local)" : "",
                                    format_rfc3339(ceilings[f] - kFutureSlackNs, 0)));
    fdiag[f]->problems[static_cast<std::size_t>(Problem::implausible_time)] += s.lines - 1;
  }
}

// Timeline::boots in boot-time order (unnamed boots are `boot-N` by that order), with a run note each.
void describe_boots(const BootTable& boots, Timeline& out, Diagnostics& diag) {
  std::vector<std::size_t> order(boots.boots.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return boots.boots[a].boot_wall() < boots.boots[b].boot_wall(); });
  for (std::size_t i = 0; i < order.size(); ++i) {
    const Boot& b = boots.boots[order[i]];
    BootSegment s;
    s.boot_id = b.id.empty() ? fmt::format("boot-{}", i + 1) : b.id;
    s.boot_wall_ns = b.boot_wall();
    s.anchors = b.anchors_used();
    s.epochs = std::max<std::size_t>(1, b.epochs.size());
    const std::string how =
        b.source == BootSource::kAnchors ? fmt::format("{} anchors, {} epoch(s)", s.anchors, s.epochs) : b.source_note;
    diag.notes.push_back(fmt::format("boot {} at {}: {}", s.boot_id, format_rfc3339(s.boot_wall_ns, 3), how));
    out.boots.push_back(std::move(s));
  }
}

// `3.5 s`, `2 h 5 min`: how far time stepped back.
std::string describe_step(TimeNs d) {
  if (d < kNsPerMin) return fmt::format("{:.3g} s", static_cast<double>(d) / kNsPerSec);
  if (d < kNsPerDay) return fmt::format("{} h {} min", d / kNsPerHour, d % kNsPerHour / kNsPerMin);
  return fmt::format("{} days", d / kNsPerDay);
}

// The first and last placed instants of a table's rows.
struct Span {
  TimeNs first = kNoTime, last = kNoTime;
  void add(TimeNs v) noexcept {
    if (first == kNoTime || v < first) first = v;
    if (last == kNoTime || v > last) last = v;
  }
  void add(const Span& s) noexcept {
    if (s.first != kNoTime) add(s.first);
    if (s.last != kNoTime) add(s.last);
  }
};

// The span of a table's placed rows. With wall_kind_col or flags_col, rows placed at their
// file's modification time (no stamp of their own: a ps snapshot without marker, a pasted line)
// are left out: they are approximate and never widen the measured span (issue 14).
Span span_of(const Table& t, std::size_t wall_kind_col = SIZE_MAX, std::size_t flags_col = SIZE_MAX) {
  Span s;
  const Column& ts = t.ts();
  auto at_mtime = [&](std::size_t r) {
    if (flags_col != SIZE_MAX) {
      const Column& f = t.column(flags_col);
      if (!f.is_valid(r)) return false;
      const auto fl = f.get_int(r);
      return (fl & kFlagApproxTime) && !(fl & (kFlagFromMonotonic | kFlagFromWall));
    }
    if (wall_kind_col == SIZE_MAX) return false;
    const Column& wk = t.column(wall_kind_col);
    return !wk.is_valid(r) || static_cast<WallKind>(wk.get_int(r)) == WallKind::kNone;
  };
  for (std::size_t r = 0; r < t.rows(); ++r)
    if (ts.is_valid(r) && !at_mtime(r)) s.add(ts.get_int(r));
  return s;
}

// Per file: its span and how its rows were placed (zone, dating, anchors, ties, counts).
void write_file_notes(const IngestResult& in, const Timeline& out, const std::vector<FileStamps>& stamps,
                      const std::vector<FileDating>& dating, const BootTable& boots, const std::vector<FileTally>& tally,
                      Diagnostics& diag) {
  const std::size_t nfiles = in.files.size();
  const auto fdiag = file_diagnostics(in, diag);
  std::vector<std::vector<std::size_t>> anchors_in(nfiles);  // per file: anchors used per boot
  for (std::size_t b = 0; b < boots.boots.size(); ++b)
    for (const auto& a : boots.boots[b].anchors)
      if (!a.outlier && a.file < nfiles) {
        auto& v = anchors_in[a.file];
        if (v.size() <= b) v.resize(b + 1, 0);
        ++v[b];
      }
  for (std::size_t f = 0; f < nfiles; ++f) {
    FileDiagnostics& d = *fdiag[f];
    const FileTally& t = tally[f];
    d.first_ts = t.first;
    d.last_ts = t.last;
    const auto& st = stamps[f];
    if (st.of(WallKind::kLocal).rows || st.of(WallKind::kLocalNoYear).rows || st.of(WallKind::kLocalNoDate).rows)
      d.notes.push_back(fmt::format("local stamps read in zone {} ({})", out.zone_name, out.zone_reason));
    for (const auto& n : dating[f].notes) d.notes.push_back(n);
    for (std::size_t b = 0; b < anchors_in[f].size(); ++b)
      if (anchors_in[f][b]) {
        const Boot& boot = boots.boots[b];
        d.notes.push_back(fmt::format("{} anchor(s) (wall - monotonic) used for boot {} (boot time {}, {} epoch(s))",
                                      anchors_in[f][b], boot.id.empty() ? "without id" : boot.id,
                                      format_rfc3339(boot.boot_wall(), 3), boot.epochs.size()));
      }
    if (f < boots.file_notes.size())
      for (const auto& n : boots.file_notes[f]) d.notes.push_back(n);
    std::string placed;
    auto part = [&](std::uint64_t n, std::string_view what) {
      if (n) placed += fmt::format("{}{} {}", placed.empty() ? "" : ", ", n, what);
    };
    part(t.mono, "from monotonic time and anchors");
    part(t.mono_guess, "from monotonic time on an approximate boot time");
    part(t.wall, "from wall-clock stamps");
    part(t.mtime, "at the file's modification time (approximate)");
    part(t.unplaced, "not placed (time unknown)");
    part(t.dropped, "sample rows dropped (time unknown)");
    part(t.repeated, "process rows left out (a snapshot with the same stamp and rows was read before)");
    if (!placed.empty()) d.notes.push_back("rows placed: " + placed);
    for (const auto& s : t.first_steps)
      Diagnostics::record(d, Problem::time_backwards, s.line, 0, {},
                          fmt::format("{} is {} before line {}'s {}; kept in time order", format_rfc3339(s.ts, 3),
                                      describe_step(s.prev - s.ts), s.prev_line, format_rfc3339(s.prev, 3)));
    if (t.backwards > t.first_steps.size())
      d.problems[static_cast<std::size_t>(Problem::time_backwards)] += t.backwards - t.first_steps.size();
  }
}

// Host power samples in UTC inside the window, sorted by (ts, file, line); returns how many
// could not be placed and how many the window cut.
std::pair<std::uint64_t, std::uint64_t> place_host_power(const IngestResult& in, WallClock& clock, Window window,
                                                         std::vector<HostPowerSample>& out) {
  std::uint64_t unplaced = 0, cut = 0;
  out.reserve(in.host_power.size());
  for (const HostPowerSample& h : in.host_power) {
    const TimeNs t = clock.to_utc(h.wall_kind, h.wall_raw_ns, h.file);
    if (t == kNoTime) {
      ++unplaced;
      continue;
    }
    if (!window.contains(t)) {
      ++cut;
      continue;
    }
    out.push_back(h);
    out.back().ts_ns = t;
  }
  std::stable_sort(out.begin(), out.end(), [](const HostPowerSample& a, const HostPowerSample& b) {
    return std::tie(a.ts_ns, a.file, a.line) < std::tie(b.ts_ns, b.file, b.line);
  });
  return {unplaced, cut};
}

}  // namespace

void AlignStage::run(const IngestResult& in, Timeline& out, Diagnostics& diag) const { run_impl(in, nullptr, out, diag); }

void AlignStage::run_consuming(IngestResult& in, Timeline& out, Diagnostics& diag) const { run_impl(in, &in, out, diag); }

void AlignStage::run_impl(const IngestResult& in, IngestResult* take, Timeline& out, Diagnostics& diag) const {
  // `take` is `in` itself when its tables may be moved: each is read for the last time where it
  // is taken.
  auto table = [&](Table& dst, Table IngestResult::*t) {
    if (take) dst = std::move(take->*t);
    else dst = in.*t;
  };
  out = Timeline();
  out.files = in.files;
  out.devices = in.devices;
  out.profiles = in.profiles;
  out.manifest = in.manifest;
  out.window_begin = options_.since;
  out.window_end = options_.until;
  const Window window{options_.since, options_.until};

  // The zone, then what each file's stamps lack, then the boots.
  // Dated stamps beyond what the files' mtimes and the collection allow are left out first.
  const std::vector<TimeNs> ceilings = wall_ceilings(in);
  note_future_stamps(in, ceilings, diag);
  const std::vector<FileStamps> stamps = collect_file_stamps(in, ceilings, options_.threads);
  const ZoneChoice zone = choose_zone(in, options_, stamps);
  out.zone_name = zone.zone.name();
  out.zone_reason = zone.reason;
  std::vector<FileDating> dating;
  out.year_reason = infer_dating(in, options_, zone.zone, stamps, dating);
  WallClock clock(zone.zone, dating, in.files, ceilings);

  // Process rows need the clock only (no boots, no events): they are placed on a thread of their
  // own from here on, beside the boots, the events and the samples (millions of ps rows take as
  // long as all of those), with their own clock (its zone lookup caches) and tally, added to the
  // others' at the end: the same tallies as one after the other.
  table(out.processes, &IngestResult::processes);
  std::vector<FileTally> process_tally(in.files.size());
  WallClock process_clock = clock;
  std::uint64_t processes_cut = 0;
  Span process_span;
  auto place_process_rows = [&] {
    processes_cut = place_processes(in, process_clock, window, out.processes, process_tally);
    process_span = span_of(out.processes, process_col::wall_kind);
  };
  Beside process_placing(options_.threads,
                         out.processes.rows() >= 100'000 && (in.samples.rows() > 0 || in.events.rows() > 0),
                         place_process_rows);

  BootTable boots;
  build_anchored_boots(in, clock, boots);
  tie_unanchored_groups(in, clock, boots);
  finish_epochs(in, boots);

  // Every row placed; one event per message.
  std::vector<FileTally> tally(in.files.size());
  table(out.events, &IngestResult::events);
  auto placed = place_events(in, boots, clock, dating, out.events, tally);
  // What is held per event row is let go as soon as it is read for the last time: with a flood
  // of repeated events it is most of the memory.
  std::vector<std::int32_t>().swap(boots.event_boot);
  std::vector<TieQuality>().swap(boots.event_tie);
  std::vector<TimeNs> boot_walls;
  for (const Boot& b : boots.boots) boot_walls.push_back(b.boot_wall());
  auto clusters = dedup_events(out.events, placed, boot_walls, options_.dedup_window_ns);
  const std::uint64_t forged =
      drop_uncorroborated_kernel_messages(out.events, in.files, placed, clusters, file_diagnostics(in, diag));
  const std::uint64_t merged = merge_repeat_counts(out.events, clusters);
  std::uint64_t events_cut = 0;
  {
    std::vector<std::uint32_t> order;
    events_cut = keep_events(clusters, placed, window, out.events, order, out.origin_begin, out.origins, out.log_ends);
    std::vector<PlacedEvent>().swap(placed);
    clusters = EventClusters();
    out.events.permute(order);
  }
  table(out.samples, &IngestResult::samples);
  const std::uint64_t samples_cut = place_samples(in, clock, window, out.samples, tally);
  const auto [host_power_unplaced, host_power_cut] = place_host_power(in, clock, window, out.host_power);
  cap_gpus_per_directory(out.samples, out.devices, diag);
  drop_overlapping_sample_sources(in, out.samples, diag);
  Span span = span_of(out.samples);
  span.add(span_of(out.events, SIZE_MAX, event_col::flags));
  process_placing.finish();
  for (std::size_t f = 0; f < tally.size(); ++f) tally[f].add(process_tally[f]);

  out.suspends = find_suspends(out.events);
  diag.notes.push_back(fmt::format("zone {}: {}", out.zone_name, out.zone_reason));
  if (out.year_reason != "no stamps without a year") diag.notes.push_back("year of stamps without one: " + out.year_reason);
  describe_boots(boots, out, diag);
  span.add(process_span);
  if (span.first == kNoTime) span = span_of(out.processes);  // nothing else: the approximate span
  out.first_ns = span.first;
  out.last_ns = span.last;
  if (forged)
    diag.notes.push_back(
        fmt::format("{} kernel messages found only in logs that any user can write to (no kernel "
                    "source of the directory has them) were left out",
                    forged));
  if (host_power_unplaced)
    diag.notes.push_back(
        fmt::format("{} host power samples could not be placed in time and were left out", host_power_unplaced));
  if (host_power_cut) diag.notes.push_back(fmt::format("--since/--until cut {} host power samples", host_power_cut));
  if (merged) diag.notes.push_back(fmt::format("{} copies of events read from several sources were merged", merged));
  if (!window.open())
    diag.notes.push_back(fmt::format("--since/--until cut {} sample rows, {} events and {} process rows", samples_cut,
                                     events_cut, processes_cut));
  write_file_notes(in, out, stamps, dating, boots, tally, diag);
}

}  // namespace gpucost
