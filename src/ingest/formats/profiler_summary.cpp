#include "ingest/formats/profiler_summary.hpp"

#include <algorithm>
#include <cmath>

#include "gpucost/text.hpp"

namespace gpucost::formats {

ProfilerSummary summarize_launches(std::vector<TraceLaunch>& launches, std::vector<TraceKernel>& kernels) {
  ProfilerSummary s;
  s.launches = launches.size();
  s.kernels = kernels.size();
  std::sort(launches.begin(), launches.end(), [](const TraceLaunch& a, const TraceLaunch& b) {
    return a.correlation != b.correlation ? a.correlation < b.correlation : a.start_ns < b.start_ns;
  });

  // Boundary deltas: +1/-1 pending launches, +1/-1 running kernels.
  struct Edge {
    TimeNs t;
    std::int32_t pending, running;
  };
  std::vector<Edge> edges;
  edges.reserve(kernels.size() * 4);
  long double delay_sum = 0;  // wider than int64: millions of kernels times their delays
  std::uint64_t linked = 0;
  for (const auto& k : kernels) {
    if (k.end_ns > k.start_ns) {
      edges.push_back({k.start_ns, 0, +1});
      edges.push_back({k.end_ns, 0, -1});
    }
    if (k.correlation == INT64_MIN) continue;
    const auto it = std::lower_bound(launches.begin(), launches.end(), k.correlation,
                                     [](const TraceLaunch& l, std::int64_t c) { return l.correlation < c; });
    if (it == launches.end() || it->correlation != k.correlation) continue;
    ++linked;
    delay_sum += static_cast<long double>(k.start_ns - it->start_ns);
    if (it->start_ns < k.start_ns) {
      edges.push_back({it->start_ns, +1, 0});
      edges.push_back({k.start_ns, -1, 0});
    }
  }
  std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.t < b.t; });
  std::int64_t pending = 0, running = 0;
  for (std::size_t i = 0; i < edges.size();) {
    const TimeNs t = edges[i].t;
    for (; i < edges.size() && edges[i].t == t; ++i) {
      pending += edges[i].pending;
      running += edges[i].running;
    }
    if (i == edges.size()) break;
    const TimeNs len = edges[i].t - t;
    if (running > 0) s.kernel_busy_ns += len;
    else if (pending > 0) s.queue_ns += len;
  }
  if (linked > 0) s.launch_delay_mean_ns = static_cast<TimeNs>(std::llround(delay_sum / static_cast<long double>(linked)));
  return s;
}

// Bounds |ts| and |dur| so that ts + dur and every difference fit in int64 nanoseconds: 4e15 µs
// is year 2096 as a Unix-epoch stamp, far beyond any trace.
constexpr double kMaxTraceUs = 4e15;

std::optional<TimeNs> trace_us_to_ns(std::string_view raw) noexcept {
  raw = text::trim(raw);
  if (raw.empty()) return std::nullopt;
  const bool neg = raw.front() == '-';
  std::string_view s = neg ? raw.substr(1) : raw;
  if (s.find_first_of("eE") != std::string_view::npos) {
    const auto d = text::to_double(raw);
    if (!d || !std::isfinite(*d) || std::fabs(*d) > kMaxTraceUs) return std::nullopt;
    return static_cast<TimeNs>(std::llround(*d * 1000.0));
  }
  const auto dot = s.find('.');
  const std::string_view whole = s.substr(0, dot);
  const std::string_view frac = dot == std::string_view::npos ? std::string_view{} : s.substr(dot + 1);
  if (whole.empty() || whole.size() > 16 || (dot != std::string_view::npos && frac.empty())) return std::nullopt;
  std::int64_t us = 0;
  for (const char c : whole) {
    if (!text::is_digit(c)) return std::nullopt;
    us = us * 10 + (c - '0');
  }
  std::int64_t ns = 0;
  for (std::size_t i = 0; i < frac.size(); ++i) {
    if (!text::is_digit(frac[i])) return std::nullopt;
    if (i < 3) ns = ns * 10 + (frac[i] - '0');
    else if (i == 3 && frac[i] >= '5') ++ns;  // round to the nanosecond
  }
  for (std::size_t i = frac.size(); i < 3; ++i) ns *= 10;
  if (us > static_cast<std::int64_t>(kMaxTraceUs)) return std::nullopt;
  const TimeNs v = us * kNsPerUs + ns;
  return neg ? -v : v;
}

bool is_kernel_launch_name(std::string_view name) noexcept {
  // `cudaLaunchKernelExC_v11060`: CUPTI names some calls with the version that introduced them.
  const auto v = name.rfind("_v");
  if (v != std::string_view::npos && v + 2 < name.size() &&
      name.substr(v + 2).find_first_not_of("0123456789") == std::string_view::npos)
    name = name.substr(0, v);
  static constexpr std::string_view kNames[] = {
      "cudaLaunchKernel",  "cudaLaunchKernelExC", "cudaLaunchCooperativeKernel", "cuLaunchKernel",
      "cuLaunchKernelEx",  "hipLaunchKernel",     "hipExtLaunchKernel",          "hipModuleLaunchKernel",
      "hipExtModuleLaunchKernel"};
  for (const auto n : kNames)
    if (n == name) return true;
  return false;
}

}  // namespace gpucost::formats
