#pragma once
/// \file feature_ids.hpp
/// The ids of the feature catalog: ONE table, `X(public id, name)` in id order. It generates
/// `enum class FeatureId` (whose value is the row's index in the catalog), the public id
/// (`F001`) and the name of each feature. Code refers to a feature as `FeatureId::gpu_busy_s`, so
/// a misspelt name does not compile; the public ids appear nowhere else in the code.
///
/// Ids are stable: a feature that keeps its meaning keeps its id. A feature that goes away moves
/// to GPUCOST_RETIRED_FEATURES, and its id is never used again; a new feature gets the next id
/// after every live and retired one, at the end of the table.

#ifndef GPUCOST_LAYER_FEATURES
#error "gpucost_features header: include it only in gpucost_features or a layer above it (docs/architecture.md, Layers)"
#endif

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace gpucost {

// clang-format off
#define GPUCOST_FEATURES(X) \
  X(F001, gpu_util_heat_decay_pct) \
  X(F002, gpu_idle_fraction) \
  X(F003, launch_queue_fraction) \
  X(F004, power_event_loss_fraction) \
  X(F005, ac_switches_per_hour) \
  X(F006, effective_utilization) \
  X(F007, incidents_per_hour) \
  X(F008, maintenance_incidents) \
  X(F009, gpu_samples) \
  X(F010, gpu_sampled_s) \
  X(F011, battery_busy_clock_ratio) \
  X(F012, gpu_sample_gap_s) \
  X(F013, gpu_count) \
  X(F014, gpu_util_mean_pct) \
  X(F015, driver_versions) \
  X(F016, gpu_util_busy_mean_pct) \
  X(F017, gpu_busy_s) \
  X(F018, gpu_idle_s) \
  X(F019, gpu_idle_episodes) \
  X(F020, gpu_longest_idle_s) \
  X(F021, gpu_mem_util_mean_pct) \
  X(F022, gpu_busy_clock_ratio) \
  X(F023, gpu_mem_util_busy_mean_pct) \
  X(F024, gpu_power_mean_w) \
  X(F025, xid_processes) \
  X(F026, clock_event_sw_power_cap_s) \
  X(F027, gpu_energy_kwh) \
  X(F028, gpu_idle_energy_kwh) \
  X(F029, gpu_idle_power_mean_w) \
  X(F030, gpu_busy_power_mean_w) \
  X(F031, gpu_power_limit_share) \
  X(F032, gpu_temp_mean_c) \
  X(F033, battery_busy_power_ratio) \
  X(F034, gpu_temp_max_c) \
  X(F035, gpu_time_above_temp_s) \
  X(F036, gsp_firmware_versions) \
  X(F037, gpu_thermal_episodes) \
  X(F038, gpu_thermal_episode_mean_s) \
  X(F039, gpu_time_to_hot_s) \
  X(F040, gpu_mem_temp_max_c) \
  X(F041, gpu_pclk_mean_mhz) \
  X(F042, clock_event_hw_slowdown_s) \
  X(F043, gpu_pclk_heat_drop_pct) \
  X(F044, clock_event_sw_thermal_s) \
  X(F045, gpu_power_violation_mean_pct) \
  X(F046, gpu_thermal_violation_fraction) \
  X(F047, gpu_throttled_fraction) \
  X(F048, gpu_fb_mean_mb) \
  X(F049, row_remap_attention) \
  X(F050, gpu_ecc_volatile_uncorrected) \
  X(F051, gpu_fb_max_fraction) \
  X(F052, gpu_ecc_aggregate_uncorrected) \
  X(F053, gpu_sbecc_errors) \
  X(F054, gpu_dbecc_errors) \
  X(F055, gpu_pcie_replay_errors) \
  X(F056, gpu_pcie_rx_mean_mbs) \
  X(F057, gpu_pcie_tx_mean_mbs) \
  X(F058, gpu_thermal_margin_c) \
  X(F059, retired_pages) \
  X(F060, gpu_util_drop_after_error_pct) \
  X(F061, hw_error_events) \
  X(F062, thermal_events) \
  X(F063, clock_event_hw_power_brake_s) \
  X(F064, driver_errors_while_hot) \
  X(F065, driver_errors_per_thermal_episode) \
  X(F066, benign_driver_messages) \
  X(F067, i915_hang_events) \
  X(F068, gpu_power_limit_w) \
  X(F069, gpu_memory_total_mib) \
  X(F070, pcie_link_width) \
  X(F071, pcie_link_width_max) \
  X(F072, pcie_link_width_ratio) \
  X(F073, pcie_link_gen) \
  X(F074, pcie_link_gen_max) \
  X(F075, pcie_link_degraded_events) \
  X(F076, pcie_aer_events) \
  X(F077, pcie_aer_corrected_events) \
  X(F078, pcie_aer_uncorrected_events) \
  X(F079, xid_events) \
  X(F080, xid_application_events) \
  X(F081, xid_driver_firmware_events) \
  X(F082, xid_memory_ecc_events) \
  X(F083, xid_bus_events) \
  X(F084, xid_recovery_action_events) \
  X(F085, xid_other_events) \
  X(F086, xid_distinct_codes) \
  X(F087, time_between_failures_h) \
  X(F088, fallen_off_bus_events) \
  X(F089, rm_init_failed_events) \
  X(F090, gsp_error_events) \
  X(F091, nv_assert_events) \
  X(F092, gpu_reset_events) \
  X(F093, gpu_lost_s) \
  X(F094, driver_error_events) \
  X(F095, reboot_incidents) \
  X(F096, gpu_reset_incidents) \
  X(F097, application_xid_incidents) \
  X(F098, gpu_service_restarts) \
  X(F099, ps_snapshots) \
  X(F100, xid_top_code_events) \
  X(F101, cpu_load_pct_mean) \
  X(F102, cpu_competing_pct_mean) \
  X(F103, ps_busy_processes_mean) \
  X(F104, mem_used_pct_mean) \
  X(F105, desktop_gpu_clients_max) \
  X(F106, ps_uninterruptible_max) \
  X(F107, wsl2_host) \
  X(F108, gpu_processes_mean) \
  X(F109, gpu_processes_max) \
  X(F110, gpu_competing_processes_mean) \
  X(F111, gpu_top_process_sm_share) \
  X(F112, profiler_kernel_busy_fraction) \
  X(F113, profiler_launch_delay_mean_ms) \
  X(F114, profiler_kernels_per_s) \
  X(F115, oom_kill_events) \
  X(F116, segfault_events) \
  X(F117, ac_switches) \
  X(F118, battery_s) \
  X(F119, lid_closes) \
  X(F120, laptop_signals) \
  X(F121, suspends) \
  X(F122, suspended_s) \
  X(F123, resume_recovery_s_mean) \
  X(F124, ac_switch_recovery_s_mean) \
  X(F125, boots) \
  X(F126, unclean_reboots) \
  X(F127, reboot_downtime_s) \
  X(F128, container_starts) \
  X(F129, container_start_latency_mean_s) \
  X(F130, vbios_versions) \
  X(F131, service_failures) \
  X(F132, clock_event_hw_thermal_s) \
  X(F133, log_uptime_s) \
  X(F134, power_event_loss_s) \
  X(F135, effective_gpu_hours) \
  X(F136, energy_per_busy_hour_kwh) \
  X(F137, idle_energy_fraction)

/// Features that went away: `X(public id, name)`. Their ids and names are never reused.
/// (Before this list existed, 21 ids were reassigned to new features; the catalog's definitions
/// say which with "Replaces ...". From now on an id goes here instead.)
#define GPUCOST_RETIRED_FEATURES(X)
// clang-format on

/// A feature of the catalog; its value is the feature's index in feature_catalog().
enum class FeatureId : std::uint16_t {
#define GPUCOST_FEATURE_ENUM(code, name) name,
  GPUCOST_FEATURES(GPUCOST_FEATURE_ENUM)
#undef GPUCOST_FEATURE_ENUM
};

namespace feature_ids {
#define GPUCOST_FEATURE_CODE(code, name) std::string_view(#code),
#define GPUCOST_FEATURE_NAME(code, name) std::string_view(#name),
#define GPUCOST_FEATURE_ONE(code, name) +1
/// Public ids (`F001`), indexed by FeatureId.
inline constexpr std::array kCodes{GPUCOST_FEATURES(GPUCOST_FEATURE_CODE)};
/// Names (`gpu_util_heat_decay_pct`), indexed by FeatureId.
inline constexpr std::array kNames{GPUCOST_FEATURES(GPUCOST_FEATURE_NAME)};
/// Retired public ids and names, in the order listed.
inline constexpr std::array<std::string_view, 0 GPUCOST_RETIRED_FEATURES(GPUCOST_FEATURE_ONE)> kRetiredCodes{
    GPUCOST_RETIRED_FEATURES(GPUCOST_FEATURE_CODE)};
inline constexpr std::array<std::string_view, kRetiredCodes.size()> kRetiredNames{
    GPUCOST_RETIRED_FEATURES(GPUCOST_FEATURE_NAME)};
#undef GPUCOST_FEATURE_CODE
#undef GPUCOST_FEATURE_NAME
#undef GPUCOST_FEATURE_ONE
}  // namespace feature_ids

/// Number of features in the catalog.
inline constexpr std::size_t kFeatureCount = feature_ids::kCodes.size();

/// Index of a feature in feature_catalog() and in FeatureSet's vectors.
constexpr std::size_t feature_slot(FeatureId id) noexcept { return static_cast<std::size_t>(id); }
/// Public id of a feature (`F017`).
constexpr std::string_view feature_code(FeatureId id) noexcept { return feature_ids::kCodes[feature_slot(id)]; }
/// Name of a feature (`gpu_busy_s`).
constexpr std::string_view feature_name(FeatureId id) noexcept { return feature_ids::kNames[feature_slot(id)]; }

}  // namespace gpucost
