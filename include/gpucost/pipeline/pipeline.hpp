#pragma once
/// \file pipeline.hpp
/// Runs the stages in order (ingest -> align -> features -> cost -> findings) and times each one;
/// the report (report/report.hpp) is made from its result.

#ifndef GPUCOST_LAYER_PIPELINE
#error "gpucost_pipeline header: include it only in gpucost_pipeline or a layer above it (docs/architecture.md, Layers)"
#endif

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "gpucost/align/align.hpp"
#include "gpucost/cost/model.hpp"
#include "gpucost/cost/stage.hpp"
#include "gpucost/diagnostics.hpp"
#include "gpucost/features/features.hpp"
#include "gpucost/findings/findings.hpp"
#include "gpucost/ingest/ingest.hpp"

namespace gpucost {

/// Wall time and throughput of one stage.
struct StageTiming {
  std::string stage;  ///< ingest, align, features, cost, report
  double seconds = 0;
  std::uint64_t bytes = 0;  ///< input bytes the stage went through (ingest)
  std::uint64_t rows = 0;  ///< lines (ingest) or rows handled
  std::uint64_t peak_rss_bytes = 0;  ///< the process's peak resident memory when the stage ended
};

/// The process's peak resident memory so far (getrusage), in bytes; 0 where unknown.
std::uint64_t peak_rss_bytes() noexcept;

/// The cost stage's setup (cost/stage.hpp).
using CostSetup = cost::CostSetup;

/// Options of a whole run.
struct PipelineOptions {
  IngestOptions ingest;
  AlignOptions align;
  FeatureOptions features;
  std::shared_ptr<const CostSetup> cost;  ///< null: no cost stage (findings then price nothing)
  findings::FindingOptions findings;
};

/// Results of a run, owned by the caller, filled stage by stage.
struct PipelineResult {
  IngestResult ingest;
  Timeline timeline;
  Diagnostics diagnostics;
  FeatureSet features;
  std::shared_ptr<const cost::CostResult> cost;  ///< null without a cost stage
  std::vector<findings::Finding> findings;  ///< sorted as findings::find() sorts them
  std::vector<StageTiming> timings;
};

/// The last stage a run goes to.
enum class PipelineStage { kAlign, kFeatures, kFindings };

/// Runs the stages on `input` up to `last`. Cost and findings run only on usable input (a file
/// with records in a known format): without it there is nothing to price.
/// Throws std::invalid_argument / std::runtime_error only for setup errors (bad options, inputs
/// the cost model cannot use).
void run_pipeline(const std::filesystem::path& input, const PipelineOptions& options, PipelineResult& out,
                  PipelineStage last = PipelineStage::kFindings);

}  // namespace gpucost
