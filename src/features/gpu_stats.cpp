// GPU sample statistics: counts, coverage, utilization, power and energy, memory, PCIe traffic.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "features/compute.hpp"

namespace gpucost::features {

// ---- shared helpers ----

std::optional<FeatureValue> need_samples(const FeatureContext& c, int gpu) {
  if (c.rows(-1).empty()) return null_because("no GPU samples (nvidia-smi dmon or --query-gpu)");
  if (gpu >= 0 && c.rows(gpu).empty()) return null_because(fmt::format("no GPU samples of GPU {}", gpu));
  return std::nullopt;
}

std::optional<FeatureValue> need_metric(const FeatureContext& c, int gpu, GpuMetric m) {
  if (auto n = need_samples(c, gpu)) return n;
  if (c.stats(gpu, m).n == 0)
    return null_because(gpu < 0 ? fmt::format("no GPU sample reports {}", gpu_metric_name(m))
                                : fmt::format("no sample of GPU {} reports {}", gpu, gpu_metric_name(m)));
  return std::nullopt;
}

std::string not_reported(int gpu, std::string_view what) {
  return gpu < 0 ? fmt::format("no GPU sample reports {}", what) : fmt::format("no sample of GPU {} reports {}", gpu, what);
}

std::string never_hot(const FeatureContext& c, int gpu) {
  return gpu < 0 ? fmt::format("no GPU sample above {:g} °C", c.options.temp_threshold_c)
                 : fmt::format("no sample of GPU {} above {:g} °C", gpu, c.options.temp_threshold_c);
}

std::string rows_evidence(const FeatureContext& c, int, std::size_t n, std::uint32_t first_row, std::string_view what) {
  if (n == 0) return fmt::format("0 {}", what);
  return fmt::format("{} {}; first {}", n, what, c.sample_where(first_row));
}

std::string events_evidence(const FeatureContext& c, std::size_t n, std::uint32_t first_row, std::string_view what,
                            LogSource from) {
  if (n == 0) {
    std::size_t logs = 0;
    const FormatTrait family = from == LogSource::kKernel ? kTraitKernelLog : kTraitServiceLog;
    for (const auto& f : c.timeline.files) logs += format_has(f.format, family);
    return fmt::format("0 {} in {} {} files", what, logs, from == LogSource::kKernel ? "kernel/system log" : "syslog/journal");
  }
  return fmt::format("{} {}; first {}", n, what, c.event_where(first_row));
}

std::optional<FeatureValue> need_source(const FeatureContext& c, LogSource s) {
  if (!c.has(s)) return null_because(std::string(missing_reason(s)));
  return std::nullopt;
}

LogSource source_of(EventKind k) noexcept {
  switch (k) {
    case EventKind::container_create:
    case EventKind::container_start:
    case EventKind::container_stop:
    case EventKind::service_failed:
    case EventKind::service_restart:
    case EventKind::cron: return LogSource::kService;
    default: return LogSource::kKernel;
  }
}

double rate_hours(const FeatureContext& c, std::string* basis) {
  if (c.host_sampled_s() > 0) {
    if (basis) *basis = fmt::format("per {:.4g} h of host gpu_sampled_s", c.host_sampled_s() / 3600);
    return c.host_sampled_s() / 3600.0;
  }
  const double h = log_uptime_s(c) / 3600.0;
  if (h > 0 && basis) *basis = fmt::format("per {:.4g} h of log uptime (no GPU samples)", h);
  return h > 0 ? h : 0;
}

std::pair<TimeNs, TimeNs> rate_window(const FeatureContext& c) noexcept {
  if (!c.host_coverage.empty()) return {c.host_coverage.front().first, c.host_coverage.back().second};
  return {c.window_begin, c.window_end == kNoTime ? kNoTime : c.window_end + 1};  // the last event is inside
}

bool in_rate_window(const FeatureContext& c, std::uint32_t row) noexcept {
  if (!c.event_placed(row)) return false;
  const auto [a, b] = rate_window(c);
  const TimeNs t = c.event_time(row);
  return a != kNoTime && t >= a && t < b;
}

std::vector<std::size_t> scope_slots(const FeatureContext& c, int gpu) {
  std::vector<std::size_t> slots;
  if (gpu < 0) {
    for (std::size_t k = 0; k < c.gpus.size(); ++k) slots.push_back(k);
  } else if (int k = c.gpu_slot(gpu); k >= 0) {
    slots.push_back(static_cast<std::size_t>(k));
  }
  return slots;
}

FeatureValue metric_mean(const FeatureContext& c, int gpu, GpuMetric m) {
  if (auto n = need_metric(c, gpu, m)) return *n;
  const auto& st = c.stats(gpu, m);
  return value(st.mean(), rows_evidence(c, gpu, st.n, st.first_row));
}

FeatureValue metric_max(const FeatureContext& c, int gpu, GpuMetric m) {
  if (auto n = need_metric(c, gpu, m)) return *n;
  const auto& st = c.stats(gpu, m);
  return value(st.max, rows_evidence(c, gpu, st.n, st.first_row));
}

FeatureValue counter_increase(const FeatureContext& c, int gpu, GpuMetric m) {
  if (auto n = need_metric(c, gpu, m)) return *n;
  const ColumnReader col(c.metric(m));
  double inc = 0;
  std::size_t resets = 0;
  for (auto k : scope_slots(c, gpu)) {
    bool have = false;
    double prev = 0;
    for (auto r : c.gpu_rows[k]) {
      if (!col.is_valid(r)) continue;
      const double v = col.get_float(r);
      if (have) {
        if (v >= prev) {
          inc += v - prev;
        } else {  // the counter restarted (driver reload, reboot): it counted v since
          inc += v;
          ++resets;
        }
      }
      prev = v;
      have = true;
    }
  }
  const auto& st = c.stats(gpu, m);
  return value(inc, rows_evidence(c, gpu, st.n, st.first_row) + fmt::format("; {} counter resets", resets));
}

FeatureValue event_count(const FeatureContext& c, int gpu, EventKind k) {
  if (auto n = need_source(c, source_of(k))) return *n;
  std::size_t count = 0;
  std::uint32_t first = 0;
  for (auto r : c.events_by_kind[static_cast<std::size_t>(k)]) {
    if (gpu >= 0 && c.event_gpu[r] != gpu) continue;
    c.count_event(r, count, first);
  }
  return value(static_cast<double>(count),
               events_evidence(c, count, first, fmt::format("{} events", event_kind_name(k)), source_of(k)));
}

// ---- sample counts and coverage ----

FeatureValue gpu_samples(const FeatureContext& c, int gpu) {
  if (gpu < 0 && c.rows(-1).empty() && c.has_sample_format())
    return value(0, "0 placed rows in the dmon/--query-gpu files");
  if (auto n = need_samples(c, gpu)) return *n;
  const auto& rows = c.rows(gpu);
  return value(static_cast<double>(rows.size()), rows_evidence(c, gpu, rows.size(), rows.front()));
}

FeatureValue gpu_sampled_s(const FeatureContext& c, int gpu) {
  if (auto n = need_samples(c, gpu)) return *n;
  const auto& rows = c.rows(gpu);
  if (gpu < 0)
    return value(c.host_sampled_s(), rows_evidence(c, gpu, rows.size(), rows.front()) +
                                         fmt::format("; union of {} covered stretches", c.host_coverage.size()));
  TimeNs sum = 0;
  for (auto r : rows) sum += c.sample_interval(r);
  return value(seconds(sum), rows_evidence(c, gpu, rows.size(), rows.front()));
}

FeatureValue gpu_sample_gap_s(const FeatureContext& c, int gpu) {
  if (auto n = need_samples(c, gpu)) return *n;
  const auto& rows = c.rows(gpu);
  TimeNs span = 0, covered = 0;
  std::size_t gaps = 0;
  if (gpu < 0) {
    if (!c.host_coverage.empty()) {
      span = c.host_coverage.back().second - c.host_coverage.front().first;
      for (const auto& [a, b] : c.host_coverage) covered += b - a;
      gaps = c.host_coverage.size() - 1;
    }
  } else {
    TimeNs begin = kNoTime, cur_a = kNoTime, cur_b = kNoTime, end = kNoTime;
    for (auto r : rows) {
      const TimeNs a = c.sample_time(r), b = a + c.sample_interval(r);
      if (begin == kNoTime) begin = a;
      end = std::max(end, b);
      if (cur_a != kNoTime && a <= cur_b) {
        cur_b = std::max(cur_b, b);
        continue;
      }
      if (cur_a != kNoTime) {
        covered += cur_b - cur_a;
        ++gaps;
      }
      cur_a = a;
      cur_b = b;
    }
    covered += cur_b - cur_a;
    span = end - begin;
  }
  return value(seconds(std::max<TimeNs>(0, span - covered)),
               rows_evidence(c, gpu, rows.size(), rows.front()) + fmt::format("; {} gaps", gaps));
}

FeatureValue gpu_count(const FeatureContext& c, int) {
  if (c.gpus.empty() && c.timeline.devices.empty())
    return null_because("no GPU samples, no nvidia-smi -q or --query-gpu device records, no kernel message naming one GPU");
  std::size_t n = c.gpus.size();
  std::size_t unindexed = 0;
  for (const auto& d : c.timeline.devices)
    if (!d.index) ++unindexed;
  if (n == 0) n = unindexed;
  if (c.gpu_named_by_kernel) return value(1, "no samples or device records; NVIDIA kernel messages name one GPU");
  return value(static_cast<double>(n), fmt::format("{} GPU indices in samples or devices; {} device records",
                                                   c.gpus.size(), c.timeline.devices.size()));
}

// ---- utilization ----

FeatureValue gpu_idle_fraction(const FeatureContext& c, int gpu) {
  if (auto n = need_metric(c, gpu, GpuMetric::sm_pct)) return *n;
  const ColumnReader sm(c.metric(GpuMetric::sm_pct));
  std::size_t idle = 0, total = 0;
  for (auto r : c.rows(gpu))
    if (sm.is_valid(r)) {
      ++total;
      if (sm.get_float(r) <= c.options.idle_threshold_pct) ++idle;
    }
  const auto& st = c.stats(gpu, GpuMetric::sm_pct);
  return value(static_cast<double>(idle) / static_cast<double>(total),
               fmt::format("{} of {} rows with sm <= {:g} %; first {}", idle, total, c.options.idle_threshold_pct,
                           c.sample_where(st.first_row)));
}

namespace {
FeatureValue busy_or_idle_s(const FeatureContext& c, int gpu, bool busy) {
  if (auto n = need_metric(c, gpu, GpuMetric::sm_pct)) return *n;
  struct Sum {
    TimeNs sum = 0;
    std::size_t n = 0;
  };
  const auto [sum, n] = c.memo<Sum>(busy ? kMemoBusyTime : kMemoIdleTime, gpu, [&] {
    const ColumnReader sm(c.metric(GpuMetric::sm_pct));
    Sum out;
    for (auto r : c.rows(gpu))
      if (sm.is_valid(r) && (sm.get_float(r) > c.options.idle_threshold_pct) == busy) {
        out.sum += c.sample_interval(r);
        ++out.n;
      }
    return out;
  });
  const auto& st = c.stats(gpu, GpuMetric::sm_pct);
  return value(seconds(sum), fmt::format("{} {} rows (sm {} {:g} %); first sm row {}", n, busy ? "busy" : "idle",
                                         busy ? ">" : "<=", c.options.idle_threshold_pct, c.sample_where(st.first_row)));
}

RunSummary idle_runs(const FeatureContext& c, int gpu) {
  return c.memo<RunSummary>(kMemoIdleRuns, gpu, [&] {
    RunSummary rs;
    const double thr = c.options.idle_threshold_pct;
    for (auto k : scope_slots(c, gpu))
      scan_runs(c, k, GpuMetric::sm_pct, kIdleEpisodeMinS, [thr](double v) { return v <= thr; }, rs);
    return rs;
  });
}
}  // namespace

FeatureValue gpu_busy_s(const FeatureContext& c, int gpu) { return busy_or_idle_s(c, gpu, true); }

FeatureValue gpu_busy_clock_ratio(const FeatureContext& c, int gpu) {
  if (auto n = need_metric(c, gpu, GpuMetric::pclk_mhz)) return *n;
  if (auto n = need_metric(c, gpu, GpuMetric::sm_pct)) return *n;
  const ColumnReader sm(c.metric(GpuMetric::sm_pct)), pclk(c.metric(GpuMetric::pclk_mhz));
  // Each busy row against its own GPU's highest clock in these logs, so that GPUs of different
  // models pool for the host.
  double sum = 0, peak_low = 0, peak_high = 0;
  std::size_t n = 0;
  std::uint32_t first = 0;
  for (auto k : scope_slots(c, gpu)) {
    const double peak = c.stats(c.gpus[k], GpuMetric::pclk_mhz).max;
    if (!(peak > 0)) continue;
    peak_low = n == 0 ? peak : std::min(peak_low, peak);
    peak_high = std::max(peak_high, peak);
    for (auto r : c.gpu_rows[k])
      if (sm.is_valid(r) && pclk.is_valid(r) && sm.get_float(r) > c.options.idle_threshold_pct) {
        if (n++ == 0) first = r;
        sum += pclk.get_float(r) / peak;
      }
  }
  if (n == 0) return null_because(fmt::format("no busy rows (sm > {:g} %) with a graphics clock", c.options.idle_threshold_pct));
  return value(sum / static_cast<double>(n),
               rows_evidence(c, gpu, n, first, "busy rows") +
                   (peak_low == peak_high ? fmt::format("; highest clock {:g} MHz", peak_high)
                                          : fmt::format("; highest clocks {:g}-{:g} MHz", peak_low, peak_high)));
}

namespace {
// The mean of a metric over the busy rows (sm > --idle-threshold) that report it.
FeatureValue busy_mean(const FeatureContext& c, int gpu, GpuMetric m) {
  if (auto n = need_metric(c, gpu, GpuMetric::sm_pct)) return *n;
  if (auto n = need_metric(c, gpu, m)) return *n;
  const ColumnReader sm(c.metric(GpuMetric::sm_pct)), v(c.metric(m));
  double sum = 0;
  std::size_t n = 0;
  std::uint32_t first = 0;
  for (auto r : c.rows(gpu))
    if (sm.is_valid(r) && v.is_valid(r) && sm.get_float(r) > c.options.idle_threshold_pct) {
      if (n++ == 0) first = r;
      sum += v.get_float(r);
    }
  if (n == 0) return null_because(fmt::format("no busy rows (sm > {:g} %)", c.options.idle_threshold_pct));
  return value(sum / static_cast<double>(n), rows_evidence(c, gpu, n, first, "busy rows"));
}
}  // namespace

FeatureValue gpu_util_busy_mean_pct(const FeatureContext& c, int gpu) { return busy_mean(c, gpu, GpuMetric::sm_pct); }

FeatureValue gpu_mem_util_busy_mean_pct(const FeatureContext& c, int gpu) {
  return busy_mean(c, gpu, GpuMetric::mem_pct);
}
FeatureValue gpu_idle_s(const FeatureContext& c, int gpu) { return busy_or_idle_s(c, gpu, false); }

FeatureValue gpu_idle_episodes(const FeatureContext& c, int gpu) {
  if (auto n = need_metric(c, gpu, GpuMetric::sm_pct)) return *n;
  const RunSummary rs = idle_runs(c, gpu);
  return value(static_cast<double>(rs.long_runs),
               fmt::format("{} idle runs, {} lasting >= {:g} s", rs.runs, rs.long_runs, kIdleEpisodeMinS) +
                   (rs.rows ? "; first idle row " + c.sample_where(rs.first_row) : std::string()));
}

FeatureValue gpu_longest_idle_s(const FeatureContext& c, int gpu) {
  if (auto n = need_metric(c, gpu, GpuMetric::sm_pct)) return *n;
  const RunSummary rs = idle_runs(c, gpu);
  return value(rs.longest_s, fmt::format("{} idle runs", rs.runs) +
                                 (rs.rows ? "; first idle row " + c.sample_where(rs.first_row) : std::string()));
}

// ---- power and energy ----

FeatureValue gpu_energy_kwh(const FeatureContext& c, int gpu) {
  if (auto n = need_metric(c, gpu, GpuMetric::power_w)) return *n;
  const auto& st = c.stats(gpu, GpuMetric::power_w);
  return value(st.weighted / 3.6e6, rows_evidence(c, gpu, st.n, st.first_row) +
                                        fmt::format("; {:.6g} J over {:.6g} s", st.weighted, st.covered_s));
}

namespace {
struct IdlePower {
  std::size_t n = 0;
  double sum_w = 0, joules = 0;
  std::uint32_t first = 0;
};
IdlePower power_where_idle(const FeatureContext& c, int gpu, bool idle) {
  return c.memo<IdlePower>(idle ? kMemoIdlePower : kMemoBusyPower, gpu, [&] {
    const ColumnReader pw(c.metric(GpuMetric::power_w));
    const ColumnReader sm(c.metric(GpuMetric::sm_pct));
    IdlePower out;
    for (auto r : c.rows(gpu)) {
      if (!pw.is_valid(r) || !sm.is_valid(r) || (sm.get_float(r) <= c.options.idle_threshold_pct) != idle) continue;
      if (out.n++ == 0) out.first = r;
      out.sum_w += pw.get_float(r);
      out.joules += pw.get_float(r) * seconds(c.sample_interval(r));
    }
    return out;
  });
}
std::optional<FeatureValue> need_power_and_sm(const FeatureContext& c, int gpu) {
  if (auto n = need_metric(c, gpu, GpuMetric::power_w)) return n;
  if (auto n = need_metric(c, gpu, GpuMetric::sm_pct)) return n;
  return std::nullopt;
}
}  // namespace

FeatureValue gpu_idle_energy_kwh(const FeatureContext& c, int gpu) {
  if (auto n = need_power_and_sm(c, gpu)) return *n;
  const IdlePower ip = power_where_idle(c, gpu, true);
  return value(ip.joules / 3.6e6, rows_evidence(c, gpu, ip.n, ip.first, "idle rows with power"));
}

FeatureValue gpu_idle_power_mean_w(const FeatureContext& c, int gpu) {
  if (auto n = need_power_and_sm(c, gpu)) return *n;
  const IdlePower ip = power_where_idle(c, gpu, true);
  if (ip.n == 0) return null_because("no idle samples with power");
  return value(ip.sum_w / static_cast<double>(ip.n), rows_evidence(c, gpu, ip.n, ip.first, "idle rows with power"));
}

FeatureValue gpu_busy_power_mean_w(const FeatureContext& c, int gpu) {
  if (auto n = need_power_and_sm(c, gpu)) return *n;
  const IdlePower ip = power_where_idle(c, gpu, false);
  if (ip.n == 0) return null_because("no busy samples with power");
  return value(ip.sum_w / static_cast<double>(ip.n), rows_evidence(c, gpu, ip.n, ip.first, "busy rows with power"));
}

FeatureValue gpu_power_limit_share(const FeatureContext& c, int gpu) {
  if (auto n = need_metric(c, gpu, GpuMetric::power_w)) return *n;
  const ColumnReader pw(c.metric(GpuMetric::power_w));
  const ColumnReader lim(c.metric(GpuMetric::power_limit_w));
  double sum = 0;
  std::size_t n = 0;
  std::uint32_t first = 0;
  for (auto k : scope_slots(c, gpu)) {
    const GpuDevice* dev = c.gpu_device[k];
    const double dev_limit = dev && dev->power_limit_w ? *dev->power_limit_w : 0.0;
    for (auto r : c.gpu_rows[k]) {
      if (!pw.is_valid(r)) continue;
      const double l = lim.is_valid(r) ? lim.get_float(r) : dev_limit;
      if (l <= 0) continue;
      if (n++ == 0) first = r;
      sum += pw.get_float(r) / l;
    }
  }
  if (n == 0) return null_because("no power limit (query-gpu power.limit or nvidia-smi -q) for the sampled GPUs");
  return value(sum / static_cast<double>(n), rows_evidence(c, gpu, n, first, "rows with power and a limit"));
}

// ---- memory and PCIe ----

FeatureValue gpu_fb_max_fraction(const FeatureContext& c, int gpu) {
  if (auto n = need_metric(c, gpu, GpuMetric::fb_mb)) return *n;
  const ColumnReader fb(c.metric(GpuMetric::fb_mb));
  const ColumnReader tot(c.metric(GpuMetric::mem_total_mb));
  double best = -1;
  std::size_t n = 0;
  std::uint32_t at = 0;
  for (auto k : scope_slots(c, gpu)) {
    const GpuDevice* dev = c.gpu_device[k];
    const double dev_total = dev && dev->memory_total_mib ? *dev->memory_total_mib : 0.0;
    for (auto r : c.gpu_rows[k]) {
      if (!fb.is_valid(r)) continue;
      const double t = tot.is_valid(r) ? tot.get_float(r) : dev_total;
      if (t <= 0) continue;
      ++n;
      if (fb.get_float(r) / t > best) {
        best = fb.get_float(r) / t;
        at = r;
      }
    }
  }
  if (n == 0) return null_because("no total memory (query-gpu memory.total or nvidia-smi -q) for the sampled GPUs");
  return value(best, fmt::format("{} rows with fb and a total; max at {}", n, c.sample_where(at)));
}

}  // namespace gpucost::features
