// Power and lifecycle events: AC switches, battery time, lid, suspend/resume, boots, and the GPU
// time they cost (F004 power_event_loss_fraction).
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "features/compute.hpp"

namespace gpucost::features {

namespace {

constexpr TimeNs kAcMergeNs = 10 * kNsPerSec;
constexpr TimeNs kInitialStateNs = 60 * kNsPerSec;
constexpr TimeNs kLidMergeNs = 10 * kNsPerSec;

const std::vector<std::uint32_t>& kind_rows(const FeatureContext& c, EventKind k) {
  return c.events_by_kind[static_cast<std::size_t>(k)];
}

bool boot_within_before(const FeatureContext& c, TimeNs ts, TimeNs window) {
  auto it = std::lower_bound(c.boot_ts.begin(), c.boot_ts.end(), ts - window);
  return it != c.boot_ts.end() && *it <= ts;
}

// Rows of the host (all GPUs) in time order.
const RowList& host_rows(const FeatureContext& c) { return c.rows(-1); }

bool row_busy(const FeatureContext& c, std::uint32_t r) {
  const ColumnReader sm(c.metric(GpuMetric::sm_pct));
  return sm.is_valid(r) && sm.get_float(r) > c.options.idle_threshold_pct;
}

// Whether the GPU was busy just before t: at the latest sampling instant before t (at most
// kBusyBeforeNs before it), some row has sm above the idle threshold.
bool busy_before(const FeatureContext& c, TimeNs t) {
  const auto& rows = host_rows(c);
  auto it = std::lower_bound(rows.begin(), rows.end(), t, [&](std::uint32_t r, TimeNs v) { return c.sample_time(r) < v; });
  if (it == rows.begin()) return false;
  const TimeNs last = c.sample_time(*(it - 1));
  if (last < t - kBusyBeforeNs) return false;
  for (auto j = it; j != rows.begin() && c.sample_time(*(j - 1)) == last; --j)
    if (row_busy(c, *(j - 1))) return true;
  return false;
}

// Instant of the first busy row at or after t, or kNoTime when none within kRecoveryCapNs.
TimeNs first_busy_from(const FeatureContext& c, TimeNs t) {
  const auto& rows = host_rows(c);
  for (auto it = std::lower_bound(rows.begin(), rows.end(), t,
                                  [&](std::uint32_t r, TimeNs v) { return c.sample_time(r) < v; });
       it != rows.end() && c.sample_time(*it) <= t + kRecoveryCapNs; ++it)
    if (row_busy(c, *it)) return c.sample_time(*it);
  return kNoTime;
}

double recovery_s(const FeatureContext& c, TimeNs t) {
  const TimeNs b = first_busy_from(c, t);
  return seconds(b == kNoTime ? kRecoveryCapNs : std::min(b - t, kRecoveryCapNs));
}

// An unknown bound (kNoTime: no window when nothing was placed) overlaps nothing that can be
// measured; known instants differ by less than int64 holds (years 1970..2200).
TimeNs overlap(TimeNs a, TimeNs b, TimeNs c, TimeNs d) {
  if (a == kNoTime || b == kNoTime || c == kNoTime || d == kNoTime) return 0;
  const TimeNs lo = std::max(a, c), hi = std::min(b, d);
  return hi > lo ? hi - lo : 0;
}

TimeNs suspended_within(const FeatureContext& c, TimeNs a, TimeNs b) {
  TimeNs s = 0;
  for (const auto& iv : c.timeline.suspends)
    if (iv.begin_ns != kNoTime && iv.end_ns != kNoTime) s += overlap(iv.begin_ns, iv.end_ns, a, b);
  return s;
}

bool inside_suspend(const FeatureContext& c, TimeNs t) {
  for (const auto& iv : c.timeline.suspends)
    if (iv.begin_ns != kNoTime && t >= iv.begin_ns && (iv.end_ns == kNoTime || t < iv.end_ns)) return true;
  return false;
}

std::optional<FeatureValue> need_sm(const FeatureContext& c) { return need_metric(c, -1, GpuMetric::sm_pct); }

}  // namespace

std::vector<AcReport> ac_reports(const FeatureContext& c) {
  const auto& on = kind_rows(c, EventKind::ac_online);
  const auto& off = kind_rows(c, EventKind::ac_offline);
  const Column& mono = c.timeline.events.column(event_col::mono_ns);
  std::vector<AcReport> out;
  std::size_t i = 0, j = 0;
  TimeNs prev_ts = kNoTime;
  bool prev_online = false;
  std::optional<bool> state;
  // Merge the two time-ordered lists (rows are in table order, i.e. time order when placed).
  while (true) {
    while (i < on.size() && !c.event_placed(on[i])) ++i;
    while (j < off.size() && !c.event_placed(off[j])) ++j;
    if (i == on.size() && j == off.size()) break;
    bool online;
    if (j == off.size()) online = true;
    else if (i == on.size()) online = false;
    else online = c.event_time(on[i]) < c.event_time(off[j]) || (c.event_time(on[i]) == c.event_time(off[j]) && on[i] < off[j]);
    const std::uint32_t r = online ? on[i++] : off[j++];
    const TimeNs ts = c.event_time(r);
    if (prev_ts != kNoTime && ts - prev_ts <= kAcMergeNs && online == prev_online) {
      prev_ts = ts;  // another copy of the same report (kernel, acpid, upower)
      continue;
    }
    prev_ts = ts;
    prev_online = online;
    AcReport rep{ts, online, false, r};
    const bool initial =
        boot_within_before(c, ts, kInitialStateNs) || (mono.is_valid(r) && mono.get_int(r) < kInitialStateNs);
    if (!initial && (!state || *state != online)) rep.counted = true;
    state = online;
    out.push_back(rep);
  }
  return out;
}

FeatureValue ac_switches(const FeatureContext& c, int) {
  if (auto n = need_source(c, LogSource::kKernel)) return *n;
  const auto reps = ac_reports(c);
  std::size_t n = 0;
  for (const auto& r : reps) n += r.counted;
  const std::size_t events = kind_rows(c, EventKind::ac_online).size() + kind_rows(c, EventKind::ac_offline).size();
  if (reps.empty()) return value(0, fmt::format("0 placed AC reports ({} AC events)", events));
  return value(static_cast<double>(n), fmt::format("{} AC reports from {} events; first {}", reps.size(), events,
                                                   c.event_where(reps.front().row)));
}

FeatureValue ac_switches_per_hour(const FeatureContext& c, int) {
  if (auto n = need_source(c, LogSource::kKernel)) return *n;
  if (c.host_sampled_s() <= 0) return null_because("no GPU samples (nvidia-smi dmon or --query-gpu)");
  // Only the switches inside the sampled span that the hours measure.
  std::size_t in = 0, all = 0;
  for (const auto& r : ac_reports(c))
    if (r.counted) ++all, in += in_rate_window(c, r.row);
  return value(static_cast<double>(in) / (c.host_sampled_s() / 3600.0),
               fmt::format("{} of {} AC switches inside the sampled span; per {:.4g} h of host gpu_sampled_s", in, all,
                           c.host_sampled_s() / 3600.0));
}

FeatureValue battery_s(const FeatureContext& c, int) {
  if (auto n = need_source(c, LogSource::kKernel)) return *n;
  const auto reps = ac_reports(c);
  TimeNs sum = 0;
  for (std::size_t k = 0; k < reps.size(); ++k) {
    if (reps[k].online) continue;
    TimeNs end = c.window_end;
    for (std::size_t m = k + 1; m < reps.size(); ++m)
      if (reps[m].online) {
        end = reps[m].ts;
        break;
      }
    // Consecutive offline reports: count from the first only.
    if (k > 0 && !reps[k - 1].online) continue;
    sum += overlap(reps[k].ts, end, c.window_begin, c.window_end);
  }
  return value(seconds(sum), reps.empty() ? std::string("no AC reports: assumed on AC power")
                                          : fmt::format("{} AC reports; first {}", reps.size(), c.event_where(reps.front().row)));
}

namespace {

// Busy rows (sm above the idle threshold) on battery against on AC power: the mean of a metric
// on each side, as battery / AC. Battery time runs from an AC offline report to the next online
// one (as battery_s); before the first report the machine counts as on AC only when that first
// report is an unplug.
FeatureValue battery_ratio(const FeatureContext& c, int gpu, GpuMetric m) {
  if (auto n = need_source(c, LogSource::kKernel)) return *n;
  if (auto n = need_metric(c, gpu, m)) return *n;
  if (auto n = need_metric(c, gpu, GpuMetric::sm_pct)) return *n;
  const auto reps = ac_reports(c);
  if (reps.empty()) return null_because("no AC adapter reports: not a laptop, or no battery time to compare");
  std::vector<std::pair<TimeNs, TimeNs>> battery;
  for (std::size_t k = 0; k < reps.size(); ++k) {
    if (reps[k].online || (k > 0 && !reps[k - 1].online)) continue;
    TimeNs end = kNoTime;
    for (std::size_t j = k + 1; j < reps.size() && end == kNoTime; ++j)
      if (reps[j].online) end = reps[j].ts;
    battery.emplace_back(reps[k].ts, end == kNoTime ? std::numeric_limits<TimeNs>::max() : end);
  }
  // Before the first report the state is unknown unless that report is an unplug (then: AC).
  const TimeNs known_from = reps.front().online ? reps.front().ts : std::numeric_limits<TimeNs>::min();
  const ColumnReader v(c.metric(m)), sm(c.metric(GpuMetric::sm_pct));
  double bat_sum = 0, ac_sum = 0;
  std::size_t bat_n = 0, ac_n = 0;
  // The spans are in time order and do not overlap (each ends at an online report before the
  // next one starts), so only the last one that starts at or before t can hold it: `after`
  // counts the spans that start at or before t. Rows come in time order, so it only moves on
  // (a row earlier than the one before, which no placement makes, is looked up afresh).
  std::size_t after = 0;
  for (auto r : c.rows(gpu)) {
    if (!v.is_valid(r) || !sm.is_valid(r) || sm.get_float(r) <= c.options.idle_threshold_pct) continue;
    const TimeNs t = c.sample_time(r);
    if (t < known_from) continue;
    if (after > 0 && t < battery[after - 1].first)
      after = static_cast<std::size_t>(std::upper_bound(battery.begin(), battery.end(), t,
                                                        [](TimeNs x, const auto& b) { return x < b.first; }) -
                                       battery.begin());
    while (after < battery.size() && battery[after].first <= t) ++after;
    const bool on_battery = after > 0 && t < battery[after - 1].second;
    (on_battery ? bat_sum : ac_sum) += v.get_float(r);
    ++(on_battery ? bat_n : ac_n);
  }
  const auto name = gpu_metric_name(m);
  if (bat_n == 0) return null_because(fmt::format("no busy row on battery reports {}", name));
  if (ac_n == 0) return null_because(fmt::format("no busy row on AC power reports {}", name));
  const double bat = bat_sum / static_cast<double>(bat_n), ac = ac_sum / static_cast<double>(ac_n);
  if (ac <= 0) return null_because(fmt::format("{} is 0 in every busy row on AC power", name));
  return value(bat / ac, fmt::format("busy rows: {} on battery, mean {} {:.4g}; {} on AC, mean {:.4g}", bat_n, name, bat,
                                     ac_n, ac));
}

}  // namespace

FeatureValue battery_busy_power_ratio(const FeatureContext& c, int gpu) { return battery_ratio(c, gpu, GpuMetric::power_w); }
FeatureValue battery_busy_clock_ratio(const FeatureContext& c, int gpu) { return battery_ratio(c, gpu, GpuMetric::pclk_mhz); }

FeatureValue lid_closes(const FeatureContext& c, int) {
  if (auto n = need_source(c, LogSource::kKernel)) return *n;
  std::size_t n = 0;
  TimeNs prev = kNoTime;
  const auto& rows = kind_rows(c, EventKind::lid_close);
  for (auto r : rows) {
    if (!c.event_placed(r)) {
      ++n;  // cannot be merged with anything
      continue;
    }
    const TimeNs ts = c.event_time(r);
    if (prev == kNoTime || ts - prev > kLidMergeNs) ++n;
    prev = ts;
  }
  return value(static_cast<double>(n), events_evidence(c, rows.size(), rows.empty() ? 0 : rows.front(), "lid_close events"));
}

FeatureValue laptop_signals(const FeatureContext& c, int) {
  if (auto n = need_source(c, LogSource::kKernel)) return *n;
  for (auto k : {EventKind::ac_online, EventKind::ac_offline, EventKind::lid_close, EventKind::lid_open})
    if (!kind_rows(c, k).empty())
      return value(1, fmt::format("{} event at {}", event_kind_name(k), c.event_where(kind_rows(c, k).front())));
  return value(0, "no AC or lid events");
}

FeatureValue suspends(const FeatureContext& c, int) {
  if (auto n = need_source(c, LogSource::kKernel)) return *n;
  const auto& rows = kind_rows(c, EventKind::suspend);
  return value(static_cast<double>(c.timeline.suspends.size()),
               fmt::format("{} cycles from ", c.timeline.suspends.size()) +
                   events_evidence(c, rows.size(), rows.empty() ? 0 : rows.front(), "suspend events"));
}

FeatureValue suspended_s(const FeatureContext& c, int) {
  if (auto n = need_source(c, LogSource::kKernel)) return *n;
  TimeNs sum = 0;
  std::size_t closed = 0;
  for (const auto& iv : c.timeline.suspends)
    if (iv.begin_ns != kNoTime && iv.end_ns != kNoTime) {
      sum += iv.end_ns - iv.begin_ns;
      ++closed;
    }
  const auto& rows = kind_rows(c, EventKind::suspend);
  return value(seconds(sum), fmt::format("{} of {} cycles with both ends; ", closed, c.timeline.suspends.size()) +
                                 events_evidence(c, rows.size(), rows.empty() ? 0 : rows.front(), "suspend events"));
}

FeatureValue resume_recovery_s_mean(const FeatureContext& c, int) {
  if (auto n = need_source(c, LogSource::kKernel)) return *n;
  if (auto n = need_sm(c)) return *n;
  double sum = 0;
  std::size_t n = 0;
  for (const auto& iv : c.timeline.suspends) {
    if (iv.begin_ns == kNoTime || iv.end_ns == kNoTime || !busy_before(c, iv.begin_ns)) continue;
    sum += recovery_s(c, iv.end_ns);
    ++n;
  }
  if (n == 0) return null_because("no suspend interrupted a busy GPU");
  return value(sum / static_cast<double>(n), fmt::format("{} of {} suspends interrupted a busy GPU", n, c.timeline.suspends.size()));
}

FeatureValue ac_switch_recovery_s_mean(const FeatureContext& c, int) {
  if (auto n = need_source(c, LogSource::kKernel)) return *n;
  if (auto n = need_sm(c)) return *n;
  double sum = 0;
  std::size_t n = 0, switches = 0;
  std::uint32_t first = 0;
  for (const auto& rep : ac_reports(c)) {
    if (!rep.counted) continue;
    ++switches;
    if (!busy_before(c, rep.ts)) continue;
    if (n++ == 0) first = rep.row;
    sum += recovery_s(c, rep.ts);
  }
  if (n == 0) return null_because("no AC switch interrupted a busy GPU");
  return value(sum / static_cast<double>(n),
               fmt::format("{} of {} AC switches interrupted a busy GPU; first {}", n, switches, c.event_where(first)));
}

namespace {

struct PowerLoss {
  TimeNs suspended = 0;  // suspended time inside the sampled span
  TimeNs gaps = 0;       // sample-less time after interrupting AC switches and resumes
  std::size_t cycles = 0, interrupting = 0;
};

PowerLoss power_loss(const FeatureContext& c) {
  PowerLoss pl;
  if (c.host_coverage.empty()) return pl;  // rows of zero length cover nothing
  const TimeNs a = c.host_coverage.front().first, b = c.host_coverage.back().second;
  auto lost_after = [&](TimeNs e, TimeNs ref) {
    if (e < a || e >= b || !busy_before(c, ref)) return;
    ++pl.interrupting;
    const TimeNs busy = first_busy_from(c, e);
    TimeNs stop = std::min({e + kRecoveryCapNs, b, busy == kNoTime ? e + kRecoveryCapNs : busy});
    if (stop <= e) return;
    pl.gaps += std::max<TimeNs>(0, c.uncovered_ns(e, stop) - suspended_within(c, e, stop));
  };
  for (const auto& iv : c.timeline.suspends) {
    if (iv.begin_ns == kNoTime || iv.end_ns == kNoTime) continue;
    const TimeNs in = overlap(iv.begin_ns, iv.end_ns, a, b);
    if (in > 0) ++pl.cycles;
    pl.suspended += in;
    lost_after(iv.end_ns, iv.begin_ns);
  }
  for (const auto& rep : ac_reports(c))
    if (rep.counted && !inside_suspend(c, rep.ts)) lost_after(rep.ts, rep.ts);
  return pl;
}

std::string loss_evidence(const FeatureContext& c, const PowerLoss& pl) {
  return fmt::format("{:.6g} s suspended in the sampled span ({} cycles); {:.6g} s without samples after {} AC "
                     "switches/resumes that interrupted a busy GPU; {:.6g} s sampled",
                     seconds(pl.suspended), pl.cycles, seconds(pl.gaps), pl.interrupting, c.host_sampled_s());
}

}  // namespace

FeatureValue power_event_loss_s(const FeatureContext& c, int) {
  if (auto n = need_source(c, LogSource::kKernel)) return *n;
  if (auto n = need_samples(c, -1)) return *n;
  const PowerLoss pl = power_loss(c);
  return value(seconds(pl.suspended + pl.gaps), loss_evidence(c, pl));
}

FeatureValue power_event_loss_fraction(const FeatureContext& c, int) {
  if (auto n = need_source(c, LogSource::kKernel)) return *n;
  if (auto n = need_samples(c, -1)) return *n;
  const PowerLoss pl = power_loss(c);
  const double lost = seconds(pl.suspended + pl.gaps);
  return value(lost / (c.host_sampled_s() + lost), loss_evidence(c, pl));
}

// ---- boots ----

std::vector<BootRecord> boot_clusters(const FeatureContext& c, std::size_t* unplaced) {
  std::vector<BootRecord> out;
  TimeNs prev = kNoTime;
  for (auto r : kind_rows(c, EventKind::boot)) {
    if (!c.event_placed(r)) {
      if (unplaced) ++*unplaced;
      continue;
    }
    const TimeNs ts = c.event_time(r);
    if (prev == kNoTime || ts - prev > kBootClusterNs) out.push_back({ts, r, kNoTime});
    prev = ts;
  }
  for (auto& b : out) b.previous_record = last_record_before(c, b.start);
  return out;
}

TimeNs last_record_before(const FeatureContext& c, TimeNs t) {
  TimeNs best = kNoTime;
  const Table& e = c.timeline.events;
  // Placed events come first, in time order: binary search the placed prefix.
  std::size_t lo = 0, hi = e.rows();
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    if (e.ts().is_valid(mid) && e.ts().get_int(mid) < t) lo = mid + 1; else hi = mid;
  }
  if (lo > 0) best = e.ts().get_int(lo - 1);
  auto it = std::lower_bound(c.host_coverage.begin(), c.host_coverage.end(), t,
                             [](const std::pair<TimeNs, TimeNs>& iv, TimeNs v) { return iv.first < v; });
  if (it != c.host_coverage.begin()) best = std::max(best, std::min((it - 1)->second, t));
  // A boot's last line of any kind (recognized or not) is where its logs end.
  const auto& ends = c.timeline.log_ends;
  if (auto e_it = std::lower_bound(ends.begin(), ends.end(), t); e_it != ends.begin()) best = std::max(best, *(e_it - 1));
  return best;
}

