// Every row gets its UTC time: events from monotonic time and their boot when they have both,
// else from their wall stamp, else (no stamp at all) the file's modification time; samples and
// process rows from their wall stamp. Then --since/--until, and the tables' order.
#include <algorithm>
#include <cstring>
#include <functional>
#include <numeric>
#include <tuple>
#include <unordered_set>

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

// UTC of the sample or process rows of a table, one after the other: a row's wall stamp, else
// (none at all: a ps snapshot without marker) the file's modification time. The rows of one
// snapshot or sampling round share file, kind and stamp: the row before's answer is reused.
class WallRowPlacer {
 public:
  WallRowPlacer(const IngestResult& in, WallClock& clock, std::vector<FileTally>& tally, const Table& t,
                std::size_t kind_col, std::size_t raw_col, std::size_t file_col)
      : in_(in), clock_(clock), tally_(tally), kinds_(t.column(kind_col)), raws_(t.column(raw_col)),
        files_(t.column(file_col)) {}

  /// Row r's UTC (kNoTime: none), counted in its file's tally; `t` receives that tally.
  TimeNs place(std::size_t r, FileTally*& t) {
    const std::int64_t file = files_.get_int(r);
    const auto wk = static_cast<WallKind>(kinds_.get_int(r));
    const bool raw_valid = raws_.is_valid(r);
    const TimeNs raw = raws_.get_int(r);
    if (!known_ || file != file_ || wk != kind_ || raw_valid != raw_valid_ || raw != raw_) {
      known_ = true;
      file_ = file;
      kind_ = wk;
      raw_valid_ = raw_valid;
      raw_ = raw;
      tally_of_file_ = tally_of(tally_, file);
      from_ = From::kNone;
      w_ = raw_valid ? clock_.to_utc(wk, raw, static_cast<std::uint32_t>(file)) : kNoTime;
      if (w_ != kNoTime) from_ = From::kWall;
      else if (wk == WallKind::kNone && (w_ = mtime_of(in_, file)) != kNoTime) from_ = From::kMtime;
    }
    t = tally_of_file_;
    if (t) {
      if (from_ == From::kWall) ++t->wall;
      else if (from_ == From::kMtime) ++t->mtime;
      t->saw(w_);
    }
    return w_;
  }

 private:
  enum class From : std::uint8_t { kNone, kWall, kMtime };
  const IngestResult& in_;
  WallClock& clock_;
  std::vector<FileTally>& tally_;
  ColumnReader kinds_, raws_, files_;
  bool known_ = false, raw_valid_ = false;
  std::int64_t file_ = 0;
  WallKind kind_ = WallKind::kNone;
  TimeNs raw_ = 0, w_ = kNoTime;
  FileTally* tally_of_file_ = nullptr;
  From from_ = From::kNone;
};

// A process snapshot as a whole: its raw stamp, its rows and an order-free hash of them.
struct SnapshotKey {
  std::int64_t kind = 0;
  TimeNs raw = 0;
  std::uint64_t rows = 0, hash = 0;
  bool operator==(const SnapshotKey&) const = default;
};
struct SnapshotKeyHash {
  std::size_t operator()(const SnapshotKey& k) const noexcept {
    return static_cast<std::size_t>(k.hash ^ (static_cast<std::uint64_t>(k.raw) * 0x9E3779B97F4A7C15ULL) ^ k.rows);
  }
};

