#pragma once
// The feature computations, one function per feature (or a template for a family), declared
// here and defined in per-topic files. catalog.cpp binds them to their catalog rows.
// Every function takes the context and a scope: gpu < 0 is the host, else one GPU index.

#ifndef GPUCOST_LAYER_FEATURES
#error "gpucost_features header: include it only in gpucost_features or a layer above it (docs/architecture.md, Layers)"
#endif

#include <optional>
#include <span>
#include <string>

#include "features/context.hpp"
#include "gpucost/benign_messages.hpp"

namespace gpucost::features {

/// A feature computation: host scope when gpu < 0.
using ComputeFn = FeatureValue (*)(const FeatureContext& ctx, int gpu);

// Constants the definitions use (documented in the catalog).
inline constexpr TimeNs kRecoveryCapNs = 300 * kNsPerSec;      ///< cap on a recovery wait
inline constexpr TimeNs kBusyBeforeNs = 60 * kNsPerSec;        ///< how far back "busy before" looks
inline constexpr TimeNs kIncidentGapNs = 300 * kNsPerSec;      ///< maintenance events of one incident
inline constexpr TimeNs kAppIncidentGapNs = 60 * kNsPerSec;    ///< application Xids of one job failure
inline constexpr TimeNs kBootClusterNs = 120 * kNsPerSec;      ///< boot events of one boot
inline constexpr TimeNs kShutdownBeforeBootNs = 600 * kNsPerSec;
inline constexpr TimeNs kContainerPairNs = 300 * kNsPerSec;
inline constexpr TimeNs kContainerStartMergeNs = 10 * kNsPerSec;  ///< start events of one start
inline constexpr TimeNs kRestartGapNs = kNsPerHour;  ///< a longer gap before a boot: the machine was off
inline constexpr TimeNs kServiceBootStartNs = 300 * kNsPerSec;  ///< a daemon's start with the machine
inline constexpr double kIdleEpisodeMinS = 60.0;
inline constexpr double kBusyProcessCpuPct = 10.0;

// ---- shared helpers (gpu_stats.cpp) ----
/// Null when the scope has no sample rows; nullopt when it has.
std::optional<FeatureValue> need_samples(const FeatureContext& c, int gpu);
/// Null when no row of the scope reports the metric; nullopt when some do.
std::optional<FeatureValue> need_metric(const FeatureContext& c, int gpu, GpuMetric m);
/// `no GPU sample reports X` / `no sample of GPU 1 reports X`.
std::string not_reported(int gpu, std::string_view what);
/// `no GPU sample above 78 °C` / `no sample of GPU 1 above 78 °C`.
std::string never_hot(const FeatureContext& c, int gpu);
/// `N rows; first path:line` (with the scope when it is one GPU).
std::string rows_evidence(const FeatureContext& c, int gpu, std::size_t n, std::uint32_t first_row,
                          std::string_view what = "rows");
/// `N events; first path:line`, or `0 events in K kernel/system log files` (the files of `from`).
std::string events_evidence(const FeatureContext& c, std::size_t n, std::uint32_t first_row,
                            std::string_view what = "events", LogSource from = LogSource::kKernel);
/// Null with the reason when a log family is missing.
std::optional<FeatureValue> need_source(const FeatureContext& c, LogSource s);
/// The log family an event kind is read from.
LogSource source_of(EventKind k) noexcept;
/// Hours that rates are expressed per: host sampled hours, else the log uptime; 0 when none.
double rate_hours(const FeatureContext& c, std::string* basis = nullptr);
/// The window a rate's events must lie in to be divided by rate_hours(): the host's sampled span
/// [first row, last row's end) when there are samples, else the observation window.
std::pair<TimeNs, TimeNs> rate_window(const FeatureContext& c) noexcept;
/// Whether an event row has a time inside rate_window().
bool in_rate_window(const FeatureContext& c, std::uint32_t row) noexcept;

FeatureValue metric_mean(const FeatureContext& c, int gpu, GpuMetric m);
FeatureValue metric_max(const FeatureContext& c, int gpu, GpuMetric m);
FeatureValue counter_increase(const FeatureContext& c, int gpu, GpuMetric m);
/// Events of one kind: per GPU the events naming it, host all of them.
FeatureValue event_count(const FeatureContext& c, int gpu, EventKind k);

/// Slots (indexes into c.gpus) of a scope: all for the host, one for a GPU (none if unknown).
std::vector<std::size_t> scope_slots(const FeatureContext& c, int gpu);

/// Runs of consecutive rows of one GPU slot where `pred(value)` holds. A row without the metric,
/// a row where pred fails, or a gap of more than 1.5 intervals without rows (the next row later
/// than ts + 2.5 x interval) ends a run; a shorter gap (dmon skips a second now and then) is
/// bridged. A run lasts from its first row's ts to its last row's end: its rows' intervals and
/// the gaps it bridged.
struct RunSummary {
  std::size_t runs = 0;        ///< all runs
  std::size_t long_runs = 0;   ///< runs lasting at least the minimum given
  double total_s = 0;          ///< Σ duration of all runs
  double longest_s = 0;
  std::size_t rows = 0;        ///< rows inside runs
  std::uint32_t first_row = 0; ///< first row of the first run
};
template <class Pred>
void scan_runs(const FeatureContext& c, std::size_t slot, GpuMetric m, double min_s, Pred pred, RunSummary& out) {
  const ColumnReader col(c.metric(m));
  bool in_run = false;
  double run_s = 0;
  TimeNs prev_end = kNoTime, prev_row_end = kNoTime;
  auto close = [&] {
    if (!in_run) return;
    ++out.runs;
    if (run_s >= min_s) ++out.long_runs;
    out.total_s += run_s;
    if (run_s > out.longest_s) out.longest_s = run_s;
    in_run = false;
    run_s = 0;
  };
  for (auto r : c.gpu_rows[slot]) {
    const TimeNs ts = c.sample_time(r), iv = c.sample_interval(r);
    const bool hit = col.is_valid(r) && pred(col.get_float(r));
    // prev_end holds the previous row's end + 1.5 x its interval: the latest start that continues
    // its run.
    if (in_run && prev_end != kNoTime && ts > prev_end) close();
    if (!hit) {
      close();
    } else {
      if (!in_run && out.rows == 0) out.first_row = r;
      if (in_run && ts > prev_row_end) run_s += seconds(ts - prev_row_end);  // a bridged gap
      in_run = true;
      run_s += seconds(iv);
      ++out.rows;
    }
    prev_row_end = ts + iv;
    prev_end = prev_row_end + iv + iv / 2;
  }
  close();
}

// Helpers whose per-scope results FeatureContext::memo keeps (one id each; heat drop per metric).
enum MemoHelper : int {
  kMemoIdlePower = 1, kMemoBusyPower, kMemoIdleTime, kMemoBusyTime, kMemoIdleRuns, kMemoHotRuns,
  kMemoHeatDrop = 100,  // + GpuMetric
};

template <GpuMetric M> FeatureValue mean_of(const FeatureContext& c, int gpu) { return metric_mean(c, gpu, M); }
template <GpuMetric M> FeatureValue max_of(const FeatureContext& c, int gpu) { return metric_max(c, gpu, M); }
template <GpuMetric M> FeatureValue increase_of(const FeatureContext& c, int gpu) { return counter_increase(c, gpu, M); }
template <EventKind K> FeatureValue count_of(const FeatureContext& c, int gpu) { return event_count(c, gpu, K); }

// ---- GPU sample statistics (gpu_stats.cpp) ----
FeatureValue gpu_samples(const FeatureContext& c, int gpu);
FeatureValue gpu_sampled_s(const FeatureContext& c, int gpu);
FeatureValue gpu_sample_gap_s(const FeatureContext& c, int gpu);
FeatureValue gpu_count(const FeatureContext& c, int gpu);
FeatureValue gpu_idle_fraction(const FeatureContext& c, int gpu);
FeatureValue gpu_busy_s(const FeatureContext& c, int gpu);
FeatureValue gpu_util_busy_mean_pct(const FeatureContext& c, int gpu);
FeatureValue gpu_busy_clock_ratio(const FeatureContext& c, int gpu);
FeatureValue gpu_mem_util_busy_mean_pct(const FeatureContext& c, int gpu);
FeatureValue gpu_idle_s(const FeatureContext& c, int gpu);
FeatureValue gpu_idle_episodes(const FeatureContext& c, int gpu);
FeatureValue gpu_longest_idle_s(const FeatureContext& c, int gpu);
FeatureValue gpu_energy_kwh(const FeatureContext& c, int gpu);
FeatureValue gpu_idle_energy_kwh(const FeatureContext& c, int gpu);
FeatureValue gpu_idle_power_mean_w(const FeatureContext& c, int gpu);
FeatureValue gpu_busy_power_mean_w(const FeatureContext& c, int gpu);
FeatureValue gpu_power_limit_share(const FeatureContext& c, int gpu);
FeatureValue gpu_fb_max_fraction(const FeatureContext& c, int gpu);

// ---- heat, throttling and hardware errors (thermal.cpp) ----
FeatureValue gpu_util_heat_decay_pct(const FeatureContext& c, int gpu);
FeatureValue gpu_time_above_temp_s(const FeatureContext& c, int gpu);
FeatureValue gpu_thermal_episodes(const FeatureContext& c, int gpu);
FeatureValue gpu_thermal_episode_mean_s(const FeatureContext& c, int gpu);
FeatureValue gpu_time_to_hot_s(const FeatureContext& c, int gpu);
FeatureValue gpu_pclk_heat_drop_pct(const FeatureContext& c, int gpu);
FeatureValue gpu_thermal_violation_fraction(const FeatureContext& c, int gpu);
FeatureValue gpu_throttled_fraction(const FeatureContext& c, int gpu);
FeatureValue gpu_util_drop_after_error_pct(const FeatureContext& c, int gpu);
FeatureValue hw_error_events(const FeatureContext& c, int gpu);
FeatureValue thermal_events(const FeatureContext& c, int gpu);
FeatureValue driver_errors_while_hot(const FeatureContext& c, int gpu);
FeatureValue driver_errors_per_thermal_episode(const FeatureContext& c, int gpu);
/// Whether an event row is a hardware error (the set F060/F061 use).
bool is_hw_error(const FeatureContext& c, std::uint32_t row);

// ---- devices: PCIe link, limits, memory (devices.cpp) ----
FeatureValue gpu_power_limit_w(const FeatureContext& c, int gpu);
FeatureValue gpu_memory_total_mib(const FeatureContext& c, int gpu);
FeatureValue pcie_link_width(const FeatureContext& c, int gpu);
FeatureValue pcie_link_width_max(const FeatureContext& c, int gpu);
FeatureValue pcie_link_width_ratio(const FeatureContext& c, int gpu);
FeatureValue pcie_link_gen(const FeatureContext& c, int gpu);
FeatureValue pcie_link_gen_max(const FeatureContext& c, int gpu);
FeatureValue driver_versions(const FeatureContext& c, int gpu);
FeatureValue clock_event_sw_power_cap_s(const FeatureContext& c, int gpu);
FeatureValue clock_event_hw_slowdown_s(const FeatureContext& c, int gpu);
FeatureValue clock_event_sw_thermal_s(const FeatureContext& c, int gpu);
FeatureValue clock_event_hw_thermal_s(const FeatureContext& c, int gpu);
FeatureValue clock_event_hw_power_brake_s(const FeatureContext& c, int gpu);
FeatureValue gpu_ecc_volatile_uncorrected(const FeatureContext& c, int gpu);
FeatureValue gpu_ecc_aggregate_uncorrected(const FeatureContext& c, int gpu);
FeatureValue retired_pages(const FeatureContext& c, int gpu);
FeatureValue row_remap_attention(const FeatureContext& c, int gpu);
FeatureValue gpu_thermal_margin_c(const FeatureContext& c, int gpu);
FeatureValue vbios_versions(const FeatureContext& c, int gpu);
FeatureValue gsp_firmware_versions(const FeatureContext& c, int gpu);

// ---- kernel incidents: Xid classes, AER, taint (incidents.cpp) ----
/// Xid classes of NVIDIA's catalog.
enum class XidClass : std::uint8_t { kApplication, kDriverFirmware, kMemoryEcc, kBus, kRecoveryAction, kOther };
XidClass xid_class(std::optional<std::int64_t> code) noexcept;
std::string_view xid_class_name(XidClass c) noexcept;
FeatureValue xid_events(const FeatureContext& c, int gpu);
template <XidClass K> FeatureValue xid_class_events(const FeatureContext& c, int gpu);
FeatureValue xid_distinct_codes(const FeatureContext& c, int gpu);
FeatureValue xid_top_code_events(const FeatureContext& c, int gpu);
FeatureValue time_between_failures_h(const FeatureContext& c, int gpu);
FeatureValue xid_processes(const FeatureContext& c, int gpu);
FeatureValue gsp_error_events(const FeatureContext& c, int gpu);
FeatureValue pcie_aer_events(const FeatureContext& c, int gpu);
FeatureValue incidents_per_hour(const FeatureContext& c, int gpu);
FeatureValue pcie_aer_corrected_events(const FeatureContext& c, int gpu);
FeatureValue pcie_aer_uncorrected_events(const FeatureContext& c, int gpu);
FeatureValue gpu_reset_events(const FeatureContext& c, int gpu);
FeatureValue maintenance_incidents(const FeatureContext& c, int gpu);
FeatureValue reboot_incidents(const FeatureContext& c, int gpu);
FeatureValue gpu_reset_incidents(const FeatureContext& c, int gpu);
FeatureValue application_xid_incidents(const FeatureContext& c, int gpu);

// ---- processes: ps and pmon (processes.cpp) ----
FeatureValue ps_snapshots(const FeatureContext& c, int gpu);
FeatureValue cpu_load_pct_mean(const FeatureContext& c, int gpu);
FeatureValue cpu_competing_pct_mean(const FeatureContext& c, int gpu);
FeatureValue ps_busy_processes_mean(const FeatureContext& c, int gpu);
FeatureValue mem_used_pct_mean(const FeatureContext& c, int gpu);
FeatureValue desktop_gpu_clients_max(const FeatureContext& c, int gpu);
FeatureValue ps_uninterruptible_max(const FeatureContext& c, int gpu);
FeatureValue wsl2_host(const FeatureContext& c, int gpu);
FeatureValue gpu_processes_mean(const FeatureContext& c, int gpu);
FeatureValue gpu_processes_max(const FeatureContext& c, int gpu);
FeatureValue gpu_competing_processes_mean(const FeatureContext& c, int gpu);
FeatureValue gpu_top_process_sm_share(const FeatureContext& c, int gpu);
/// The GPUs that pmon shows more than one process using, each process with its share of the
/// GPU's SM use and that share of the GPU's busy seconds (`busy_s` per GPU: the values of F017,
/// indexed like c.gpus). An estimate, stated as such in the report.
std::vector<GpuProcessShares> process_shares(const FeatureContext& c, const std::vector<std::optional<double>>& busy_s);
/// Whether a command line runs a known desktop GPU client (display server, compositor, browser,
/// editor, player).
bool is_desktop_gpu_client(std::string_view command) noexcept;

// ---- application: profiler traces (application.cpp) ----
FeatureValue launch_queue_fraction(const FeatureContext& c, int gpu);
FeatureValue profiler_kernel_busy_fraction(const FeatureContext& c, int gpu);
FeatureValue profiler_launch_delay_mean_ms(const FeatureContext& c, int gpu);
FeatureValue profiler_kernels_per_s(const FeatureContext& c, int gpu);

// ---- power events: AC, lid, suspend, boots (power_events.cpp) ----
/// One AC report after merging copies: its instant, its state, and whether it counts as a switch.
struct AcReport {
  TimeNs ts = kNoTime;
  bool online = false;
  bool counted = false;  ///< a switch (false: initial state or a repeat of the known state)
  std::uint32_t row = 0;
};
std::vector<AcReport> ac_reports(const FeatureContext& c);
FeatureValue ac_switches(const FeatureContext& c, int gpu);
FeatureValue ac_switches_per_hour(const FeatureContext& c, int gpu);
FeatureValue battery_s(const FeatureContext& c, int gpu);
/// Mean power / graphics clock of busy rows on battery over that on AC power.
FeatureValue battery_busy_power_ratio(const FeatureContext& c, int gpu);
FeatureValue battery_busy_clock_ratio(const FeatureContext& c, int gpu);
FeatureValue lid_closes(const FeatureContext& c, int gpu);
FeatureValue laptop_signals(const FeatureContext& c, int gpu);
FeatureValue suspends(const FeatureContext& c, int gpu);
FeatureValue suspended_s(const FeatureContext& c, int gpu);
FeatureValue resume_recovery_s_mean(const FeatureContext& c, int gpu);
FeatureValue ac_switch_recovery_s_mean(const FeatureContext& c, int gpu);
/// A boot: boot events at most kBootClusterNs apart, and the latest record before it.
struct BootRecord {
  TimeNs start = kNoTime;               ///< its first boot event
  std::uint32_t row = 0;                ///< that event's row
  TimeNs previous_record = kNoTime;     ///< latest event or sample end before start; kNoTime: logs begin here
};
std::vector<BootRecord> boot_clusters(const FeatureContext& c, std::size_t* unplaced = nullptr);
/// Latest placed record (event instant or sample end) strictly before t, or kNoTime.
TimeNs last_record_before(const FeatureContext& c, TimeNs t);
/// Seconds the logs cover the machine up: the observation window minus the gaps before reboots.
double log_uptime_s(const FeatureContext& c, std::string* evidence = nullptr);
FeatureValue boots(const FeatureContext& c, int gpu);
FeatureValue unclean_reboots(const FeatureContext& c, int gpu);
FeatureValue reboot_downtime_s(const FeatureContext& c, int gpu);
FeatureValue power_event_loss_s(const FeatureContext& c, int gpu);
FeatureValue power_event_loss_fraction(const FeatureContext& c, int gpu);

// ---- known-benign driver messages (benign.cpp) ----
/// A row of the benign table: every part must occur in the message.
using gpucost::benign_driver_messages_table;
using gpucost::is_benign_driver_message;
/// Whether an event row is a driver_error whose text is known-benign.
bool is_benign_event(const FeatureContext& c, std::uint32_t row);
FeatureValue benign_driver_messages(const FeatureContext& c, int gpu);
FeatureValue driver_error_events(const FeatureContext& c, int gpu);

// ---- lost GPUs (lost_gpu.cpp) ----
/// Time GPUs were lost after an Xid 79, a fall off the bus or an RmInitAdapter failure naming
/// them, until each was back (its next sample row or the next boot), else until the end of the
/// measured window; intervals of one GPU are merged. Host scope: summed over GPUs.
struct LostTime {
  TimeNs total = 0;    ///< lost GPU-time
  TimeNs in_span = 0;  ///< of it, inside the host's sampled span (F006's window)
  std::size_t events = 0, not_back = 0, unattributed = 0, unplaced = 0;
  std::uint32_t first = 0;
};
LostTime lost_time(const FeatureContext& c, int gpu);
FeatureValue gpu_lost_s(const FeatureContext& c, int gpu);

// ---- services: containers, cron, windows (services.cpp) ----
FeatureValue container_starts(const FeatureContext& c, int gpu);
FeatureValue container_start_latency_mean_s(const FeatureContext& c, int gpu);
FeatureValue log_uptime_s(const FeatureContext& c, int gpu);
FeatureValue gpu_service_restarts(const FeatureContext& c, int gpu);

// ---- derived figures (derived.cpp) ----
FeatureValue effective_utilization(const FeatureContext& c, int gpu);
FeatureValue effective_gpu_hours(const FeatureContext& c, int gpu);
FeatureValue energy_per_busy_hour_kwh(const FeatureContext& c, int gpu);
FeatureValue idle_energy_fraction(const FeatureContext& c, int gpu);

}  // namespace gpucost::features
