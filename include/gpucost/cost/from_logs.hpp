#pragma once
/// \file from_logs.hpp
/// What the cost model takes from a run's logs: the GPUs they name and their power limits, the
/// inputs the features measure, the usage with its basis (docs/cost-model.md, "Usage"), and
/// whether the directory holds one machine at all.

#ifndef GPUCOST_LAYER_COST
#error "gpucost_cost header: include it only in gpucost_cost or a layer above it (docs/architecture.md, Layers)"
#endif

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpucost/align/timeline.hpp"
#include "gpucost/cost/inputs.hpp"
#include "gpucost/cost/resolve.hpp"
#include "gpucost/features/features.hpp"

namespace gpucost::cost {

/// The GPU product names the logs give (nvidia-smi -q, --query-gpu, the manifest), each once, in order.
std::vector<std::string> named_gpus(const Timeline& tl);

/// The only MIG device the listings (`nvidia-smi -L`) name, when its share is known: a node or
/// container that sees one MIG device runs on that slice. nullopt with none, or several.
std::optional<MigSlice> mig_slice(const Timeline& tl);

/// The power limit nvidia-smi -q reports, by product name.
std::vector<std::pair<std::string, double>> power_limits(const Timeline& tl);

/// The inputs the features measure (power, effective utilization, incidents, the job's stalls);
/// with `take` false each is marked as not taken from the logs (--no-measured).
std::vector<MeasuredInput> measured_from_features(const FeatureSet& fs, bool take);

/// The job's own stalls (cloud.job_stall_fraction, docs/cost-model.md §3.9): the idle GPU
/// seconds (SM at or below the idle threshold) while the job's process kept its memory on the
/// GPU, over those plus the busy seconds, summed over the GPUs. A sample holds the job's memory
/// when its framebuffer use is at least the busy samples' median less max(256 MiB, half the gap
/// from the GPU's lowest use to that median). Combined with the launch-queue share (F003) where a
/// profiler trace gives one: 1 - (1 - stall) x (1 - queue). Null with the reason where the
/// samples have no utilization or no framebuffer column, or no busy sample.
MeasuredInput measure_job_stalls(const Timeline& tl, const FeatureSet& fs);
/// The least framebuffer use by which a job's memory stands above the idle GPU's (a CUDA context
/// alone takes some 300 MiB; a desktop's compositor holds a few hundred).
inline constexpr double kJobMemoryMarginMb = 256;

/// The usage the GPU samples show, per GPU: busy and sampled seconds (gpu_busy_s, gpu_sampled_s)
/// and the span from the first sample to the end of the last. The basis is `measured` only when
/// every GPU's span reaches `min_span_days` (a week holds the weekly rhythm of use); the value per
/// GPU is then busy / sampled x the mean month (730.5 h). Anything shorter is `unknown`, with the
/// busy share within the window stated as what was measured, and how to supply the usage.
Usage measure_usage(const Timeline& tl, const FeatureSet& fs, double min_span_days);

/// The host power the logs measured (docs/cost-model.md §2.1, "Measured host power"), over the
/// window of the GPU samples (from the first sample to the end of the last, after --since/--until;
/// all host samples when there is no GPU sample), as the GPU board power is: the IPMI DCMI readings'
/// mean (the whole system at the supply's input) when there are any, else the CPU packages' and
/// their DRAM's (RAPL) time-weighted mean power, summed over the domains. A RAPL sample counts when
/// the middle of its interval is inside the window. nullopt without host power samples there.
std::optional<MeasuredHostPower> measure_host_power(const Timeline& tl);

/// The GPU count of the machine (features' GPUs, else the GPU devices named), with a note.
std::pair<std::size_t, std::string> gpu_count(const Timeline& tl, const FeatureSet& fs);

/// One machine that a directory's logs describe, as its GPUs identify it.
struct MachineSeen {
  std::string description;  ///< `NVIDIA H200 GPU-8ba4de82... (nvidia-smi-q-start.txt)`
};

/// The machines a directory holds, when its sources disagree on which machine they describe: two
/// GPUs with the same index or PCI address but different UUIDs, or manifests and -q reports naming
/// different GPUs at one index. Empty (or one entry) for the logs of one machine; a machine with
/// several different GPUs is one machine.
std::vector<MachineSeen> distinct_machines(const Timeline& tl);

}  // namespace gpucost::cost
