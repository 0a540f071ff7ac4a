#pragma once
/// \file offers.hpp
/// `gpucost offers GPU`: every cloud offer of the price catalogs for one GPU model (and GPU
/// count), cheapest first, each with its provider, region, on-demand and spot price, billing
/// granularity, cold start, source and the date the price was observed, in the manner of
/// `sky show-gpus`. It is how one picks `--cloud NAME` and sees how old and how trustworthy
/// each price is (the catalogs' SourceKind).

#ifndef GPUCOST_LAYER_COST
#error "gpucost_cost header: include it only in gpucost_cost or a layer above it (docs/architecture.md, Layers)"
#endif

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpucost/cost/presets.hpp"

namespace gpucost::cost {

/// What `gpucost offers` was asked for: a GPU model (empty: every offer) and, optionally, the
/// number of GPUs per instance.
struct OfferQuery {
  std::string gpu;
  std::optional<double> count;
};

/// `h100`, `H100:8` (SkyPilot's GPU:COUNT), `rtx-4090`, `4090`. Throws std::invalid_argument for
/// a count that is not a positive number.
OfferQuery parse_offer_query(std::string_view text);

/// Whether an offer is of the GPU asked for: its accelerator (`A100-80GB`) or GPU label names
/// the same model, compared without case, punctuation and the words NVIDIA/GeForce; a bare
/// model (`a100`, `h100`) also takes its variants (`A100-80GB`, `H100-PCIe`); `4090` is `RTX4090`.
bool offer_is_gpu(const CloudOffer& offer, std::string_view gpu);

/// The offers that answer the query, sorted by GPU model, GPU count, currency, then price:
/// on-demand offers by their on-demand price, cheapest first, then offers with only a spot or
/// committed price by that price; ties by name. Throws std::invalid_argument when no offer is of
/// that GPU (the message lists the GPUs the catalogs know) or none has that many GPUs (the
/// message lists the counts there are).
std::vector<const CloudOffer*> find_offers(const PresetCatalog& catalog, const OfferQuery& query);

/// The GPU models (AcceleratorName) the catalogs' offers are of, sorted, each once.
std::vector<std::string> offer_gpu_names(const PresetCatalog& catalog);

/// The offers as `table` (for people: one line each, sources numbered below), `csv` or `json`
/// (for scripts: every field, `observed_on` the date each price was observed, null when unknown).
/// An offer without its own cold start shows the model's default (cloud.cold_start_s) as such.
std::string render_offers(const std::vector<const CloudOffer*>& offers, const OfferQuery& query,
                          std::string_view format);

}  // namespace gpucost::cost
