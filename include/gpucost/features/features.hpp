#pragma once
/// \file features.hpp
/// The feature catalog (F001-F137) and the stage that computes it from the timeline. One table
/// in src/features/ is the single source of truth for ids, names, units, layers, sources and
/// definitions; `gpucost features` and docs/features.md are generated from it.

#ifndef GPUCOST_LAYER_FEATURES
#error "gpucost_features header: include it only in gpucost_features or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpucost/align/timeline.hpp"
#include "gpucost/features/feature_ids.hpp"

namespace gpucost {

/// The layer of the article's five-layer model a feature belongs to (plus derived figures).
enum class Layer : std::uint8_t { kHardware, kDriver, kRuntime, kApplication, kSystem, kDerived };
/// Name of a layer as printed (`hardware`).
std::string_view layer_name(Layer l) noexcept;

/// Whether a feature has a value per GPU, for the host, or both.
enum class FeatureScope : std::uint8_t {
  kHost,     ///< one value for the machine
  kPerGpu,  ///< one value per GPU, and a host value aggregated as its definition says
};
/// Name of a scope as printed (`host`, `per_gpu`).
std::string_view scope_name(FeatureScope s) noexcept;

/// One entry of the catalog.
struct FeatureDef {
  std::string_view id;          ///< `F001`
  std::string_view name;        ///< snake_case, stable
  std::string_view unit;        ///< `%`, `s`, `W`, `count`, `1/h`, `ratio` ...
  Layer layer;
  FeatureScope scope;
  std::string_view sources;     ///< formats it needs (`dmon`, `dmesg|syslog|journal`, `ps`, ...)
  std::string_view definition;  ///< precise enough to recompute by hand
};

/// The computed value of a feature: a number, or null with the reason.
struct FeatureValue {
  std::optional<double> value;
  std::string reason;     ///< why it is null (`no dmon samples`); empty when it has a value
  /// Where it came from, deterministic: rows/events counted and the first file:line
  /// (`3 xid events; first dmesg.txt:120`), or the inputs of a derived figure.
  std::string evidence;
};

/// Thresholds the definitions use (command-line options).
struct FeatureOptions {
  double idle_threshold_pct = 5.0;   ///< --idle-threshold: SM % at or below which a sample is idle
  double temp_threshold_c = 78.0;    ///< --temp-threshold: °C above which a sample is hot
  TimeNs after_error_window_ns = 15 * kNsPerSec;  ///< window after a hardware error (utilization drop)
};

/// All feature values of a run.
/// One process's share of a GPU shared by several (time-slicing, MPS), from `nvidia-smi pmon`:
/// its SM % summed over the pmon intervals over all processes' sum (issue 38). An estimate: pmon
/// samples each process's SM use, and the GPU's busy time is split in that proportion.
struct ProcessShare {
  std::int64_t pid = 0;
  std::string command;  ///< pmon's command column
  double sm_share = 0;  ///< of the SM % all processes of the GPU used, 0..1
  std::optional<double> busy_s;  ///< sm_share x the GPU's busy seconds (F017), where known
  std::uint64_t intervals = 0;  ///< pmon intervals the process was listed in
};

/// The processes sharing one GPU, largest share first: at most kMaxProcessShares, the rest
/// counted.
struct GpuProcessShares {
  int gpu = -1;
  std::vector<ProcessShare> top;
  std::size_t processes = 0;  ///< distinct pids with SM use in the pmon rows
  double others_share = 0;  ///< the share of those beyond `top`
};
inline constexpr std::size_t kMaxProcessShares = 10;

struct FeatureSet {
  FeatureOptions options;
  /// GPUs that more than one process used (pmon), with each process's estimated share.
  std::vector<GpuProcessShares> shared_gpus;
  std::vector<FeatureValue> host;               ///< indexed like feature_catalog()
  std::vector<int> gpus;                        ///< GPU indices that have values
  std::vector<std::vector<FeatureValue>> per_gpu;  ///< per_gpu[k] for gpus[k], indexed like the catalog

  /// The host value of a feature; nullptr when the set holds no values.
  const FeatureValue* find(FeatureId id) const noexcept;
  /// The value of a feature for one GPU index; nullptr when the set has no values for that GPU.
  const FeatureValue* find_gpu(int gpu, FeatureId id) const noexcept;
  /// The host number of a feature; nullopt when it is null or the set holds no values.
  std::optional<double> get(FeatureId id) const noexcept;

  /// The host value of a feature by name or public id (user input, `gpucost features`); nullptr
  /// when no such feature. Code uses the FeatureId overloads.
  const FeatureValue* find(std::string_view name_or_id) const noexcept;
  /// The value of a feature for one GPU index; nullptr when no such feature or GPU.
  const FeatureValue* find_gpu(int gpu, std::string_view name_or_id) const noexcept;
};

/// The catalog, in id order (F001 first).
std::span<const FeatureDef> feature_catalog();
/// The catalog's entry of a feature.
const FeatureDef& feature_def(FeatureId id);
/// Index in the catalog of a feature by name or id, or npos.
std::size_t feature_index(std::string_view name_or_id) noexcept;
inline constexpr std::size_t kNoFeature = static_cast<std::size_t>(-1);

/// The catalog as text: `table` (aligned columns), `csv`, `json` (an array of objects with id,
/// name, unit, layer, scope, sources, definition) or `md` (the whole of docs/features.md).
/// Throws std::invalid_argument for another format.
std::string render_feature_catalog(std::string_view format);

/// Computes every feature of the catalog from the timeline.
class FeatureStage {
 public:
  /// `threads`: how many features are computed at once (0 = all cores); the values do not
  /// depend on it.
  explicit FeatureStage(FeatureOptions options, unsigned threads = 1) : options_(options), threads_(threads) {}
  void run(const Timeline& timeline, FeatureSet& out) const;

 private:
  FeatureOptions options_;
  unsigned threads_ = 1;
};

}  // namespace gpucost
