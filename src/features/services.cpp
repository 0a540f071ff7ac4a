// System services: container starts and their latency, cron noise, the log uptime.
#include <fmt/format.h>

#include <algorithm>

#include "features/compute.hpp"

namespace gpucost::features {

namespace {

// Container starts: container_start events at most kContainerStartMergeNs apart are one start
// (dockerd's API call, then containerd's "starting signal loop" once the container runs).
struct Start {
  TimeNs first = kNoTime, last = kNoTime;
};

std::vector<Start> container_start_clusters(const FeatureContext& c, std::size_t* unplaced = nullptr) {
  std::vector<Start> out;
  for (auto r : c.events_by_kind[static_cast<std::size_t>(EventKind::container_start)]) {
    if (!c.event_placed(r)) {
      if (unplaced) ++*unplaced;
      continue;
    }
    const TimeNs ts = c.event_time(r);
    if (!out.empty() && ts - out.back().last <= kContainerStartMergeNs) out.back().last = ts;
    else out.push_back({ts, ts});
  }
  return out;
}

struct Latencies {
  std::size_t pairs = 0, starts = 0, creates = 0;
  double sum_s = 0, max_s = 0;
  std::uint32_t first = 0;
};

// Pairs each placed container_create with the first unpaired start that begins at or after it,
// at most kContainerPairNs later; the latency runs to the start's last event (the container runs).
Latencies container_latencies(const FeatureContext& c) {
  const auto& creates = c.events_by_kind[static_cast<std::size_t>(EventKind::container_create)];
  const auto starts = container_start_clusters(c);
  Latencies out;
  out.starts = starts.size();
  out.creates = creates.size();
  std::size_t next = 0;  // starts before `next` are paired or too early
  for (auto cr : creates) {
    if (!c.event_placed(cr)) continue;
    const TimeNs ts = c.event_time(cr);
    while (next < starts.size() && starts[next].first < ts) ++next;
    if (next >= starts.size() || starts[next].first - ts > kContainerPairNs) continue;
    const double lat = seconds(starts[next].last - ts);
    if (out.pairs++ == 0) out.first = cr;
    out.sum_s += lat;
    out.max_s = std::max(out.max_s, lat);
    ++next;
  }
  return out;
}

std::optional<FeatureValue> need_pairs(const FeatureContext& c, const Latencies& l) {
  if (auto n = need_source(c, LogSource::kService)) return n;
  if (l.pairs == 0)
    return null_because(fmt::format("no container create/start pairs ({} creates, {} starts)", l.creates, l.starts));
  return std::nullopt;
}

std::string latency_evidence(const FeatureContext& c, const Latencies& l) {
  return fmt::format("{} pairs of {} starts; first create {}", l.pairs, l.starts, c.event_where(l.first));
}

}  // namespace

FeatureValue container_starts(const FeatureContext& c, int) {
  if (auto n = need_source(c, LogSource::kService)) return *n;
  std::size_t unplaced = 0;
  const auto starts = container_start_clusters(c, &unplaced);
  const auto& rows = c.events_by_kind[static_cast<std::size_t>(EventKind::container_start)];
  return value(static_cast<double>(starts.size() + unplaced),
               events_evidence(c, rows.size(), rows.empty() ? 0 : rows.front(), "container_start events",
                               LogSource::kService) +
                   fmt::format("; {} starts", starts.size() + unplaced));
}

FeatureValue container_start_latency_mean_s(const FeatureContext& c, int) {
  const auto l = container_latencies(c);
  if (auto n = need_pairs(c, l)) return *n;
  return value(l.sum_s / static_cast<double>(l.pairs), latency_evidence(c, l) + fmt::format("; longest {:.6g} s", l.max_s));
}

FeatureValue log_uptime_s(const FeatureContext& c, int) {
  if (c.window_begin == kNoTime) return null_because("no placed samples or events");
  std::string ev;
  const double s = features::log_uptime_s(c, &ev);
  return value(s, ev);
}

FeatureValue gpu_service_restarts(const FeatureContext& c, int) {
  if (auto n = need_source(c, LogSource::kService)) return *n;
  // A GPU daemon that starts with the machine (nvidia-persistenced's `Started (pid)` seconds
  // after the boot) has not restarted: only starts later than kServiceBootStartNs after the
  // latest boot count.
  std::size_t n = 0, at_boot = 0, unplaced = 0;
  std::uint32_t first = 0;
  for (auto r : c.events_by_kind[static_cast<std::size_t>(EventKind::service_restart)]) {
    if (!c.event_placed(r)) {
      ++unplaced;
      continue;
    }
    const TimeNs t = c.event_time(r);
    auto b = std::upper_bound(c.boot_ts.begin(), c.boot_ts.end(), t);
    if (b != c.boot_ts.begin() && t - *(b - 1) <= kServiceBootStartNs) {
      ++at_boot;
      continue;
    }
    if (n++ == 0) first = r;
  }
  std::string ev = events_evidence(c, n, first, "GPU daemon restarts", LogSource::kService);
  if (at_boot) ev += fmt::format("; {} starts within {} s of a boot not counted", at_boot, kServiceBootStartNs / kNsPerSec);
  if (unplaced) ev += fmt::format("; {} starts without a time not counted", unplaced);
  return value(static_cast<double>(n), ev);
}

}  // namespace gpucost::features
