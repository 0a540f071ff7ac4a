// Monotonic kernel time -> UTC. An anchor is a line stamped with both clocks: offset = wall - mono.
// The kernel's monotonic clock stops during suspend, so within one boot the offset is piecewise
// constant: one epoch per stretch between suspends. Anchors are grouped into boots (journal boot
// ids, per-file boot ordinals, and offsets that agree), then each boot is split into epochs.
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>

#include "align/internal.hpp"

namespace gpucost::align_detail {

namespace {

constexpr TimeNs kMinMono = std::numeric_limits<TimeNs>::min();

// The interval [lo, hi) that an anchor says the true offset lies in: a wall stamp truncated to
// its precision p puts it in [o, o + p); precise stamps get a little slack for clock jitter.
TimeNs lo_of(const AnchorPoint& a) { return a.offset - (a.precision <= kFineAnchorNs ? kFineSlackNs : 0); }
TimeNs hi_of(const AnchorPoint& a) { return a.offset + a.precision + (a.precision <= kFineAnchorNs ? kFineSlackNs : 0); }

// Offset of one epoch from its members: the median of precise anchors, else the middle of the
// intersection of the 1 s intervals.
Epoch estimate(const std::vector<AnchorPoint>& anchors, const std::vector<std::size_t>& members) {
  TimeNs hi = std::numeric_limits<TimeNs>::max();
  for (auto i : members)
    if (!anchors[i].outlier) hi = std::min(hi, hi_of(anchors[i]));
  TimeNs lo = std::numeric_limits<TimeNs>::min();
  std::vector<TimeNs> fine;
  std::size_t used = 0;
  for (auto i : members) {
    const AnchorPoint& a = anchors[i];
    if (a.outlier || lo_of(a) >= hi) continue;
    ++used;
    lo = std::max(lo, lo_of(a));
    if (a.precision <= kFineAnchorNs) fine.push_back(a.offset);
  }
  Epoch e;
  e.anchors = used;
  if (!fine.empty()) {
    std::sort(fine.begin(), fine.end());
    e.offset = fine.size() % 2 ? fine[fine.size() / 2] : fine[fine.size() / 2 - 1] + (fine[fine.size() / 2] - fine[fine.size() / 2 - 1]) / 2;
    e.uncertainty = kFineSlackNs;
  } else {
    e.offset = lo + (hi - lo) / 2;
    e.uncertainty = (hi - lo) / 2;
  }
  return e;
}

}  // namespace

TimeNs Boot::map(TimeNs mono) const {
  if (epochs.empty() || mono == kNoTime) return kNoTime;
  auto it = std::upper_bound(epochs.begin(), epochs.end(), mono,
                             [](TimeNs m, const Epoch& e) { return m < e.begin_mono; });
  const Epoch& e = it == epochs.begin() ? epochs.front() : *(it - 1);
  return mono + e.offset;
}

std::size_t Boot::anchors_used() const {
  std::size_t n = 0;
  for (const auto& e : epochs) n += e.anchors;
  return n;
}

std::vector<Epoch> build_epochs(std::vector<AnchorPoint>& anchors, const std::vector<MonoCycle>& cycles) {
  std::vector<Epoch> out;
  const std::size_t n = anchors.size();
  if (n == 0) return out;
  for (auto& a : anchors) a.outlier = false;
  // Lowest lower bound of the anchors after each one, over all anchors and over precise ones
  // only (a 1 s stamp cannot refute a µs one: after a suspend shorter than a second the two
  // still overlap).
  std::vector<TimeNs> suffix_lo(n + 1, std::numeric_limits<TimeNs>::max()), suffix_lo_fine = suffix_lo;
  for (std::size_t i = n; i-- > 0;) {
    suffix_lo[i] = std::min(suffix_lo[i + 1], lo_of(anchors[i]));
    suffix_lo_fine[i] = anchors[i].precision <= kFineAnchorNs ? std::min(suffix_lo_fine[i + 1], lo_of(anchors[i]))
                                                             : suffix_lo_fine[i + 1];
  }

  // Walk in mono order keeping the intersection [lo, hi) of the current epoch's intervals.
  std::vector<std::vector<std::size_t>> groups(1);
  TimeNs lo = 0, hi = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const AnchorPoint& a = anchors[i];
    auto& cur = groups.back();
    if (cur.empty()) {
      cur.push_back(i);
      lo = lo_of(a);
      hi = hi_of(a);
    } else if (lo_of(a) >= hi) {
      // Above the epoch: a resume, unless a later anchor comes back down into the epoch (then
      // this wall stamp was merely written late).
      if ((a.precision <= kFineAnchorNs ? suffix_lo_fine : suffix_lo)[i + 1] < hi) {
        anchors[i].outlier = true;
        continue;
      }
      groups.emplace_back(1, i);
      lo = lo_of(a);
      hi = hi_of(a);
    } else if (hi_of(a) <= lo) {
      // Below: the earlier members were written late (syslog daemons read the boot messages
      // seconds after the kernel printed them). The lower offset wins.
      hi = std::min(hi, hi_of(a));
      cur.push_back(i);
      lo = std::numeric_limits<TimeNs>::min();
      for (auto m : cur) {
        if (lo_of(anchors[m]) >= hi) anchors[m].outlier = true;
        else lo = std::max(lo, lo_of(anchors[m]));
      }
    } else {
      cur.push_back(i);
      lo = std::max(lo, lo_of(a));
      hi = std::min(hi, hi_of(a));
    }
  }

