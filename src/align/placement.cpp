// Every row gets its UTC time: events from monotonic time and their boot when they have both,
// else from their wall stamp, else (no stamp at all) the file's modification time; samples and
// process rows from their wall stamp. Then --since/--until, and the tables' order.
#include <algorithm>
#include <numeric>

#include "align/internal.hpp"

namespace gpucost::align_detail {

namespace {

TimeNs mtime_of(const IngestResult& in, std::int64_t file) {
  return file >= 0 && static_cast<std::size_t>(file) < in.files.size() ? in.files[static_cast<std::size_t>(file)].mtime_ns
                                                                        : kNoTime;
}

FileTally* tally_of(std::vector<FileTally>& tally, std::int64_t f) {
  return f >= 0 && static_cast<std::size_t>(f) < tally.size() ? &tally[static_cast<std::size_t>(f)] : nullptr;
}

// UTC of a sample or process row: its wall stamp, else (none at all: a ps snapshot without
// marker) the file's modification time.
TimeNs place_wall_row(const IngestResult& in, WallClock& clock, WallKind wk, bool raw_valid, TimeNs raw,
                      std::int64_t file, FileTally* t) {
  TimeNs w = raw_valid ? clock.to_utc(wk, raw, static_cast<std::uint32_t>(file)) : kNoTime;
  if (w != kNoTime) {
    if (t) ++t->wall;
  } else if (wk == WallKind::kNone && (w = mtime_of(in, file)) != kNoTime) {
    if (t) ++t->mtime;
  }
  if (t) t->saw(w);
  return w;
}

// The rows a placement keeps (inside --since/--until), in table order. While every row so far
// is kept they are only counted: no index list for millions of rows in the common case.
class KeptRows {
 public:
  void keep(std::uint32_t r) {
    if (listed_) rows_.push_back(r);
    else ++count_;
  }
  void skip() {
    if (listed_) return;
    list_all();
  }
  // Sorts the kept rows (a stable sort) and keeps them in that order. Rows mostly arrive in
  // order already (logs are written in time order): then nothing is sorted or moved.
  template <class Less>
  void apply(Table& t, Less less) {
    if (!listed_) {  // every row is kept: 0..rows-1
      bool sorted = true;
      for (std::uint32_t r = 1; r < count_ && sorted; ++r) sorted = !less(r, r - 1);
      if (sorted) return;
      list_all();
    } else if (std::is_sorted(rows_.begin(), rows_.end(), less)) {
      if (rows_.size() != t.rows()) t.permute(rows_);
      return;
    }
    std::stable_sort(rows_.begin(), rows_.end(), less);
    t.permute(rows_);
  }

