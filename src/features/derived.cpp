// Figures derived from other features: effective utilization, incident rate, useful GPU-hours,
// energy per useful hour. Each states in its evidence which inputs it used.
#include <fmt/format.h>

#include <algorithm>

#include "features/compute.hpp"
#include "gpucost/report/json_writer.hpp"

namespace gpucost::features {

namespace {
std::string num(double v) { return format_number(v); }
}  // namespace

FeatureValue effective_utilization(const FeatureContext& c, int gpu) {
  const FeatureValue idle = gpu_idle_fraction(c, gpu);
  if (!idle.value) return idle;
  const FeatureValue queue = launch_queue_fraction(c, -1);
  const FeatureValue loss = power_event_loss_fraction(c, -1);
  const double q = queue.value.value_or(0.0), l = loss.value.value_or(0.0);
  const double v = std::clamp(1.0 - *idle.value - q - l, 0.0, 1.0);
  std::string ev = fmt::format("1 - idle {} - queue {} - power loss {}", num(*idle.value), num(q), num(l));
  if (!queue.value) ev += fmt::format("; launch_queue_fraction taken as 0 ({})", queue.reason);
  if (!loss.value) ev += fmt::format("; power_event_loss_fraction taken as 0 ({})", loss.reason);
  return value(v, ev);
}

FeatureValue incidents_per_hour(const FeatureContext& c, int) {
  const FeatureValue n = maintenance_incidents(c, -1);
  if (!n.value) return n;
  std::string basis;
  const double h = rate_hours(c, &basis);
  if (h <= 0) return null_because("no time span: no placed samples or events");
  return value(*n.value / h, fmt::format("{} incidents {}", num(*n.value), basis));
}

FeatureValue effective_gpu_hours(const FeatureContext& c, int gpu) {
  if (gpu >= 0) {
    const FeatureValue s = gpu_sampled_s(c, gpu);
    if (!s.value) return s;
    const FeatureValue e = effective_utilization(c, gpu);
    if (!e.value) return e;
    return value(*s.value / 3600.0 * *e.value,
                 fmt::format("{} s sampled x effective utilization {}", num(*s.value), num(*e.value)));
  }
  if (auto n = need_samples(c, -1)) return *n;
  double sum = 0;
  std::size_t used = 0;
  std::string first_reason;
  for (int g : c.gpus) {
    const FeatureValue v = effective_gpu_hours(c, g);
    if (v.value) {
      sum += *v.value;
      ++used;
    } else if (first_reason.empty()) {
      first_reason = v.reason;
    }
  }
  if (used == 0) return null_because(first_reason);
  return value(sum, fmt::format("sum over {} of {} GPUs", used, c.gpus.size()));
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
