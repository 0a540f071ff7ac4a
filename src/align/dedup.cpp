// One kernel message read from dmesg, kern.log and the journal is one event. Copies have the
// same kind and first line of text, come from different files, and either carry monotonic stamps
// of the same boot within a microsecond, or (when either lacks one) wall times within the window.
// A `dmesg -T` copy is compared with what `dmesg -T` would have printed for the other copy
// (boot time + monotonic, blind to suspends). The best-placed copy is kept. Inside one file, an
// exact repeat (same boot and printk stamp: a log appended twice) is a copy too.
//
// Per message, files are merged one after the other into the clusters found so far, both sides
// in time order (a two-pointer walk), so a flood of identical lines costs n log n, not n².
#include <algorithm>
#include <cstdint>
#include <map>
#include <unordered_map>
#include <string_view>
#include <vector>

#include "align/internal.hpp"
#include "gpucost/ingest/repeat_runs.hpp"

namespace gpucost::align_detail {

namespace {

// How many candidate clusters one copy looks at beyond the first free one: the copy of a line is
// among the nearest in time; identical lines in a flood are interchangeable.
constexpr int kMaxProbes = 16;

struct Cluster {
  std::vector<std::uint32_t> members;
  TimeNs key = 0;  // time the cluster is matched on (ts, or ctime for dmesg -T copies)
};

class Matcher {
 public:
  Matcher(const Table& e, const std::vector<PlacedEvent>& placed, const std::vector<TimeNs>& boot_walls, TimeNs window)
      : mono_(e.column(event_col::mono_ns)), events_(e), placed_(placed), boot_walls_(boot_walls), window_(window) {}

  // What `dmesg -T` would print (UTC) for a row placed by monotonic time: its boot's wall time +
  // monotonic (blind to suspends); else its ts.
  TimeNs ctime(std::uint32_t r) const {
    const PlacedEvent& p = placed_[r];
    if (p.boot < 0 || !mono_.is_valid(r) || static_cast<std::size_t>(p.boot) >= boot_walls_.size()) return p.ts;
    const TimeNs c = boot_walls_[static_cast<std::size_t>(p.boot)] + mono_.get_int(r);
    return c != kNoTime ? c : p.ts;
  }

  // Distance between two copies, or -1 when they are not copies of one message.
  TimeNs distance(std::uint32_t a, std::uint32_t b) const {
    const PlacedEvent& pa = placed_[a];
    const PlacedEvent& pb = placed_[b];
    if (mono_.is_valid(a) && mono_.is_valid(b) && pa.boot >= 0 && pb.boot >= 0) {
      if (pa.boot != pb.boot) return -1;
      const TimeNs ma = mono_.get_int(a), mb = mono_.get_int(b);
      const TimeNs d = std::llabs(ma - mb);
      if (d <= kMonoMatchNs) return d;
      // A run of repeats (RepeatRuns) starts at the first line its file printed in the bucket:
      // a file that begins mid-bucket starts the same bucket's run at a later line.
      if ((event_repeat(events_, a) > 1 || event_repeat(events_, b) > 1) && ma / bucket(a) == mb / bucket(a)) return d;
      return -1;
    }
    const TimeNs d = std::llabs(pa.ts - pb.ts);
    if (d <= window_) return d;
    if (event_repeat(events_, a) > 1 || event_repeat(events_, b) > 1) {  // runs by wall time: the same bucket
      const TimeNs w = bucket(a);
      if (pa.ts / w == pb.ts / w) return d;
    }
    return -1;
  }
  // The bucket of a row's runs (RepeatRuns).
  TimeNs bucket(std::uint32_t r) const {
    return repeat_bucket_ns(static_cast<EventKind>(events_.column(event_col::kind).get_int(r)),
                            events_.column(event_col::text).get_string(r));
  }
  // Two copies in one file with the same boot and the very same printk stamp: a log repeated
  // inside the file (a rotated log appended twice), not two messages.
  bool repeated(std::uint32_t a, std::uint32_t b) const {
    return mono_.is_valid(a) && mono_.is_valid(b) && placed_[a].boot >= 0 && placed_[a].boot == placed_[b].boot &&
           mono_.get_int(a) == mono_.get_int(b);
  }
  // A dmesg -T copy `a` against cluster member `b`: what dmesg -T would have printed for b.
  TimeNs ctime_distance(std::uint32_t a, std::uint32_t b) const {
    const TimeNs cb = ctime(b);
    const TimeNs d = std::llabs(placed_[a].ts - cb);
    return d <= window_ ? d : -1;
  }

