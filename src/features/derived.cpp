// Figures derived from other features: effective utilization, incident rate, useful GPU-hours,
// energy per useful hour. Each states in its evidence which inputs it used.
#include <fmt/format.h>

#include <algorithm>

#include "features/compute.hpp"
#include "gpucost/text/number.hpp"

namespace gpucost::features {

namespace {
std::string num(double v) { return format_number(v); }
}  // namespace

namespace {

// The parts of effective utilization over one scope. The window is the host's sampled span
// [first row, last row's end); of it each GPU counts its sampled seconds (rows that report sm),
// the host's power-event loss (suspended and sample-less time after power events) and the time
// it was lost (fallen off the bus). Unsampled time that nothing explains is left out.
struct Utilization {
  double busy_s = 0, sampled_s = 0, power_loss_s = 0, lost_s = 0, queue = 0;
  std::size_t gpus = 0;
  std::string unmeasured;  // what the sources present could not measure
  double denominator() const noexcept { return sampled_s + power_loss_s + lost_s; }
};

std::optional<FeatureValue> utilization_of(const FeatureContext& c, int gpu, Utilization& u) {
  if (auto n = need_metric(c, gpu, GpuMetric::sm_pct)) return n;
  const bool kernel = c.has(LogSource::kKernel);
  const FeatureValue loss = power_event_loss_s(c, -1);
  for (auto k : scope_slots(c, gpu)) {
    const int g = c.gpus[k];
    const auto& st = c.stats(g, GpuMetric::sm_pct);
    if (st.n == 0) continue;
    ++u.gpus;
    u.sampled_s += st.covered_s;
    u.busy_s += *gpu_busy_s(c, g).value;
    if (loss.value) u.power_loss_s += *loss.value;
    if (kernel) u.lost_s += seconds(lost_time(c, g).in_span);
  }
  auto add = [&](std::string_view what) { u.unmeasured += fmt::format("{}{}", u.unmeasured.empty() ? "" : "; ", what); };
  if (!loss.value)
    add(fmt::format("power-event loss not measured ({}): suspends and AC switches are not in the window", loss.reason));
  if (!kernel) add("lost GPU time not measured (no kernel or system log): a GPU that fell off the bus is not seen");
  const FeatureValue queue = launch_queue_fraction(c, -1);
  if (queue.value) u.queue = *queue.value;
  else add(fmt::format("launch queueing not measured ({})", queue.reason));
  return std::nullopt;
}

}  // namespace

FeatureValue effective_utilization(const FeatureContext& c, int gpu) {
  Utilization u;
  if (auto n = utilization_of(c, gpu, u)) return *n;
  if (u.denominator() <= 0) return null_because("no sampled time: every row has a zero interval");
  const double v = std::clamp(u.busy_s * (1.0 - u.queue) / u.denominator(), 0.0, 1.0);
  std::string ev = fmt::format("busy {} s x (1 - queue {}) / (sampled {} s + power-event loss {} s + lost {} s)",
                               num(u.busy_s), num(u.queue), num(u.sampled_s), num(u.power_loss_s), num(u.lost_s));
  if (gpu < 0) ev += fmt::format(" over {} GPUs", u.gpus);
  if (!u.unmeasured.empty()) ev += "; not measured, not counted: " + u.unmeasured;
  return value(v, ev);
}

FeatureValue effective_gpu_hours(const FeatureContext& c, int gpu) {
  // Effective utilization times its window: the busy hours less launch queueing. Suspended or
  // lost time is in the window's denominator only, so it is never taken out of busy time twice.
  Utilization u;
  if (auto n = utilization_of(c, gpu, u)) return *n;
  return value(u.busy_s * (1.0 - u.queue) / 3600.0,
               fmt::format("busy {} s x (1 - queue {}) over {} GPUs", num(u.busy_s), num(u.queue), u.gpus) +
                   (u.queue == 0 && !c.has(LogSource::kProfiler) ? "; launch queueing not measured (no profiler trace)" : ""));
}

FeatureValue energy_per_busy_hour_kwh(const FeatureContext& c, int gpu) {
  const FeatureValue e = gpu_energy_kwh(c, gpu);
  if (!e.value) return e;
  const FeatureValue b = gpu_busy_s(c, gpu);
  if (!b.value) return b;
  if (*b.value <= 0) return null_because("no busy samples");
  return value(*e.value / (*b.value / 3600.0), fmt::format("{} kWh over {} busy s", num(*e.value), num(*b.value)));
}

FeatureValue idle_energy_fraction(const FeatureContext& c, int gpu) {
  const FeatureValue idle = gpu_idle_energy_kwh(c, gpu);
  if (!idle.value) return idle;
  const FeatureValue all = gpu_energy_kwh(c, gpu);
  if (!all.value) return all;
  if (*all.value <= 0) return null_because("no energy: power is 0 in every sample");
  return value(*idle.value / *all.value, fmt::format("{} of {} kWh while idle", num(*idle.value), num(*all.value)));
}

}  // namespace gpucost::features
