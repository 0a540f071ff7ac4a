#pragma once
/// \file devices.hpp
/// What the device reports (`nvidia-smi -q`, --query-gpu, `-L`) and NVRM lines tell about the GPUs:
/// GpuDevice, its MigDevices, and the PCI bus id that names a GPU in kernel messages.

#ifndef GPUCOST_LAYER_BASE
#error "gpucost_base header: include it only in gpucost_base or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost {

/// A MIG device (a GPU instance with its compute instance) of a GPU (issue 38).
struct MigDevice {
  std::string profile;  ///< `1g.10gb`
  int device = -1;  ///< the MIG device index on its GPU (`Device  0:`)
  std::optional<int> gpu_instance, compute_instance;  ///< GI/CI ids where printed
  int compute_slices = 0;  ///< the profile's `Ng`
  double memory_gb = 0;  ///< the profile's memory
  std::string uuid;  ///< `MIG-...`
  /// Its share of the GPU by memory slices (eighths), nullopt where the GPU's memory is unknown.
  std::optional<double> share;
};

/// What `nvidia-smi -q`, --query-gpu and NVRM lines tell about one GPU.
struct GpuDevice {
  std::optional<int> index;  ///< nvidia-smi index (minor number) when known
  std::string pci_bus;  ///< normalized `0000:01:00` (domain:bus:device)
  std::string name;  ///< product name
  std::string uuid;
  std::string driver_version;
  std::optional<int> pcie_gen_current, pcie_gen_max;
  std::optional<int> pcie_width_current, pcie_width_max;
  std::optional<double> power_limit_w;
  /// The board's own limits: `Default Power Limit` and `Max Power Limit` of -q,
  /// `power.default_limit` and `power.max_limit` of --query-gpu. A power_limit_w below the
  /// default was set by someone (`nvidia-smi -pl`), capping at the default is the design.
  std::optional<double> power_default_limit_w, power_max_limit_w;
  /// What the driver asks for to recover the GPU: `GPU Recovery Action` of -q,
  /// `gpu_recovery_action` of --query-gpu (`None`, `Reset`, `Reboot`, `Drain P2P`, `Drain and
  /// Reset`), as printed; empty when not reported.
  std::string recovery_action;
  std::optional<double> memory_total_mib;
  /// VBIOS versions the reports of this file gave the GPU, each once, in order (`96.00.A5.00.1A`).
  std::vector<std::string> vbios_versions;
  /// GSP firmware versions the reports gave the GPU, each once, in order (`580.159.04`); none where
  /// the GPU runs without GSP firmware (`N/A`) or the driver predates the line.
  std::vector<std::string> gsp_firmware_versions;
  /// `Clocks Event Reasons Counters` (`Clocks Throttle Reasons Counters`): microseconds the clocks
  /// were held down by each cause since the driver loaded (newer drivers only).
  std::optional<double> clock_event_sw_power_cap_us, clock_event_sw_thermal_us, clock_event_hw_thermal_us,
      clock_event_hw_power_brake_us;
  /// `ECC Errors`: corrected and uncorrected totals, volatile (since the driver loaded) and
  /// aggregate (the board's lifetime), summed over SRAM/DRAM or device memory/register file.
  std::optional<double> ecc_volatile_corrected, ecc_volatile_uncorrected, ecc_aggregate_corrected,
      ecc_aggregate_uncorrected;
  /// `Retired Pages`: pages retired for single- and double-bit errors, and a retirement pending.
  std::optional<double> retired_pages_sbe, retired_pages_dbe;
  std::optional<bool> retired_pages_pending;
  /// `Remapped Rows`: a remap waiting for a GPU reset, and a remap that failed (the board's spare
  /// rows ran out).
  std::optional<bool> row_remap_pending, row_remap_failed;
  /// `Temperature`: the reading, and the GPU's own slowdown temperature (`GPU Slowdown Temp`, or
  /// on drivers that print T.Limit offsets the reading + `GPU T.Limit Temp` + `GPU Slowdown
  /// T.Limit Temp`), in °C.
  std::optional<double> temp_current_c, temp_slowdown_c;
  /// The GPU's MIG devices (`nvidia-smi -L`), in the order listed; none when MIG is off or unknown.
  std::vector<MigDevice> mig_devices;
  std::uint32_t file = 0;
  std::uint64_t line = 0;
};

/// Normalizes a PCI address as NVRM prints it (`PCI:0000:01:00`, `0000:01:00.0`,
/// `00000000:01:00.0`) to `0000:01:00`; empty when it is none.
std::string normalize_pci_bus(std::string_view s);

}  // namespace gpucost
