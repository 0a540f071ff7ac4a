#pragma once
/// \file samples.hpp
/// The GPU sample table (dmon, query-gpu, dcgmi): its columns (sample_col) and schema, and the
/// GPU metrics (GPUCOST_GPU_METRICS, GpuMetric) that are its measurement columns.

#ifndef GPUCOST_LAYER_BASE
#error "gpucost_base header: include it only in gpucost_base or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "gpucost/records/stamps.hpp"  // sample_col::wall_kind
#include "gpucost/table.hpp"

namespace gpucost {

// Aligned by hand: clang-format leaves the columns alone.
// clang-format off
/// Columns of the GPU sample table (dmon, query-gpu): one row per GPU per interval.
namespace sample_col {
enum : std::size_t {
  ts_ns = 0,    ///< UTC ns (align)
  wall_kind,    ///< WallKind
  wall_raw_ns,  ///< raw stamp, see WallKind
  file,         ///< index into IngestResult::files
  line,         ///< 1-based line number
  gpu,          ///< GPU index as printed by nvidia-smi
  interval_ns,  ///< sampling interval the row covers (null until known)
  first_metric  ///< GpuMetric columns follow, in GpuMetric order
};
}
// clang-format on

// X(name, unit, dmon header names, query-gpu field names, description).
// Laid out by hand: clang-format leaves the table alone.
// clang-format off
#define GPUCOST_GPU_METRICS(X)                                                                    \
  X(power_w, "W", "pwr", "power.draw", "board power draw")                                        \
  X(gpu_temp_c, "C", "gtemp temp", "temperature.gpu", "GPU core temperature")                     \
  X(mem_temp_c, "C", "mtemp", "temperature.memory", "memory (HBM) temperature")                  \
  X(sm_pct, "%", "sm", "utilization.gpu", "SM (GPU) utilization")                                 \
  X(mem_pct, "%", "mem", "utilization.memory", "memory controller utilization")                  \
  X(enc_pct, "%", "enc", "utilization.encoder", "video encoder utilization")                     \
  X(dec_pct, "%", "dec", "utilization.decoder", "video decoder utilization")                     \
  X(jpg_pct, "%", "jpg", "utilization.jpeg", "JPEG engine utilization")                          \
  X(ofa_pct, "%", "ofa", "utilization.ofa", "optical flow engine utilization")                  \
  X(mclk_mhz, "MHz", "mclk", "clocks.current.memory clocks.mem", "memory clock")                  \
  X(pclk_mhz, "MHz", "pclk", "clocks.current.graphics clocks.gr", "graphics (processor) clock")   \
  X(pviol_pct, "%", "pviol", "", "share of the interval throttled by the power limit")           \
  X(tviol, "bool", "tviol", "", "thermal violation (throttled by temperature) in the interval")   \
  X(fb_mb, "MB", "fb", "memory.used", "framebuffer memory used")                                  \
  X(bar1_mb, "MB", "bar1", "", "BAR1 memory used")                                                \
  X(ccpm_mb, "MB", "ccpm", "", "confidential-compute protected memory used")                     \
  X(sbecc, "errs", "sbecc", "", "single-bit ECC errors (volatile)")                              \
  X(dbecc, "errs", "dbecc", "", "double-bit ECC errors (volatile)")                              \
  X(pci_err, "errs", "pci", "", "PCIe replay errors")                                             \
  X(rxpci_mbs, "MB/s", "rxpci", "", "PCIe receive throughput")                                    \
  X(txpci_mbs, "MB/s", "txpci", "", "PCIe transmit throughput")                                   \
  X(fan_pct, "%", "fan", "fan.speed", "fan speed")                                                \
  X(mem_total_mb, "MB", "", "memory.total", "total framebuffer memory")                           \
  X(power_limit_w, "W", "", "power.limit enforced.power.limit", "enforced power limit")          \
  X(pstate, "", "", "pstate", "performance state number (P0 = 0)")                               \
  X(pcie_gen, "gen", "", "", "PCIe link generation now (query-gpu pcie.link.gen.current)")        \
  X(pcie_width, "lanes", "", "", "PCIe link width now (query-gpu pcie.link.width.current)")        \
  X(reason_hw_slowdown, "bool", "", "clocks_event_reasons.hw_slowdown clocks_throttle_reasons.hw_slowdown", \
    "clock-event reason HW Slowdown active")                                                      \
  X(reason_hw_thermal, "bool", "",                                                                 \
    "clocks_event_reasons.hw_thermal_slowdown clocks_throttle_reasons.hw_thermal_slowdown",        \
    "clock-event reason HW Thermal Slowdown active")                                              \
  X(reason_hw_power_brake, "bool", "",                                                             \
    "clocks_event_reasons.hw_power_brake_slowdown clocks_throttle_reasons.hw_power_brake_slowdown", \
    "clock-event reason HW Power Brake Slowdown active")                                          \
  X(reason_sw_power_cap, "bool", "", "clocks_event_reasons.sw_power_cap clocks_throttle_reasons.sw_power_cap", \
    "clock-event reason SW Power Cap active")                                                     \
  X(reason_sw_thermal, "bool", "",                                                                 \
    "clocks_event_reasons.sw_thermal_slowdown clocks_throttle_reasons.sw_thermal_slowdown",        \
    "clock-event reason SW Thermal Slowdown active")
// clang-format on

/// A GPU measurement column of the sample table.
enum class GpuMetric : std::uint8_t {
#define GPUCOST_X(name, unit, dmon, query, desc) name,
  GPUCOST_GPU_METRICS(GPUCOST_X)
#undef GPUCOST_X
      count_
};
inline constexpr std::size_t kGpuMetricCount = static_cast<std::size_t>(GpuMetric::count_);
std::string_view gpu_metric_name(GpuMetric m) noexcept;
std::string_view gpu_metric_unit(GpuMetric m) noexcept;
/// Column index of a metric in the sample table.
constexpr std::size_t sample_metric_col(GpuMetric m) noexcept {
  return sample_col::first_metric + static_cast<std::size_t>(m);
}
/// The metric a dmon header name binds to (`pwr`, `gtemp`, `temp`, `sm` ...), or nullopt.
std::optional<GpuMetric> gpu_metric_from_dmon(std::string_view header) noexcept;
/// The metric a --query-gpu field binds to (`power.draw`, `utilization.gpu` ...), or nullopt.
std::optional<GpuMetric> gpu_metric_from_query(std::string_view field) noexcept;

/// Makes an empty table with the sample schema.
Table make_sample_table();

}  // namespace gpucost
