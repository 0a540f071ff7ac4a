#pragma once
// MIG devices as `nvidia-smi -L` lists them (issue 38): one `GPU n: NAME (UUID: GPU-...)` line per
// GPU, then one indented `MIG 1g.10gb     Device  0: (UUID: MIG-...)` line per MIG device.
// Fixtures: tests/data/mig (real pastes, sources in SOURCES.md).

#ifndef GPUCOST_LAYER_INGEST
#error "gpucost_ingest header: include it only in gpucost_ingest or a layer above it (docs/architecture.md, Layers)"
#endif

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::ingest {

/// One MIG device of a `nvidia-smi -L` listing.
struct MigListingDevice {
  int gpu = -1;  ///< the parent GPU's index (`GPU 0:`)
  std::string gpu_name;  ///< `NVIDIA A100-SXM4-80GB`
  std::string gpu_uuid;  ///< `GPU-7fdaf0a5-...`
  std::string profile;  ///< `1g.10gb`
  int device = -1;  ///< the MIG device index on its GPU (`Device  0:`)
  std::string uuid;  ///< `MIG-feb88891-...`
  int compute_slices = 0;  ///< the profile's `Ng`: GPU (compute) slices
  double memory_gb = 0;  ///< the profile's memory (`10gb` -> 10)
  /// The slice's share of its GPU by memory slices: a MIG GPU has 8 memory slices of equal size,
  /// so the share is the profile's memory over the GPU's (read from its name: `80GB`), rounded
  /// to eighths; nullopt where the name states no memory size.
  std::optional<double> share;
};

/// A `GPU n: NAME (UUID: GPU-...)` line of a listing.
struct ListedGpu {
  int index = -1;
  std::string name;
  std::string uuid;
};

/// A MIG device's share of its GPU: a MIG GPU has 8 memory slices of equal size, so the device's
/// memory over the GPU's (in the same unit), rounded to eighths, at most 1.
double mig_share(double device_memory, double gpu_memory);

/// The GPU a listing line names, or nullopt when it is not a GPU line.
std::optional<ListedGpu> parse_listed_gpu(std::string_view line);
/// The MIG device a `MIG 1g.10gb     Device  0: (UUID: MIG-...)` line names, on the GPU listed
/// before it; nullopt when it is not a MIG line.
std::optional<MigListingDevice> parse_listed_mig(std::string_view line, const ListedGpu& gpu);

/// The MIG devices of a listing, in the order printed; GPUs without MIG devices add none. Lines
/// that are neither GPU nor MIG lines are skipped.
std::vector<MigListingDevice> parse_mig_listing(std::string_view text);

}  // namespace gpucost::ingest
