#pragma once
// The kernel-launch queueing arithmetic behind ProfilerSummary (feature F003), apart from the
// JSON reading so that tests can check the sweep on hand-made intervals.

#ifndef GPUCOST_LAYER_INGEST
#error "gpucost_ingest header: include it only in gpucost_ingest or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "gpucost/records/profiler.hpp"

namespace gpucost::formats {

/// A kernel-launch API call (cudaLaunchKernel ...): when the CPU asked for the kernel.
struct TraceLaunch {
  std::int64_t correlation = 0;
  TimeNs start_ns = 0;
};

/// A kernel as the GPU ran it.
struct TraceKernel {
  std::int64_t correlation = INT64_MIN;  ///< INT64_MIN when the trace gives none
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
};

/// Links launches to kernels by correlation id and sweeps the intervals:
/// queue_ns = time when no kernel runs while some launched kernel waits (launch start <= t <
/// its kernel's start); kernel_busy_ns = time when at least one kernel runs;
/// launch_delay_mean_ns = mean (kernel start - launch start) over linked pairs (0 without any).
/// span_ns and file are left to the caller. Sorts both vectors.
ProfilerSummary summarize_launches(std::vector<TraceLaunch>& launches, std::vector<TraceKernel>& kernels);

/// A Chrome-trace time in microseconds (`123`, `198093488368.463`, `1.5e3`) as exact
/// nanoseconds (decimal digits are read as written, not through a double); nullopt when it is
/// no number or beyond ±4e15 µs (so that sums and differences of two stay in int64).
std::optional<TimeNs> trace_us_to_ns(std::string_view raw) noexcept;

/// True for the API calls that launch a kernel: cudaLaunchKernel, cudaLaunchKernelExC,
/// cudaLaunchCooperativeKernel, cuLaunchKernel, cuLaunchKernelEx, and HIP's hipLaunchKernel,
/// hipExtLaunchKernel, hipModuleLaunchKernel, hipExtModuleLaunchKernel; a CUPTI version suffix
/// (`_v11060`) is ignored.
bool is_kernel_launch_name(std::string_view name) noexcept;

}  // namespace gpucost::formats
