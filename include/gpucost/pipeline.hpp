#pragma once
/// \file pipeline.hpp
/// Runs the stages in order (ingest -> align -> features) and times each one; the cost stage and
/// the report writers run on its results.

#include <filesystem>
#include <string>
#include <vector>

#include "gpucost/align/align.hpp"
#include "gpucost/diagnostics.hpp"
#include "gpucost/features/features.hpp"
#include "gpucost/ingest/ingest.hpp"

namespace gpucost {

/// Wall time and throughput of one stage.
struct StageTiming {
  std::string stage;          ///< ingest, align, features, cost, report
  double seconds = 0;
  std::uint64_t bytes = 0;    ///< input bytes the stage went through (ingest)
  std::uint64_t rows = 0;     ///< lines (ingest) or rows handled
  std::uint64_t peak_rss_bytes = 0;  ///< the process's peak resident memory when the stage ended
};

/// The process's peak resident memory so far (getrusage), in bytes; 0 where unknown.
std::uint64_t peak_rss_bytes() noexcept;

/// Options of a whole run.
struct PipelineOptions {
  IngestOptions ingest;
  AlignOptions align;
  FeatureOptions features;
};

/// Results of a run, owned by the caller, filled stage by stage.
struct PipelineResult {
  IngestResult ingest;
  Timeline timeline;
  Diagnostics diagnostics;
  FeatureSet features;
  std::vector<StageTiming> timings;
};

/// Runs ingest and align (and features when `with_features`) on `input`.
/// Throws std::invalid_argument / std::runtime_error only for setup errors (bad options).
void run_pipeline(const std::filesystem::path& input, const PipelineOptions& options, PipelineResult& out,
                  bool with_features = true);

}  // namespace gpucost
