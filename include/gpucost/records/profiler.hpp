#pragma once
/// \file profiler.hpp
/// What a PyTorch profiler trace says about kernel-launch queueing (ProfilerSummary).

#ifndef GPUCOST_LAYER_BASE
#error "gpucost_base header: include it only in gpucost_base or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstdint>

#include "gpucost/time.hpp"

namespace gpucost {

/// What a PyTorch profiler trace says about kernel-launch queueing (feature F003).
struct ProfilerSummary {
  std::uint32_t file = 0;
  TimeNs span_ns = 0;  ///< wall span of the trace
  TimeNs queue_ns = 0;  ///< time the GPU sat idle while a launched kernel was pending
  TimeNs kernel_busy_ns = 0;  ///< time at least one kernel ran
  std::uint64_t launches = 0;
  std::uint64_t kernels = 0;
  TimeNs launch_delay_mean_ns = 0;  ///< mean (kernel start - launch call start)
};

}  // namespace gpucost
