#pragma once
/// \file job_summary.hpp
/// The job summary that the Slurm epilog keeps in the job's AdminComment, where it outlives
/// Prometheus' retention and sacct's purged job metrics (docs/fleet.md, "A record in the
/// scheduler"): one segment per node, `gpucost:1 host=NODE key=value ...`, made of the node's
/// per-job rows, at most kMaxSummaryBytes long, only characters that need no quoting in
/// `scontrol update` and sacct's `-P` output (no space in a value, no `;` or `|`).

#ifndef GPUCOST_LAYER_FLEET
#error "gpucost_fleet header: include it only in gpucost_fleet or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::fleet {

/// The first word of every segment: the summary's format and its version.
inline constexpr std::string_view kSummaryTag = "gpucost:1";

/// The longest segment: findings are left out from the last, then the per-GPU list, until the
/// segment fits (a node with 8 GPUs and every finding still fits its totals).
inline constexpr std::size_t kMaxSummaryBytes = 480;

/// One node's summary of one job.
struct JobSummary {
  std::string host, window_start, window_end, model, currency, cloud;
  std::optional<double> allocated_gpu_hours, busy_gpu_hours, idle_gpu_hours, unmeasured_gpu_hours,
      effective_gpu_hours, energy_kwh, xid_events, incidents, gpu_lost_s, local_cost, idle_cost, cloud_cost;
  std::size_t gpus = 0;
  struct Gpu {
    std::string id;  ///< nvidia-smi's index, else the UUID
    std::optional<double> allocated_gpu_hours, busy_gpu_hours;
  };
  std::vector<Gpu> per_gpu;
  std::vector<std::string> findings;
  std::size_t findings_left_out = 0;  ///< findings that did not fit
};

/// The summaries of per-job rows (`analyze --format ndjson` output): one per node row, from its
/// GPU rows before it. Lines that are not rows are skipped.
std::vector<JobSummary> summaries_of_rows(std::string_view ndjson);

/// The segment of a summary (kSummaryTag first), at most kMaxSummaryBytes.
std::string render_summary(const JobSummary& s);

/// Parses one segment (from kSummaryTag to the segment's end); nullopt with `why` when it is not one.
std::optional<JobSummary> parse_summary(std::string_view segment, std::string& why);

}  // namespace gpucost::fleet
