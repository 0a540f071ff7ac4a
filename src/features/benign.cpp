// Known-benign driver messages: lines the NVIDIA driver prints at ERROR level that are harmless
// and, on some machines, repeat thousands of times an hour. They are counted on their own
// (benign_driver_messages), never as driver errors, hardware errors or incidents.
#include <fmt/format.h>

#include "features/compute.hpp"
#include "gpucost/text.hpp"

namespace gpucost::features {

bool is_benign_event(const FeatureContext& c, std::uint32_t row) {
  const auto kind = static_cast<EventKind>(c.timeline.events.column(event_col::kind).get_int(row));
  return kind == EventKind::driver_error && is_benign_driver_message(c.event_text(row));
}

FeatureValue benign_driver_messages(const FeatureContext& c, int gpu) {
  if (auto n = need_source(c, LogSource::kKernel)) return *n;
  std::size_t n = 0;
  std::uint32_t first = 0;
  for (auto r : c.events_by_kind[static_cast<std::size_t>(EventKind::driver_error)]) {
    if (gpu >= 0 && c.event_gpu[r] != gpu) continue;
    if (is_benign_event(c, r)) c.count_event(r, n, first);
  }
  return value(static_cast<double>(n), events_evidence(c, n, first, "known-benign driver messages"));
}

FeatureValue driver_error_events(const FeatureContext& c, int gpu) {
  if (auto n = need_source(c, LogSource::kKernel)) return *n;
  std::size_t n = 0, benign = 0;
  std::uint32_t first = 0;
  for (auto r : c.events_by_kind[static_cast<std::size_t>(EventKind::driver_error)]) {
    if (gpu >= 0 && c.event_gpu[r] != gpu) continue;
    if (is_benign_event(c, r)) {
      benign += c.event_repeat(r);
      continue;
    }
    c.count_event(r, n, first);
  }
  return value(static_cast<double>(n), events_evidence(c, n, first, "driver_error events") +
                                           (benign ? fmt::format("; {} known-benign lines not counted (F066)", benign) : ""));
}

}  // namespace gpucost::features
