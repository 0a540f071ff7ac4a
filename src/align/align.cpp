// The align stage: zone, dating, boots; then every row of the three tables is placed, events are
// deduplicated, --since/--until applied, tables sorted, suspends found, assumptions noted.
#include "gpucost/align/align.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "align/internal.hpp"

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

// What happened to the rows of one file.
struct FileTally {
  std::uint64_t mono = 0, mono_guess = 0, wall = 0, mtime = 0, unplaced = 0, dropped = 0;
  TimeNs first = kNoTime, last = kNoTime;
  void saw(TimeNs t) {
    if (t == kNoTime) return;
    if (first == kNoTime || t < first) first = t;
    if (last == kNoTime || t > last) last = t;
  }
};

bool in_window(TimeNs t, TimeNs since, TimeNs until) {
  if (since == kNoTime && until == kNoTime) return true;
  if (t == kNoTime) return false;  // cannot be shown to lie inside
  return (since == kNoTime || t >= since) && (until == kNoTime || t < until);
}

TimeNs mtime_of(const IngestResult& in, std::int64_t file) {
  return file >= 0 && static_cast<std::size_t>(file) < in.files.size() ? in.files[static_cast<std::size_t>(file)].mtime_ns
                                                                        : kNoTime;
}

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

// Sorts the rows kept by `keep` with `less` and applies the order to the table.
template <typename Less>
void keep_sorted(Table& t, std::vector<std::uint32_t> rows, Less less) {
  std::stable_sort(rows.begin(), rows.end(), less);
  t.permute(rows);
}

}  // namespace