 private:
  const Column& mono_;
  const Table& events_;
  const std::vector<PlacedEvent>& placed_;
  const std::vector<TimeNs>& boot_walls_;
  TimeNs window_;
};

// Merges the copies of one file (`rows`, sorted by time `key_of`) into `clusters` (sorted by key).
// A row that `repeats` the row before it joins that row's cluster. A cluster that holds a run of
// repeats (`open`) takes every row of the file that matches it (the lines of its bucket that the
// file printed one by one or in shorter runs); any other takes one row per file. A run (`is_run`)
// gathers every cluster it matches, for the same reason the other way round.
template <typename KeyOf, typename Dist, typename Repeats, typename Open, typename IsRun>
void merge_file(std::vector<Cluster>& clusters, const std::vector<std::uint32_t>& rows, KeyOf key_of, Dist dist,
                TimeNs reach, Repeats repeats, Open open, IsRun is_run) {
  bool gathered = false;
  std::vector<bool> taken(clusters.size(), false);
  std::vector<Cluster> fresh;
  std::size_t j = 0;
  Cluster* last = nullptr;  // the cluster of the row before (fresh is reserved: no reallocation)
  fresh.reserve(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::uint32_t r = rows[i];
    if (last && repeats(rows[i - 1], r)) {
      last->members.push_back(r);
      continue;
    }
    const TimeNs k = key_of(r);
    while (j < clusters.size() && (taken[j] || clusters[j].key < k - reach)) ++j;
    std::size_t best = clusters.size();
    TimeNs best_d = 0;
    int probes = 0;
    for (std::size_t c = j; c < clusters.size() && clusters[c].key <= k + reach && probes < kMaxProbes; ++c) {
      if (taken[c]) continue;
      ++probes;
      for (const auto m : clusters[c].members) {
        const TimeNs d = dist(r, m);
        if (d >= 0 && (best == clusters.size() || d < best_d)) {
          best = c;
          best_d = d;
        }
      }
    }
    if (best < clusters.size() && is_run(r)) {
      for (std::size_t c = j; c < clusters.size() && clusters[c].key <= k + reach; ++c) {
        if (c == best || taken[c] || clusters[c].members.empty()) continue;
        const bool matches = std::any_of(clusters[c].members.begin(), clusters[c].members.end(),
                                         [&](std::uint32_t m) { return dist(r, m) >= 0; });
        if (!matches) continue;
        auto& into = clusters[best].members;
        into.insert(into.end(), clusters[c].members.begin(), clusters[c].members.end());
        clusters[c].members.clear();
        taken[c] = true;
        gathered = true;
      }
    }
    if (best < clusters.size()) {
      taken[best] = !open(clusters[best]) && !is_run(r);
      clusters[best].members.push_back(r);
      last = &clusters[best];
    } else {
      fresh.push_back({{r}, k});
      last = &fresh.back();
    }
  }
  if (gathered)
    clusters.erase(std::remove_if(clusters.begin(), clusters.end(), [](const Cluster& c) { return c.members.empty(); }),
                   clusters.end());
  if (fresh.empty()) return;
  const auto mid = static_cast<std::ptrdiff_t>(clusters.size());
  clusters.insert(clusters.end(), std::make_move_iterator(fresh.begin()), std::make_move_iterator(fresh.end()));
  std::inplace_merge(clusters.begin(), clusters.begin() + mid, clusters.end(),
                     [](const Cluster& a, const Cluster& b) { return a.key < b.key; });
}

// ---- one physical event, one row ----
// The kernel's ACPI line and acpid's, upower's and logind's reports of one AC unplug or lid close
// are different messages milliseconds apart; logind's "The system will suspend now!",
// systemd-sleep's "Entering sleep state" and the kernel's "PM: suspend entry" are one suspend,
// a second or two apart. After the copies of each message are merged, the reports of one
// physical event (same kind, different messages, within physical_window of the first) become
// one event whose origins list every report.
constexpr TimeNs kPhysicalEventNs = 500 * kNsPerMs;
// logind announces a suspend before systemd-sleep and the kernel act on it (the sleep hooks run
// in between); no machine suspends twice in this time.
constexpr TimeNs kSleepReportsNs = 5 * kNsPerSec;

bool is_physical_kind(EventKind k) {
  return k == EventKind::ac_online || k == EventKind::ac_offline || k == EventKind::lid_close ||
         k == EventKind::lid_open || k == EventKind::suspend || k == EventKind::resume;
}

TimeNs physical_window(EventKind k) {
  return k == EventKind::suspend || k == EventKind::resume ? kSleepReportsNs : kPhysicalEventNs;
}

template <typename Better>
void merge_physical_reports(const Table& e, const std::vector<PlacedEvent>& placed, EventClusters& clusters,
                            Better better) {
  const Column& kind = e.column(event_col::kind);
  const Column& file = e.column(event_col::file);
  const Column& line = e.column(event_col::line);
  std::vector<std::size_t> reports;  // clusters of physical kinds with a time
  for (std::size_t i = 0; i < clusters.size(); ++i) {
    const std::uint32_t r = clusters.front(i);
    if (placed[r].ts != kNoTime && is_physical_kind(static_cast<EventKind>(kind.get_int(r)))) reports.push_back(i);
  }
  if (reports.size() < 2) return;
  auto ts_of = [&](std::size_t i) { return placed[clusters.front(i)].ts; };
  std::stable_sort(reports.begin(), reports.end(), [&](std::size_t a, std::size_t b) { return ts_of(a) < ts_of(b); });
  const Column& text = e.column(event_col::text);
  auto first_line = [&](std::size_t i) {
    const std::string_view t = text.get_string(clusters.front(i));
    return t.substr(0, t.find('\n'));
  };
  // Reports are few (AC and lid): the clusters that take others' members are kept aside.
  std::vector<bool> gone(clusters.size(), false);
  std::unordered_map<std::size_t, std::vector<std::uint32_t>> grown;
  std::unordered_map<std::size_t, std::vector<std::uint32_t>> fronts;  // each report's best copy
  // Per kind, the open group: its cluster, the time of its first report, the messages in it. A
  // message already in the group is a second event of its reporter (a line printed twice), not
  // another report of this one.
  struct Group {
    std::size_t cluster = SIZE_MAX;
    TimeNs first = kNoTime;
    std::vector<std::string_view> messages;
  };
  std::vector<Group> open(kEventKindCount);
  for (const std::size_t i : reports) {
    const auto k = static_cast<EventKind>(kind.get_int(clusters.front(i)));
    Group& g = open[static_cast<std::size_t>(k)];
    const std::string_view msg = first_line(i);
    if (g.cluster != SIZE_MAX && ts_of(i) - g.first <= physical_window(k) &&
        std::find(g.messages.begin(), g.messages.end(), msg) == g.messages.end()) {
      auto [into, fresh] = grown.try_emplace(g.cluster);
      if (fresh) {
        into->second.assign(clusters[g.cluster].begin(), clusters[g.cluster].end());
        fronts[g.cluster].push_back(clusters.front(g.cluster));
      }
      into->second.insert(into->second.end(), clusters[i].begin(), clusters[i].end());
      fronts[g.cluster].push_back(clusters.front(i));
      g.messages.push_back(msg);
      gone[i] = true;
    } else {
      g = Group{i, ts_of(i), {msg}};
    }
  }
  if (grown.empty()) return;
  EventClusters out;
  out.rows.reserve(clusters.rows.size());
  out.begin.reserve(clusters.begin.size());
  for (std::size_t i = 0; i < clusters.size(); ++i) {
    if (gone[i]) continue;
    const auto g = grown.find(i);
    if (g == grown.end()) {  // already best first, the others by (file, line)
      out.add(clusters[i]);
      continue;
    }
    auto& m = g->second;
    // The row kept stands for the event: the best-placed report; for a suspend the first report
    // and for a resume the last (each report by its best copy), so that a cycle spans from the
    // first announcement to the last "returned" (suspends.cpp), as when every report was a row.
    const auto k = static_cast<EventKind>(kind.get_int(m.front()));
    std::uint32_t keep = *std::min_element(m.begin(), m.end(), better);
    if (k == EventKind::suspend || k == EventKind::resume) {
      const auto& f = fronts.at(g->first);
      keep = *std::min_element(f.begin(), f.end(), [&](std::uint32_t a, std::uint32_t b) {
        if (placed[a].ts != placed[b].ts)
          return k == EventKind::suspend ? placed[a].ts < placed[b].ts : placed[a].ts > placed[b].ts;
        return better(a, b);
      });
    }
    const auto best = std::find(m.begin(), m.end(), keep);
    std::rotate(m.begin(), best, best + 1);  // the kept report first, the others by (file, line)
    std::sort(m.begin() + 1, m.end(), [&](std::uint32_t a, std::uint32_t b) {
      return file.get_int(a) != file.get_int(b) ? file.get_int(a) < file.get_int(b) : line.get_int(a) < line.get_int(b);
    });
    out.add(m);
  }
  clusters = std::move(out);
}

// ---- one message twice in one file, in two layouts ----
// A paste of `journalctl -k | grep Xid` and then `dmesg | grep Xid` holds each message twice:
// once with the journal's wall time, once with dmesg's monotonic stamp that no anchor places
// (approximate). Within one file, such an approximate copy is paired, in line order, with a
// timed copy of the same message that has the other kind of stamp: one event, both lines in its
// seen_in. Takes the paired copies out of `rows` and returns them with the row each copies.
std::vector<std::pair<std::uint32_t, std::uint32_t>> take_layout_copies(std::vector<std::uint32_t>& rows,
                                                                        const Table& e,
                                                                        const std::vector<PlacedEvent>& placed) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
  const Column& file = e.column(event_col::file);
  const Column& mono = e.column(event_col::mono_ns);
  const Column& flags = e.column(event_col::flags);
  const auto approximate = [&](std::uint32_t r) {
    return placed[r].placement == Placement::kApproximate && (flags.get_int(r) & kFlagUnreliableWall) == 0;
  };
  if (std::none_of(rows.begin(), rows.end(), approximate)) return out;
  std::vector<std::uint32_t> sorted = rows;
  const Column& line = e.column(event_col::line);
  std::stable_sort(sorted.begin(), sorted.end(), [&](std::uint32_t a, std::uint32_t b) {
    return file.get_int(a) != file.get_int(b) ? file.get_int(a) < file.get_int(b) : line.get_int(a) < line.get_int(b);
  });
  for (std::size_t b = 0; b < sorted.size();) {
    std::size_t end = b;
    while (end < sorted.size() && file.get_int(sorted[end]) == file.get_int(sorted[b])) ++end;
    // For each stamp kind (with or without monotonic time), the timed and approximate copies.
    for (const bool with_mono : {false, true}) {
      std::vector<std::uint32_t> timed, approx;
      for (std::size_t i = b; i < end; ++i) {
        const std::uint32_t r = sorted[i];
        if (approximate(r) && mono.is_valid(r) != with_mono) approx.push_back(r);
        else if (!approximate(r) && placed[r].placement != Placement::kApproximate && mono.is_valid(r) == with_mono)
          timed.push_back(r);
      }
      for (std::size_t k = 0; k < std::min(timed.size(), approx.size()); ++k) out.emplace_back(approx[k], timed[k]);
    }
    b = end;
  }
  if (out.empty()) return out;
  std::vector<std::uint32_t> gone;
  gone.reserve(out.size());
  for (const auto& [copy, of] : out) gone.push_back(copy);
  std::sort(gone.begin(), gone.end());
  rows.erase(std::remove_if(rows.begin(), rows.end(),
                            [&](std::uint32_t r) { return std::binary_search(gone.begin(), gone.end(), r); }),
             rows.end());
  return out;
}

// Puts each paired copy (take_layout_copies) into the cluster of the row it copies, among the
// cluster's other copies by (file, line).
void attach_layout_copies(const Table& e, EventClusters& clusters,
                          const std::unordered_map<std::uint32_t, std::vector<std::uint32_t>>& copies) {
  const Column& file = e.column(event_col::file);
  const Column& line = e.column(event_col::line);
  EventClusters out;
  out.rows.reserve(clusters.rows.size() + copies.size());
  out.begin.reserve(clusters.begin.size());
  std::vector<std::uint32_t> m;
  for (std::size_t i = 0; i < clusters.size(); ++i) {
    m.assign(clusters[i].begin(), clusters[i].end());
    const std::size_t n = m.size();
    for (std::size_t j = 0; j < n; ++j)
      if (const auto c = copies.find(m[j]); c != copies.end()) m.insert(m.end(), c->second.begin(), c->second.end());
    if (m.size() > n)
      std::sort(m.begin() + 1, m.end(), [&](std::uint32_t a, std::uint32_t b) {
        return file.get_int(a) != file.get_int(b) ? file.get_int(a) < file.get_int(b)
                                                  : line.get_int(a) < line.get_int(b);
      });
    out.add(m);
  }
  clusters = std::move(out);
}

}  // namespace

