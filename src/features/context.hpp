#pragma once
// What every feature computation reads: the timeline plus indexes built once per run.

#include <vector>

#include "gpucost/features/features.hpp"

namespace gpucost::features {

/// The timeline and per-GPU row indexes shared by all feature computations.
struct FeatureContext {
  const Timeline& timeline;
  const FeatureOptions& options;
  std::vector<int> gpus;                           ///< distinct GPU indices in the samples
  std::vector<std::vector<std::uint32_t>> gpu_rows;  ///< sample rows of gpus[k], in time order

  FeatureContext(const Timeline& t, const FeatureOptions& o);
  /// Sample rows for a scope: one GPU (gpu >= 0) or all (gpu < 0).
  const std::vector<std::uint32_t>& rows(int gpu) const;

 private:
  std::vector<std::uint32_t> all_rows_;
};

/// A feature computation: host scope when gpu < 0.
using ComputeFn = FeatureValue (*)(const FeatureContext& ctx, int gpu);

/// A value.
inline FeatureValue value(double v, std::string evidence = {}) { return FeatureValue{v, {}, std::move(evidence)}; }
/// A null with its reason.
inline FeatureValue null_because(std::string reason) { return FeatureValue{std::nullopt, std::move(reason), {}}; }

}  // namespace gpucost::features
