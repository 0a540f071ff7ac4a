// Known-benign driver messages: lines the NVIDIA driver prints at ERROR level that are harmless
// and, on some machines, repeat thousands of times an hour. They are counted on their own
// (benign_driver_messages), never as driver errors, hardware errors or incidents.
#include <fmt/format.h>

#include "features/compute.hpp"
#include "gpucost/text.hpp"

namespace gpucost::features {

namespace {

// Every part must occur in the message. Add a row only with a public report that the message is
// harmless, and say where.
const BenignDriverMessage kBenign[] = {
    {{"nvidia-modeset: ERROR: GPU:", "Failed to query display engine channel state"},
     "nvidia-modeset polls the display engine of a powered-down or display-less GPU and logs each "
     "failed poll: bursts of hundreds a second on hybrid-graphics laptops (pop-os/pop#3363), also "
     "around driver unloads (NVIDIA/open-gpu-kernel-modules#1252). On its own it changes nothing for "
     "CUDA work; when a GPU truly fails, the Xid, fallen-off-bus or GSP lines around it are what count."},
};

}  // namespace

std::span<const BenignDriverMessage> benign_driver_messages_table() noexcept { return kBenign; }

bool is_benign_driver_message(std::string_view text) noexcept {
  for (const auto& b : kBenign) {
    bool all = true;
    for (auto part : b.parts)
      if (!part.empty() && text.find(part) == std::string_view::npos) all = false;
    if (all) return true;
  }
  return false;
}

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
