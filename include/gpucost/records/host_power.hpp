#pragma once
/// \file host_power.hpp
/// What the logs measure of the rest of the machine (HostPowerSample): the CPU packages' and
/// their DRAM's power from the kernel's RAPL energy counters, and the whole system's draw at the
/// power supply's input from the BMC (`ipmitool dcmi power reading`).

#ifndef GPUCOST_LAYER_BASE
#error "gpucost_base header: include it only in gpucost_base or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstdint>
#include <string>
#include <string_view>

#include "gpucost/records/stamps.hpp"
#include "gpucost/time.hpp"

namespace gpucost {

/// What a host power sample measures.
enum class HostPowerSource : std::uint8_t {
  kCpuPackage,  ///< one CPU package (RAPL `package-N`): cores, caches, uncore; DC, after the supply
  kCpuDram,  ///< the DRAM of one package (RAPL `dram` subdomain); DC, after the supply
  kSystemWall,  ///< the whole system at the power supply's input (IPMI DCMI): AC, GPUs included
};

/// `cpu_package`, `cpu_dram`, `system_wall`.
constexpr std::string_view host_power_source_name(HostPowerSource s) noexcept {
  switch (s) {
    case HostPowerSource::kCpuPackage: return "cpu_package";
    case HostPowerSource::kCpuDram: return "cpu_dram";
    case HostPowerSource::kSystemWall: return "system_wall";
  }
  return "?";
}

/// One power reading of the host. A RAPL sample is the mean power between two readings of one
/// domain's energy counter (stamped at the later one; interval_ns is the span); an IPMI sample is
/// the BMC's instantaneous reading (interval_ns 0).
struct HostPowerSample {
  std::uint32_t file = 0;
  std::uint64_t line = 0;  ///< the line of the (later) reading
  WallKind wall_kind = WallKind::kNone;
  TimeNs wall_raw_ns = kNoTime;  ///< as printed, read per wall_kind
  TimeNs ts_ns = kNoTime;  ///< UTC (set by align)
  TimeNs interval_ns = 0;
  double watts = 0;
  HostPowerSource source = HostPowerSource::kCpuPackage;
  std::string domain;  ///< the RAPL zone (`intel-rapl:0`, `intel-rapl:0:0`); `dcmi` for IPMI
};

}  // namespace gpucost
