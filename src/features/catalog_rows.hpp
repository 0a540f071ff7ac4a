#pragma once
// What the feature stage (stage.cpp) needs of the catalog's rows (catalog.cpp): how many there
// are and each row's computation, without the table itself.

#ifndef GPUCOST_LAYER_FEATURES
#error "gpucost_features header: include it only in gpucost_features or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstddef>

#include "features/context.hpp"

namespace gpucost::features {

/// Rows of the catalog (feature_catalog().size() without building the definitions).
std::size_t feature_count() noexcept;
/// Row `index` computed for the host.
FeatureValue compute_host_feature(std::size_t index, const FeatureContext& ctx);
/// Row `index` computed for one GPU; a host-only feature gives a null with reason `host feature`.
FeatureValue compute_gpu_feature(std::size_t index, const FeatureContext& ctx, int gpu);

}  // namespace gpucost::features
