// The application layer: what PyTorch profiler traces say about kernel launches.
#include <fmt/format.h>

#include "features/compute.hpp"

namespace gpucost::features {

namespace {

struct ProfileTotals {
  TimeNs span = 0, queue = 0, busy = 0;
  std::uint64_t launches = 0, kernels = 0;
  double delay_weighted = 0;  // Σ launch_delay_mean_ns × launches
};

ProfileTotals totals(const FeatureContext& c) {
  ProfileTotals t;
  for (const auto& p : c.timeline.profiles) {
    t.span += p.span_ns;
    t.queue += p.queue_ns;
    t.busy += p.kernel_busy_ns;
    t.launches += p.launches;
    t.kernels += p.kernels;
    t.delay_weighted += static_cast<double>(p.launch_delay_mean_ns) * static_cast<double>(p.launches);
  }
  return t;
}

std::string evidence(const FeatureContext& c, const ProfileTotals& t) {
  const auto& first = c.timeline.profiles.front();
  return fmt::format("{} trace(s) spanning {:.6g} s; first {}", c.timeline.profiles.size(), seconds(t.span),
                     first.file < c.timeline.files.size() ? c.timeline.files[first.file].path : "?");
}

std::optional<FeatureValue> need_span(const FeatureContext& c, const ProfileTotals& t) {
  if (auto n = need_source(c, LogSource::kProfiler)) return n;
  if (t.span <= 0) return null_because("the profiler traces span no time");
  return std::nullopt;
}

}  // namespace

FeatureValue launch_queue_fraction(const FeatureContext& c, int) {
  const auto t = totals(c);
  if (auto n = need_span(c, t)) return *n;
  return value(static_cast<double>(t.queue) / static_cast<double>(t.span),
               evidence(c, t) + fmt::format("; queue {:.6g} s", seconds(t.queue)));
}

FeatureValue profiler_kernel_busy_fraction(const FeatureContext& c, int) {
  const auto t = totals(c);
  if (auto n = need_span(c, t)) return *n;
  return value(static_cast<double>(t.busy) / static_cast<double>(t.span),
               evidence(c, t) + fmt::format("; kernels busy {:.6g} s", seconds(t.busy)));
}

FeatureValue profiler_launch_delay_mean_ms(const FeatureContext& c, int) {
  const auto t = totals(c);
  if (auto n = need_source(c, LogSource::kProfiler)) return *n;
  if (t.launches == 0) return null_because("the profiler traces hold no kernel launches");
  return value(t.delay_weighted / static_cast<double>(t.launches) / 1e6,
               evidence(c, t) + fmt::format("; {} launches", t.launches));
}

FeatureValue profiler_kernels_per_s(const FeatureContext& c, int) {
  const auto t = totals(c);
  if (auto n = need_span(c, t)) return *n;
  return value(static_cast<double>(t.kernels) / seconds(t.span), evidence(c, t) + fmt::format("; {} kernels", t.kernels));
}

}  // namespace gpucost::features
