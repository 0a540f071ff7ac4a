// The feature catalog: ONE table of {definition, computation} rows, in id order. Everything
// else (`gpucost features`, docs/features.md, the report) is generated from it. Ids are stable:
// a feature that goes away leaves its id unused; new features get new ids at the end.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>

#include "features/compute.hpp"

namespace gpucost {

namespace {
using namespace features;

struct Entry {
  FeatureDef def;
  ComputeFn compute;
};

// Definitions use --idle-threshold (SM % at or below which a row is idle, default 5) and
// --temp-threshold (C above which a row is hot, default 78). "Rows" are GPU sample rows (dmon,
// --query-gpu) after --since/--until; "events" are the timeline's deduplicated events.
const Entry kCatalog[] = {
    {{"F001", "gpu_util_heat_decay_pct", "%", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "Utilization decay under heat: how much SM utilization falls once the GPU is hot, relative to "
      "while it is cool. Among rows that report both sm and gpu_temp_c, hot rows have gpu_temp_c > "
      "--temp-threshold (default 78 °C), the others are cool; value = 100 x (mean sm of cool rows - "
      "mean sm of hot rows) / mean sm of cool rows (positive: less work while hot). Null when no row is"
      " hot, none is cool, or the cool mean is 0. Per GPU over its rows; host over all GPUs' rows "
      "pooled."},
     gpu_util_heat_decay_pct},
    {{"F002", "gpu_idle_fraction", "ratio", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "Idle fraction: rows with sm <= --idle-threshold (default 5 %) / rows that report sm. Counts "
      "rows, not seconds. Per GPU over its rows; host over all GPUs' rows pooled."},
     gpu_idle_fraction},
    {{"F003", "launch_queue_fraction", "ratio", Layer::application, FeatureScope::host, "torch_trace",
      "Share of time lost to kernel-launch queueing: sum of queue_ns / sum of span_ns over the PyTorch "
      "profiler traces in the directory (span: the trace's wall span; queue: time the GPU sat idle "
      "while a launched kernel was pending). The five system logs cannot show this: null with the "
      "reason 'no PyTorch profiler trace in the directory' when there is no trace."},
     launch_queue_fraction},
    {{"F004", "power_event_loss_fraction", "ratio", Layer::derived, FeatureScope::host, "dmon|query_gpu_csv + dmesg|syslog|journal",
      "Share of GPU time lost to suspends and AC switches: L / (S + L), where S = host gpu_sampled_s "
      "(F010) and L = power_event_loss_s (F134: suspended time inside the sampled span, plus the "
      "sample-less time after AC switches and resumes that interrupted a busy GPU). Idle rows after "
      "such an event are not in L: gpu_idle_fraction already counts them, so effective_utilization "
      "subtracts each lost second once. Null without GPU samples or without a kernel/system log."},
     power_event_loss_fraction},
    {{"F005", "ac_switches_per_hour", "1/h", Layer::system, FeatureScope::host, "dmesg|syslog|journal + dmon|query_gpu_csv",
      "AC switches per hour: ac_switches (F117) / (host gpu_sampled_s / 3600). Null when there are no "
      "GPU samples."},
     ac_switches_per_hour},
    {{"F006", "effective_utilization", "ratio", Layer::derived, FeatureScope::per_gpu, "dmon|query_gpu_csv (+ dmesg|syslog|journal, torch_trace)",
      "Share of GPU time doing useful work: 1 - gpu_idle_fraction - launch_queue_fraction - "
      "power_event_loss_fraction, clamped to [0, 1]. A null launch_queue_fraction or "
      "power_event_loss_fraction counts as 0 and the evidence says so; null only when gpu_idle_fraction"
      " is. Per GPU with that GPU's idle fraction (queue and power loss are host figures); host with "
      "the host idle fraction. The exact busy share (1 - idle) x (1 - loss) is larger by idle x loss; "
      "the cost model uses this agreed formula."},
     effective_utilization},
    {{"F007", "incidents_per_hour", "1/h", Layer::derived, FeatureScope::host, "dmesg|syslog|journal (+ dmon|query_gpu_csv)",
      "Maintenance incidents (F008) per hour of H, where H = host gpu_sampled_s / 3600, or log_uptime_s"
      " (F133) / 3600 when there are no GPU samples."},
     incidents_per_hour},
    {{"F008", "maintenance_incidents", "count", Layer::driver, FeatureScope::host, "dmesg|syslog|journal",
      "Incidents that cost maintenance time (GPU reset, driver reload or reboot), not only a restarted "
      "job. Maintenance events: Xid events of the driver/firmware (32, 61, 62, 119, 120), memory/ECC "
      "(48, 63, 64, 94, 95) and bus/interconnect (74, 79) classes; Xid 154 unless it announces recovery"
      " action 0x0 (None); fallen_off_bus; rm_init_failed; gsp_error; gpu_reset whose text names NVRM "
      "or nvidia. In time order, an event at most 300 s after the previous maintenance event joins its "
      "incident; events without a time form one incident together."},
     maintenance_incidents},
    {{"F009", "gpu_samples", "count", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "Number of GPU sample rows (dmon, --query-gpu) in the timeline, after --since/--until. Per GPU: "
      "its rows; host: all GPUs' rows (0 when a dmon or --query-gpu file holds no placed row)."},
     gpu_samples},
    {{"F010", "gpu_sampled_s", "s", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "Time the samples cover: each row covers [ts, ts + interval), interval being its source's "
      "sampling interval; gaps cover nothing. Per GPU: sum of interval_ns of its rows / 1e9. Host: the "
      "length of the union of [ts, ts + interval) over all GPUs' rows."},
     gpu_sampled_s},
    {{"F011", "gpu_sample_interval_mean_s", "s", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "Mean sampling interval: sum of interval / rows. Above 1 s, short throttling episodes can fall "
      "between samples. Per GPU over its rows; host over all GPUs' rows pooled."},
     gpu_sample_interval_mean_s},
    {{"F012", "gpu_sample_gap_s", "s", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "Time inside the sampled span that no row covers: (last row's ts + interval - first row's ts) - "
      "the length of the union of the rows' [ts, ts + interval). Per GPU over its rows; host over the "
      "union of all GPUs' rows."},
     gpu_sample_gap_s},
    {{"F013", "gpu_count", "count", Layer::hardware, FeatureScope::host, "dmon|query_gpu_csv|nvidia_smi_q|dmesg|syslog|journal",
      "Number of GPUs: distinct GPU indices in the sample rows and in device records (nvidia-smi -q, "
      "--query-gpu) that have an index; when there are no indices, the number of device records; "
      "without samples and devices, 1 when the NVIDIA kernel messages (Xid, fallen off the bus, "
      "RmInitAdapter, GSP) name a single PCI address (that GPU is index 0)."},
     gpu_count},
    {{"F014", "gpu_util_mean_pct", "%", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "Mean SM utilization (dmon sm, utilization.gpu) over the rows that report it. Per GPU over its "
      "rows; host over all GPUs' rows pooled."},
     mean_of<GpuMetric::sm_pct>},
    {{"F015", "gpu_util_p50_pct", "%", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "Median SM utilization: nearest-rank 50th percentile (the value at rank ceil(0.50 x n) of the n "
      "sorted values) over the rows that report sm. Per GPU over its rows; host over all GPUs' rows "
      "pooled."},
     percentile_of<GpuMetric::sm_pct, 50>},
    {{"F016", "gpu_util_p95_pct", "%", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "SM utilization, nearest-rank 95th percentile (the value at rank ceil(0.95 x n) of the n sorted "
      "values) over the rows that report sm. Per GPU over its rows; host over all GPUs' rows pooled."},
     percentile_of<GpuMetric::sm_pct, 95>},
    {{"F017", "gpu_busy_s", "s", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "Busy time: sum of interval (s) of the rows with sm > --idle-threshold. Per GPU over its rows; "
      "host: the sum over GPUs. (GPU-seconds)"},
     gpu_busy_s},
    {{"F018", "gpu_idle_s", "s", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "Idle time: sum of interval (s) of the rows with sm <= --idle-threshold. Per GPU over its rows; "
      "host: the sum over GPUs. (GPU-seconds)"},
     gpu_idle_s},
    {{"F019", "gpu_idle_episodes", "count", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "Idle stretches of at least 60 s: runs of consecutive idle rows (sm <= --idle-threshold) of one "
      "GPU, where a busy row, a row without sm, or a gap (the next row later than ts + 1.5 x interval) "
      "ends a run; a run lasts the sum of its rows' intervals. Per GPU over its rows; host: the sum "
      "over GPUs."},
     gpu_idle_episodes},
    {{"F020", "gpu_longest_idle_s", "s", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "Duration of the longest idle run (runs as in F019, of any length); 0 when no row is idle. Per "
      "GPU; host: the longest over GPUs."},
     gpu_longest_idle_s},
    {{"F021", "gpu_mem_util_mean_pct", "%", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "Mean memory-controller utilization (dmon mem, utilization.memory) over the rows that report it. "
      "Per GPU over its rows; host over all GPUs' rows pooled."},
     mean_of<GpuMetric::mem_pct>},
    {{"F022", "gpu_enc_mean_pct", "%", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "Mean video-encoder utilization (dmon enc, utilization.encoder) over the rows that report it; "
      "above 0 when something (a recorder, a stream) encodes video on the GPU. Per GPU over its rows; "
      "host over all GPUs' rows pooled."},
     mean_of<GpuMetric::enc_pct>},
    {{"F023", "gpu_dec_mean_pct", "%", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "Mean video-decoder utilization (dmon dec, utilization.decoder) over the rows that report it; "
      "above 0 when something (a browser playing video) decodes on the GPU. Per GPU over its rows; host"
      " over all GPUs' rows pooled."},
     mean_of<GpuMetric::dec_pct>},
    {{"F024", "gpu_power_mean_w", "W", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "Mean board power draw (dmon pwr, power.draw) over the rows that report it. Per GPU over its "
      "rows; host: the mean of per-row values over all GPUs' rows."},
     mean_of<GpuMetric::power_w>},
    {{"F025", "gpu_power_p95_w", "W", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "Board power, nearest-rank 95th percentile (the value at rank ceil(0.95 x n) of the n sorted "
      "values) over the rows that report power. Per GPU over its rows; host over all GPUs' rows pooled."},
     percentile_of<GpuMetric::power_w, 95>},
    {{"F026", "gpu_power_max_w", "W", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "Maximum board power draw. Per GPU over its rows; host: the maximum over all rows."},
     max_of<GpuMetric::power_w>},
    {{"F027", "gpu_energy_kwh", "kWh", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "GPU energy: sum of power_w x interval_s over the rows that report power, / 3.6e6. Per GPU over "
      "its rows; host: the sum over GPUs."},
     gpu_energy_kwh},
    {{"F028", "gpu_idle_energy_kwh", "kWh", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "Energy spent while idle: sum of power_w x interval_s / 3.6e6 over the rows with power and sm <= "
      "--idle-threshold. Per GPU over its rows; host: the sum over GPUs."},
     gpu_idle_energy_kwh},
    {{"F029", "gpu_idle_power_mean_w", "W", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "What the card draws doing nothing: mean power over the rows with power and sm <= --idle-"
      "threshold; null when no such row. Per GPU over its rows; host over all GPUs' rows pooled."},
     gpu_idle_power_mean_w},
    {{"F030", "gpu_busy_power_mean_w", "W", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "What the card draws under load: mean power over the rows with power and sm > --idle-threshold; "
      "null when no such row. Per GPU over its rows; host over all GPUs' rows pooled."},
     gpu_busy_power_mean_w},
    {{"F031", "gpu_power_limit_share", "ratio", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv + nvidia_smi_q|query_gpu_csv",
      "How close the card runs to its power cap: mean over the rows with power of power_w / limit, the "
      "limit being the row's power.limit (query-gpu) or else the GPU's enforced limit from nvidia-smi "
      "-q; rows with neither are skipped. Per GPU over its rows; host over all GPUs' rows pooled."},
     gpu_power_limit_share},
    {{"F032", "gpu_temp_mean_c", "°C", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "Mean GPU core temperature (dmon gtemp/temp, temperature.gpu) over the rows that report it. Per "
      "GPU over its rows; host over all GPUs' rows pooled."},
     mean_of<GpuMetric::gpu_temp_c>},
    {{"F033", "gpu_temp_p95_c", "°C", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "GPU core temperature, nearest-rank 95th percentile (the value at rank ceil(0.95 x n) of the n "
      "sorted values) over the rows that report it. Per GPU over its rows; host over all GPUs' rows "
      "pooled."},
     percentile_of<GpuMetric::gpu_temp_c, 95>},
    {{"F034", "gpu_temp_max_c", "°C", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "Maximum GPU core temperature (gpu_temp_c). Per GPU over its rows; host: the maximum over all "
      "rows."},
     max_of<GpuMetric::gpu_temp_c>},
    {{"F035", "gpu_time_above_temp_s", "s", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "Time hot: sum of interval (s) of the rows with gpu_temp_c > --temp-threshold (default 78 °C). "
      "Per GPU over its rows; host: the sum over GPUs."},
     gpu_time_above_temp_s},
    {{"F036", "gpu_hot_fraction", "ratio", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "Rows with gpu_temp_c > --temp-threshold / rows that report gpu_temp_c. Per GPU over its rows; "
      "host over all GPUs' rows pooled."},
     gpu_hot_fraction},
    {{"F037", "gpu_thermal_episodes", "count", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "Thermal episodes: runs of consecutive rows of one GPU with gpu_temp_c > --temp-threshold, of any"
      " length; a cooler row, a row without temperature, or a gap (the next row later than ts + 1.5 x "
      "interval) ends a run. Per GPU over its rows; host: the sum over GPUs."},
     gpu_thermal_episodes},
    {{"F038", "gpu_thermal_episode_mean_s", "s", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "Mean duration of the thermal episodes of F037 (an episode lasts the sum of its rows' intervals);"
      " null when there is none. Per GPU; host over all GPUs' episodes."},
     gpu_thermal_episode_mean_s},
    {{"F039", "gpu_time_to_hot_s", "s", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "How long the GPU runs before it gets hot: seconds from its first sample row to its first row "
      "with gpu_temp_c > --temp-threshold; null when it never is. Per GPU; host: the shortest over "
      "GPUs."},
     gpu_time_to_hot_s},
    {{"F040", "gpu_mem_temp_max_c", "°C", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "Maximum memory (HBM) temperature (dmon mtemp, temperature.memory); GeForce cards print '-' "
      "(null). Per GPU over its rows; host: the maximum over all rows."},
     max_of<GpuMetric::mem_temp_c>},
    {{"F041", "gpu_pclk_mean_mhz", "MHz", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "Mean graphics clock (dmon pclk, clocks.current.graphics) over the rows that report it. Per GPU "
      "over its rows; host over all GPUs' rows pooled."},
     mean_of<GpuMetric::pclk_mhz>},
    {{"F042", "gpu_pclk_max_mhz", "MHz", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "Maximum graphics clock (pclk). Per GPU over its rows; host: the maximum over all rows."},
     max_of<GpuMetric::pclk_mhz>},
    {{"F043", "gpu_pclk_heat_drop_pct", "%", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "Thermal clock throttling: as F001 for the graphics clock, 100 x (mean pclk of cool rows - mean "
      "pclk of hot rows) / mean pclk of cool rows, over the rows that report pclk and gpu_temp_c (hot: "
      "gpu_temp_c > --temp-threshold). Per GPU over its rows; host over all GPUs' rows pooled."},
     gpu_pclk_heat_drop_pct},
    {{"F044", "gpu_mclk_mean_mhz", "MHz", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "Mean memory clock (dmon mclk, clocks.current.memory) over the rows that report it. Per GPU over "
      "its rows; host over all GPUs' rows pooled."},
     mean_of<GpuMetric::mclk_mhz>},
    {{"F045", "gpu_power_violation_mean_pct", "%", Layer::hardware, FeatureScope::per_gpu, "dmon",
      "Mean of dmon pviol, the share of each interval the GPU was throttled by its power limit, over "
      "the rows that report it. Per GPU over its rows; host over all GPUs' rows pooled."},
     mean_of<GpuMetric::pviol_pct>},
    {{"F046", "gpu_thermal_violation_fraction", "ratio", Layer::hardware, FeatureScope::per_gpu, "dmon",
      "Rows with dmon tviol > 0 (thermal throttling in the interval) / rows that report tviol. Per GPU "
      "over its rows; host over all GPUs' rows pooled."},
     gpu_thermal_violation_fraction},
    {{"F047", "gpu_throttled_fraction", "ratio", Layer::hardware, FeatureScope::per_gpu, "dmon",
      "Rows with pviol > 0 or tviol > 0 / rows that report pviol or tviol: intervals throttled by power"
      " or heat. Per GPU over its rows; host over all GPUs' rows pooled."},
     gpu_throttled_fraction},
    {{"F048", "gpu_fb_mean_mb", "MB", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "Mean framebuffer memory used (dmon fb, memory.used) over the rows that report it. Per GPU over "
      "its rows; host over all GPUs' rows pooled."},
     mean_of<GpuMetric::fb_mb>},
    {{"F049", "gpu_fb_max_mb", "MB", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "Maximum framebuffer memory used (fb_mb). Per GPU over its rows; host: the maximum over all rows."},
     max_of<GpuMetric::fb_mb>},
    {{"F050", "gpu_fb_min_mb", "MB", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "Minimum framebuffer memory used: memory held even at the quietest sample (driver, display, other"
      " processes). Per GPU over its rows; host: the minimum over all rows."},
     min_of<GpuMetric::fb_mb>},
    {{"F051", "gpu_fb_max_fraction", "ratio", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv + nvidia_smi_q|query_gpu_csv",
      "Peak memory pressure: the maximum over rows of fb_mb / total, the total being the row's "
      "memory.total or else the GPU's total from nvidia-smi -q; rows with neither are skipped. Per GPU "
      "over its rows; host: the maximum over all rows."},
     gpu_fb_max_fraction},
    {{"F052", "gpu_bar1_max_mb", "MB", Layer::hardware, FeatureScope::per_gpu, "dmon",
      "Maximum BAR1 memory used (dmon bar1). Per GPU over its rows; host: the maximum over all rows."},
     max_of<GpuMetric::bar1_mb>},
    {{"F053", "gpu_sbecc_errors", "count", Layer::hardware, FeatureScope::per_gpu, "dmon",
      "Single-bit ECC errors during the samples: the increase of the dmon sbecc counter, per GPU the "
      "sum of consecutive rows that report it of (v - previous v) when v >= previous v, else v (the "
      "counter restarted). Host: the sum over GPUs."},
     increase_of<GpuMetric::sbecc>},
    {{"F054", "gpu_dbecc_errors", "count", Layer::hardware, FeatureScope::per_gpu, "dmon",
      "Double-bit ECC errors during the samples: the increase of the dmon dbecc counter, per GPU the "
      "sum of consecutive rows that report it of (v - previous v) when v >= previous v, else v (the "
      "counter restarted). Host: the sum over GPUs."},
     increase_of<GpuMetric::dbecc>},
    {{"F055", "gpu_pcie_replay_errors", "count", Layer::hardware, FeatureScope::per_gpu, "dmon",
      "PCIe replay errors during the samples: the increase of the dmon pci counter, per GPU the sum of "
      "consecutive rows that report it of (v - previous v) when v >= previous v, else v (the counter "
      "restarted). Host: the sum over GPUs."},
     increase_of<GpuMetric::pci_err>},
    {{"F056", "gpu_pcie_rx_mean_mbs", "MB/s", Layer::hardware, FeatureScope::per_gpu, "dmon",
      "Mean PCIe receive throughput (dmon rxpci) over the rows that report it. Per GPU over its rows; "
      "host over all GPUs' rows pooled."},
     mean_of<GpuMetric::rxpci_mbs>},
    {{"F057", "gpu_pcie_tx_mean_mbs", "MB/s", Layer::hardware, FeatureScope::per_gpu, "dmon",
      "Mean PCIe transmit throughput (dmon txpci) over the rows that report it. Per GPU over its rows; "
      "host over all GPUs' rows pooled."},
     mean_of<GpuMetric::txpci_mbs>},
    {{"F058", "gpu_pcie_traffic_gb", "GB", Layer::hardware, FeatureScope::per_gpu, "dmon",
      "PCIe traffic: sum over the rows that report rxpci or txpci of (rxpci + txpci, a missing one as "
      "0) x interval_s, / 1000. Per GPU over its rows; host: the sum over GPUs."},
     gpu_pcie_traffic_gb},
    {{"F059", "gpu_fan_mean_pct", "%", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "Mean fan speed (fan.speed) over the rows that report it. Per GPU over its rows; host over all "
      "GPUs' rows pooled."},
     mean_of<GpuMetric::fan_pct>},
    {{"F060", "gpu_util_drop_after_error_pct", "%", Layer::hardware, FeatureScope::per_gpu, "dmon|query_gpu_csv + dmesg|syslog|journal",
      "Utilization drop in the seconds after a hardware error (the events of F061 that have a time): "
      "for each, rows with ts in [t - 15 s, t) are before and rows in [t, t + 15 s) after (a row inside"
      " several windows counts in each); value = 100 x (mean sm before - mean sm after) / mean sm "
      "before, over all windows pooled. Per GPU: errors naming that GPU or no GPU, and its rows; host: "
      "all errors and all rows. Null when no hardware error has a time or no sm rows lie around them."},
     gpu_util_drop_after_error_pct},
    {{"F061", "hw_error_events", "count", Layer::hardware, FeatureScope::host, "dmesg|syslog|journal",
      "Kernel-reported hardware errors: Xid events of the driver/firmware, memory/ECC and bus classes, "
      "fallen_off_bus, rm_init_failed, gsp_error, driver_error (nvidia-modeset/nvidia-drm ERROR, e.g. "
      "'Failed to query display engine status'), pcie_aer, and thermal events that report heat (code 1 "
      "or none)."},
     hw_error_events},
    {{"F062", "thermal_events", "count", Layer::hardware, FeatureScope::host, "dmesg|syslog|journal",
      "Kernel thermal events reporting heat, throttling or shutdown (code 1 or none; code 0 'back to "
      "normal' messages excluded)."},
     thermal_events},
    {{"F063", "thermal_events_per_hour", "1/h", Layer::hardware, FeatureScope::host, "dmesg|syslog|journal",
      "thermal_events (F062) per hour of H, H as in F007."},
     thermal_events_per_hour},
    {{"F064", "driver_errors_while_hot", "count", Layer::hardware, FeatureScope::host, "dmesg|syslog|journal + dmon|query_gpu_csv",
      "driver_error events with a time at whose instant some GPU's sample row covering it ([ts, ts + "
      "interval)) has gpu_temp_c > --temp-threshold: the article's display-engine errors that precede "
      "thermal throttling."},
     driver_errors_while_hot},
    {{"F065", "driver_errors_per_thermal_episode", "count", Layer::hardware, FeatureScope::host, "dmesg|syslog|journal + dmon|query_gpu_csv",
      "driver_errors_while_hot (F064) / host gpu_thermal_episodes (F037); null when there is no thermal"
      " episode."},
     driver_errors_per_thermal_episode},
    {{"F066", "kernel_tainted", "bool", Layer::hardware, FeatureScope::host, "dmesg|syslog|journal",
      "1 when the kernel log reports a taint (module license 'NVIDIA' taints kernel, out-of-tree "
      "module), else 0."},
     kernel_tainted},
    {{"F067", "i915_hang_events", "count", Layer::hardware, FeatureScope::host, "dmesg|syslog|journal",
      "Intel integrated-GPU hangs (GPU HANG: ecode ...): on dual-GPU laptops the iGPU drives the "
      "display and can stall."},
     count_of<EventKind::i915_hang>},
    {{"F068", "gpu_power_limit_w", "W", Layer::driver, FeatureScope::per_gpu, "nvidia_smi_q|query_gpu_csv",
      "Enforced power limit: per GPU the mean power.limit of its rows (query-gpu), else the limit from "
      "nvidia-smi -q. Host: the sum over GPUs."},
     gpu_power_limit_w},
    {{"F069", "gpu_memory_total_mib", "MiB", Layer::driver, FeatureScope::per_gpu, "nvidia_smi_q|query_gpu_csv",
      "Total framebuffer memory: per GPU from nvidia-smi -q, else the largest memory.total of its rows."
      " Host: the sum over GPUs."},
     gpu_memory_total_mib},
    {{"F070", "pcie_link_width", "lanes", Layer::driver, FeatureScope::per_gpu, "nvidia_smi_q",
      "Current PCIe link width from nvidia-smi -q (GPU Link Info, Link Width Current). Per GPU; host: "
      "the narrowest GPU."},
     pcie_link_width},
    {{"F071", "pcie_link_width_max", "lanes", Layer::driver, FeatureScope::per_gpu, "nvidia_smi_q",
      "Maximum PCIe link width of the GPU and slot from nvidia-smi -q (Link Width Max). Per GPU; host: "
      "the minimum over GPUs."},
     pcie_link_width_max},
    {{"F072", "pcie_link_width_ratio", "ratio", Layer::driver, FeatureScope::per_gpu, "nvidia_smi_q",
      "Current / maximum PCIe link width: 0.5 for a x16 card on a x8 link (common in laptops). Per GPU;"
      " host: the minimum over GPUs."},
     pcie_link_width_ratio},
    {{"F073", "pcie_link_gen", "gen", Layer::driver, FeatureScope::per_gpu, "nvidia_smi_q",
      "Current PCIe generation from nvidia-smi -q (an idle GPU may drop to gen 1 to save power). Per "
      "GPU; host: the minimum over GPUs."},
     pcie_link_gen},
    {{"F074", "pcie_link_gen_max", "gen", Layer::driver, FeatureScope::per_gpu, "nvidia_smi_q",
      "Maximum PCIe generation of the GPU and slot from nvidia-smi -q. Per GPU; host: the minimum over "
      "GPUs."},
     pcie_link_gen_max},
    {{"F075", "pcie_link_degraded_events", "count", Layer::driver, FeatureScope::host, "dmesg|syslog|journal",
      "Kernel messages that a PCIe link runs below its capability ('downgraded', 'limited by ... x8 "
      "link')."},
     count_of<EventKind::pcie_link_degraded>},
    {{"F076", "pcie_aer_events", "count", Layer::driver, FeatureScope::host, "dmesg|syslog|journal",
      "PCIe Advanced Error Reporting events of any severity."},
     count_of<EventKind::pcie_aer>},
    {{"F077", "pcie_aer_corrected_events", "count", Layer::driver, FeatureScope::host, "dmesg|syslog|journal",
      "PCIe AER events of severity corrected (code 0): retried by hardware, a sign of a marginal link."},
     pcie_aer_corrected_events},
    {{"F078", "pcie_aer_uncorrected_events", "count", Layer::driver, FeatureScope::host, "dmesg|syslog|journal",
      "PCIe AER events of severity non-fatal or fatal (code 1 or 2)."},
     pcie_aer_uncorrected_events},
    {{"F079", "xid_events", "count", Layer::driver, FeatureScope::per_gpu, "dmesg|syslog|journal",
      "Distinct NVIDIA Xid events (a message read from dmesg, kern.log and the journal counts once). "
      "Per GPU: the events whose PCI address is that GPU's (bus id from nvidia-smi -q or --query-gpu; "
      "with a single GPU, every event naming a GPU), null when an Xid names an address no device record"
      " maps; host: all events."},
     xid_events},
    {{"F080", "xid_application_events", "count", Layer::driver, FeatureScope::per_gpu, "dmesg|syslog|journal",
      "Xid events of the application class (13, 31, 43, 45): the job faulted and is restarted; the GPU "
      "needs no maintenance. Per GPU: the events whose PCI address is that GPU's (bus id from nvidia-"
      "smi -q or --query-gpu; with a single GPU, every event naming a GPU), null when an Xid names an "
      "address no device record maps; host: all events."},
     xid_class_events<XidClass::application>},
    {{"F081", "xid_driver_firmware_events", "count", Layer::driver, FeatureScope::per_gpu, "dmesg|syslog|journal",
      "Xid events of the driver/firmware class (32, 61, 62, 119, 120): driver or GSP firmware failures;"
      " the GPU needs a reset or the driver a reload. Per GPU: the events whose PCI address is that "
      "GPU's (bus id from nvidia-smi -q or --query-gpu; with a single GPU, every event naming a GPU), "
      "null when an Xid names an address no device record maps; host: all events."},
     xid_class_events<XidClass::driver_firmware>},
    {{"F082", "xid_memory_ecc_events", "count", Layer::driver, FeatureScope::per_gpu, "dmesg|syslog|journal",
      "Xid events of the memory/ECC class (48, 63, 64, 94, 95): uncorrectable ECC errors, page "
      "retirement, row remapping; the GPU needs a reset. Per GPU: the events whose PCI address is that "
      "GPU's (bus id from nvidia-smi -q or --query-gpu; with a single GPU, every event naming a GPU), "
      "null when an Xid names an address no device record maps; host: all events."},
     xid_class_events<XidClass::memory_ecc>},
    {{"F083", "xid_bus_events", "count", Layer::driver, FeatureScope::per_gpu, "dmesg|syslog|journal",
      "Xid events of the bus/interconnect class (74 NVLink, 79 fallen off the bus): a GPU reset or a "
      "reboot. Per GPU: the events whose PCI address is that GPU's (bus id from nvidia-smi -q or "
      "--query-gpu; with a single GPU, every event naming a GPU), null when an Xid names an address no "
      "device record maps; host: all events."},
     xid_class_events<XidClass::bus>},
    {{"F084", "xid_recovery_action_events", "count", Layer::driver, FeatureScope::per_gpu, "dmesg|syslog|journal",
      "Xid 154 events: the driver announces the recovery action it requires (0 none, 1 GPU reset, 2 "
      "node reboot, 3 drain P2P, 4 drain and reset). Per GPU: the events whose PCI address is that "
      "GPU's (bus id from nvidia-smi -q or --query-gpu; with a single GPU, every event naming a GPU), "
      "null when an Xid names an address no device record maps; host: all events."},
     xid_class_events<XidClass::recovery_action>},
    {{"F085", "xid_other_events", "count", Layer::driver, FeatureScope::per_gpu, "dmesg|syslog|journal",
      "Xid events whose code is in none of the classes of F080-F084, or unreadable. Per GPU: the events"
      " whose PCI address is that GPU's (bus id from nvidia-smi -q or --query-gpu; with a single GPU, "
      "every event naming a GPU), null when an Xid names an address no device record maps; host: all "
      "events."},
     xid_class_events<XidClass::other>},
    {{"F086", "xid_distinct_codes", "count", Layer::driver, FeatureScope::per_gpu, "dmesg|syslog|journal",
      "Number of distinct Xid codes among the Xid events (the evidence lists them). Per GPU: the events"
      " whose PCI address is that GPU's (bus id from nvidia-smi -q or --query-gpu; with a single GPU, "
      "every event naming a GPU), null when an Xid names an address no device record maps; host: all "
      "events."},
     xid_distinct_codes},
    {{"F087", "xid_events_per_hour", "1/h", Layer::driver, FeatureScope::host, "dmesg|syslog|journal",
      "xid_events (F079, host) per hour of H, H as in F007."},
     xid_events_per_hour},
    {{"F088", "fallen_off_bus_events", "count", Layer::driver, FeatureScope::host, "dmesg|syslog|journal",
      "'GPU has fallen off the bus' messages, with or without an Xid 79."},
     count_of<EventKind::fallen_off_bus>},
    {{"F089", "rm_init_failed_events", "count", Layer::driver, FeatureScope::host, "dmesg|syslog|journal",
      "'RmInitAdapter failed' messages: the driver could not initialise the GPU (typically after it "
      "fell off the bus)."},
     count_of<EventKind::rm_init_failed>},
    {{"F090", "gsp_error_events", "count", Layer::driver, FeatureScope::host, "dmesg|syslog|journal",
      "GSP firmware errors, RPC timeouts and crash reports."},
     count_of<EventKind::gsp_error>},
    {{"F091", "nv_assert_events", "count", Layer::driver, FeatureScope::host, "dmesg|syslog|journal",
      "NVRM assertion failures (nvAssertFailed, nvAssertOkFailed)."},
     count_of<EventKind::nv_assert>},
    {{"F092", "gpu_reset_events", "count", Layer::driver, FeatureScope::host, "dmesg|syslog|journal",
      "Resets and recoveries of NVIDIA GPUs: gpu_reset events whose text names NVRM or nvidia (i915 "
      "'Resetting chip' is not counted)."},
     gpu_reset_events},
    {{"F093", "driver_load_events", "count", Layer::driver, FeatureScope::host, "dmesg|syslog|journal",
      "NVIDIA kernel module loads ('NVRM: loading NVIDIA UNIX ...'): one per boot plus one per driver "
      "reload."},
     count_of<EventKind::driver_load>},
    {{"F094", "driver_error_events", "count", Layer::driver, FeatureScope::host, "dmesg|syslog|journal",
      "Other NVIDIA driver errors: nvidia-modeset/nvidia-drm ERROR lines, probe failures."},
     count_of<EventKind::driver_error>},
    {{"F095", "reboot_incidents", "count", Layer::driver, FeatureScope::host, "dmesg|syslog|journal",
      "Maintenance incidents (F008) that imply a reboot: they contain an Xid 79, fallen_off_bus, "
      "rm_init_failed, or an Xid 154 announcing action 0x2 (node reboot)."},
     reboot_incidents},
    {{"F096", "gpu_reset_incidents", "count", Layer::driver, FeatureScope::host, "dmesg|syslog|journal",
      "Maintenance incidents (F008) that imply a GPU reset or driver reload but no reboot: F008 - F095."},
     gpu_reset_incidents},
    {{"F097", "application_xid_incidents", "count", Layer::driver, FeatureScope::host, "dmesg|syslog|journal",
      "Job failures: application-class Xid events (13, 31, 43, 45) in time order, an event at most 60 s"
      " after the previous one joining its failure; events without a time count as one more. Each costs"
      " a restarted job, not maintenance."},
     application_xid_incidents},
    {{"F098", "gpu_service_restarts", "count", Layer::driver, FeatureScope::host, "syslog|journal",
      "Restarts of GPU daemons (nvidia-persistenced, nvidia-powerd, ...) reported by systemd."},
     count_of<EventKind::service_restart>},
    {{"F099", "ps_snapshots", "count", Layer::runtime, FeatureScope::host, "ps",
      "Number of ps snapshots: one per marker line '### gpucost-ps <time>', or one per file without "
      "markers."},
     ps_snapshots},
    {{"F100", "ps_processes_mean", "count", Layer::runtime, FeatureScope::host, "ps",
      "Mean number of process rows per ps snapshot."},
     ps_processes_mean},
    {{"F101", "cpu_load_pct_mean", "%", Layer::runtime, FeatureScope::host, "ps",
      "Mean over ps snapshots of the sum of %CPU of all rows (100 = one core). ps %CPU is each "
      "process's CPU time / its lifetime, not an instantaneous load."},
     cpu_load_pct_mean},
    {{"F102", "cpu_competing_pct_mean", "%", Layer::runtime, FeatureScope::host, "ps",
      "CPU used by everything but the top process (usually the training job): mean over ps snapshots of"
      " (sum of %CPU - the largest %CPU)."},
     cpu_competing_pct_mean},
    {{"F103", "ps_busy_processes_mean", "count", Layer::runtime, FeatureScope::host, "ps",
      "Mean over ps snapshots of the number of processes with %CPU >= 10."},
     ps_busy_processes_mean},
    {{"F104", "mem_used_pct_mean", "%", Layer::runtime, FeatureScope::host, "ps",
      "Mean over ps snapshots of the sum of %MEM (resident memory as a share of RAM)."},
     mem_used_pct_mean},
    {{"F105", "desktop_gpu_clients_max", "count", Layer::runtime, FeatureScope::host, "ps",
      "Maximum over ps snapshots of the processes whose program (first word of the command, without its"
      " directory) is a desktop GPU client that holds /dev/nvidia* and GPU memory: Xorg, X, Xwayland, "
      "gnome-shell, kwin_x11, kwin_wayland, plasmashell, sway, Hyprland, weston, mutter, cinnamon, "
      "chrome, chromium, chromium-browser, google-chrome, firefox, firefox-esr, firefox-bin, msedge, "
      "brave, opera, code, code-oss, electron, steam, obs, vlc, mpv, blender, zed."},
     desktop_gpu_clients_max},
    {{"F106", "ps_uninterruptible_max", "count", Layer::runtime, FeatureScope::host, "ps",
      "Maximum over ps snapshots of the processes in state D (uninterruptible sleep, often stuck in a "
      "driver call)."},
     ps_uninterruptible_max},
    {{"F107", "wsl2_host", "bool", Layer::runtime, FeatureScope::host, "dmesg|syslog|journal|ps",
      "1 when the machine is a WSL2 guest (a boot message names a microsoft-standard or WSL2 kernel, or"
      " pid 1 in ps is /init), else 0; null with neither a kernel log nor ps."},
     wsl2_host},
    {{"F108", "gpu_processes_mean", "count", Layer::runtime, FeatureScope::per_gpu, "pmon",
      "Mean number of distinct pids per pmon interval (the rows of one GPU in one pmon sample). Per "
      "GPU; host over all GPUs' intervals."},
     gpu_processes_mean},
    {{"F109", "gpu_processes_max", "count", Layer::runtime, FeatureScope::per_gpu, "pmon",
      "Maximum number of distinct pids in one pmon interval. Per GPU; host over all GPUs' intervals."},
     gpu_processes_max},
    {{"F110", "gpu_competing_processes_mean", "count", Layer::runtime, FeatureScope::per_gpu, "pmon",
      "Processes sharing the GPU with the main one: mean over pmon intervals of max(0, distinct pids - "
      "1). Per GPU; host over all GPUs' intervals."},
     gpu_competing_processes_mean},
    {{"F111", "gpu_top_process_sm_share", "ratio", Layer::runtime, FeatureScope::per_gpu, "pmon",
      "Sum over pmon intervals of the largest per-process sm % / the sum of all per-process sm %: 1 "
      "when one process does all the GPU work; null when no process used SM. Per GPU; host over all "
      "GPUs' intervals."},
     gpu_top_process_sm_share},
    {{"F112", "profiler_kernel_busy_fraction", "ratio", Layer::application, FeatureScope::host, "torch_trace",
      "Sum of kernel_busy_ns / sum of span_ns over the profiler traces: share of profiled time in which"
      " at least one kernel ran."},
     profiler_kernel_busy_fraction},
    {{"F113", "profiler_launch_delay_mean_ms", "ms", Layer::application, FeatureScope::host, "torch_trace",
      "Mean delay from a kernel-launch call to the kernel's start on the GPU over all launches of all "
      "traces (each trace's mean weighted by its launches)."},
     profiler_launch_delay_mean_ms},
    {{"F114", "profiler_kernels_per_s", "1/s", Layer::application, FeatureScope::host, "torch_trace",
      "GPU kernels per second of profiled time: sum of kernels / sum of span_s over the traces."},
     profiler_kernels_per_s},
    {{"F115", "oom_kill_events", "count", Layer::application, FeatureScope::host, "dmesg|syslog|journal",
      "Out-of-memory kills: the kernel killed a process to free RAM."},
     count_of<EventKind::oom_kill>},
    {{"F116", "segfault_events", "count", Layer::application, FeatureScope::host, "dmesg|syslog|journal",
      "Process crashes reported by the kernel ('segfault at', 'traps:')."},
     count_of<EventKind::segfault>},
    {{"F117", "ac_switches", "count", Layer::system, FeatureScope::host, "dmesg|syslog|journal",
      "AC adapter state changes. Take ac_online/ac_offline events with a time in time order; events of "
      "the same state within 10 s of the previous AC event are one report (kernel, acpid and upower "
      "report the same change); a report that comes within 60 s after a boot event, or has mono_ns < 60"
      " s, sets the initial state without counting; every other report whose state differs from the "
      "last known state counts 1; the first report after the initial state (when no state is known) "
      "counts 1."},
     ac_switches},
    {{"F118", "battery_s", "s", Layer::system, FeatureScope::host, "dmesg|syslog|journal",
      "Time on battery inside the observation window (see F133): from each AC report of F117 saying "
      "offline until the next report saying online, or the window's end. Before the first report the "
      "state is unknown and not counted; with no AC events, 0."},
     battery_s},
    {{"F119", "lid_closes", "count", Layer::system, FeatureScope::host, "dmesg|syslog|journal",
      "lid_close events, where lid_close events within 10 s of each other count once (logind, acpid and"
      " the kernel report one close); a lid_close without a time counts 1."},
     lid_closes},
    {{"F120", "laptop_signals", "bool", Layer::system, FeatureScope::host, "dmesg|syslog|journal",
      "1 when any AC or lid event exists (a laptop: cloud hosts have none), else 0."},
     laptop_signals},
    {{"F121", "suspends", "count", Layer::system, FeatureScope::host, "dmesg|syslog|journal",
      "Suspend/resume cycles: the number of Timeline::suspends entries (align: a suspend event opens a "
      "cycle and suspend events within 60 s join it; the first resume after it closes it and resumes "
      "within 60 s after that join it)."},
     suspends},
    {{"F122", "suspended_s", "s", Layer::system, FeatureScope::host, "dmesg|syslog|journal",
      "Time suspended: sum of (end - begin) over the suspend cycles with both ends known (end = the "
      "latest resume event of the cycle)."},
     suspended_s},
    {{"F123", "resume_recovery_s_mean", "s", Layer::system, FeatureScope::host, "dmesg|syslog|journal + dmon|query_gpu_csv",
      "Mean seconds from a resume until the first sample row (any GPU) with sm > --idle-threshold, "
      "capped at 300 s, over the suspend cycles that interrupted a busy GPU: at the latest sampling "
      "instant before the suspend began (at most 60 s before it) some row had sm > --idle-threshold. "
      "Null when none did."},
     resume_recovery_s_mean},
    {{"F124", "ac_switch_recovery_s_mean", "s", Layer::system, FeatureScope::host, "dmesg|syslog|journal + dmon|query_gpu_csv",
      "Mean seconds from an AC switch (F117) until the first sample row with sm > --idle-threshold, "
      "capped at 300 s, over the switches that interrupted a busy GPU (busy as in F123, at the switch)."
      " Null when none did."},
     ac_switch_recovery_s_mean},
    {{"F125", "boots", "count", Layer::system, FeatureScope::host, "dmesg|syslog|journal",
      "Boots seen: boot events with a time (journal '-- Boot --', kernel 'Linux version', ...) in time "
      "order, an event at most 120 s after the previous one joining its boot."},
     boots},
    {{"F126", "unclean_reboots", "count", Layer::system, FeatureScope::host, "dmesg|syslog|journal",
      "Reboots (boots of F125 with an earlier record in the logs) without a shutdown event in the 600 s"
      " up to the latest record before the boot (an orderly power-off logs its shutdown request last): "
      "crashes, hangs, power loss or hard resets."},
     unclean_reboots},
    {{"F127", "reboot_downtime_s", "s", Layer::system, FeatureScope::host, "dmesg|syslog|journal",
      "Time lost to restarts: the sum over reboots (as in F126) of the gap from the latest earlier "
      "record (an event, or the end of a sample row's interval) to the boot, counting only gaps of at "
      "most 1 h; a longer gap means the machine was switched off, not restarting, and is left out (the "
      "evidence says how many)."},
     reboot_downtime_s},
    {{"F128", "container_starts", "count", Layer::system, FeatureScope::host, "syslog|journal",
      "Container starts: container_start events with a time in time order, an event at most 10 s after "
      "the previous one joining its start (dockerd's API call and containerd's 'starting signal loop' "
      "report one start); events without a time count 1 each."},
     container_starts},
    {{"F129", "container_start_latency_mean_s", "s", Layer::system, FeatureScope::host, "syslog|journal",
      "Container start latency: mean seconds from a container_create to the last event of the first "
      "unpaired start (as in F128) that begins at or after it and at most 300 s later, i.e. until the "
      "container runs. Null without pairs."},
     container_start_latency_mean_s},
    {{"F130", "container_start_latency_max_s", "s", Layer::system, FeatureScope::host, "syslog|journal",
      "The longest container start latency (pairs as in F129)."},
     container_start_latency_max_s},
    {{"F131", "service_failures", "count", Layer::system, FeatureScope::host, "syslog|journal",
      "systemd units that failed: service_failed events ('<unit>: Failed with result', older systemd's"
      " 'Unit <unit> entered failed state'); the 'Failed to start' line of the same failure is not"
      " counted again."},
     count_of<EventKind::service_failed>},
    {{"F132", "cron_events_per_hour", "1/h", Layer::system, FeatureScope::host, "syslog|journal",
      "Cron job starts (CRON[pid]: (user) CMD) per hour of log_uptime_s (F133): the noise rate of "
      "syslog."},
     cron_events_per_hour},
    {{"F133", "log_uptime_s", "s", Layer::system, FeatureScope::host, "dmon|query_gpu_csv|dmesg|syslog|journal",
      "Time the logs cover with the machine up: the observation window, from the earliest placed sample"
      " row or event to the latest sample row's end (ts + interval) or event, minus for each reboot (as"
      " in F126) the gap from the latest earlier record to the boot."},
     log_uptime_s},
    {{"F134", "power_event_loss_s", "s", Layer::derived, FeatureScope::host, "dmon|query_gpu_csv + dmesg|syslog|journal",
      "GPU time lost to power events (L of F004): the suspended time inside the sampled span [first "
      "row's ts, last row's end), plus, for each AC switch of F117 outside a suspend and each resume "
      "that lies inside the span and interrupted a busy GPU (as in F123), the time without any sample "
      "row and not suspended from the event until the first row with sm > --idle-threshold, capped at "
      "300 s and at the span's end."},
     power_event_loss_s},
    {{"F135", "effective_gpu_hours", "h", Layer::derived, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "GPU-hours of useful work: gpu_sampled_s / 3600 x effective_utilization (F006). Per GPU; host: "
      "the sum over GPUs."},
     effective_gpu_hours},
    {{"F136", "energy_per_busy_hour_kwh", "kWh/h", Layer::derived, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "Energy per hour of useful GPU work, idle draw included: gpu_energy_kwh / (gpu_busy_s / 3600); "
      "null without busy rows. Per GPU; host from the host sums."},
     energy_per_busy_hour_kwh},
    {{"F137", "idle_energy_fraction", "ratio", Layer::derived, FeatureScope::per_gpu, "dmon|query_gpu_csv",
      "Share of GPU energy spent while idle: gpu_idle_energy_kwh / gpu_energy_kwh. Per GPU; host from "
      "the host sums."},
     idle_energy_fraction},
};

}  // namespace

std::string_view layer_name(Layer l) noexcept {
  switch (l) {
    case Layer::hardware: return "hardware";
    case Layer::driver: return "driver";
    case Layer::runtime: return "runtime";
    case Layer::application: return "application";
    case Layer::system: return "system";
    case Layer::derived: return "derived";
  }
  return "?";
}

std::string_view scope_name(FeatureScope s) noexcept { return s == FeatureScope::per_gpu ? "per_gpu" : "host"; }

std::span<const FeatureDef> feature_catalog() {
  static const std::vector<FeatureDef> defs = [] {
    std::vector<FeatureDef> d;
    for (const auto& e : kCatalog) d.push_back(e.def);
    return d;
  }();
  return defs;
}

std::size_t feature_index(std::string_view name_or_id) noexcept {
  for (std::size_t i = 0; i < std::size(kCatalog); ++i)
    if (kCatalog[i].def.id == name_or_id || kCatalog[i].def.name == name_or_id) return i;
  return kNoFeature;
}

const FeatureValue* FeatureSet::find(std::string_view name_or_id) const noexcept {
  const auto i = feature_index(name_or_id);
  return i == kNoFeature || i >= host.size() ? nullptr : &host[i];
}

const FeatureValue* FeatureSet::find_gpu(int gpu, std::string_view name_or_id) const noexcept {
  const auto i = feature_index(name_or_id);
  for (std::size_t k = 0; k < gpus.size(); ++k)
    if (gpus[k] == gpu) return i == kNoFeature || i >= per_gpu[k].size() ? nullptr : &per_gpu[k][i];
  return nullptr;
}

void FeatureStage::run(const Timeline& timeline, FeatureSet& out) const {
  const FeatureContext ctx(timeline, options_);
  out.options = options_;
  out.gpus = ctx.gpus;
  const std::size_t n = std::size(kCatalog), scopes = ctx.gpus.size() + 1;
  out.host.assign(n, FeatureValue{});
  out.per_gpu.assign(ctx.gpus.size(), std::vector<FeatureValue>(n));
  // One task per feature and scope, each writing its own slot: the values are the same whatever
  // the number of threads and whichever thread computes them.
  auto task = [&](std::size_t t) {
    const auto& e = kCatalog[t / scopes];
    const std::size_t s = t % scopes;
    if (s == 0) out.host[t / scopes] = e.compute(ctx, -1);
    else
      out.per_gpu[s - 1][t / scopes] = e.def.scope == FeatureScope::per_gpu ? e.compute(ctx, ctx.gpus[s - 1])
                                                                           : FeatureValue{std::nullopt, "host feature", {}};
  };
  const std::size_t tasks = n * scopes;
  unsigned threads = threads_ ? threads_ : std::max(1u, std::thread::hardware_concurrency());
  // Without samples, features are cheap: threads would cost more than they save.
  if (timeline.samples.rows() + timeline.processes.rows() < 100'000) threads = 1;
  if (threads <= 1) {
    for (std::size_t t = 0; t < tasks; ++t) task(t);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::exception_ptr error;  // of the first task in catalog order that threw, as one thread would
  std::size_t error_task = tasks;
  std::mutex error_mutex;
  auto worker = [&] {
    for (std::size_t t; (t = next.fetch_add(1)) < tasks;) {
      try {
        task(t);
      } catch (...) {
        const std::lock_guard lock(error_mutex);
        if (t < error_task) {
          error = std::current_exception();
          error_task = t;
        }
      }
    }
  };
  std::vector<std::thread> pool;
  // A thread the system refuses (a pids limit) is one fewer: the started ones and this one do it all.
  try {
    for (unsigned i = 1; i < threads; ++i) pool.emplace_back(worker);
  } catch (const std::system_error&) {
  }
  worker();
  for (auto& th : pool) th.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace gpucost
