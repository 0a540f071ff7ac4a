// Time a GPU was lost: after an Xid 79, a "fallen off the bus" message or an RmInitAdapter
// failure naming it, until it is back (its next sample row, or the next boot), else until the
// end of the measured window.
#include <fmt/format.h>

#include <algorithm>

#include "features/compute.hpp"

namespace gpucost::features {

namespace {

bool is_loss_event(const FeatureContext& c, std::uint32_t r) {
  const auto kind = static_cast<EventKind>(c.timeline.events.column(event_col::kind).get_int(r));
  if (kind == EventKind::fallen_off_bus || kind == EventKind::rm_init_failed) return true;
  if (kind != EventKind::xid) return false;
  const auto code = c.event_code(r);
  return code && *code == 79;
}

// The first instant at or after t at which the GPU of slot k is known to be back: its next sample row,
// or the next boot; kNoTime when neither comes.
TimeNs back_after(const FeatureContext& c, std::size_t slot, TimeNs t) {
  TimeNs back = kNoTime;
  const auto& rows = c.gpu_rows[slot];
  auto it = std::lower_bound(rows.begin(), rows.end(), t, [&](std::uint32_t r, TimeNs v) { return c.sample_time(r) < v; });
  if (it != rows.end()) back = c.sample_time(*it);
  auto b = std::upper_bound(c.boot_ts.begin(), c.boot_ts.end(), t);
  if (b != c.boot_ts.end() && (back == kNoTime || *b < back)) back = *b;
  return back;
}

// The end of the GPU's last row that starts at or before t (ts + interval), or t when none covers it.
TimeNs covered_until(const FeatureContext& c, std::size_t slot, TimeNs t) {
  const auto& rows = c.gpu_rows[slot];
  auto it = std::upper_bound(rows.begin(), rows.end(), t, [&](TimeNs v, std::uint32_t r) { return v < c.sample_time(r); });
  if (it == rows.begin()) return t;
  const std::uint32_t r = *(it - 1);
  return std::max(t, c.sample_time(r) + c.sample_interval(r));
}

}  // namespace

LostTime lost_time(const FeatureContext& c, int gpu) {
  // Not memoized: the host of a one-GPU machine also counts the events that name no GPU.
  LostTime out;
  std::vector<std::pair<TimeNs, std::uint32_t>> by_gpu_events;
  for (auto k : {EventKind::xid, EventKind::fallen_off_bus, EventKind::rm_init_failed})
    for (auto r : c.events_by_kind[static_cast<std::size_t>(k)]) {
      if (!is_loss_event(c, r)) continue;
      if (gpu >= 0 && c.event_gpu[r] != gpu) continue;
      if (!c.event_placed(r)) {
        out.unplaced += c.event_repeat(r);
        continue;
      }
      if (c.event_gpu[r] < 0) {
        out.unattributed += c.event_repeat(r);
        continue;
      }
      by_gpu_events.emplace_back(c.event_time(r), r);
    }
  std::sort(by_gpu_events.begin(), by_gpu_events.end());
  const TimeNs span_a = c.host_coverage.empty() ? kNoTime : c.host_coverage.front().first;
  const TimeNs span_b = c.host_coverage.empty() ? kNoTime : c.host_coverage.back().second;
  // Per GPU: the union of its lost intervals (a fall off the bus is followed by Xid 79 and
  // repeated RmInitAdapter failures: one loss).
  for (auto slot : scope_slots(c, gpu)) {
    const int g = c.gpus[slot];
    TimeNs lost_until = kNoTime;
    for (const auto& [t, r] : by_gpu_events) {
      if (c.event_gpu[r] != g) continue;
      if (out.events++ == 0 || r < out.first) out.first = r;
      // The GPU's own row covering t still counts as sampled: the loss starts at its end.
      const TimeNs from = std::max(t, covered_until(c, slot, t));
      if (lost_until != kNoTime && from < lost_until) continue;
      const TimeNs back = back_after(c, slot, from);
      lost_until = back == kNoTime ? std::max(t, c.window_end) : back;
      if (back == kNoTime) ++out.not_back;
      lost_until = std::max(lost_until, from);
      out.total += lost_until - from;
      if (span_a != kNoTime) out.in_span += std::max<TimeNs>(0, std::min(lost_until, span_b) - std::max(from, span_a));
    }
  }
  return out;
}

FeatureValue gpu_lost_s(const FeatureContext& c, int gpu) {
  if (auto n = need_source(c, LogSource::kKernel)) return *n;
  const LostTime lt = lost_time(c, gpu);
  std::string ev = lt.events ? fmt::format("{} loss events (Xid 79, fallen off the bus, RmInitAdapter failed); first {}",
                                           lt.events, c.event_where(lt.first))
                             : std::string("0 loss events (Xid 79, fallen off the bus, RmInitAdapter failed) naming ") +
                                   (gpu < 0 ? "a known GPU" : fmt::format("GPU {}", gpu));
  if (lt.not_back) ev += fmt::format("; {} losses last to the end of the measured window", lt.not_back);
  if (lt.unattributed) ev += fmt::format("; {} loss events name no known GPU: not counted", lt.unattributed);
  if (lt.unplaced) ev += fmt::format("; {} loss events without a time: not counted", lt.unplaced);
  return value(seconds(lt.total), ev);
}

}  // namespace gpucost::features
