// System services: container start latency, cron noise, the observation window.
#include <fmt/format.h>

#include <algorithm>

#include "features/compute.hpp"

namespace gpucost::features {

namespace {

struct Latencies {
  std::size_t pairs = 0, starts = 0, creates = 0;
  double sum_s = 0, max_s = 0;
  std::uint32_t first = 0;
};

// Pairs each placed container_start with the earliest unpaired container_create at most
// kContainerPairNs before it.
Latencies container_latencies(const FeatureContext& c) {
  const auto& creates = c.events_by_kind[static_cast<std::size_t>(EventKind::container_create)];
  const auto& starts = c.events_by_kind[static_cast<std::size_t>(EventKind::container_start)];
  Latencies out;
  out.starts = starts.size();
  out.creates = creates.size();
  std::size_t next = 0;  // creates before `next` are paired or too old
  for (auto s : starts) {
    if (!c.event_placed(s)) continue;
    const TimeNs ts = c.event_time(s);
    while (next < creates.size() && c.event_placed(creates[next]) && c.event_time(creates[next]) < ts - kContainerPairNs) ++next;
    if (next >= creates.size() || !c.event_placed(creates[next]) || c.event_time(creates[next]) > ts) continue;
    const double lat = seconds(ts - c.event_time(creates[next]));
    if (out.pairs++ == 0) out.first = creates[next];
    out.sum_s += lat;
    out.max_s = std::max(out.max_s, lat);
    ++next;
  }
  return out;
}

std::optional<FeatureValue> need_pairs(const FeatureContext& c, const Latencies& l) {
  if (auto n = need_source(c, LogSource::service)) return n;
  if (l.pairs == 0)
    return null_because(fmt::format("no container create/start pairs ({} creates, {} starts)", l.creates, l.starts));
  return std::nullopt;
}

std::string latency_evidence(const FeatureContext& c, const Latencies& l) {
  return fmt::format("{} pairs of {} starts; first create {}", l.pairs, l.starts, c.event_where(l.first));
}

}  // namespace

FeatureValue container_start_latency_mean_s(const FeatureContext& c, int) {
  const auto l = container_latencies(c);
  if (auto n = need_pairs(c, l)) return *n;
  return value(l.sum_s / static_cast<double>(l.pairs), latency_evidence(c, l));
}

FeatureValue container_start_latency_max_s(const FeatureContext& c, int) {
  const auto l = container_latencies(c);
  if (auto n = need_pairs(c, l)) return *n;
  return value(l.max_s, latency_evidence(c, l));
}

FeatureValue log_window_s(const FeatureContext& c, int) {
  if (c.window_begin == kNoTime) return null_because("no placed samples or events");
  return value(seconds(c.window_end - c.window_begin),
               fmt::format("{} .. {}", format_rfc3339(c.window_begin, 3), format_rfc3339(c.window_end, 3)));
}

FeatureValue cron_events_per_hour(const FeatureContext& c, int gpu) {
  FeatureValue n = event_count(c, gpu, EventKind::cron);
  if (!n.value) return n;
  if (c.window_begin == kNoTime || c.window_end <= c.window_begin) return null_because("no time span: no placed samples or events");
  const double h = seconds(c.window_end - c.window_begin) / 3600.0;
  return value(*n.value / h, n.evidence + fmt::format("; per {:.4g} h of observation window", h));
}

}  // namespace gpucost::features
