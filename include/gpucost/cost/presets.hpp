#pragma once
/// \file presets.hpp
/// Presets are data: local GPUs (price, board power, throughput), cloud offers (hourly rate,
/// cold start, throughput; each with its source and the date it was seen), complete scenarios
/// (`seed-article`) and per-currency defaults. The built-in set is data/presets.json, compiled
/// into the binary; users add or replace entries with their own files (--presets FILE).

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpucost/cost/inputs.hpp"

namespace gpucost::cost {

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
  std::string source;  ///< where the price was read (URL)
  std::string seen;    ///< when the price was read or stated (YYYY-MM-DD)
  std::string cold_start_source, throughput_source;
  std::string note;
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
  std::vector<LocalGpu> local;
  std::vector<CloudOffer> cloud;
  std::vector<Scenario> scenarios;
  std::vector<CurrencyDefaults> currency_defaults;

  /// Adds the presets of a JSON document (the data/presets.json format); an entry whose name
  /// already exists replaces it. Throws std::invalid_argument naming `origin` and the key.
  void load_json(std::string_view json, std::string_view origin);

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
/// The built-in presets plus the files given (later files replace entries of earlier ones);
/// throws std::invalid_argument for unreadable or malformed files.
PresetCatalog load_presets(const std::vector<std::string>& files);
/// A one-entry-per-line listing for `gpucost breakeven --list-presets`.
std::string list_presets(const PresetCatalog& catalog);

}  // namespace gpucost::cost