double log_uptime_s(const FeatureContext& c, std::string* evidence) {
  if (c.window_begin == kNoTime) return 0;
  TimeNs gaps = 0;
  std::size_t reboots = 0;
  for (const auto& b : boot_clusters(c))
    if (b.previous_record != kNoTime) {
      gaps += b.start - b.previous_record;
      ++reboots;
    }
  if (evidence)
    *evidence = fmt::format("{} .. {} minus {} reboot gaps ({:.6g} s)", format_rfc3339(c.window_begin, 3),
                            format_rfc3339(c.window_end, 3), reboots, seconds(gaps));
  return seconds(c.window_end - c.window_begin - gaps);
}

FeatureValue boots(const FeatureContext& c, int) {
  if (auto n = need_source(c, LogSource::kKernel)) return *n;
  std::size_t unplaced = 0;
  const auto b = boot_clusters(c, &unplaced);
  return value(static_cast<double>(b.size()),
               (b.empty() ? std::string("0 placed boot events") : fmt::format("{} boots; first {}", b.size(), c.event_where(b.front().row))) +
                   (unplaced ? fmt::format("; {} unplaced boot events ignored", unplaced) : ""));
}

namespace {

// Whether user space logged (a syslog or journal message of a daemon, not the kernel) in
// [from, to): only then could a clean shutdown have been seen. Boots read from kern.log alone
// carry kernel messages only.
bool user_space_logged(const FeatureContext& c, TimeNs from, TimeNs to) {
  const Table& e = c.timeline.events;
  const Column& ident = e.column(event_col::ident);
  const Column& kind = e.column(event_col::kind);
  std::size_t lo = 0, hi = e.rows();
  while (lo < hi) {  // placed events come first, in time order
    const std::size_t mid = (lo + hi) / 2;
    if (e.ts().is_valid(mid) && e.ts().get_int(mid) < from) lo = mid + 1; else hi = mid;
  }
  for (std::size_t r = lo; r < e.rows() && e.ts().is_valid(r) && e.ts().get_int(r) < to; ++r) {
    if (source_of(static_cast<EventKind>(kind.get_int(r))) == LogSource::kService ||
        static_cast<EventKind>(kind.get_int(r)) == EventKind::shutdown)
      return true;
    if (ident.is_valid(r) && ident.get_string(r) != "kernel") return true;
  }
  return false;
}

// The reboots whose previous boot no syslog or journal covers (null reason), or "" when all are.
std::string uncovered_reboots(const FeatureContext& c, const std::vector<BootRecord>& boots) {
  std::size_t reboots = 0, uncovered = 0;
  std::uint32_t first = 0;
  TimeNs prev_start = c.window_begin;
  for (const auto& b : boots) {
    if (b.previous_record != kNoTime) {
      ++reboots;
      if (!user_space_logged(c, prev_start, b.start) && uncovered++ == 0) first = b.row;
    }
    prev_start = b.start;
  }
  if (uncovered == 0) return {};
  return fmt::format("{} of {} reboots follow a boot that no syslog or journal message covers (kernel log only, "
                     "e.g. an older kern.log): its shutdown could not be seen; first reboot {}",
                     uncovered, reboots, c.event_where(first));
}

}  // namespace