  std::vector<bool> used(cycles.size(), false);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    Epoch e = estimate(anchors, groups[g]);
    e.begin_mono = kMinMono;
    if (g > 0) {
      // Split between the previous epoch's last anchor a and this one's first b; a known
      // suspend cycle (entry, exit) there narrows it: mono <= entry is before, >= exit after.
      const TimeNs a = anchors[groups[g - 1].back()].mono;
      const AnchorPoint& first = anchors[groups[g].front()];
      const TimeNs b = first.mono;
      const TimeNs next = g + 1 < groups.size() ? anchors[groups[g + 1].front()].mono : std::numeric_limits<TimeNs>::max();
      std::size_t best = cycles.size();
      TimeNs best_gap = 0;
      for (std::size_t c = 0; c < cycles.size(); ++c) {
        if (used[c] || cycles[c].exit <= a || cycles[c].entry >= next) continue;
        const TimeNs gap = std::max<TimeNs>({0, cycles[c].entry - b, a - cycles[c].exit});
        if (best == cycles.size() || gap < best_gap) {
          best = c;
          best_gap = gap;
        }
      }
      TimeNs w_lo = a, w_hi = b;
      if (best < cycles.size()) {
        used[best] = true;
        w_lo = cycles[best].entry;
        w_hi = cycles[best].exit;
        // The last anchor before the suspend was printed before it. The first after it was
        // printed after it only when its mono was read with its wall stamp (journal); a syslog
        // line read late after the resume may have been printed before the suspend.
        if (a > w_lo && a < w_hi) w_lo = a;
        if (first.precision <= kFineAnchorNs && b > w_lo && b < w_hi) w_hi = b;
      }
      e.begin_mono = w_lo + (w_hi - w_lo + 1) / 2;
    }
    out.push_back(e);
  }
  return out;
}

namespace {

struct Group {
  std::string id;
  std::vector<AnchorPoint> anchors;
  std::vector<std::pair<std::uint32_t, std::int32_t>> file_seqs;
  std::vector<TimeNs> power_monos;  // monos of suspend/resume events of the group
};

TimeNs max_precision(const std::vector<AnchorPoint>& v) {
  TimeNs p = 0;
  for (const auto& a : v) p = std::max(p, a.precision);
  return p;
}

// How well group g continues boot b; nullopt when it cannot be the same boot.
std::optional<TimeNs> compatible(const Group& g, const Boot& b, const std::vector<TimeNs>& boot_power) {
  if (b.anchors.empty() || g.anchors.empty()) return std::nullopt;
  const TimeNs tol = kNsPerSec + max_precision(g.anchors) + max_precision(b.anchors);
  const TimeNs g_min = g.anchors.front().mono, g_max = g.anchors.back().mono;
  auto offset_of = [&](TimeNs mono) { return b.map(mono) - mono; };
  if (g_min <= b.max_mono() && g_max >= b.min_mono()) {
    // Overlapping monotonic ranges: most anchors must agree with the boot's epochs.
    std::size_t in = 0, ok = 0;
    std::vector<TimeNs> diffs;
    for (const auto& a : g.anchors) {
      if (a.mono < b.min_mono() || a.mono > b.max_mono()) continue;
      ++in;
      const TimeNs d = a.offset - offset_of(a.mono);
      if (d > -tol && d < tol) {
        ++ok;
        diffs.push_back(std::llabs(d));
      }
    }
    if (in == 0 || ok * 2 <= in) return std::nullopt;
    std::sort(diffs.begin(), diffs.end());
    return diffs[diffs.size() / 2];
  }
  // Disjoint ranges: `early` ends before `late` begins (in mono). Same boot when the offset did
  // not go down and either stayed (no suspend between) or a suspend/resume is logged between,
  // or the late part's boot instant is not after the early part's last line (a new boot starts
  // after the old one's last message).
  const bool g_late = g_min > b.max_mono();
  const TimeNs early_max = g_late ? b.max_mono() : g_max;
  const TimeNs late_min = g_late ? g_min : b.min_mono();
  const TimeNs early_off = g_late ? offset_of(b.max_mono()) : g.anchors.back().offset;
  const TimeNs late_off = g_late ? g.anchors.front().offset : offset_of(b.min_mono());
  const TimeNs d = late_off - early_off;
  if (d <= -tol) return std::nullopt;
  if (d < tol) return std::llabs(d);
  bool power_between = false;
  for (const auto* v : {&g.power_monos, &boot_power})
    for (TimeNs m : *v) power_between = power_between || (m >= early_max && m <= late_min);
  const TimeNs early_last_wall = early_max + early_off;
  if (power_between || late_off <= early_last_wall + tol) return d;
  return std::nullopt;
}

}  // namespace

