#pragma once
/// \file ndjson_writer.hpp
/// `gpucost analyze --format ndjson`: the per-job, per-node rows that a Slurm epilog writes and
/// `gpucost fleet` reads. One JSON object per line: one per GPU of the analyzed window, then one
/// for the node. Features are read from the report model by their FeatureId and
/// written as null, with the reason in `null_reasons`, when these logs lack them.
/// The schema is documented in docs/fleet.md and versioned by `schema_version`.

#ifndef GPUCOST_LAYER_REPORT
#error "gpucost_report header: include it only in gpucost_report or a layer above it (docs/architecture.md, Layers)"
#endif

#include <string>
#include <string_view>
#include <vector>

#include "gpucost/report/report.hpp"

namespace gpucost {

/// The version written in every row's `schema_version`. Add fields freely; bump it only when a
/// field changes meaning or goes away.
inline constexpr int kJobRowSchemaVersion = 2;

/// The value of every row's `schema` field.
inline constexpr std::string_view kJobRowSchemaName = "gpucost.job_row";

/// What the rows are about beyond the logs: the scheduler's job and user, and the node's name
/// when the logs do not carry it (no manifest). Empty = unknown (null in the rows).
struct JobRowIdentity {
  std::string job_id;  ///< `--job-id` (Slurm's SLURM_JOB_ID)
  std::string user;    ///< `--user` (Slurm's SLURM_JOB_USER)
  std::string host;    ///< `--host`: overrides the host the logs name
  /// `--gpu`: the GPUs the job used (index, UUID or PCI bus id in any nvidia-smi form); empty = all.
  std::vector<std::string> gpus;
};

/// Renders the rows of a report model (one line per GPU, then the node's line; each ends in `\n`).
std::string render_job_rows(const ReportModel& model, const JobRowIdentity& identity);

}  // namespace gpucost