EventClusters dedup_events(const Table& e, const std::vector<PlacedEvent>& placed, const std::vector<TimeNs>& boot_walls,
                           TimeNs window) {
  const Column& flags = e.column(event_col::flags);
  const Column& file = e.column(event_col::file);
  const Column& line = e.column(event_col::line);
  const Matcher match(e, placed, boot_walls, window);
  EventClusters out;
  out.rows.reserve(e.rows());
  out.begin.reserve(e.rows() + 1);

  // Messages by key, in order of first appearance.
  std::unordered_map<MessageKey, std::size_t, MessageKeyHash> index;
  std::vector<std::vector<std::uint32_t>> by_key;
  for (std::size_t r = 0; r < e.rows(); ++r) {
    if (placed[r].ts == kNoTime) {
      out.add(static_cast<std::uint32_t>(r));  // cannot be matched: its own event
      continue;
    }
    const auto [it, fresh] = index.try_emplace(message_key(e, r), by_key.size());
    if (fresh) by_key.emplace_back();
    by_key[it->second].push_back(static_cast<std::uint32_t>(r));
  }

  auto better = [&](std::uint32_t a, std::uint32_t b) {
    if (placed[a].placement != placed[b].placement) return placed[a].placement < placed[b].placement;
    if (file.get_int(a) != file.get_int(b)) return file.get_int(a) < file.get_int(b);
    return line.get_int(a) < line.get_int(b);
  };
  const ColumnReader files(file), lines(line);
  auto by_file_then_ts = [&](std::uint32_t a, std::uint32_t b) {
    if (files.get_int(a) != files.get_int(b)) return files.get_int(a) < files.get_int(b);
    if (placed[a].ts != placed[b].ts) return placed[a].ts < placed[b].ts;
    return lines.get_int(a) < lines.get_int(b);
  };
  // Rows of a message mostly come in that order already (one file, in time order).
  auto sort_rows = [&](std::vector<std::uint32_t>::iterator b, std::vector<std::uint32_t>::iterator e) {
    if (!std::is_sorted(b, e, by_file_then_ts)) std::sort(b, e, by_file_then_ts);
  };
  // Calls f(rows of one file) for each file's run in sorted `rows`.
  auto per_file = [&](std::vector<std::uint32_t>::iterator b, std::vector<std::uint32_t>::iterator end, auto f) {
    while (b != end) {
      auto run = b;
      while (run != end && file.get_int(*run) == file.get_int(*b)) ++run;
      f(std::vector<std::uint32_t>(b, run));
      b = run;
    }
  };

  // Puts a cluster's best copy first, the others by (file, line), and appends it to out.
  auto emit = [&](std::vector<std::uint32_t>& m) {
    if (m.size() == 1) {
      out.add(m.front());
      return;
    }
    std::sort(m.begin(), m.end(), [&](std::uint32_t a, std::uint32_t b) {
      return files.get_int(a) != files.get_int(b) ? files.get_int(a) < files.get_int(b) : lines.get_int(a) < lines.get_int(b);
    });
    const auto best = std::min_element(m.begin(), m.end(), better);
    std::rotate(m.begin(), best, best + 1);
    out.add(m);
  };
  std::vector<std::uint32_t> run;
  std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> layout_copies;
  for (auto& rows : by_key) {
    if (rows.size() > 1)
      for (const auto& [copy, of] : take_layout_copies(rows, e, placed)) layout_copies[of].push_back(copy);
    if (rows.size() == 1) {
      out.add(rows.front());
      continue;
    }
    const auto unreliable = [&](std::uint32_t r) { return (flags.get_int(r) & kFlagUnreliableWall) != 0; };
    const auto split = std::stable_partition(rows.begin(), rows.end(), [&](std::uint32_t r) { return !unreliable(r); });
    sort_rows(rows.begin(), split);
    sort_rows(split, rows.end());
    // A message read from one file only (a flood of one line in one log): no other file's copies
    // to match, so a row joins the row before only when it repeats it (what merge_file would do
    // with no clusters yet), in time order, without a cluster per row.
    if (split == rows.end() && file.get_int(rows.front()) == file.get_int(rows.back())) {
      run.clear();
      for (std::size_t i = 0; i < rows.size(); ++i) {
        if (i > 0 && !match.repeated(rows[i - 1], rows[i])) {
          emit(run);
          run.clear();
        }
        run.push_back(rows[i]);
      }
      emit(run);
      std::vector<std::uint32_t>().swap(rows);
      continue;
    }

    std::vector<Cluster> clusters;
    auto holds_run = [&](const Cluster& c) {
      return std::any_of(c.members.begin(), c.members.end(), [&](std::uint32_t m) { return event_repeat(e, m) > 1; });
    };
    // A run's copy in another file may start later in the run's bucket (RepeatRuns).
    TimeNs reach = window + kMonoMatchNs;
    if (std::any_of(rows.begin(), split, [&](std::uint32_t r) { return event_repeat(e, r) > 1; }))
      reach = std::max(reach, match.bucket(rows.front()) + kMonoMatchNs);
    // Copies with trustworthy times, matched on ts (copies with the same mono have the same ts).
    per_file(rows.begin(), split, [&](const std::vector<std::uint32_t>& f) {
      merge_file(
          clusters, f, [&](std::uint32_t r) { return placed[r].ts; },
          [&](std::uint32_t a, std::uint32_t b) { return match.distance(a, b); }, reach,
          [&](std::uint32_t a, std::uint32_t b) { return match.repeated(a, b); }, holds_run,
          [&](std::uint32_t r) { return event_repeat(e, r) > 1; });
    });
    // dmesg -T copies, matched on what dmesg -T would have printed for the other copies.
    if (split != rows.end()) {
      for (auto& c : clusters) {
        const std::uint32_t m = c.members.front();
        c.key = match.ctime(m);
      }
      std::sort(clusters.begin(), clusters.end(), [](const Cluster& a, const Cluster& b) { return a.key < b.key; });
      per_file(split, rows.end(), [&](const std::vector<std::uint32_t>& f) {
        merge_file(
            clusters, f, [&](std::uint32_t r) { return placed[r].ts; },
            [&](std::uint32_t a, std::uint32_t b) { return match.ctime_distance(a, b); }, window,
            [](std::uint32_t, std::uint32_t) { return false; }, [](const Cluster&) { return false; },
            [](std::uint32_t) { return false; });
      });
    }

    for (auto& c : clusters) emit(c.members);  // the kept copy first, the others by (file, line)
    std::vector<std::uint32_t>().swap(rows);
  }
  if (!layout_copies.empty()) attach_layout_copies(e, out, layout_copies);
  merge_physical_reports(e, placed, out, better);
  return out;
}