void build_anchored_boots(const IngestResult& in, WallClock& clock, BootTable& out) {
  // Groups: by boot id when the source names it, else by (file, boot ordinal in the file).
  std::map<std::string, Group> groups;
  auto key_of = [](std::string_view id, std::uint32_t file, std::int32_t seq) {
    return id.empty() ? fmt::format("f:{}:{}", file, seq) : fmt::format("i:{}", id);
  };
  for (const auto& a : in.anchors) {
    if (a.mono_ns == kNoTime) continue;
    const TimeNs wall = clock.to_utc(a.wall_kind, a.wall_raw_ns, a.file);
    if (wall == kNoTime) continue;
    Group& g = groups[key_of(a.boot_id, a.file, a.boot_seq)];
    g.id = a.boot_id;
    g.anchors.push_back({a.mono_ns, wall - a.mono_ns, std::max<TimeNs>(a.precision_ns, 1), a.file, false});
    const std::pair<std::uint32_t, std::int32_t> fs{a.file, a.boot_seq};
    if (std::find(g.file_seqs.begin(), g.file_seqs.end(), fs) == g.file_seqs.end()) g.file_seqs.push_back(fs);
  }
  // Suspend/resume events of each group: evidence that a jump in offset is a suspend.
  const Table& e = in.events;
  {
    std::map<std::pair<std::uint32_t, std::int32_t>, Group*> by_fs;
    for (auto& [k, g] : groups)
      for (const auto& fs : g.file_seqs) by_fs[fs] = &g;
    for (std::size_t r = 0; r < e.rows(); ++r) {
      const auto kind = static_cast<EventKind>(e.column(event_col::kind).get_int(r));
      if ((kind != EventKind::suspend && kind != EventKind::resume) || !e.column(event_col::mono_ns).is_valid(r)) continue;
      Group* g = nullptr;
      if (e.column(event_col::boot_id).is_valid(r)) {
        auto it = groups.find(key_of(e.column(event_col::boot_id).get_string(r), 0, 0));
        if (it != groups.end()) g = &it->second;
      }
      if (!g) {
        auto it = by_fs.find({static_cast<std::uint32_t>(e.column(event_col::file).get_int(r)),
                              static_cast<std::int32_t>(e.column(event_col::boot_seq).get_int(r))});
        if (it != by_fs.end()) g = it->second;
      }
      if (g) g->power_monos.push_back(e.column(event_col::mono_ns).get_int(r));
    }
  }
  std::vector<Group*> order;
  for (auto& [k, g] : groups) {
    std::sort(g.anchors.begin(), g.anchors.end(), [](const AnchorPoint& x, const AnchorPoint& y) {
      return x.mono != y.mono ? x.mono < y.mono : x.offset < y.offset;
    });
    order.push_back(&g);
  }
  std::stable_sort(order.begin(), order.end(), [](const Group* x, const Group* y) {
    return x->anchors.front().mono + x->anchors.front().offset < y->anchors.front().mono + y->anchors.front().offset;
  });

  std::vector<std::vector<TimeNs>> boot_power;
  std::map<std::pair<std::uint32_t, std::int32_t>, std::int32_t> fs_boot;
  std::map<std::string, std::int32_t> id_boot;
  // The boots without an id yet, in order: a group with an id not met before can join only one of
  // them (a forged journal names a new boot on every entry; trying every boot was quadratic).
  std::vector<std::size_t> unnamed;
  for (Group* g : order) {
    std::int32_t target = -1;
    if (!g->id.empty())
      if (auto it = id_boot.find(g->id); it != id_boot.end()) target = it->second;
    if (target < 0) {
      std::optional<TimeNs> best;
      const auto consider = [&](std::size_t b) {
        const auto score = compatible(*g, out.boots[b], boot_power[b]);
        if (score && (!best || *score < *best)) {
          best = score;
          target = static_cast<std::int32_t>(b);
        }
      };
      if (g->id.empty())
        for (std::size_t b = 0; b < out.boots.size(); ++b) consider(b);
      else
        for (const std::size_t b : unnamed) consider(b);
    }
    if (target < 0) {
      target = static_cast<std::int32_t>(out.boots.size());
      out.boots.emplace_back();
      boot_power.emplace_back();
      if (g->id.empty()) unnamed.push_back(static_cast<std::size_t>(target));
    }
    Boot& boot = out.boots[static_cast<std::size_t>(target)];
    if (boot.id.empty() && !g->id.empty()) {
      boot.id = g->id;
      id_boot[g->id] = target;
      std::erase(unnamed, static_cast<std::size_t>(target));
    }
    const std::size_t mid = boot.anchors.size();
    boot.anchors.insert(boot.anchors.end(), g->anchors.begin(), g->anchors.end());
    std::inplace_merge(boot.anchors.begin(), boot.anchors.begin() + static_cast<std::ptrdiff_t>(mid), boot.anchors.end(),
                       [](const AnchorPoint& x, const AnchorPoint& y) {
                         return x.mono != y.mono ? x.mono < y.mono : x.offset < y.offset;
                       });
    boot.epochs = build_epochs(boot.anchors, {});
    boot_power[static_cast<std::size_t>(target)].insert(boot_power[static_cast<std::size_t>(target)].end(),
                                                        g->power_monos.begin(), g->power_monos.end());
    for (const auto& fs : g->file_seqs) {
      fs_boot[fs] = target;
      if (std::find(boot.files.begin(), boot.files.end(), fs.first) == boot.files.end()) boot.files.push_back(fs.first);
    }
  }

  // Events of anchored groups join their boot.
  out.event_boot.assign(e.rows(), -1);
  out.event_tie.assign(e.rows(), TieQuality::kExact);
  for (std::size_t r = 0; r < e.rows(); ++r) {
    if (e.column(event_col::boot_id).is_valid(r)) {
      if (auto it = id_boot.find(std::string(e.column(event_col::boot_id).get_string(r))); it != id_boot.end()) {
        out.event_boot[r] = it->second;
        continue;
      }
    }
    auto it = fs_boot.find({static_cast<std::uint32_t>(e.column(event_col::file).get_int(r)),
                            static_cast<std::int32_t>(e.column(event_col::boot_seq).get_int(r))});
    if (it != fs_boot.end()) out.event_boot[r] = it->second;
  }
}

