#pragma once
/// \file benign_messages.hpp
/// Known-benign driver messages: lines the NVIDIA driver prints at ERROR level that are harmless
/// and, on some machines, repeat thousands of times an hour. Features count them on their own
/// (F066), never as driver errors; ingest aggregates them by the minute (RepeatRuns).

#ifndef GPUCOST_LAYER_BASE
#error "gpucost_base header: include it only in gpucost_base or a layer above it (docs/architecture.md, Layers)"
#endif

#include <span>
#include <string_view>

namespace gpucost {

/// One known-benign message: every part occurs in it.
struct BenignDriverMessage {
  std::string_view parts[2];
  std::string_view why;  ///< why it is harmless, and who says so
};
/// The table of known-benign messages.
std::span<const BenignDriverMessage> benign_driver_messages_table() noexcept;
/// Whether a driver message is a known-benign one.
bool is_benign_driver_message(std::string_view text) noexcept;

}  // namespace gpucost