std::uint64_t merge_repeat_counts(Table& e, const EventClusters& clusters) {
  const Column& kind = e.column(event_col::kind);
  Column& repeat = e.column(event_col::repeat);
  auto count = [&](std::uint32_t r) -> std::int64_t { return repeat.is_valid(r) ? repeat.get_int(r) : 1; };
  const Column& file = e.column(event_col::file);
  const Column& mono = e.column(event_col::mono_ns);
  std::uint64_t merged = 0;
  // (file, monotonic stamp) -> lines: rows of one file with one stamp are copies of one line (a
  // log appended to itself), the largest counts; rows with different stamps add up.
  std::vector<std::pair<std::pair<std::int64_t, std::int64_t>, std::int64_t>> lines;
  std::vector<std::pair<std::int64_t, std::int64_t>> per_file;  // file, lines of the cluster it holds
  for (std::size_t c = 0; c < clusters.size(); ++c) {
    const auto members = clusters[c];
    if (members.size() < 2 || static_cast<EventKind>(kind.get_int(members.front())) == EventKind::log_end) continue;
    if (std::all_of(members.begin(), members.end(), [&](std::uint32_t m) { return count(m) == 1; })) {
      merged += members.size() - 1;  // copies of one line each (or reports of one physical event)
      continue;
    }
    lines.clear();
    std::int64_t all = 0;
    for (const auto m : members) {
      all += count(m);
      const std::pair<std::int64_t, std::int64_t> at{file.get_int(m), mono.is_valid(m) ? mono.get_int(m) : INT64_MIN + m};
      auto it = std::find_if(lines.begin(), lines.end(), [&](const auto& p) { return p.first == at; });
      if (it == lines.end()) lines.emplace_back(at, count(m));
      else it->second = std::max(it->second, count(m));
    }
    per_file.clear();
    for (const auto& line : lines) {
      const std::int64_t f = line.first.first;  // not a structured binding: clang < 16 cannot capture one
      auto it = std::find_if(per_file.begin(), per_file.end(), [&](const auto& p) { return p.first == f; });
      if (it == per_file.end()) per_file.emplace_back(f, line.second);
      else it->second += line.second;
    }
    std::int64_t most = 0;
    for (const auto& [f, n] : per_file) most = std::max(most, n);
    merged += static_cast<std::uint64_t>(all - most);
    if (most != count(members.front())) repeat.set_int(members.front(), most);
  }
  return merged;
}

}  // namespace gpucost::align_detail