void finish_epochs(const IngestResult& in, BootTable& out) {
  const Table& e = in.events;
  std::vector<std::vector<std::pair<TimeNs, bool>>> power(out.boots.size());  // (mono, is_resume)
  for (std::size_t r = 0; r < e.rows(); ++r) {
    const std::int32_t b = out.event_boot[r];
    if (b < 0 || !e.column(event_col::mono_ns).is_valid(r)) continue;
    const auto kind = static_cast<EventKind>(e.column(event_col::kind).get_int(r));
    if (kind == EventKind::suspend || kind == EventKind::resume)
      power[static_cast<std::size_t>(b)].emplace_back(e.column(event_col::mono_ns).get_int(r), kind == EventKind::resume);
  }
  for (std::size_t b = 0; b < out.boots.size(); ++b) {
    Boot& boot = out.boots[b];
    if (boot.source != BootSource::kAnchors || boot.anchors.empty()) continue;
    auto& p = power[b];
    std::sort(p.begin(), p.end());
    // A cycle: the latest suspend mono before the first resume mono after it.
    std::vector<MonoCycle> cycles;
    TimeNs entry = kNoTime;
    for (const auto& [mono, resume] : p) {
      if (!resume) entry = mono;
      else if (entry != kNoTime) {
        cycles.push_back({entry, mono});
        entry = kNoTime;
      }
    }
    boot.epochs = build_epochs(boot.anchors, cycles);
  }
}

}  // namespace gpucost::align_detail