FeatureValue unclean_reboots(const FeatureContext& c, int) {
  if (auto n = need_source(c, LogSource::kKernel)) return *n;
  const auto& shut = kind_rows(c, EventKind::shutdown);
  std::size_t reboots = 0, unclean = 0;
  std::uint32_t first = 0;
  const auto boots = boot_clusters(c);
  if (auto why = uncovered_reboots(c, boots); !why.empty()) return null_because(why);
  for (const auto& b : boots) {
    if (b.previous_record == kNoTime) continue;  // the logs begin with this boot
    ++reboots;
    bool clean = false;
    for (auto r : shut)
      if (c.event_placed(r) && c.event_time(r) <= b.previous_record &&
          c.event_time(r) >= b.previous_record - kShutdownBeforeBootNs)
        clean = true;
    if (!clean && unclean++ == 0) first = b.row;
  }
  return value(static_cast<double>(unclean), fmt::format("{} of {} reboots without a shutdown event", unclean, reboots) +
                                                 (unclean ? "; first " + c.event_where(first) : ""));
}

FeatureValue reboot_downtime_s(const FeatureContext& c, int) {
  if (auto n = need_source(c, LogSource::kKernel)) return *n;
  TimeNs sum = 0;
  std::size_t restarts = 0, off = 0;
  const auto boots = boot_clusters(c);
  // Without user space's messages a boot's last record is an early kernel line, not its end.
  if (auto why = uncovered_reboots(c, boots); !why.empty()) return null_because(why);
  for (const auto& b : boots) {
    if (b.previous_record == kNoTime) continue;
    const TimeNs gap = b.start - b.previous_record;
    if (gap > kRestartGapNs) {
      ++off;  // the machine was switched off, not restarting
      continue;
    }
    ++restarts;
    sum += gap;
  }
  return value(seconds(sum), fmt::format("{} restarts; {} longer gaps (machine off) not counted", restarts, off));
}

}  // namespace gpucost::features
