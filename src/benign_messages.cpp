#include "gpucost/benign_messages.hpp"

namespace gpucost {

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

}  // namespace gpucost
