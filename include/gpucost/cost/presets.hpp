#pragma once
/// \file presets.hpp
/// Presets are data: local GPUs (price, board power, throughput), cloud offers (hourly rate,
/// cold start, throughput; each with its source and the date it was seen), complete scenarios
/// (`seed-article`) and per-currency defaults. The built-in set is data/presets.json, compiled
/// into the binary; users add or replace entries with their own files (--presets FILE).

#ifndef GPUCOST_LAYER_COST
#error "gpucost_cost header: include it only in gpucost_cost or a layer above it (docs/architecture.md, Layers)"
#endif

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpucost/cost/inputs.hpp"

namespace gpucost::cost {

/// What a price's source is, the catalogs' SourceKind column: `provider` (the seller's own price
/// list, read there or in a dated transcription of it), `third_party` (someone else's report of
/// the price), `estimate` (a street or market estimate), `unverified` (no source could be checked:
/// kept for reproducing a published calculation). Empty in older catalogs: not stated.
inline constexpr const char* kSourceKinds[] = {"provider", "third_party", "estimate", "unverified"};

/// A GPU one can buy.
struct LocalGpu {
  std::string name;      ///< `rtx-4090` (what --local takes)
  std::string label;     ///< `NVIDIA GeForce RTX 4090`
  std::string currency;  ///< currency of purchase_price
  std::optional<double> purchase_price;
  std::optional<double> power_w;     ///< board power
  std::optional<double> throughput;  ///< in the catalog's throughput_unit
  std::optional<double> memory_bandwidth_gbs;  ///< peak DRAM bandwidth, GB/s
  std::string price_source, power_source, throughput_source, memory_bandwidth_source;  ///< where each figure comes from
  std::string price_observed_on;  ///< when the price was observed (YYYY-MM-DD; empty: undated)
  std::string price_source_kind;  ///< what the price source is (catalog's SourceKind, kSourceKinds)
  std::string accelerator;        ///< the catalogs' AcceleratorName (`RTX4090`, `H200`)
  std::string kind;               ///< consumer, laptop, workstation or datacenter
  std::string note;                                           ///< caveats
};

/// A GPU one can rent.
struct CloudOffer {
  std::string name;  ///< `aws-g6.xlarge` (what --cloud takes)
  std::string label;
  std::string provider, gpu;
  std::string currency;
  std::optional<double> hourly_rate, cold_start_s, utilization, throughput;
  std::optional<double> memory_bandwidth_gbs;  ///< peak DRAM bandwidth of its GPU, GB/s
  std::string memory_bandwidth_source;
  std::optional<double> spot_rate;       ///< interruptible (spot) price per hour
  std::optional<double> committed_rate;  ///< price per hour under a commitment (reserved, savings plan)
  std::optional<double> billing_increment_s, minimum_billing_s;  ///< billing granularity and minimum
  std::string region, accelerator;       ///< the catalog's Region and AcceleratorName
  /// GPUs in one instance (the catalog's AcceleratorCount): the price and the throughput are the
  /// whole instance's, so only offers with the same count compare price for price.
  double accelerator_count = 1;
  std::string source;  ///< where the price was read (URL)
  std::string seen;    ///< when the price was observed at its source (YYYY-MM-DD; empty: undated)
  std::string source_kind;  ///< what the source is (the catalog's SourceKind, one of kSourceKinds)
  std::string cold_start_source, throughput_source;
  std::string note;
};

/// What a GPU model can do (spec sheet), by the catalogs' AcceleratorName: what a cloud offer
/// or a local GPU known only from a catalog row takes its speed figures from.
struct AcceleratorSpec {
  std::string name, label;
  std::optional<double> throughput, memory_bandwidth_gbs, power_w;
  std::string throughput_source, memory_bandwidth_source, power_source;
};

/// A complete set of inputs (`seed-article`).
struct Scenario {
  std::string name, description, currency;
  std::string local_gpu, cloud_offer;  ///< presets it corresponds to (labels, throughput)
  std::map<InputId, double> values;
  std::map<InputId, std::string> notes;
};

/// Money defaults of one currency (electricity price, engineer rate).
struct CurrencyDefaults {
  std::string currency;
  std::map<InputId, double> values;
  std::map<InputId, std::string> notes;  ///< where each value comes from
};

/// All presets known to a run.
struct PresetCatalog {
  std::string throughput_unit;  ///< what `throughput` measures
  std::string memory_bandwidth_unit = "GB/s";  ///< what `memory_bandwidth_gbs` measures
  std::string default_local, default_cloud;  ///< the generic pair used when nothing is picked
  std::vector<AcceleratorSpec> accelerators;
  std::vector<LocalGpu> local;
  std::vector<CloudOffer> cloud;
  std::vector<Scenario> scenarios;
  std::vector<CurrencyDefaults> currency_defaults;

  /// Adds the presets of a JSON document (the data/presets.json format); an entry whose name
  /// already exists replaces it. Throws std::invalid_argument naming `origin` and the key.
  void load_json(std::string_view json, std::string_view origin);

  /// Adds a local GPU or replaces the one of the same name.
  void upsert_local(LocalGpu g);
  /// Adds a cloud offer or replaces the one of the same name.
  void upsert_cloud(CloudOffer o);
  /// The spec of an accelerator by name (case and punctuation ignored); nullptr when unknown.
  const AcceleratorSpec* find_accelerator(std::string_view name) const;

  const LocalGpu* find_local(std::string_view name) const noexcept;
  /// The local GPU whose label names the product a log printed (`NVIDIA GeForce RTX 4060 Laptop
  /// GPU` from nvidia-smi -q): labels and product are compared without case, blanks,
  /// punctuation and the words NVIDIA/GeForce/GPU; the longest label contained in the product
  /// wins. nullptr when none matches.
  const LocalGpu* match_local(std::string_view product) const;
  /// The first cloud offer priced in a currency, nullptr when none.
  const CloudOffer* first_cloud_in(std::string_view currency) const noexcept;
  const CloudOffer* find_cloud(std::string_view name) const noexcept;
  const Scenario* find_scenario(std::string_view name) const noexcept;
  const CurrencyDefaults* find_currency(std::string_view code) const noexcept;
};

/// data/presets.json as compiled into the binary.
std::string_view embedded_presets_json() noexcept;
/// The built-in presets (parsed once).
const PresetCatalog& builtin_presets();
/// The built-in presets plus the files given (later files replace entries of earlier ones), then
/// the price catalogs given (--catalog, CSV); throws std::invalid_argument for unreadable or
/// malformed files.
PresetCatalog load_presets(const std::vector<std::string>& files, const std::vector<std::string>& catalogs = {});
/// A one-entry-per-line listing for `gpucost breakeven --list-presets`.
std::string list_presets(const PresetCatalog& catalog);

}  // namespace gpucost::cost