void AlignStage::run(const IngestResult& in, Timeline& out, Diagnostics& diag) const {
  out = Timeline();
  out.files = in.files;
  out.devices = in.devices;
  out.profiles = in.profiles;
  out.manifest = in.manifest;
  out.window_begin = options_.since;
  out.window_end = options_.until;
  const std::size_t nfiles = in.files.size();
  std::vector<FileTally> tally(nfiles);
  auto tally_of = [&](std::int64_t f) -> FileTally* {
    return f >= 0 && static_cast<std::size_t>(f) < nfiles ? &tally[static_cast<std::size_t>(f)] : nullptr;
  };

  // Zone, then what each file's stamps lack, then boots.
  const std::vector<FileStamps> stamps = collect_file_stamps(in);
  const ZoneChoice zone = choose_zone(in, options_, stamps);
  out.zone_name = zone.zone.name();
  out.zone_reason = zone.reason;
  std::vector<FileDating> dating;
  out.year_reason = infer_dating(in, options_, zone.zone, stamps, dating);
  WallClock clock(zone.zone, dating, in.files);
  BootTable boots;
  build_anchored_boots(in, clock, boots);
  tie_unanchored_groups(in, clock, boots);
  finish_epochs(in, boots);

  // ---- events ----
  out.events = in.events;
  Table& ev = out.events;
  std::vector<PlacedEvent> placed(ev.rows());
  {
    Column& ts = ev.ts();
    Column& flags = ev.column(event_col::flags);
    const Column& kinds = ev.column(event_col::wall_kind);
    const Column& raws = ev.column(event_col::wall_raw_ns);
    const Column& monos = ev.column(event_col::mono_ns);
    const Column& files = ev.column(event_col::file);
    for (std::size_t r = 0; r < ev.rows(); ++r) {
      PlacedEvent& p = placed[r];
      std::int64_t fl = flags.is_valid(r) ? flags.get_int(r) : 0;
      const std::int64_t file = files.get_int(r);
      FileTally* t = tally_of(file);
      const std::int32_t b = boots.event_boot[r];
      const auto wk = static_cast<WallKind>(kinds.get_int(r));
      if (monos.is_valid(r) && b >= 0) {
        const Boot& boot = boots.boots[static_cast<std::size_t>(b)];
        const TieQuality q = boots.event_tie[r];
        p.ts = boot.map(monos.get_int(r));
        p.boot = b;
        p.ctime = boot.boot_wall() + monos.get_int(r);
        const bool exact = q == TieQuality::kExact && boot.source == BootSource::kAnchors;
        p.placement = exact ? Placement::kMonotonic : Placement::kApproximate;
        fl |= kFlagFromMonotonic;
        const bool guessed = q == TieQuality::kApproximate || boot.source == BootSource::kMtime;
        if (guessed) fl |= kFlagApproxTime;
        if (t) ++(exact ? t->mono : t->mono_guess);
      } else if (const TimeNs w = raws.is_valid(r) ? clock.to_utc(wk, raws.get_int(r), static_cast<std::uint32_t>(file)) : kNoTime;
                 w != kNoTime) {
        p.ts = w;
        p.placement = WallClock::placement_of(wk, (fl & kFlagUnreliableWall) != 0);
        fl |= kFlagFromWall;
        if (wk == WallKind::kRelative && dating[static_cast<std::size_t>(file)].relative_approximate) fl |= kFlagApproxTime;
        if (t) ++t->wall;
      } else if (!monos.is_valid(r) && mtime_of(in, file) != kNoTime) {
        // No time at all (a pasted line without stamp): the file's modification time.
        p.ts = mtime_of(in, file);
        p.placement = Placement::kApproximate;
        fl |= kFlagApproxTime;
        if (t) ++t->mtime;
      } else if (t) {
        ++t->unplaced;
      }
      if (p.ts == kNoTime) ts.set_null(r);
      else ts.set_int(r, p.ts);
      flags.set_int(r, fl);
      if (t) t->saw(p.ts);
    }
  }
  const auto clusters = dedup_events(ev, placed, options_.dedup_window_ns);
  std::uint64_t merged = 0, events_cut = 0;
  {
    std::vector<std::uint32_t> keep;  // indices into clusters
    for (std::size_t c = 0; c < clusters.size(); ++c) {
      merged += clusters[c].size() - 1;
      if (in_window(placed[clusters[c].front()].ts, options_.since, options_.until)) keep.push_back(static_cast<std::uint32_t>(c));
      else ++events_cut;
    }
    const Column& file = ev.column(event_col::file);
    const Column& line = ev.column(event_col::line);
    std::stable_sort(keep.begin(), keep.end(), [&](std::uint32_t x, std::uint32_t y) {
      const std::uint32_t a = clusters[x].front(), b = clusters[y].front();
      const TimeNs ta = placed[a].ts, tb = placed[b].ts;
      if ((ta == kNoTime) != (tb == kNoTime)) return tb == kNoTime;
      if (ta != tb) return ta < tb;
      if (file.get_int(a) != file.get_int(b)) return file.get_int(a) < file.get_int(b);
      return line.get_int(a) < line.get_int(b);
    });
    std::vector<std::uint32_t> rows;
    rows.reserve(keep.size());
    out.origin_begin.reserve(keep.size() + 1);
    for (auto c : keep) {
      rows.push_back(clusters[c].front());
      out.origin_begin.push_back(static_cast<std::uint32_t>(out.origins.size()));
      for (auto r : clusters[c])
        out.origins.push_back({static_cast<std::uint32_t>(file.get_int(r)), static_cast<std::uint64_t>(line.get_int(r))});
    }
    out.origin_begin.push_back(static_cast<std::uint32_t>(out.origins.size()));
    ev.permute(rows);
  }

  // ---- samples ----
  out.samples = in.samples;
  Table& sa = out.samples;
  std::uint64_t samples_cut = 0;
  {
    const TimeNs default_interval = kNsPerSec;  // parsers set the interval; 1 s is nvidia-smi's default
    Column& ts = sa.ts();
    Column& interval = sa.column(sample_col::interval_ns);
    const Column& kinds = sa.column(sample_col::wall_kind);
    const Column& raws = sa.column(sample_col::wall_raw_ns);
    const Column& files = sa.column(sample_col::file);
    std::vector<std::uint32_t> keep;
    keep.reserve(sa.rows());
    for (std::size_t r = 0; r < sa.rows(); ++r) {
      const std::int64_t file = files.get_int(r);
      FileTally* t = tally_of(file);
      const auto wk = static_cast<WallKind>(kinds.get_int(r));
      TimeNs w = raws.is_valid(r) ? clock.to_utc(wk, raws.get_int(r), static_cast<std::uint32_t>(file)) : kNoTime;
      if (w != kNoTime) {
        if (t) ++t->wall;
      } else if (wk == WallKind::kNone && (w = mtime_of(in, file)) != kNoTime) {
        if (t) ++t->mtime;
      }
      if (!interval.is_valid(r)) interval.set_int(r, default_interval);
      if (w == kNoTime) {
        ts.set_null(r);
        if (t) ++t->dropped;
        continue;
      }
      ts.set_int(r, w);
      if (t) t->saw(w);
      if (in_window(w, options_.since, options_.until)) keep.push_back(static_cast<std::uint32_t>(r));
      else ++samples_cut;
    }
    const auto tsv = ts.ints();
    const Column& gpu = sa.column(sample_col::gpu);
    const auto linev = sa.column(sample_col::line).ints();
    const auto filev = files.ints();
    keep_sorted(sa, std::move(keep), [&](std::uint32_t a, std::uint32_t b) {
      if (tsv[a] != tsv[b]) return tsv[a] < tsv[b];
      const std::int64_t ga = gpu.is_valid(a) ? gpu.get_int(a) : -1, gb = gpu.is_valid(b) ? gpu.get_int(b) : -1;
      if (ga != gb) return ga < gb;
      if (filev[a] != filev[b]) return filev[a] < filev[b];
      return linev[a] < linev[b];
    });
  }

  // ---- processes ----
  out.processes = in.processes;
  Table& pr = out.processes;
  std::uint64_t processes_cut = 0;
  {
    Column& ts = pr.ts();
    const Column& kinds = pr.column(process_col::wall_kind);
    const Column& raws = pr.column(process_col::wall_raw_ns);
    const Column& files = pr.column(process_col::file);
    std::vector<std::uint32_t> keep;
    for (std::size_t r = 0; r < pr.rows(); ++r) {
      const std::int64_t file = files.get_int(r);
      FileTally* t = tally_of(file);
      const auto wk = static_cast<WallKind>(kinds.get_int(r));
      TimeNs w = raws.is_valid(r) ? clock.to_utc(wk, raws.get_int(r), static_cast<std::uint32_t>(file)) : kNoTime;
      if (w != kNoTime) {
        if (t) ++t->wall;
      } else if (wk == WallKind::kNone && (w = mtime_of(in, file)) != kNoTime) {
        if (t) ++t->mtime;  // a ps snapshot without marker: taken when the file was written
      } else if (t) {
        ++t->unplaced;
      }
      if (w == kNoTime) ts.set_null(r);
      else ts.set_int(r, w);
      if (t) t->saw(w);
      if (in_window(w, options_.since, options_.until)) keep.push_back(static_cast<std::uint32_t>(r));
      else ++processes_cut;
    }
    const Column& snap = pr.column(process_col::snapshot);
    const Column& pid = pr.column(process_col::pid);
    keep_sorted(pr, std::move(keep), [&](std::uint32_t a, std::uint32_t b) {
      const bool va = ts.is_valid(a), vb = ts.is_valid(b);
      if (va != vb) return va;
      if (va && ts.get_int(a) != ts.get_int(b)) return ts.get_int(a) < ts.get_int(b);
      const std::int64_t sa_ = snap.is_valid(a) ? snap.get_int(a) : -1, sb = snap.is_valid(b) ? snap.get_int(b) : -1;
      if (sa_ != sb) return sa_ < sb;
      return (pid.is_valid(a) ? pid.get_int(a) : -1) < (pid.is_valid(b) ? pid.get_int(b) : -1);
    });
  }

  // ---- suspends, boots, extent ----
  out.suspends = find_suspends(ev);
  {
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
      std::string how = b.source == BootSource::kAnchors
                            ? fmt::format("{} anchors, {} epoch(s)", s.anchors, s.epochs)
                            : b.source_note;
      diag.notes.push_back(fmt::format("boot {} at {}: {}", s.boot_id, format_rfc3339(s.boot_wall_ns, 3), how));
      out.boots.push_back(std::move(s));
    }
  }
  auto extend = [&](const Table& t) {
    for (std::size_t r = 0; r < t.rows(); ++r) {
      if (!t.ts().is_valid(r)) continue;
      const TimeNs v = t.ts().get_int(r);
      if (out.first_ns == kNoTime || v < out.first_ns) out.first_ns = v;
      if (out.last_ns == kNoTime || v > out.last_ns) out.last_ns = v;
    }
  };
  extend(sa);
  extend(ev);
  extend(pr);

  // ---- notes ----
  diag.notes.insert(diag.notes.begin(), fmt::format("zone {}: {}", out.zone_name, out.zone_reason));
  if (out.year_reason != "no stamps without a year") diag.notes.push_back("year of stamps without one: " + out.year_reason);
  if (merged) diag.notes.push_back(fmt::format("{} copies of events read from several sources were merged", merged));
  if (options_.since != kNoTime || options_.until != kNoTime)
    diag.notes.push_back(fmt::format("--since/--until cut {} sample rows, {} events and {} process rows", samples_cut,
                                     events_cut, processes_cut));
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
    std::string placed_note;
    auto part = [&](std::uint64_t n, std::string_view what) {
      if (n) placed_note += fmt::format("{}{} {}", placed_note.empty() ? "" : ", ", n, what);
    };
    part(t.mono, "from monotonic time and anchors");
    part(t.mono_guess, "from monotonic time on an approximate boot time");
    part(t.wall, "from wall-clock stamps");
    part(t.mtime, "at the file's modification time (approximate)");
    part(t.unplaced, "not placed (time unknown)");
    part(t.dropped, "sample rows dropped (time unknown)");
    if (!placed_note.empty()) d.notes.push_back("rows placed: " + placed_note);
  }
}

}  // namespace gpucost