std::uint64_t mix(std::uint64_t x) noexcept {  // splitmix64's finalizer
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ULL;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// Rows of process snapshots that repeat an earlier snapshot: the same raw stamp and the same
// rows (pid, user, %CPU, %MEM, VSZ, RSS, state, command, GPU), read from another file (`ps.txt`
// and `ps.txt.gz`, a copy beside the original) or earlier in the same one (a file appended to
// itself). Such a copy is one snapshot: its rows count once, in the first file that had it.
// Snapshots without a stamp are never merged (two machines' untimed `ps` may match). A
// snapshot is the rows of one (file, snapshot ordinal) that follow each other in the table.
std::vector<bool> repeated_snapshot_rows(const Table& pr) {
  std::vector<bool> repeated;
  const std::size_t n = pr.rows();
  if (n == 0) return repeated;
  const ColumnReader kinds(pr.column(process_col::wall_kind)), raws(pr.column(process_col::wall_raw_ns)),
      files(pr.column(process_col::file)), snaps(pr.column(process_col::snapshot)), pids(pr.column(process_col::pid)),
      cpu(pr.column(process_col::cpu_pct)), mem(pr.column(process_col::mem_pct)), vsz(pr.column(process_col::vsz_kib)),
      rss(pr.column(process_col::rss_kib)), gpu(pr.column(process_col::gpu));
  const Column& user = pr.column(process_col::user);
  const Column& stat = pr.column(process_col::stat);
  const Column& command = pr.column(process_col::command);
  const auto bits = [](double v) {
    std::uint64_t b = 0;
    std::memcpy(&b, &v, sizeof b);
    return b;
  };
  const auto text = [](const Column& c, std::size_t r) {
    return c.is_valid(r) ? std::hash<std::string_view>{}(c.get_string(r)) : 0x5bd1e995u;
  };
  const auto row_hash = [&](std::size_t r) {
    std::uint64_t h = mix(static_cast<std::uint64_t>(pids.get_int(r)) + (pids.is_valid(r) ? 1 : 0));
    for (const std::uint64_t v : {bits(cpu.get_float(r)), bits(mem.get_float(r)), static_cast<std::uint64_t>(vsz.get_int(r)),
                                  static_cast<std::uint64_t>(rss.get_int(r)), static_cast<std::uint64_t>(gpu.get_int(r)),
                                  static_cast<std::uint64_t>(text(user, r)), static_cast<std::uint64_t>(text(stat, r)),
                                  static_cast<std::uint64_t>(text(command, r))})
      h = mix(h ^ v);
    return h;
  };
  std::unordered_set<SnapshotKey, SnapshotKeyHash> seen;
  for (std::size_t begin = 0; begin < n;) {
    std::size_t end = begin + 1;
    const auto same_snapshot = [&](std::size_t r) {
      return files.get_int(r) == files.get_int(begin) && snaps.get_int(r) == snaps.get_int(begin) &&
             kinds.get_int(r) == kinds.get_int(begin) && raws.is_valid(r) == raws.is_valid(begin) &&
             raws.get_int(r) == raws.get_int(begin);
    };
    while (end < n && same_snapshot(end)) ++end;
    if (raws.is_valid(begin) && kinds.get_int(begin) != static_cast<std::int64_t>(WallKind::kNone)) {
      SnapshotKey key{kinds.get_int(begin), raws.get_int(begin), end - begin, 0};
      for (std::size_t r = begin; r < end; ++r) key.hash += row_hash(r);  // the order of rows does not matter
      if (!seen.insert(key).second) {
        if (repeated.empty()) repeated.assign(n, false);
        std::fill(repeated.begin() + static_cast<std::ptrdiff_t>(begin), repeated.begin() + static_cast<std::ptrdiff_t>(end),
                  true);
      }
    }
    begin = end;
  }
  return repeated;
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
    apply(t, less, [&](std::uint32_t r) { return r == 0 || !less(r, r - 1); });
  }
  // The same, where `less` is key(a) < key(b) and rows often tie on the key's first parts (the
  // rows of one ps snapshot share their time): when every row is kept, the order is checked
  // reading each row's key once.
  template <class Less, class Key>
  void apply_by_key(Table& t, Less less, Key key) {
    apply(t, less, [&, before = decltype(key(0)){}](std::uint32_t r) mutable {
      auto k = key(r);
      const bool in_order = r == 0 || !(k < before);
      before = k;
      return in_order;
    });
  }

 private:
  // in_order(r) for r = 0, 1, ... in turn: whether row r comes no earlier than row r - 1.
  template <class Less, class InOrder>
  void apply(Table& t, Less less, InOrder in_order) {
    if (!listed_) {  // every row is kept: 0..rows-1
      bool sorted = true;
      for (std::uint32_t r = 0; r < count_ && sorted; ++r) sorted = in_order(r);
      if (sorted) return;
      list_all();
    } else if (std::is_sorted(rows_.begin(), rows_.end(), less)) {
      if (rows_.size() != t.rows()) t.permute(rows_);
      return;
    }
    std::stable_sort(rows_.begin(), rows_.end(), less);
    t.permute(rows_);
  }

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
  const Column& lines = sa.column(sample_col::line);
  for (auto& t : tally) t.series_prev = kNoTime;
  // ts_ns is built afresh in row order (every row is set): the packed encoding then widens
  // while the column is short, instead of re-encoding millions of null slots.
  Column placed(ts.name(), ts.type(), ts.unit());
  KeptRows keep;
  WallRowPlacer placer(in, clock, tally, sa, sample_col::wall_kind, sample_col::wall_raw_ns, sample_col::file);
  const ColumnReader line_of(lines), kind_of(sa.column(sample_col::wall_kind)), raw_of(sa.column(sample_col::wall_raw_ns));
  for (std::size_t r = 0; r < sa.rows(); ++r) {
    FileTally* t = nullptr;
    TimeNs w = placer.place(r, t);
    // The hour that a fall-back repeats (dmon -o DT prints local time): its second pass reads, by
    // the earlier instant, as an hour back; the sample order says it is the later one.
    if (t && w != kNoTime && t->series_prev != kNoTime && w < t->series_prev &&
        kind_of.get_int(r) == static_cast<std::int64_t>(WallKind::kLocal)) {
      w = clock.later_reading(raw_of.get_int(r), w, t->series_prev);
      t->saw(w);
    }
    if (t) t->series(w, static_cast<std::uint64_t>(line_of.get_int(r)));
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
  const ColumnReader gpu(sa.column(sample_col::gpu)), line(lines), file_of(sa.column(sample_col::file)), at(ts);
  keep.apply(sa, [&](std::uint32_t a, std::uint32_t b) {
    const TimeNs ta = at.get_int(a), tb = at.get_int(b);
    if (ta != tb) return ta < tb;
    const std::int64_t ga = gpu.is_valid(a) ? gpu.get_int(a) : -1, gb = gpu.is_valid(b) ? gpu.get_int(b) : -1;
    if (ga != gb) return ga < gb;
    const std::int64_t fa = file_of.get_int(a), fb = file_of.get_int(b);
    if (fa != fb) return fa < fb;
    return line.get_int(a) < line.get_int(b);
  });
  return cut;
}

std::uint64_t place_processes(const IngestResult& in, WallClock& clock, Window window, Table& pr,
                              std::vector<FileTally>& tally) {
  std::uint64_t cut = 0;
  Column& ts = pr.ts();
  const Column& lines = pr.column(process_col::line);
  for (auto& t : tally) t.series_prev = kNoTime;
  Column placed(ts.name(), ts.type(), ts.unit());  // as in place_samples
  KeptRows keep;
  WallRowPlacer placer(in, clock, tally, pr, process_col::wall_kind, process_col::wall_raw_ns, process_col::file);
  const ColumnReader line_of(lines), file_of(pr.column(process_col::file));
  const std::vector<bool> repeated = repeated_snapshot_rows(pr);
  for (std::size_t r = 0; r < pr.rows(); ++r) {
    if (!repeated.empty() && repeated[r]) {
      placed.push_null();
      keep.skip();
      if (FileTally* t = tally_of(tally, file_of.get_int(r))) ++t->repeated;
      continue;
    }
    FileTally* t = nullptr;
    const TimeNs w = placer.place(r, t);
    if (t) t->series(w, static_cast<std::uint64_t>(line_of.get_int(r)));
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
  const ColumnReader snap(pr.column(process_col::snapshot)), pid(pr.column(process_col::pid)), at(ts);
  auto or_minus1 = [](const ColumnReader& c, std::uint32_t r) { return c.is_valid(r) ? c.get_int(r) : -1; };
  // Placed rows first, by time; then by snapshot and PID.
  const auto key = [&](std::uint32_t r) {
    const bool placed = at.is_valid(r);
    return std::tuple(!placed, placed ? at.get_int(r) : 0, or_minus1(snap, r), or_minus1(pid, r));
  };
  keep.apply_by_key(pr, [&](std::uint32_t a, std::uint32_t b) { return key(a) < key(b); }, key);
  return cut;
}

}  // namespace gpucost::align_detail
