// Heat and throttling: what happens to utilization and clocks when the GPU is hot, thermal
// episodes, violation counters, and the utilization drop after hardware errors.
#include <fmt/format.h>

#include <algorithm>

#include "features/compute.hpp"

namespace gpucost::features {

namespace {

bool hot(const FeatureContext& c, double temp) { return temp > c.options.temp_threshold_c; }

// Mean of `m` over hot rows vs cool rows, as a relative drop in percent: 100 x (cool - hot) /
// cool. Like is compared with like: only busy rows (sm above the idle threshold) that report m
// and gpu_temp_c, on both sides; an idle GPU is cool and slow, and comparing it with a busy hot
// one would measure the load, not the heat (issue 14).
FeatureValue heat_drop(const FeatureContext& c, int gpu, GpuMetric m) {
  if (auto n = need_metric(c, gpu, m)) return *n;
  if (auto n = need_metric(c, gpu, GpuMetric::gpu_temp_c)) return *n;
  if (auto n = need_metric(c, gpu, GpuMetric::sm_pct)) return *n;
  struct Sums {
    double hot_sum = 0, cool_sum = 0;
    std::size_t hot_n = 0, cool_n = 0;
    std::uint32_t first = 0;
  };
  const auto [hot_sum, cool_sum, hot_n, cool_n, first] =
      c.memo<Sums>(kMemoHeatDrop + static_cast<int>(m), gpu, [&] {
        const ColumnReader v(c.metric(m));
        const ColumnReader t(c.metric(GpuMetric::gpu_temp_c));
        const ColumnReader sm(c.metric(GpuMetric::sm_pct));
        Sums o;
        for (auto r : c.rows(gpu)) {
          if (!v.is_valid(r) || !t.is_valid(r)) continue;
          if (!sm.is_valid(r) || sm.get_float(r) <= c.options.idle_threshold_pct) continue;
          if (o.hot_n + o.cool_n == 0) o.first = r;
          if (hot(c, t.get_float(r))) {
            o.hot_sum += v.get_float(r);
            ++o.hot_n;
          } else {
            o.cool_sum += v.get_float(r);
            ++o.cool_n;
          }
        }
        return o;
      });
  const auto name = gpu_metric_name(m);
  const std::string busy = fmt::format(" while busy (sm > {:g} %)", c.options.idle_threshold_pct);
  if (hot_n + cool_n == 0)
    return null_because(fmt::format("no busy GPU sample reports both {} and gpu_temp_c", name));
  if (hot_n == 0)
    return null_because(never_hot(c, gpu) + busy);
  if (cool_n == 0)
    return null_because((gpu < 0 ? fmt::format("no GPU sample at or below {:g} °C", c.options.temp_threshold_c)
                                 : fmt::format("no sample of GPU {} at or below {:g} °C", gpu, c.options.temp_threshold_c)) +
                        busy + ": heat cannot be separated from load");
  const double hot_mean = hot_sum / static_cast<double>(hot_n), cool_mean = cool_sum / static_cast<double>(cool_n);
  if (cool_mean <= 0) return null_because(fmt::format("{} is 0 in every cool sample", name));
  return value(100.0 * (cool_mean - hot_mean) / cool_mean,
               fmt::format("hot: {} busy rows, mean {} {:.4g}; cool: {} busy rows, mean {:.4g}; first {}", hot_n, name, hot_mean,
                           cool_n, cool_mean, c.sample_where(first)));
}

RunSummary hot_runs(const FeatureContext& c, int gpu) {
  return c.memo<RunSummary>(kMemoHotRuns, gpu, [&] {
    RunSummary rs;
    const double thr = c.options.temp_threshold_c;
    for (auto k : scope_slots(c, gpu))
      scan_runs(c, k, GpuMetric::gpu_temp_c, 0.0, [thr](double v) { return v > thr; }, rs);
    return rs;
  });
}

// Last row of a time-ordered row list with ts <= t, or nullptr.
const std::uint32_t* row_at_or_before(const FeatureContext& c, const RowList& rows, TimeNs t) {
  auto it = std::upper_bound(rows.begin(), rows.end(), t,
                             [&](TimeNs v, std::uint32_t r) { return v < c.sample_time(r); });
  return it == rows.begin() ? nullptr : &*(it - 1);
}

}  // namespace

FeatureValue gpu_util_heat_decay_pct(const FeatureContext& c, int gpu) { return heat_drop(c, gpu, GpuMetric::sm_pct); }
FeatureValue gpu_pclk_heat_drop_pct(const FeatureContext& c, int gpu) { return heat_drop(c, gpu, GpuMetric::pclk_mhz); }

FeatureValue gpu_time_above_temp_s(const FeatureContext& c, int gpu) {
  if (auto n = need_metric(c, gpu, GpuMetric::gpu_temp_c)) return *n;
  const ColumnReader t(c.metric(GpuMetric::gpu_temp_c));
  TimeNs sum = 0;
  std::size_t n = 0;
  std::uint32_t first = 0;
  for (auto r : c.rows(gpu))
    if (t.is_valid(r) && hot(c, t.get_float(r))) {
      if (n++ == 0) first = r;
      sum += c.sample_interval(r);
    }
  return value(seconds(sum), rows_evidence(c, gpu, n, first, fmt::format("rows above {:g} °C", c.options.temp_threshold_c)));
}

FeatureValue gpu_thermal_episodes(const FeatureContext& c, int gpu) {
  if (auto n = need_metric(c, gpu, GpuMetric::gpu_temp_c)) return *n;
  const RunSummary rs = hot_runs(c, gpu);
  return value(static_cast<double>(rs.runs), fmt::format("{} hot runs, {} rows", rs.runs, rs.rows) +
                                                 (rs.rows ? "; first hot row " + c.sample_where(rs.first_row) : ""));
}

FeatureValue gpu_thermal_episode_mean_s(const FeatureContext& c, int gpu) {
  if (auto n = need_metric(c, gpu, GpuMetric::gpu_temp_c)) return *n;
  const RunSummary rs = hot_runs(c, gpu);
  if (rs.runs == 0)
    return null_because(never_hot(c, gpu));
  return value(rs.total_s / static_cast<double>(rs.runs),
               fmt::format("{} hot runs, {:.6g} s in all; first hot row {}", rs.runs, rs.total_s, c.sample_where(rs.first_row)));
}

FeatureValue gpu_time_to_hot_s(const FeatureContext& c, int gpu) {
  if (auto n = need_metric(c, gpu, GpuMetric::gpu_temp_c)) return *n;
  const ColumnReader t(c.metric(GpuMetric::gpu_temp_c));
  double best = -1;
  std::uint32_t at = 0;
  for (auto k : scope_slots(c, gpu)) {
    const auto& rows = c.gpu_rows[k];
    if (rows.empty()) continue;
    for (auto r : rows)
      if (t.is_valid(r) && hot(c, t.get_float(r))) {
        const double s = seconds(c.sample_time(r) - c.sample_time(rows.front()));
        if (best < 0 || s < best) {
          best = s;
          at = r;
        }
        break;
      }
  }
  if (best < 0)
    return null_because(never_hot(c, gpu));
  return value(best, fmt::format("first hot row {}", c.sample_where(at)));
}

FeatureValue gpu_thermal_violation_fraction(const FeatureContext& c, int gpu) {
  if (auto n = need_metric(c, gpu, GpuMetric::tviol)) return *n;
  const ColumnReader tv(c.metric(GpuMetric::tviol));
  std::size_t n = 0;
  for (auto r : c.rows(gpu))
    if (tv.is_valid(r) && tv.get_float(r) > 0) ++n;
  const auto& st = c.stats(gpu, GpuMetric::tviol);
  return value(static_cast<double>(n) / static_cast<double>(st.n),
               fmt::format("{} of {} rows with tviol > 0; first {}", n, st.n, c.sample_where(st.first_row)));
}

FeatureValue gpu_throttled_fraction(const FeatureContext& c, int gpu) {
  if (auto n = need_samples(c, gpu)) return *n;
  const ColumnReader pv(c.metric(GpuMetric::pviol_pct));
  const ColumnReader tv(c.metric(GpuMetric::tviol));
  std::size_t n = 0, throttled = 0;
  std::uint32_t first = 0;
  for (auto r : c.rows(gpu)) {
    if (!pv.is_valid(r) && !tv.is_valid(r)) continue;
    if (n++ == 0) first = r;
    if ((pv.is_valid(r) && pv.get_float(r) > 0) || (tv.is_valid(r) && tv.get_float(r) > 0)) ++throttled;
  }
  if (n == 0)
    return null_because(not_reported(gpu, "pviol or tviol (dmon -s v)"));
  return value(static_cast<double>(throttled) / static_cast<double>(n),
               fmt::format("{} of {} rows with pviol > 0 or tviol > 0; first {}", throttled, n, c.sample_where(first)));
}

bool is_hw_error(const FeatureContext& c, std::uint32_t row) {
  const auto kind = static_cast<EventKind>(c.timeline.events.column(event_col::kind).get_int(row));
  switch (kind) {
    case EventKind::xid: {
      const XidClass k = xid_class(c.event_code(row));
      return k == XidClass::kDriverFirmware || k == XidClass::kMemoryEcc || k == XidClass::kBus;
    }
    case EventKind::fallen_off_bus:
    case EventKind::rm_init_failed:
    case EventKind::gsp_error: return true;
    case EventKind::driver_error: return !is_benign_event(c, row);
    // Corrected AER errors were retried by the link (a marginal link, F077), not a GPU error; an
    // uncorrected one counts when it is about a GPU.
    case EventKind::pcie_aer: return c.event_code(row).value_or(1) != 0 && c.event_gpu[row] >= 0;
    // The kernel's thermal lines are about the CPU (machine-check `CPU4: Core temperature ...`,
    // ACPI thermal zones): the GPU's heat is in its samples (F035, F037-F039).
    default: return false;
  }
}

namespace {
constexpr EventKind kHwKinds[] = {EventKind::xid,       EventKind::fallen_off_bus, EventKind::rm_init_failed,
                                  EventKind::gsp_error, EventKind::driver_error,   EventKind::pcie_aer};
}

FeatureValue hw_error_events(const FeatureContext& c, int gpu) {
  if (auto n = need_source(c, LogSource::kKernel)) return *n;
  std::size_t n = 0;
  std::uint32_t first = 0;
  bool have_first = false;
  for (auto k : kHwKinds)
    for (auto r : c.events_by_kind[static_cast<std::size_t>(k)])
      if ((gpu < 0 || c.event_gpu[r] == gpu) && is_hw_error(c, r)) {
        n += c.event_repeat(r);
        if (!have_first || r < first) first = r;
        have_first = true;
      }
  return value(static_cast<double>(n), events_evidence(c, n, first, "hardware error events"));
}

FeatureValue gpu_util_drop_after_error_pct(const FeatureContext& c, int gpu) {
  if (auto n = need_source(c, LogSource::kKernel)) return *n;
  if (auto n = need_metric(c, gpu, GpuMetric::sm_pct)) return *n;
  const ColumnReader sm(c.metric(GpuMetric::sm_pct));
  const auto& rows = c.rows(gpu);
  const TimeNs w = c.options.after_error_window_ns;
  double before = 0, after = 0;
  std::size_t nb = 0, na = 0, errors = 0, used = 0;
  std::uint32_t first = 0;
  auto lower = [&](TimeNs t) {
    return std::lower_bound(rows.begin(), rows.end(), t, [&](std::uint32_t r, TimeNs v) { return c.sample_time(r) < v; });
  };
  for (auto k : kHwKinds)
    for (auto e : c.events_by_kind[static_cast<std::size_t>(k)]) {
      if (!c.event_placed(e) || !is_hw_error(c, e)) continue;
      if (gpu >= 0 && c.event_gpu[e] >= 0 && c.event_gpu[e] != gpu) continue;
      // A run of repeats (event_repeat) weighs as that many errors at the run's first instant.
      const std::size_t rep = c.event_repeat(e);
      errors += rep;
      const TimeNs t = c.event_time(e);
      std::size_t b0 = nb, a0 = na;
      for (auto it = lower(t - w), end = lower(t); it != end; ++it)
        if (sm.is_valid(*it)) {
          before += sm.get_float(*it) * static_cast<double>(rep);
          nb += rep;
        }
      for (auto it = lower(t), end = lower(t + w); it != end; ++it)
        if (sm.is_valid(*it)) {
          after += sm.get_float(*it) * static_cast<double>(rep);
          na += rep;
        }
      if (nb > b0 && na > a0 && used++ == 0) first = e;
    }
  if (errors == 0) return null_because("no placed hardware error events");
  if (nb == 0 || na == 0)
    return null_because(fmt::format("no SM samples within {:g} s before and after the {} hardware errors", seconds(w), errors));
  const double bm = before / static_cast<double>(nb), am = after / static_cast<double>(na);
  if (bm <= 0) return null_because("SM utilization was 0 before every hardware error");
  return value(100.0 * (bm - am) / bm,
               fmt::format("{} errors; before: {} rows mean {:.4g} %; after: {} rows mean {:.4g} %", errors, nb, bm, na, am) +
                   (used ? "; first " + c.event_where(first) : ""));
}

FeatureValue thermal_events(const FeatureContext& c, int) {
  if (auto n = need_source(c, LogSource::kKernel)) return *n;
  std::size_t n = 0;
  std::uint32_t first = 0;
  for (auto r : c.events_by_kind[static_cast<std::size_t>(EventKind::thermal)])
    if (c.event_code(r).value_or(1) != 0) c.count_event(r, n, first);
  return value(static_cast<double>(n), events_evidence(c, n, first, "thermal events"));
}

FeatureValue driver_errors_while_hot(const FeatureContext& c, int) {
  if (auto n = need_source(c, LogSource::kKernel)) return *n;
  if (auto n = need_metric(c, -1, GpuMetric::gpu_temp_c)) return *n;
  const ColumnReader t(c.metric(GpuMetric::gpu_temp_c));
  std::size_t n = 0, total = 0;
  std::uint32_t first = 0;
  for (auto e : c.events_by_kind[static_cast<std::size_t>(EventKind::driver_error)]) {
    if (!c.event_placed(e) || is_benign_event(c, e)) continue;
    total += c.event_repeat(e);
    const TimeNs ts = c.event_time(e);
    bool is_hot = false;
    for (std::size_t k = 0; k < c.gpus.size() && !is_hot; ++k) {
      const std::uint32_t* r = row_at_or_before(c, c.gpu_rows[k], ts);
      is_hot = r && ts < c.sample_time(*r) + c.sample_interval(*r) && t.is_valid(*r) && hot(c, t.get_float(*r));
    }
    if (is_hot) c.count_event(e, n, first);
  }
  return value(static_cast<double>(n), fmt::format("{} of {} placed driver errors while hot", n, total) +
                                           (n ? "; first " + c.event_where(first) : ""));
}

FeatureValue driver_errors_per_thermal_episode(const FeatureContext& c, int) {
  FeatureValue errs = driver_errors_while_hot(c, -1);
  if (!errs.value) return errs;
  const RunSummary rs = hot_runs(c, -1);
  if (rs.runs == 0) return null_because("no thermal episodes: " + never_hot(c, -1));
  return value(*errs.value / static_cast<double>(rs.runs), errs.evidence + fmt::format("; {} thermal episodes", rs.runs));
}

}  // namespace gpucost::features
