#pragma once
/// \file stage.hpp
/// The cost (break-even) stage: the cost model on a setup made before any log is read, and what
/// the logs say (the GPUs the timeline names, the inputs measured from the features).

#ifndef GPUCOST_LAYER_COST
#error "gpucost_cost header: include it only in gpucost_cost or a layer above it (docs/architecture.md, Layers)"
#endif

#include <memory>
#include <string>
#include <vector>

#include "gpucost/align/timeline.hpp"
#include "gpucost/cost/model.hpp"
#include "gpucost/cost/resolve.hpp"
#include "gpucost/features/features.hpp"

namespace gpucost::cost {

/// The cost stage's setup, made before any log is read, so that a wrong preset name or config
/// is reported first: the presets and catalogs, loaded once, and the request (presets chosen,
/// config, command-line values). The stage adds what the logs say.
struct CostSetup {
  PresetCatalog catalog;
  ResolveRequest request;
  bool measured = true;  ///< take power, utilization and incidents from the features (false: --no-measured)
};

/// The break-even stage of the pipeline.
class CostStage {
 public:
  /// The setup must outlive the stage.
  explicit CostStage(const CostSetup& setup) : setup_(setup) {}

  /// The cost model on the setup and what the logs say: the GPUs the timeline names (they pick
  /// the local preset; their power limits; a MIG slice) and the inputs measured from the
  /// features (either may be null). Throws std::invalid_argument for unknown presets, impossible
  /// or missing inputs.
  std::shared_ptr<const CostResult> run(const Timeline* timeline, const FeatureSet* features) const;

 private:
  const CostSetup& setup_;
};

/// Prices move: one line for each price used that was observed more than kStalePriceDays before
/// today (or has no date). Only the table (for people) shows them: the JSON and CSV carry the
/// dates, not an age that would change with the day of the run.
std::vector<std::string> stale_prices(const CostInputs& in);

}  // namespace gpucost::cost