 private:
  void list_all() {
    rows_.resize(count_);
    std::iota(rows_.begin(), rows_.end(), 0u);
    listed_ = true;
  }
  std::vector<std::uint32_t> rows_;
  std::uint32_t count_ = 0;
  bool listed_ = false;
};

}  // namespace

std::vector<PlacedEvent> place_events(const IngestResult& in, const BootTable& boots, WallClock& clock,
                                      const std::vector<FileDating>& dating, Table& ev, std::vector<FileTally>& tally) {
  std::vector<PlacedEvent> placed(ev.rows());
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
    // A file's last-line mark is not a line of its own: the file's tallies do not count it.
    const bool mark = static_cast<EventKind>(ev.column(event_col::kind).get_int(r)) == EventKind::log_end;
    FileTally* t = mark ? nullptr : tally_of(tally, file);
    const std::int32_t b = boots.event_boot[r];
    const auto wk = static_cast<WallKind>(kinds.get_int(r));
    if (monos.is_valid(r) && b >= 0) {
      // Monotonic time and its boot's epochs, also when the line has a (coarser) wall stamp.
      const Boot& boot = boots.boots[static_cast<std::size_t>(b)];
      const TieQuality q = boots.event_tie[r];
      p.ts = boot.map(monos.get_int(r));
      p.boot = b;
      const bool exact = q == TieQuality::kExact && boot.source == BootSource::kAnchors;
      p.placement = exact ? Placement::kMonotonic : Placement::kApproximate;
      fl |= kFlagFromMonotonic;
      if (q == TieQuality::kApproximate || boot.source == BootSource::kMtime) fl |= kFlagApproxTime;
      if (t) ++(exact ? t->mono : t->mono_guess);
    } else if (const TimeNs w = raws.is_valid(r) ? clock.to_utc(wk, raws.get_int(r), static_cast<std::uint32_t>(file))
                                                 : kNoTime;
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
  return placed;
}

std::uint64_t keep_events(const EventClusters& clusters, const std::vector<PlacedEvent>& placed,
                          Window window, const Table& ev, std::vector<std::uint32_t>& rows,
                          std::vector<std::uint32_t>& origin_begin, std::vector<EventOrigin>& origins,
                          std::vector<TimeNs>& log_ends) {
  std::uint64_t cut = 0;
  std::vector<std::uint32_t> keep;  // indices into clusters
  const Column& kind = ev.column(event_col::kind);
  const Column& flags = ev.column(event_col::flags);
  const Column& repeat = ev.column(event_col::repeat);
  log_ends.clear();
  for (std::size_t c = 0; c < clusters.size(); ++c) {
    const std::uint32_t r = clusters.front(c);
    const TimeNs ts = placed[r].ts;
    if (static_cast<EventKind>(kind.get_int(r)) == EventKind::log_end) {
      const std::int64_t fl = flags.is_valid(r) ? flags.get_int(r) : 0;
      if (ts != kNoTime && window.contains(ts) && (fl & (kFlagFromMonotonic | kFlagFromWall))) log_ends.push_back(ts);
      continue;
    }
    if (window.contains(ts)) keep.push_back(static_cast<std::uint32_t>(c));
    else cut += static_cast<std::uint64_t>(repeat.is_valid(r) ? repeat.get_int(r) : 1);
  }
  std::sort(log_ends.begin(), log_ends.end());
  const Column& file = ev.column(event_col::file);
  const Column& line = ev.column(event_col::line);
  {
    // Sorted by (ts with null last, file, line), ties in cluster order (what a stable sort
    // gives): the times are read once into the keys, file and line only when times tie.
    struct Key {
      TimeNs ts;
      std::uint32_t cluster;
    };
    const ColumnReader files(file), lines(line);
    std::vector<Key> keys;
    keys.reserve(keep.size());
    for (const auto c : keep) {
      const TimeNs ts = placed[clusters.front(c)].ts;
      keys.push_back({ts == kNoTime ? INT64_MAX : ts, c});  // null last (no time is that late)
    }
    auto before = [&](const Key& x, const Key& y) {
      if (x.ts != y.ts) return x.ts < y.ts;
      const std::uint32_t a = clusters.front(x.cluster), b = clusters.front(y.cluster);
      if (files.get_int(a) != files.get_int(b)) return files.get_int(a) < files.get_int(b);
      if (lines.get_int(a) != lines.get_int(b)) return lines.get_int(a) < lines.get_int(b);
      return x.cluster < y.cluster;
    };
    if (!std::is_sorted(keys.begin(), keys.end(), before)) std::sort(keys.begin(), keys.end(), before);
    for (std::size_t i = 0; i < keys.size(); ++i) keep[i] = keys[i].cluster;
  }
  rows.clear();
  rows.reserve(keep.size());
  origin_begin.clear();
  origins.clear();
  origin_begin.reserve(keep.size() + 1);
  origins.reserve(clusters.rows.size());
  for (auto c : keep) {
    rows.push_back(clusters.front(c));
    origin_begin.push_back(static_cast<std::uint32_t>(origins.size()));
    for (auto r : clusters[c])
      origins.push_back({static_cast<std::uint32_t>(file.get_int(r)), static_cast<std::uint64_t>(line.get_int(r))});
  }
  origin_begin.push_back(static_cast<std::uint32_t>(origins.size()));
  return cut;
}

std::uint64_t place_samples(const IngestResult& in, WallClock& clock, Window window, Table& sa,
                            std::vector<FileTally>& tally) {
  constexpr TimeNs kDefaultInterval = kNsPerSec;  // parsers set the interval; 1 s is nvidia-smi's default
  std::uint64_t cut = 0;
  Column& ts = sa.ts();
  Column& interval = sa.column(sample_col::interval_ns);
  const Column& kinds = sa.column(sample_col::wall_kind);
  const Column& raws = sa.column(sample_col::wall_raw_ns);
  const Column& files = sa.column(sample_col::file);
  const Column& lines = sa.column(sample_col::line);
  for (auto& t : tally) t.series_prev = kNoTime;
  // ts_ns is built afresh in row order (every row is set): the packed encoding then widens
  // while the column is short, instead of re-encoding millions of null slots.
  Column placed(ts.name(), ts.type(), ts.unit());
  KeptRows keep;
  for (std::size_t r = 0; r < sa.rows(); ++r) {
    const std::int64_t file = files.get_int(r);
    FileTally* t = tally_of(tally, file);
    const TimeNs w = place_wall_row(in, clock, static_cast<WallKind>(kinds.get_int(r)), raws.is_valid(r),
                                    raws.get_int(r), file, t);
    if (t) t->series(w, static_cast<std::uint64_t>(lines.get_int(r)));
    if (!interval.is_valid(r)) interval.set_int(r, kDefaultInterval);
    if (w == kNoTime) {  // features sum over samples: a row with no time is dropped, and counted
      placed.push_null();
      if (t) ++t->dropped;
      keep.skip();
      continue;
    }
    placed.push_int(w);
    if (window.contains(w)) {
      keep.keep(static_cast<std::uint32_t>(r));
    } else {
      ++cut;
      keep.skip();
    }
  }
  ts = std::move(placed);
  const Column& gpu = sa.column(sample_col::gpu);
  const Column& line = sa.column(sample_col::line);
  keep.apply(sa, [&](std::uint32_t a, std::uint32_t b) {
    const TimeNs ta = ts.get_int(a), tb = ts.get_int(b);
    if (ta != tb) return ta < tb;
    const std::int64_t ga = gpu.is_valid(a) ? gpu.get_int(a) : -1, gb = gpu.is_valid(b) ? gpu.get_int(b) : -1;
    if (ga != gb) return ga < gb;
    const std::int64_t fa = files.get_int(a), fb = files.get_int(b);
    if (fa != fb) return fa < fb;
    return line.get_int(a) < line.get_int(b);
  });
  return cut;
}

std::uint64_t place_processes(const IngestResult& in, WallClock& clock, Window window, Table& pr,
                              std::vector<FileTally>& tally) {
  std::uint64_t cut = 0;
  Column& ts = pr.ts();
  const Column& kinds = pr.column(process_col::wall_kind);
  const Column& raws = pr.column(process_col::wall_raw_ns);
  const Column& files = pr.column(process_col::file);
  const Column& lines = pr.column(process_col::line);
  for (auto& t : tally) t.series_prev = kNoTime;
  Column placed(ts.name(), ts.type(), ts.unit());  // as in place_samples
  KeptRows keep;
  for (std::size_t r = 0; r < pr.rows(); ++r) {
    const std::int64_t file = files.get_int(r);
    FileTally* t = tally_of(tally, file);
    const TimeNs w = place_wall_row(in, clock, static_cast<WallKind>(kinds.get_int(r)), raws.is_valid(r),
                                    raws.get_int(r), file, t);
    if (t) t->series(w, static_cast<std::uint64_t>(lines.get_int(r)));
    if (w == kNoTime) {
      placed.push_null();
      if (t) ++t->unplaced;
    } else {
      placed.push_int(w);
    }
    if (window.contains(w)) {
      keep.keep(static_cast<std::uint32_t>(r));
    } else {
      ++cut;
      keep.skip();
    }
  }
  ts = std::move(placed);
  const Column& snap = pr.column(process_col::snapshot);
  const Column& pid = pr.column(process_col::pid);
  auto or_minus1 = [](const Column& c, std::uint32_t r) { return c.is_valid(r) ? c.get_int(r) : -1; };
  keep.apply(pr, [&](std::uint32_t a, std::uint32_t b) {
    const bool va = ts.is_valid(a), vb = ts.is_valid(b);
    if (va != vb) return va;
    if (va && ts.get_int(a) != ts.get_int(b)) return ts.get_int(a) < ts.get_int(b);
    if (or_minus1(snap, a) != or_minus1(snap, b)) return or_minus1(snap, a) < or_minus1(snap, b);
    return or_minus1(pid, a) < or_minus1(pid, b);
  });
  return cut;
}

}  // namespace gpucost::align_detail
