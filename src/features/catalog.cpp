// The feature catalog: ONE table of {definition, computation} rows, in id order. Everything
// else (`gpucost features`, docs/features.md, the report, the feature count) is derived from it;
// stage.cpp runs the rows. Ids are stable:
// a feature that goes away leaves its id unused; new features get new ids at the end.
#include <fmt/format.h>

#include "features/catalog_rows.hpp"
#include "features/compute.hpp"

namespace gpucost {

namespace {
using namespace features;

// A row: the feature (its public id and name come from feature_ids.hpp), its definition and
// its computation.
struct Row {
  FeatureId id;
  std::string_view unit;
  Layer layer;
  FeatureScope scope;
  std::string_view sources;
  std::string_view definition;
};
struct Entry {
  Row def;
  ComputeFn compute;
};

// Definitions use --idle-threshold (SM % at or below which a row is idle, default 5) and
// --temp-threshold (C above which a row is hot, default 78). "Rows" are GPU sample rows (dmon,
// --query-gpu) after --since/--until; "events" are the timeline's deduplicated events.
constexpr Entry kCatalog[] = {
    {{FeatureId::gpu_util_heat_decay_pct, "%", Layer::kHardware, FeatureScope::kPerGpu, "dmon|query_gpu_csv",
      "Utilization decay under heat (capacity: does the cooling cost work): how much SM utilization "
      "falls once the GPU is hot, relative to while it is cool, at the same load. Only busy rows (sm >"
      " --idle-threshold) that report gpu_temp_c count, so an idle cool GPU is not compared with a busy"
      " hot one; hot rows have gpu_temp_c > --temp-threshold (default 78 °C), the others are cool; "
      "value = 100 x (mean sm of cool rows - mean sm of hot rows) / mean sm of cool rows (positive: "
      "less work while hot). Null when no busy row is hot, none is cool (heat cannot be separated from"
      " load), or the cool mean is 0. Per GPU over its rows; host over all GPUs' rows pooled."},
     gpu_util_heat_decay_pct},
    {{FeatureId::gpu_idle_fraction, "ratio", Layer::kHardware, FeatureScope::kPerGpu, "dmon|query_gpu_csv",
      "Idle fraction: rows with sm <= --idle-threshold (default 5 %) / rows that report sm. Counts "
      "rows, not seconds. Per GPU over its rows; host over all GPUs' rows pooled. Informs: cost."},
     gpu_idle_fraction},
    {{FeatureId::launch_queue_fraction, "ratio", Layer::kApplication, FeatureScope::kHost, "torch_trace",
      "Share of time lost to kernel-launch queueing: sum of queue_ns / sum of span_ns over the PyTorch "
      "profiler traces in the directory (span: the trace's wall span; queue: time the GPU sat idle "
      "while a launched kernel was pending). The five system logs cannot show this: null with the "
      "reason 'no PyTorch profiler trace in the directory' when there is no trace. Informs: cost."},
     launch_queue_fraction},
    {{FeatureId::power_event_loss_fraction, "ratio", Layer::kDerived, FeatureScope::kHost, "dmon|query_gpu_csv + dmesg|syslog|journal",
      "Share of GPU time lost to suspends and AC switches: L / (S + L), where S = host gpu_sampled_s "
      "(F010) and L = power_event_loss_s (F134: suspended time inside the sampled span, plus the "
      "sample-less time after AC switches and resumes that interrupted a busy GPU). Idle rows after "
      "such an event are not in L: gpu_idle_fraction already counts them, so effective_utilization "
      "counts each lost second once. Null without GPU samples or without a kernel/system log."
      " Informs: cost."},
     power_event_loss_fraction},
    {{FeatureId::ac_switches_per_hour, "1/h", Layer::kSystem, FeatureScope::kHost, "dmesg|syslog|journal + dmon|query_gpu_csv",
      "AC switches per hour of GPU sampling (cost: how often the battery interrupts work): the switches "
      "of F117 inside the host's sampled span (first row to the last row's end) / (host gpu_sampled_s /"
      " 3600). Null when there are no GPU samples."},
     ac_switches_per_hour},
    {{FeatureId::effective_utilization, "ratio", Layer::kDerived, FeatureScope::kPerGpu, "dmon|query_gpu_csv (+ dmesg|syslog|journal, torch_trace)",
      "Share of the GPU's available time doing useful work (cost: the verdict divides by it). Window: "
      "the host's sampled span, from the first GPU sample row to the last row's end. value = B x (1 - "
      "Q) / (S + L + G), where B = gpu_busy_s (F017), S = seconds of the GPU's rows that report sm, L ="
      " power_event_loss_s (F134: suspended and sample-less time after power events inside the span), "
      "G = the part of gpu_lost_s (F093) inside the span, Q = launch_queue_fraction (F003). Unsampled "
      "time that nothing explains is left out. A part the sources cannot measure (L and G without a "
      "kernel/system log, Q without a profiler trace) is left out and the evidence says so: from dmon "
      "alone the value is B / S, and adding the kernel logs divides by L + G more. Host: sums of B, S, "
      "L, G over the GPUs."},
     effective_utilization},
    {{FeatureId::incidents_per_hour, "1/h", Layer::kDerived, FeatureScope::kHost, "dmesg|syslog|journal (+ dmon|query_gpu_csv)",
      "Maintenance incidents (F008) per hour of H (cost: the maintenance the verdict prices), where H ="
      " host gpu_sampled_s / 3600, or log_uptime_s (F133) / 3600 when there are no GPU samples. Only "
      "incidents inside the window H measures count: the host's sampled span [first row, last row's "
      "end) with samples, else the observation window (an older kern.log's incidents are not divided "
      "by today's hours)."},
     incidents_per_hour},
    {{FeatureId::maintenance_incidents, "count", Layer::kDriver, FeatureScope::kHost, "dmesg|syslog|journal",
      "Incidents that cost maintenance time (reliability and cost: each is a person resetting a GPU, reload"
      "ing the driver or rebooting). Maintenance events: Xid events whose code NVIDIA's Xid catalog (data/x"
      "id-catalog.csv, compiled in) says need a person (needs_person reset, reboot or rma; Xid 154 unless i"
      "t announces recovery action 0x0 None); fallen_off_bus; rm_init_failed; gsp_error; gpu_reset whose te"
      "xt names NVRM or nvidia. In time order, an event at most 300 s after the previous maintenance event "
      "joins its incident; events without a time form one incident together."},
     maintenance_incidents},
    {{FeatureId::gpu_samples, "count", Layer::kHardware, FeatureScope::kPerGpu, "dmon|query_gpu_csv",
      "Number of GPU sample rows (dmon, --query-gpu) in the timeline, after --since/--until. Per GPU: "
      "its rows; host: all GPUs' rows (0 when a dmon or --query-gpu file holds no placed row)."
      " Informs: cost (the hours the measurements cover)."},
     gpu_samples},
    {{FeatureId::gpu_sampled_s, "s", Layer::kHardware, FeatureScope::kPerGpu, "dmon|query_gpu_csv",
      "Time the samples cover: each row covers [ts, ts + interval), interval being its source's "
      "sampling interval; gaps cover nothing. Per GPU: sum of interval_ns of its rows / 1e9. Host: the "
      "length of the union of [ts, ts + interval) over all GPUs' rows. Informs: cost (the hours the measurements cover)."},
     gpu_sampled_s},
    {{FeatureId::battery_busy_clock_ratio, "ratio", Layer::kSystem, FeatureScope::kPerGpu, "dmon|query_gpu_csv + dmesg|syslog|journal",
      "Graphics clock on battery against on AC power, under load (cost: what a battery switch costs a "
      "laptop's work): mean pclk of busy rows (sm > --idle-threshold) while on battery / mean pclk of "
      "busy rows while on AC. Battery time as in F118 (an AC offline report to the next online one); "
      "before the first AC report the state is unknown unless that report is an unplug. Null without "
      "AC reports or without busy rows on either side. (Replaces gpu_sample_interval_mean_s, a "
      "property of the collection, not of the machine.)"},
     battery_busy_clock_ratio},
    {{FeatureId::gpu_sample_gap_s, "s", Layer::kHardware, FeatureScope::kPerGpu, "dmon|query_gpu_csv",
      "Time inside the sampled span that no row covers: (last row's ts + interval - first row's ts) - "
      "the length of the union of the rows' [ts, ts + interval). Per GPU over its rows; host over the "
      "union of all GPUs' rows. Informs: cost (the hours the measurements cover)."},
     gpu_sample_gap_s},
    {{FeatureId::gpu_count, "count", Layer::kHardware, FeatureScope::kHost, "dmon|query_gpu_csv|nvidia_smi_q|dmesg|syslog|journal",
      "Number of GPUs: distinct GPU indices in the sample rows and in device records (nvidia-smi -q, "
      "--query-gpu) that have an index; when there are no indices, the number of device records; "
      "without samples and devices, 1 when the NVIDIA kernel messages (Xid, fallen off the bus, "
      "RmInitAdapter, GSP) name a single PCI address (that GPU is index 0)."
      " Informs: capacity (GPUs to plan for)."},
     gpu_count},
    {{FeatureId::gpu_util_mean_pct, "%", Layer::kHardware, FeatureScope::kPerGpu, "dmon|query_gpu_csv",
      "Mean SM utilization (dmon sm, utilization.gpu) over the rows that report it. Per GPU over its "
      "rows; host over all GPUs' rows pooled. Informs: cost."},
     mean_of<GpuMetric::sm_pct>},
    {{FeatureId::driver_versions, "count", Layer::kDriver, FeatureScope::kHost, "dmesg|syslog|journal",
      "Distinct NVIDIA driver versions the kernel loaded ('NVRM: loading NVIDIA UNIX ... Kernel Module "
      "550.120 ...') (reliability: a driver that changed across boots is the first suspect when errors "
      "start or stop). 1 is a stable driver; 0 when no load line with a version is in the logs. The "
      "evidence lists the versions in order of first load and how often consecutive loads changed "
      "version. (Replaces gpu_util_p50_pct, a third statistic of the column F014 and F016 describe.)"},
     driver_versions},
    {{FeatureId::gpu_util_busy_mean_pct, "%", Layer::kHardware, FeatureScope::kPerGpu, "dmon|query_gpu_csv",
      "How hard the GPU works while it works: mean SM utilization over the busy rows (sm > "
      "--idle-threshold); null without busy rows. F014 mixes in the idle time that F002 already "
      "counts; this one does not. Per GPU over its rows; host over all GPUs' rows pooled. Informs: "
      "capacity and cost (a job that keeps the GPU half busy while it runs is held back by its input "
      "or its kernels, and would gain less from a faster GPU than the speed ratio says). (Replaces "
      "gpu_util_p95_pct, a further percentile of the SM column: near 100 on any machine that trains.)"},
     gpu_util_busy_mean_pct},
    {{FeatureId::gpu_busy_s, "s", Layer::kHardware, FeatureScope::kPerGpu, "dmon|query_gpu_csv",
      "Busy time: sum of interval (s) of the rows with sm > --idle-threshold. Per GPU over its rows; "
      "host: the sum over GPUs. (GPU-seconds) Informs: cost."},
     gpu_busy_s},
    {{FeatureId::gpu_idle_s, "s", Layer::kHardware, FeatureScope::kPerGpu, "dmon|query_gpu_csv",
      "Idle time: sum of interval (s) of the rows with sm <= --idle-threshold. Per GPU over its rows; "
      "host: the sum over GPUs. (GPU-seconds) Informs: cost."},
     gpu_idle_s},
    {{FeatureId::gpu_idle_episodes, "count", Layer::kHardware, FeatureScope::kPerGpu, "dmon|query_gpu_csv",
      "Idle stretches of at least 60 s: runs of consecutive idle rows (sm <= --idle-threshold) of one "
      "GPU, where a busy row, a row without sm, or a gap of more than 1.5 intervals without rows (the "
      "next row later than ts + 2.5 x interval) ends a run; a shorter gap (dmon skips a second now and "
      "then) is bridged, and a run lasts from its first row's ts to its last row's end. Per GPU over its "
      "rows; host: the sum over GPUs. Informs: cost."},
     gpu_idle_episodes},
    {{FeatureId::gpu_longest_idle_s, "s", Layer::kHardware, FeatureScope::kPerGpu, "dmon|query_gpu_csv",
      "Duration of the longest idle run (runs as in F019, of any length); 0 when no row is idle. Per "
      "GPU; host: the longest over GPUs. Informs: cost."},
     gpu_longest_idle_s},
    {{FeatureId::gpu_mem_util_mean_pct, "%", Layer::kHardware, FeatureScope::kPerGpu, "dmon|query_gpu_csv",
      "Mean memory-controller utilization (dmon mem, utilization.memory) over the rows that report it. "
      "Per GPU over its rows; host over all GPUs' rows pooled. Informs: cost."},
     mean_of<GpuMetric::mem_pct>},
    {{FeatureId::gpu_busy_clock_ratio, "ratio", Layer::kHardware, FeatureScope::kPerGpu, "dmon|query_gpu_csv",
      "Clock efficiency under load: the mean, over the busy rows (sm > --idle-threshold) that report the"
      " graphics clock (dmon pclk, clocks.current.graphics), of the clock / the highest clock of the "
      "same GPU's rows (its boost clock as reached in these logs); null without such rows. 1 is a GPU "
      "that held its top clock while it worked; well below, it ran held down (F026, F042 and F044 "
      "say by what). Per GPU; host: every GPU's busy rows, each against its own GPU's highest clock. "
      "Informs: capacity (throughput the clocks cost; a cooler or better-powered machine buys it "
      "back). (Replaces gpu_enc_mean_pct: video encoding is 0 on training machines.)"},
     gpu_busy_clock_ratio},
    {{FeatureId::gpu_mem_util_busy_mean_pct, "%", Layer::kHardware, FeatureScope::kPerGpu, "dmon|query_gpu_csv",
      "Memory-controller utilization while busy: mean of dmon mem (utilization.memory, the share of "
      "time device memory was read or written) over the busy rows (sm > --idle-threshold) that report"
      " it; null without such rows. Beside F016 it says which bound the job is: memory busier than the "
      "SMs points at a bandwidth-bound job, for which the memory-bandwidth ratio of two GPUs is the "
      "speed ratio that applies (docs/cost-model.md, relative speed). Per GPU over its rows; host over "
      "all GPUs' rows pooled. Informs: cost (which end of the speed bracket). (Replaces "
      "gpu_dec_mean_pct: video decoding is 0 on training machines.)"},
     gpu_mem_util_busy_mean_pct},
    {{FeatureId::gpu_power_mean_w, "W", Layer::kHardware, FeatureScope::kPerGpu, "dmon|query_gpu_csv",
      "Mean board power draw (dmon pwr, power.draw) over the rows that report it. Per GPU over its "
      "rows; host: the mean of per-row values over all GPUs' rows. Informs: cost."},
     mean_of<GpuMetric::power_w>},
    {{FeatureId::xid_processes, "count", Layer::kDriver, FeatureScope::kPerGpu, "dmesg|syslog|journal",
      "Distinct processes the Xid events name (newer drivers print 'pid=1234, name=python3') "
      "(reliability: one workload behind most Xids points at the application, Xids across many at the"
      " GPU). The evidence lists each process with its Xid count, most first, and how many Xids name "
      "none. Per GPU: the Xids naming that GPU (null as F079 when an address maps to no device); host: "
      "all. (Replaces gpu_power_p95_w, a third statistic of the power column beside F024 and the old F026 max.)"},
     xid_processes},
    {{FeatureId::clock_event_sw_power_cap_s, "s", Layer::kDriver, FeatureScope::kPerGpu, "query_gpu_csv|nvidia_smi_q",
      "Seconds the GPU's clocks were held down by its software power cap: the GPU's query-gpu rows with "
      "clocks_event_reasons.sw_power_cap (clocks_throttle_reasons.* of older drivers) Active, summed "
      "over their intervals; without such columns, since the driver loaded: the `SW Power Capping` "
      "counter of nvidia-smi -q `Clocks Event Reasons Counters` (newer drivers; the largest of the GPU's reports: they only grow while the driver stays loaded). Informs: capacity and cost (work ran power-limited: a higher limit or a "
      "cooler board buys speed). Host: the sum over GPUs. (Replaces gpu_power_max_w, a second "
      "statistic of the power column beside F024.)"},
     clock_event_sw_power_cap_s},
    {{FeatureId::gpu_energy_kwh, "kWh", Layer::kHardware, FeatureScope::kPerGpu, "dmon|query_gpu_csv",
      "GPU energy: sum of power_w x interval_s over the rows that report power, / 3.6e6. Per GPU over "
      "its rows; host: the sum over GPUs. Informs: cost."},
     gpu_energy_kwh},
    {{FeatureId::gpu_idle_energy_kwh, "kWh", Layer::kHardware, FeatureScope::kPerGpu, "dmon|query_gpu_csv",
      "Energy spent while idle: sum of power_w x interval_s / 3.6e6 over the rows with power and sm <= "
      "--idle-threshold. Per GPU over its rows; host: the sum over GPUs. Informs: cost."},
     gpu_idle_energy_kwh},
    {{FeatureId::gpu_idle_power_mean_w, "W", Layer::kHardware, FeatureScope::kPerGpu, "dmon|query_gpu_csv",
      "What the card draws doing nothing: mean power over the rows with power and sm <= --idle-"
      "threshold; null when no such row. Per GPU over its rows; host over all GPUs' rows pooled."
      " Informs: cost."},
     gpu_idle_power_mean_w},
    {{FeatureId::gpu_busy_power_mean_w, "W", Layer::kHardware, FeatureScope::kPerGpu, "dmon|query_gpu_csv",
      "What the card draws under load: mean power over the rows with power and sm > --idle-threshold; "
      "null when no such row. Per GPU over its rows; host over all GPUs' rows pooled. Informs: cost."},
     gpu_busy_power_mean_w},
    {{FeatureId::gpu_power_limit_share, "ratio", Layer::kHardware, FeatureScope::kPerGpu, "dmon|query_gpu_csv + nvidia_smi_q|query_gpu_csv",
      "How close the card runs to its power cap: mean over the rows with power of power_w / limit, the "
      "limit being the row's power.limit (query-gpu) or else the GPU's enforced limit from nvidia-smi "
      "-q; rows with neither are skipped. Per GPU over its rows; host over all GPUs' rows pooled."
      " Informs: cost."},
     gpu_power_limit_share},
    {{FeatureId::gpu_temp_mean_c, "°C", Layer::kHardware, FeatureScope::kPerGpu, "dmon|query_gpu_csv",
      "Mean GPU core temperature (dmon gtemp/temp, temperature.gpu) over the rows that report it. Per "
      "GPU over its rows; host over all GPUs' rows pooled. Informs: capacity (cooling and clocks)."},
     mean_of<GpuMetric::gpu_temp_c>},
    {{FeatureId::battery_busy_power_ratio, "ratio", Layer::kSystem, FeatureScope::kPerGpu, "dmon|query_gpu_csv + dmesg|syslog|journal",
      "GPU power on battery against on AC power, under load (cost: the laptop's battery power limit, "
      "e.g. 55 W against 115 W): mean power of busy rows (sm > --idle-threshold) on battery / on AC, "
      "battery time as in F011. Null without AC reports or without busy rows on either side. "
      "(Replaces gpu_temp_p95_c, a third statistic of the temperature column F032 and F034 describe.)"},
     battery_busy_power_ratio},
    {{FeatureId::gpu_temp_max_c, "°C", Layer::kHardware, FeatureScope::kPerGpu, "dmon|query_gpu_csv",
      "Maximum GPU core temperature (gpu_temp_c). Per GPU over its rows; host: the maximum over all "
      "rows. Informs: capacity (cooling and clocks)."},
     max_of<GpuMetric::gpu_temp_c>},
    {{FeatureId::gpu_time_above_temp_s, "s", Layer::kHardware, FeatureScope::kPerGpu, "dmon|query_gpu_csv",
      "Time hot: sum of interval (s) of the rows with gpu_temp_c > --temp-threshold (default 78 °C). "
      "Per GPU over its rows; host: the sum over GPUs. Informs: capacity (cooling and clocks)."},
     gpu_time_above_temp_s},
    {{FeatureId::gsp_firmware_versions, "count", Layer::kDriver, FeatureScope::kPerGpu, "nvidia_smi_q",
      "Distinct GSP firmware versions nvidia-smi -q reported for the GPU (`GSP Firmware Version`, by bus"
      " id) across every report in the directory: 1 is a stable firmware, 2 or more means it changed "
      "between reports (a driver update between boots: the GSP firmware ships with the driver). The "
      "evidence lists the versions per GPU in order. Null where no report prints one (drivers before "
      "the line, or N/A: a GPU running without GSP firmware). Host: the most of any GPU. Informs: "
      "reliability (GSP errors and Xid 119/120 timeouts are fixed by firmware versions: which one ran "
      "says which fix applies). (Replaces gpu_hot_fraction, the share of hot rows beside F035's hot "
      "time.)"},
     gsp_firmware_versions},
    {{FeatureId::gpu_thermal_episodes, "count", Layer::kHardware, FeatureScope::kPerGpu, "dmon|query_gpu_csv",
      "Thermal episodes: runs of consecutive rows of one GPU with gpu_temp_c > --temp-threshold, of any"
      " length; a cooler row, a row without temperature, or a gap of more than 1.5 intervals without "
      "rows (the next row later than ts + 2.5 x interval) ends a run; a shorter gap is bridged. Per GPU "
      "over its rows; host: the sum over GPUs."
      " Informs: capacity (cooling and clocks)."},
     gpu_thermal_episodes},
    {{FeatureId::gpu_thermal_episode_mean_s, "s", Layer::kHardware, FeatureScope::kPerGpu, "dmon|query_gpu_csv",
      "Mean duration of the thermal episodes of F037 (an episode lasts from its first row's ts to its last row's end);"
      " null when there is none. Per GPU; host over all GPUs' episodes."
      " Informs: capacity (cooling and clocks)."},
     gpu_thermal_episode_mean_s},
    {{FeatureId::gpu_time_to_hot_s, "s", Layer::kHardware, FeatureScope::kPerGpu, "dmon|query_gpu_csv",
      "How long the GPU runs before it gets hot: seconds from its first sample row to its first row "
      "with gpu_temp_c > --temp-threshold; null when it never is. Per GPU; host: the shortest over "
      "GPUs. Informs: capacity (cooling and clocks)."},
     gpu_time_to_hot_s},
    {{FeatureId::gpu_mem_temp_max_c, "°C", Layer::kHardware, FeatureScope::kPerGpu, "dmon|query_gpu_csv",
      "Maximum memory (HBM) temperature (dmon mtemp, temperature.memory); GeForce cards print '-' "
      "(null). Per GPU over its rows; host: the maximum over all rows."
      " Informs: capacity (cooling and clocks)."},
     max_of<GpuMetric::mem_temp_c>},
    {{FeatureId::gpu_pclk_mean_mhz, "MHz", Layer::kHardware, FeatureScope::kPerGpu, "dmon|query_gpu_csv",
      "Mean graphics clock (dmon pclk, clocks.current.graphics) over the rows that report it. Per GPU "
      "over its rows; host over all GPUs' rows pooled. Informs: capacity (cooling and clocks)."},
     mean_of<GpuMetric::pclk_mhz>},
    {{FeatureId::clock_event_hw_slowdown_s, "s", Layer::kDriver, FeatureScope::kPerGpu, "query_gpu_csv|nvidia_smi_q",
      "Seconds of hardware slowdown: the GPU's query-gpu rows with clocks_event_reasons.hw_slowdown, "
      ".hw_thermal_slowdown or .hw_power_brake_slowdown Active, summed over their intervals; without "
      "such columns, since the driver loaded: the `HW Thermal Slowdown` plus `HW Power Braking` "
      "counters of nvidia-smi -q `Clocks Event Reasons Counters` (the largest of the GPU's reports: they only grow while the driver stays loaded). HW "
      "slowdown cuts clocks by half or more: thermal is failing cooling, power brake an external "
      "signal (PSU, chassis). Informs: reliability (a board or chassis to service). Host: the sum "
      "over GPUs. (Replaces gpu_pclk_max_mhz, the boost clock: a constant of the GPU model.)"},
     clock_event_hw_slowdown_s},
    {{FeatureId::gpu_pclk_heat_drop_pct, "%", Layer::kHardware, FeatureScope::kPerGpu, "dmon|query_gpu_csv",
      "Thermal clock throttling: as F001 for the graphics clock, 100 x (mean pclk of cool rows - mean "
      "pclk of hot rows) / mean pclk of cool rows, over the busy rows (sm > --idle-threshold) that "
      "report pclk and gpu_temp_c (hot: gpu_temp_c > --temp-threshold), so idle clocks are not taken "
      "for throttling (capacity). Per GPU over its rows; host over all GPUs' rows pooled."},
     gpu_pclk_heat_drop_pct},
    {{FeatureId::clock_event_sw_thermal_s, "s", Layer::kDriver, FeatureScope::kPerGpu, "query_gpu_csv|nvidia_smi_q",
      "Seconds the driver held the clocks down to keep the GPU below its thermal target: the GPU's "
      "query-gpu rows with clocks_event_reasons.sw_thermal_slowdown Active, summed over their "
      "intervals; without such columns, since the driver loaded: the `SW Thermal Slowdown` counter of "
      "nvidia-smi -q `Clocks Event Reasons Counters` (the largest of the GPU's reports: they only grow while the driver stays loaded). Informs: capacity (cooling limits throughput). Host: the sum over GPUs. "
      "(Replaces gpu_mclk_mean_mhz: the memory clock is a constant under load on real machines.)"},
     clock_event_sw_thermal_s},
    {{FeatureId::gpu_power_violation_mean_pct, "%", Layer::kHardware, FeatureScope::kPerGpu, "dmon",
      "Mean of dmon pviol, the share of each interval the GPU was throttled by its power limit, over "
      "the rows that report it. Per GPU over its rows; host over all GPUs' rows pooled."
      " Informs: capacity (cooling and clocks)."},
     mean_of<GpuMetric::pviol_pct>},
    {{FeatureId::gpu_thermal_violation_fraction, "ratio", Layer::kHardware, FeatureScope::kPerGpu, "dmon",
      "Rows with dmon tviol > 0 (thermal throttling in the interval) / rows that report tviol. Per GPU "
      "over its rows; host over all GPUs' rows pooled. Informs: capacity (cooling and clocks)."},
     gpu_thermal_violation_fraction},
    {{FeatureId::gpu_throttled_fraction, "ratio", Layer::kHardware, FeatureScope::kPerGpu, "dmon",
      "Rows with pviol > 0 or tviol > 0 / rows that report pviol or tviol: intervals throttled by power"
      " or heat. Per GPU over its rows; host over all GPUs' rows pooled."
      " Informs: capacity (cooling and clocks)."},
     gpu_throttled_fraction},
    {{FeatureId::gpu_fb_mean_mb, "MiB", Layer::kHardware, FeatureScope::kPerGpu, "dmon|query_gpu_csv",
      "Mean framebuffer memory used (dmon fb, memory.used) over the rows that report it (capacity: "
      "memory headroom for larger jobs). nvidia-smi prints 'MB' and means MiB (2^20 bytes), the unit "
      "of gpu_memory_total_mib (F069). Per GPU over its rows; host over all GPUs' rows pooled."},
     mean_of<GpuMetric::fb_mb>},
    {{FeatureId::row_remap_attention, "count", Layer::kDriver, FeatureScope::kPerGpu, "nvidia_smi_q",
      "GPUs whose latest nvidia-smi -q `Remapped Rows` says `Pending: Yes` (a remapped row waits for a "
      "GPU reset) or `Remapping Failure Occurred: Yes` (spare rows ran out: the board goes back). Per "
      "GPU 0 or 1; host: the sum. Null where the GPU prints no row remapping (before Ampere). Informs: "
      "reliability (reset or replace). (Replaces gpu_fb_max_mb: F051 states the same peak as a "
      "fraction of the memory.)"},
     row_remap_attention},
    {{FeatureId::gpu_ecc_volatile_uncorrected, "count", Layer::kDriver, FeatureScope::kPerGpu, "nvidia_smi_q",
      "Uncorrectable ECC errors since the driver loaded: nvidia-smi -q `ECC Errors` > `Volatile`, the "
      "sum of the SRAM and DRAM uncorrectable counts (older drivers: `Double Bit` > `Total`), the "
      "latest report. Null with ECC off (N/A). Informs: reliability (each one killed work; a GPU "
      "reset clears pending retirements). Host: the sum over GPUs. (Replaces gpu_fb_min_mb, a third "
      "statistic of the fb column.)"},
     gpu_ecc_volatile_uncorrected},
    {{FeatureId::gpu_fb_max_fraction, "ratio", Layer::kHardware, FeatureScope::kPerGpu, "dmon|query_gpu_csv + nvidia_smi_q|query_gpu_csv",
      "Peak memory pressure: the maximum over rows of fb_mb / total, the total being the row's "
      "memory.total or else the GPU's total from nvidia-smi -q; rows with neither are skipped. Per GPU "
      "over its rows; host: the maximum over all rows. Informs: capacity (memory headroom)."},
     gpu_fb_max_fraction},
    {{FeatureId::gpu_ecc_aggregate_uncorrected, "count", Layer::kDriver, FeatureScope::kPerGpu, "nvidia_smi_q",
      "Uncorrectable ECC errors over the board's life: nvidia-smi -q `ECC Errors` > `Aggregate`, summed "
      "as in F050, the latest report. Informs: reliability (a board that keeps adding them is an RMA "
      "candidate). Host: the sum over GPUs. (Replaces gpu_bar1_max_mb: the BAR1 mapping is sized by "
      "the driver, not by the work.)"},
     gpu_ecc_aggregate_uncorrected},
    {{FeatureId::gpu_sbecc_errors, "count", Layer::kHardware, FeatureScope::kPerGpu, "dmon",
      "Single-bit ECC errors during the samples: the increase of the dmon sbecc counter, per GPU the "
      "sum of consecutive rows that report it of (v - previous v) when v >= previous v, else v (the "
      "counter restarted). Host: the sum over GPUs. Informs: reliability (memory and link errors)."},
     increase_of<GpuMetric::sbecc>},
    {{FeatureId::gpu_dbecc_errors, "count", Layer::kHardware, FeatureScope::kPerGpu, "dmon",
      "Double-bit ECC errors during the samples: the increase of the dmon dbecc counter, per GPU the "
      "sum of consecutive rows that report it of (v - previous v) when v >= previous v, else v (the "
      "counter restarted). Host: the sum over GPUs. Informs: reliability (memory and link errors)."},
     increase_of<GpuMetric::dbecc>},
    {{FeatureId::gpu_pcie_replay_errors, "count", Layer::kHardware, FeatureScope::kPerGpu, "dmon",
      "PCIe replay errors during the samples: the increase of the dmon pci counter, per GPU the sum of "
      "consecutive rows that report it of (v - previous v) when v >= previous v, else v (the counter "
      "restarted). Host: the sum over GPUs. Informs: reliability (memory and link errors)."},
     increase_of<GpuMetric::pci_err>},
    {{FeatureId::gpu_pcie_rx_mean_mbs, "MB/s", Layer::kHardware, FeatureScope::kPerGpu, "dmon",
      "Mean PCIe receive throughput (dmon rxpci) over the rows that report it. Per GPU over its rows; "
      "host over all GPUs' rows pooled. Informs: capacity (host-device bandwidth)."},
     mean_of<GpuMetric::rxpci_mbs>},
    {{FeatureId::gpu_pcie_tx_mean_mbs, "MB/s", Layer::kHardware, FeatureScope::kPerGpu, "dmon",
      "Mean PCIe transmit throughput (dmon txpci) over the rows that report it. Per GPU over its rows; "
      "host over all GPUs' rows pooled. Informs: capacity (host-device bandwidth)."},
     mean_of<GpuMetric::txpci_mbs>},
    {{FeatureId::gpu_thermal_margin_c, "°C", Layer::kDriver, FeatureScope::kPerGpu, "nvidia_smi_q + dmon|query_gpu_csv",
      "Headroom to the GPU's own slowdown temperature: nvidia-smi -q `GPU Slowdown Temp` (drivers that "
      "print T.Limit offsets: the reading + `GPU T.Limit Temp` + `GPU Slowdown T.Limit Temp`) minus the "
      "hottest gpu_temp_c of the GPU's sample rows (F034), or minus the -q reading without samples. "
      "Negative: it ran past its slowdown point. Host: the minimum over GPUs. Informs: capacity and "
      "reliability (cooling headroom of this GPU, not a fixed threshold). (Replaces "
      "gpu_pcie_traffic_gb, F056 + F057 times the sampled time.)"},
     gpu_thermal_margin_c},
    {{FeatureId::retired_pages, "count", Layer::kDriver, FeatureScope::kPerGpu, "nvidia_smi_q",
      "Memory pages retired for ECC errors: nvidia-smi -q `Retired Pages` single- plus double-bit "
      "counts, the latest report; N/A (null) on GPUs that remap rows instead (F049). Informs: "
      "reliability (NVIDIA's RMA guidance counts them). Host: the sum over GPUs. (Replaces "
      "gpu_fan_mean_pct: N/A on passively cooled data-center GPUs and most laptops.)"},
     retired_pages},
    {{FeatureId::gpu_util_drop_after_error_pct, "%", Layer::kHardware, FeatureScope::kPerGpu, "dmon|query_gpu_csv + dmesg|syslog|journal",
      "Utilization drop in the seconds after a hardware error (the events of F061 that have a time): "
      "for each, rows with ts in [t - 15 s, t) are before and rows in [t, t + 15 s) after (a row inside"
      " several windows counts in each); value = 100 x (mean sm before - mean sm after) / mean sm "
      "before, over all windows pooled. Per GPU: errors naming that GPU or no GPU, and its rows; host: "
      "all errors and all rows. Null when no hardware error has a time or no sm rows lie around them."
      " Informs: reliability."},
     gpu_util_drop_after_error_pct},
    {{FeatureId::hw_error_events, "count", Layer::kHardware, FeatureScope::kPerGpu, "dmesg|syslog|journal",
      "GPU hardware and driver errors reported by the kernel (reliability): Xid events outside the "
      "application class (data/xid-catalog.csv), fallen_off_bus, rm_init_failed, gsp_error, driver_error "
      "lines other than known-benign ones (F066), and uncorrected PCIe AER errors naming a GPU. Not "
      "counted: CPU machine-check and ACPI thermal lines (F062: the CPU, not the GPU) and corrected AER "
      "errors (F077: retried by the link). Per GPU: the events naming it (PCI address mapped through "
      "nvidia-smi -q/--query-gpu, `GPU:N` of nvidia-modeset, `GPUN` of NVRM; on a one-GPU machine without"
      " bus ids, every NVIDIA driver message); host: all events."},
     hw_error_events},
    {{FeatureId::thermal_events, "count", Layer::kHardware, FeatureScope::kHost, "dmesg|syslog|journal",
      "CPU and platform thermal events from the kernel (capacity: cooling of the machine, not a GPU "
      "error): machine-check 'Core/Package temperature is above threshold, cpu clock is throttled' lines "
      "and ACPI critical-temperature lines (code 1 or 2; 'temperature/speed normal' lines excluded). GPU "
      "heat is in its samples (F035, F037-F039)."},
     thermal_events},
    {{FeatureId::clock_event_hw_power_brake_s, "s", Layer::kDriver, FeatureScope::kPerGpu, "query_gpu_csv|nvidia_smi_q",
      "Seconds of hardware power-brake slowdown: the GPU's query-gpu rows with "
      "clocks_event_reasons.hw_power_brake_slowdown (clocks_throttle_reasons.* of older drivers) Active, "
      "summed over their intervals; without such columns, since the driver loaded: the `HW Power "
      "Braking` counter of nvidia-smi -q `Clocks Event Reasons Counters` (the largest of the GPU's reports: they only grow while the driver stays loaded). The "
      "brake is a signal from outside the GPU (power supply, chassis) that halves the clocks or more. "
      "Informs: reliability (a power supply or chassis to service, not the GPU). Part of F042. Host: "
      "the sum over GPUs. (Replaces thermal_events_per_hour, a rate of F062 that no decision read.)"},
     clock_event_hw_power_brake_s},
    {{FeatureId::driver_errors_while_hot, "count", Layer::kHardware, FeatureScope::kHost, "dmesg|syslog|journal + dmon|query_gpu_csv",
      "driver_error events with a time at whose instant some GPU's sample row covering it ([ts, ts + "
      "interval)) has gpu_temp_c > --temp-threshold: the article's display-engine errors that precede "
      "thermal throttling. Informs: reliability."},
     driver_errors_while_hot},
    {{FeatureId::driver_errors_per_thermal_episode, "ratio", Layer::kHardware, FeatureScope::kHost, "dmesg|syslog|journal + dmon|query_gpu_csv",
      "driver_errors_while_hot (F064) / host gpu_thermal_episodes (F037), a ratio (errors per episode) "
      "(reliability: do the errors come with the heat); null when there is no thermal episode."},
     driver_errors_per_thermal_episode},
    {{FeatureId::benign_driver_messages, "count", Layer::kDriver, FeatureScope::kPerGpu, "dmesg|syslog|journal",
      "Lines of known-benign NVIDIA driver messages (reliability: noise to ignore, never an error): a "
      "small documented table in src/features/benign.cpp, first 'nvidia-modeset: ERROR: GPU:N: Failed to "
      "query display engine channel state', which hybrid-graphics laptops print thousands of times an "
      "hour. Never counted in driver_error_events (F094), hw_error_events (F061) or incidents. Per GPU: "
      "the events naming it (PCI address mapped through nvidia-smi -q/--query-gpu, `GPU:N` of "
      "nvidia-modeset, `GPUN` of NVRM; on a one-GPU machine without bus ids, every NVIDIA driver "
      "message); host: all events."},
     benign_driver_messages},
    {{FeatureId::i915_hang_events, "count", Layer::kHardware, FeatureScope::kHost, "dmesg|syslog|journal",
      "Intel integrated-GPU hangs (GPU HANG: ecode ...): on dual-GPU laptops the iGPU drives the "
      "display and can stall. Informs: reliability."},
     count_of<EventKind::i915_hang>},
    {{FeatureId::gpu_power_limit_w, "W", Layer::kDriver, FeatureScope::kPerGpu, "nvidia_smi_q|query_gpu_csv",
      "Enforced power limit: per GPU the mean power.limit of its rows (query-gpu), else the limit from "
      "nvidia-smi -q. Host: the sum over GPUs. Informs: capacity (power headroom)."},
     gpu_power_limit_w},
    {{FeatureId::gpu_memory_total_mib, "MiB", Layer::kDriver, FeatureScope::kPerGpu, "nvidia_smi_q|query_gpu_csv",
      "Total framebuffer memory: per GPU from nvidia-smi -q, else the largest memory.total of its rows."
      " Host: the sum over GPUs. Informs: capacity (memory headroom)."},
     gpu_memory_total_mib},
    {{FeatureId::pcie_link_width, "lanes", Layer::kDriver, FeatureScope::kPerGpu, "query_gpu_csv|nvidia_smi_q",
      "PCIe link width while the GPU works: the narrowest pcie.link.width.current of its query-gpu rows "
      "with sm above --idle-threshold; without such rows the current width from nvidia-smi -q (GPU Link "
      "Info, Link Width Current). Per GPU; host: the narrowest GPU. Informs: capacity (host-device "
      "bandwidth)."},
     pcie_link_width},
    {{FeatureId::pcie_link_width_max, "lanes", Layer::kDriver, FeatureScope::kPerGpu, "nvidia_smi_q",
      "Maximum PCIe link width of the GPU and slot from nvidia-smi -q (Link Width Max). Per GPU; host: "
      "the minimum over GPUs. Informs: capacity (host-device bandwidth)."},
     pcie_link_width_max},
    {{FeatureId::pcie_link_width_ratio, "ratio", Layer::kDriver, FeatureScope::kPerGpu, "nvidia_smi_q",
      "Current / maximum PCIe link width: 0.5 for a x16 card on a x8 link (common in laptops). Per GPU;"
      " host: the minimum over GPUs. Informs: capacity (host-device bandwidth)."},
     pcie_link_width_ratio},
    {{FeatureId::pcie_link_gen, "gen", Layer::kDriver, FeatureScope::kPerGpu, "query_gpu_csv|nvidia_smi_q|dmesg|syslog|journal",
      "PCIe generation the link runs at under load (capacity: host-device bandwidth): the lowest "
      "pcie.link.gen.current of the GPU's query-gpu rows with sm above --idle-threshold (measured while "
      "it worked); without such rows the higher of "
      "nvidia-smi -q's current generation (a snapshot, usually of an idle GPU whose link dropped to gen 1"
      " to save power) and the generation of the kernel's probe line 'limited by N GT/s PCIe xW link' "
      "naming the GPU (the link as trained for work: 8 GT/s gen 3, 16 GT/s gen 4). Per GPU; host: the "
      "minimum over GPUs."},
     pcie_link_gen},
    {{FeatureId::pcie_link_gen_max, "gen", Layer::kDriver, FeatureScope::kPerGpu, "nvidia_smi_q",
      "Maximum PCIe generation of the GPU and slot from nvidia-smi -q. Per GPU; host: the minimum over "
      "GPUs. Informs: capacity (host-device bandwidth)."},
     pcie_link_gen_max},
    {{FeatureId::pcie_link_degraded_events, "count", Layer::kDriver, FeatureScope::kHost, "dmesg|syslog|journal",
      "Kernel messages that a PCIe link runs below its capability ('downgraded', 'limited by ... x8 "
      "link'). Informs: capacity (host-device bandwidth)."},
     count_of<EventKind::pcie_link_degraded>},
    {{FeatureId::pcie_aer_events, "count", Layer::kDriver, FeatureScope::kPerGpu, "dmesg|syslog|journal",
      "PCIe Advanced Error Reporting events of any severity (reliability: a marginal link or slot). Per "
      "GPU: the reports naming its PCI address (the GPU's own `nvidia 0000:..` line, or the address after"
      " a root port's 'error received'; mapped through nvidia-smi -q/--query-gpu); host: all reports, "
      "other devices' (NVMe, network) included."},
     pcie_aer_events},
    {{FeatureId::pcie_aer_corrected_events, "count", Layer::kDriver, FeatureScope::kPerGpu, "dmesg|syslog|journal",
      "PCIe AER events of severity corrected (code 0): retried by hardware, a sign of a marginal link, "
      "not a GPU error (reliability). Per GPU and host as in F076."},
     pcie_aer_corrected_events},
    {{FeatureId::pcie_aer_uncorrected_events, "count", Layer::kDriver, FeatureScope::kPerGpu, "dmesg|syslog|journal",
      "PCIe AER events of severity non-fatal or fatal (code 1 or 2): data was lost on the link "
      "(reliability). Per GPU and host as in F076."},
     pcie_aer_uncorrected_events},
    {{FeatureId::xid_events, "count", Layer::kDriver, FeatureScope::kPerGpu, "dmesg|syslog|journal",
      "Distinct NVIDIA Xid events (a message read from dmesg, kern.log and the journal counts once). "
      "Per GPU: the events whose PCI address is that GPU's (bus id from nvidia-smi -q or --query-gpu; "
      "with a single GPU, every event naming a GPU), null when an Xid names an address no device record"
      " maps; host: all events. Informs: reliability."},
     xid_events},
    {{FeatureId::xid_application_events, "count", Layer::kDriver, FeatureScope::kPerGpu, "dmesg|syslog|journal",
      "Xid events of the catalog's application class (data/xid-catalog.csv: 8, 13, 31, 43, 45, 68, 69, 94, 109)"
      ": the job faulted and is restarted; the GPU needs no maintenance (reliability of the workload). Per "
      "GPU: the events whose PCI address is that GPU's (bus id from nvidia-smi -q or --query-gpu; with a si"
      "ngle GPU, every event naming a GPU), null when an Xid names an address no device record maps; host: "
      "all events."},
     xid_class_events<XidClass::kApplication>},
    {{FeatureId::xid_driver_firmware_events, "count", Layer::kDriver, FeatureScope::kPerGpu, "dmesg|syslog|journal",
      "Xid events of the catalog's driver/firmware class (data/xid-catalog.csv: 32, 38, 44, 56, 61, 62, 119"
      ", 120): driver or GSP firmware failures; most need a GPU reset or a driver reload (reliability). Per"
      " GPU: the events whose PCI address is that GPU's (bus id from nvidia-smi -q or --query-gpu; with a s"
      "ingle GPU, every event naming a GPU), null when an Xid names an address no device record maps; host:"
      " all events."},
     xid_class_events<XidClass::kDriverFirmware>},
    {{FeatureId::xid_memory_ecc_events, "count", Layer::kDriver, FeatureScope::kPerGpu, "dmesg|syslog|journal",
      "Xid events of the catalog's memory/ECC class (data/xid-catalog.csv: 48, 57, 63, 64, 92, 95, 140)"
      ": ECC errors, page retirement, row remapping; a reset, or a returned board when they repeat (reliabi"
      "lity). Per GPU: the events whose PCI address is that GPU's (bus id from nvidia-smi -q or --query-gpu"
      "; with a single GPU, every event naming a GPU), null when an Xid names an address no device record m"
      "aps; host: all events. Informs: reliability."},
     xid_class_events<XidClass::kMemoryEcc>},
    {{FeatureId::xid_bus_events, "count", Layer::kDriver, FeatureScope::kPerGpu, "dmesg|syslog|journal",
      "Xid events of the catalog's bus/interconnect and hardware class (data/xid-catalog.csv: 74 NVLink, 79"
      " fallen off the bus, 110, 121, 136, 143): a GPU reset or a reboot, a returned board when they repeat"
      " (reliability). Per GPU: the events whose PCI address is that GPU's (bus id from nvidia-smi -q or --"
      "query-gpu; with a single GPU, every event naming a GPU), null when an Xid names an address no device"
      " record maps; host: all events."},
     xid_class_events<XidClass::kBus>},
    {{FeatureId::xid_recovery_action_events, "count", Layer::kDriver, FeatureScope::kPerGpu, "dmesg|syslog|journal",
      "Xid 154 events: the driver announces the recovery action it requires (0 none, 1 GPU reset, 2 node re"
      "boot, 3 drain P2P, 4 drain and reset) (reliability). Per GPU: the events whose PCI address is that G"
      "PU's (bus id from nvidia-smi -q or --query-gpu; with a single GPU, every event naming a GPU), null w"
      "hen an Xid names an address no device record maps; host: all events."},
     xid_class_events<XidClass::kRecoveryAction>},
    {{FeatureId::xid_other_events, "count", Layer::kDriver, FeatureScope::kPerGpu, "dmesg|syslog|journal",
      "Xid events whose code NVIDIA's Xid catalog (data/xid-catalog.csv) does not list, or unreadable: look"
      " them up (reliability). Per GPU: the events whose PCI address is that GPU's (bus id from nvidia-smi "
      "-q or --query-gpu; with a single GPU, every event naming a GPU), null when an Xid names an address n"
      "o device record maps; host: all events."},
     xid_class_events<XidClass::kOther>},
    {{FeatureId::xid_distinct_codes, "count", Layer::kDriver, FeatureScope::kPerGpu, "dmesg|syslog|journal",
      "Number of distinct Xid codes among the Xid events (the evidence lists them). Per GPU: the events"
      " whose PCI address is that GPU's (bus id from nvidia-smi -q or --query-gpu; with a single GPU, "
      "every event naming a GPU), null when an Xid names an address no device record maps; host: all "
      "events. Informs: reliability."},
     xid_distinct_codes},
    {{FeatureId::time_between_failures_h, "h", Layer::kDriver, FeatureScope::kHost, "dmesg|syslog|journal",
      "Mean time between failures: the mean gap, in hours, between the starts of consecutive placed "
      "maintenance incidents (F008: Xids that need a person, falls off the bus, RmInitAdapter and GSP "
      "failures, clustered 300 s); the evidence gives the shortest and longest gap. Null with fewer "
      "than two. Informs: reliability (how often a person is called to this machine). (Replaces "
      "xid_events_per_hour, F079 restated per hour.)"},
     time_between_failures_h},
    {{FeatureId::fallen_off_bus_events, "count", Layer::kDriver, FeatureScope::kPerGpu, "dmesg|syslog|journal",
      "'GPU has fallen off the bus' messages, with or without an Xid 79 (reliability: the GPU is lost "
      "until a reboot, F093). Per GPU: the events naming it (PCI address mapped through nvidia-smi "
      "-q/--query-gpu, `GPU:N` of nvidia-modeset, `GPUN` of NVRM; on a one-GPU machine without bus ids, "
      "every NVIDIA driver message); host: all events."},
     count_of<EventKind::fallen_off_bus>},
    {{FeatureId::rm_init_failed_events, "count", Layer::kDriver, FeatureScope::kPerGpu, "dmesg|syslog|journal",
      "'RmInitAdapter failed' messages: the driver could not initialise the GPU, typically after it fell "
      "off the bus (reliability: the GPU is lost, F093). Per GPU: the events naming it (PCI address "
      "mapped through nvidia-smi -q/--query-gpu, `GPU:N` of nvidia-modeset, `GPUN` of NVRM; on a one-GPU "
      "machine without bus ids, every NVIDIA driver message); host: all events."},
     count_of<EventKind::rm_init_failed>},
    {{FeatureId::gsp_error_events, "count", Layer::kDriver, FeatureScope::kPerGpu, "dmesg|syslog|journal",
      "GSP firmware failures (reliability: a GPU reset or driver update): the GSP's own reports "
      "(GSP-CrashCat, 'GSP Timeout', 'GSP Failure') plus Xid 119 (GSP RPC timeout) and Xid 120 (GSP "
      "error), which NVIDIA's Xid catalog words as GSP failures. Per GPU: the events naming it (PCI "
      "address mapped through nvidia-smi -q/--query-gpu, `GPU:N` of nvidia-modeset, `GPUN` of NVRM; on a "
      "one-GPU machine without bus ids, every NVIDIA driver message); host: all events."},
     gsp_error_events},
    {{FeatureId::nv_assert_events, "count", Layer::kDriver, FeatureScope::kHost, "dmesg|syslog|journal",
      "NVRM assertion failures (nvAssertFailed, nvAssertOkFailed). Informs: reliability."},
     count_of<EventKind::nv_assert>},
    {{FeatureId::gpu_reset_events, "count", Layer::kDriver, FeatureScope::kHost, "dmesg|syslog|journal",
      "Resets and recoveries of NVIDIA GPUs: gpu_reset events whose text names NVRM or nvidia (i915 "
      "'Resetting chip' is not counted). Informs: reliability."},
     gpu_reset_events},
    {{FeatureId::gpu_lost_s, "s", Layer::kDriver, FeatureScope::kPerGpu, "dmesg|syslog|journal",
      "Time a GPU was lost (reliability and capacity: GPU-time that did no work and needed a person): "
      "from an Xid 79, a 'fallen off the bus' message or an RmInitAdapter failure naming the GPU (PCI "
      "address mapped through nvidia-smi -q/--query-gpu; the only GPU when there is one) until it is "
      "back (its next sample row, or the next boot), else until the end of the measured window; "
      "overlapping losses of one GPU count once. Events naming no known GPU or without a time are not "
      "counted (the evidence says how many). Host: the sum over GPUs (GPU-seconds)."},
     gpu_lost_s},
    {{FeatureId::driver_error_events, "count", Layer::kDriver, FeatureScope::kPerGpu, "dmesg|syslog|journal",
      "NVIDIA driver errors other than Xids (reliability): nvidia-modeset/nvidia-drm ERROR lines, probe "
      "failures, API mismatches; known-benign messages (F066) are not counted. Per GPU: the events naming"
      " it (PCI address mapped through nvidia-smi -q/--query-gpu, `GPU:N` of nvidia-modeset, `GPUN` of "
      "NVRM; on a one-GPU machine without bus ids, every NVIDIA driver message); host: all events."},
     driver_error_events},
    {{FeatureId::reboot_incidents, "count", Layer::kDriver, FeatureScope::kHost, "dmesg|syslog|journal",
      "Maintenance incidents (F008) that imply a reboot: they contain an Xid 79, fallen_off_bus, "
      "rm_init_failed, or an Xid 154 announcing action 0x2 (node reboot). Informs: reliability."},
     reboot_incidents},
    {{FeatureId::gpu_reset_incidents, "count", Layer::kDriver, FeatureScope::kHost, "dmesg|syslog|journal",
      "Maintenance incidents (F008) that imply a GPU reset or driver reload but no reboot: F008 - F095."
      " Informs: reliability."},
     gpu_reset_incidents},
    {{FeatureId::application_xid_incidents, "count", Layer::kDriver, FeatureScope::kHost, "dmesg|syslog|journal",
      "Job failures: application-class Xid events (13, 31, 43, 45) in time order, an event at most 60 s"
      " after the previous one joining its failure; events without a time count as one more. Each costs"
      " a restarted job, not maintenance. Informs: reliability."},
     application_xid_incidents},
    {{FeatureId::gpu_service_restarts, "count", Layer::kDriver, FeatureScope::kHost, "syslog|journal",
      "Restarts of GPU daemons (nvidia-persistenced 'Started (pid)', nvidia-powerd's version line) "
      "(reliability: a daemon that crashed and was restarted). A start at most 300 s after the latest "
      "boot event is the daemon starting with the machine, not a restart, and is not counted; starts "
      "without a time are not counted either (the evidence says how many)."},
     gpu_service_restarts},
    {{FeatureId::ps_snapshots, "count", Layer::kRuntime, FeatureScope::kHost, "ps",
      "Number of ps snapshots: one per marker line '### gpucost-ps <time>', or one per file without "
      "markers. Informs: capacity (contention for the machine)."},
     ps_snapshots},
    {{FeatureId::xid_top_code_events, "count", Layer::kDriver, FeatureScope::kPerGpu, "dmesg|syslog|journal",
      "Xid events of the code that repeats most (the evidence names it, its share of the Xids with a "
      "code and how many codes there are; among equals, the lowest code); 0 without Xids. Per GPU: "
      "the events attributed to it (null as F079 when an address maps to no device); host: all. "
      "Informs: reliability (one code repeating on one GPU is one cause to fix, a driver bug or a "
      "failing board; the same count spread over many codes points at the workload or the "
      "platform). (Replaces ps_processes_mean: the number of processes a desktop runs, whatever the "
      "work.)"},
     xid_top_code_events},
    {{FeatureId::cpu_load_pct_mean, "%", Layer::kRuntime, FeatureScope::kHost, "ps",
      "Mean over ps snapshots of the sum of %CPU of all rows (100 = one core). ps %CPU is each "
      "process's CPU time / its lifetime, not an instantaneous load."
      " Informs: capacity (contention for the machine)."},
     cpu_load_pct_mean},
    {{FeatureId::cpu_competing_pct_mean, "%", Layer::kRuntime, FeatureScope::kHost, "ps",
      "CPU used by everything but the top process (usually the training job): mean over ps snapshots of"
      " (sum of %CPU - the largest %CPU). Informs: capacity (contention for the machine)."},
     cpu_competing_pct_mean},
    {{FeatureId::ps_busy_processes_mean, "count", Layer::kRuntime, FeatureScope::kHost, "ps",
      "Mean over ps snapshots of the number of processes with %CPU >= 10."
      " Informs: capacity (contention for the machine)."},
     ps_busy_processes_mean},
    {{FeatureId::mem_used_pct_mean, "%", Layer::kRuntime, FeatureScope::kHost, "ps",
      "Mean over ps snapshots of the sum of %MEM (resident memory as a share of RAM)."
      " Informs: capacity (contention for the machine)."},
     mem_used_pct_mean},
    {{FeatureId::desktop_gpu_clients_max, "count", Layer::kRuntime, FeatureScope::kHost, "ps",
      "Maximum over ps snapshots of the processes whose program (first word of the command, without its"
      " directory) is a desktop GPU client that holds /dev/nvidia* and GPU memory: Xorg, X, Xwayland, "
      "gnome-shell, kwin_x11, kwin_wayland, plasmashell, sway, Hyprland, weston, mutter, cinnamon, "
      "chrome, chromium, chromium-browser, google-chrome, firefox, firefox-esr, firefox-bin, msedge, "
      "brave, opera, code, code-oss, electron, steam, obs, vlc, mpv, blender, zed."
      " Informs: capacity (contention for the machine)."},
     desktop_gpu_clients_max},
    {{FeatureId::ps_uninterruptible_max, "count", Layer::kRuntime, FeatureScope::kHost, "ps",
      "Maximum over ps snapshots of the processes in state D (uninterruptible sleep, often stuck in a "
      "driver call). Informs: capacity (contention for the machine)."},
     ps_uninterruptible_max},
    {{FeatureId::wsl2_host, "bool", Layer::kRuntime, FeatureScope::kHost, "dmesg|syslog|journal|ps",
      "1 when the machine is a WSL2 guest (a boot message names a microsoft-standard or WSL2 kernel, or"
      " pid 1 in ps is /init), else 0; null with neither a kernel log nor ps."
      " Informs: cost (a WSL2 GPU is shared with Windows)."},
     wsl2_host},
    {{FeatureId::gpu_processes_mean, "count", Layer::kRuntime, FeatureScope::kPerGpu, "pmon",
      "Mean number of distinct pids per pmon interval (the rows of one GPU in one pmon sample). Per "
      "GPU; host over all GPUs' intervals. Informs: capacity (contention for the machine)."},
     gpu_processes_mean},
    {{FeatureId::gpu_processes_max, "count", Layer::kRuntime, FeatureScope::kPerGpu, "pmon",
      "Maximum number of distinct pids in one pmon interval. Per GPU; host over all GPUs' intervals."
      " Informs: capacity (contention for the machine)."},
     gpu_processes_max},
    {{FeatureId::gpu_competing_processes_mean, "count", Layer::kRuntime, FeatureScope::kPerGpu, "pmon",
      "Processes sharing the GPU with the main one: mean over pmon intervals of max(0, distinct pids - "
      "1). Per GPU; host over all GPUs' intervals. Informs: capacity (contention for the machine)."},
     gpu_competing_processes_mean},
    {{FeatureId::gpu_top_process_sm_share, "ratio", Layer::kRuntime, FeatureScope::kPerGpu, "pmon",
      "Sum over pmon intervals of the largest per-process sm % / the sum of all per-process sm %: 1 "
      "when one process does all the GPU work; null when no process used SM. Per GPU; host over all "
      "GPUs' intervals. Informs: capacity (contention for the machine)."},
     gpu_top_process_sm_share},
    {{FeatureId::profiler_kernel_busy_fraction, "ratio", Layer::kApplication, FeatureScope::kHost, "torch_trace",
      "Sum of kernel_busy_ns / sum of span_ns over the profiler traces: share of profiled time in which"
      " at least one kernel ran. Informs: cost."},
     profiler_kernel_busy_fraction},
    {{FeatureId::profiler_launch_delay_mean_ms, "ms", Layer::kApplication, FeatureScope::kHost, "torch_trace",
      "Mean delay from a kernel-launch call to the kernel's start on the GPU over all launches of all "
      "traces (each trace's mean weighted by its launches). Informs: cost."},
     profiler_launch_delay_mean_ms},
    {{FeatureId::profiler_kernels_per_s, "1/s", Layer::kApplication, FeatureScope::kHost, "torch_trace",
      "GPU kernels per second of profiled time: sum of kernels / sum of span_s over the traces."
      " Informs: cost."},
     profiler_kernels_per_s},
    {{FeatureId::oom_kill_events, "count", Layer::kApplication, FeatureScope::kHost, "dmesg|syslog|journal",
      "Out-of-memory kills: the kernel killed a process to free RAM. Informs: reliability."},
     count_of<EventKind::oom_kill>},
    {{FeatureId::segfault_events, "count", Layer::kApplication, FeatureScope::kHost, "dmesg|syslog|journal",
      "Process crashes reported by the kernel ('segfault at', 'traps:'). Informs: reliability."},
     count_of<EventKind::segfault>},
    {{FeatureId::ac_switches, "count", Layer::kSystem, FeatureScope::kHost, "dmesg|syslog|journal",
      "AC adapter state changes. Take ac_online/ac_offline events with a time in time order; events of "
      "the same state within 10 s of the previous AC event are one report (kernel, acpid and upower "
      "report the same change); a report that comes within 60 s after a boot event, or has mono_ns < 60"
      " s, sets the initial state without counting; every other report whose state differs from the "
      "last known state counts 1; the first report after the initial state (when no state is known) "
      "counts 1. Informs: cost."},
     ac_switches},
    {{FeatureId::battery_s, "s", Layer::kSystem, FeatureScope::kHost, "dmesg|syslog|journal",
      "Time on battery inside the observation window (see F133): from each AC report of F117 saying "
      "offline until the next report saying online, or the window's end. Before the first report the "
      "state is unknown and not counted; with no AC events, 0. Informs: cost."},
     battery_s},
    {{FeatureId::lid_closes, "count", Layer::kSystem, FeatureScope::kHost, "dmesg|syslog|journal",
      "lid_close events, where lid_close events within 10 s of each other count once (logind, acpid and"
      " the kernel report one close); a lid_close without a time counts 1. Informs: cost."},
     lid_closes},
    {{FeatureId::laptop_signals, "bool", Layer::kSystem, FeatureScope::kHost, "dmesg|syslog|journal",
      "1 when any AC or lid event exists (a laptop: cloud hosts have none), else 0. Informs: cost."},
     laptop_signals},
    {{FeatureId::suspends, "count", Layer::kSystem, FeatureScope::kHost, "dmesg|syslog|journal",
      "Suspend/resume cycles: the number of Timeline::suspends entries (align: a suspend event opens a "
      "cycle and suspend events within 60 s join it; the first resume after it closes it and resumes "
      "within 60 s after that join it). Informs: cost."},
     suspends},
    {{FeatureId::suspended_s, "s", Layer::kSystem, FeatureScope::kHost, "dmesg|syslog|journal",
      "Time suspended: sum of (end - begin) over the suspend cycles with both ends known (end = the "
      "latest resume event of the cycle). Informs: cost."},
     suspended_s},
    {{FeatureId::resume_recovery_s_mean, "s", Layer::kSystem, FeatureScope::kHost, "dmesg|syslog|journal + dmon|query_gpu_csv",
      "Mean seconds from a resume until the first sample row (any GPU) with sm > --idle-threshold, "
      "capped at 300 s, over the suspend cycles that interrupted a busy GPU: at the latest sampling "
      "instant before the suspend began (at most 60 s before it) some row had sm > --idle-threshold. "
      "Null when none did. Informs: cost."},
     resume_recovery_s_mean},
    {{FeatureId::ac_switch_recovery_s_mean, "s", Layer::kSystem, FeatureScope::kHost, "dmesg|syslog|journal + dmon|query_gpu_csv",
      "Mean seconds from an AC switch (F117) until the first sample row with sm > --idle-threshold, "
      "capped at 300 s, over the switches that interrupted a busy GPU (busy as in F123, at the switch)."
      " Null when none did. Informs: cost."},
     ac_switch_recovery_s_mean},
    {{FeatureId::boots, "count", Layer::kSystem, FeatureScope::kHost, "dmesg|syslog|journal",
      "Boots seen: boot events with a time (journal '-- Boot --', kernel 'Linux version', ...) in time "
      "order, an event at most 120 s after the previous one joining its boot. Informs: reliability."},
     boots},
    {{FeatureId::unclean_reboots, "count", Layer::kSystem, FeatureScope::kHost, "dmesg|syslog|journal",
      "Reboots (boots of F125 with an earlier record in the logs) without a shutdown event in the 600 s"
      " up to the latest record before the boot (an orderly power-off logs its shutdown request last): "
      "crashes, hangs, power loss or hard resets (reliability). Null with the reason when a reboot "
      "follows a boot in which no user-space message (syslog or journal: a daemon, not the kernel) "
      "was logged: a boot read from an older kern.log alone never shows its shutdown."},
     unclean_reboots},
    {{FeatureId::reboot_downtime_s, "s", Layer::kSystem, FeatureScope::kHost, "dmesg|syslog|journal",
      "Time lost to restarts: the sum over reboots (as in F126) of the gap from the latest earlier "
      "record (an event, or the end of a sample row's interval) to the boot, counting only gaps of at "
      "most 1 h; a longer gap means the machine was switched off, not restarting, and is left out (the "
      "evidence says how many) (capacity). Null as F126 when a boot before a reboot is covered by the "
      "kernel log alone: its latest record is not its end."},
     reboot_downtime_s},
    {{FeatureId::container_starts, "count", Layer::kSystem, FeatureScope::kHost, "syslog|journal",
      "Container starts: container_start events with a time in time order, an event at most 10 s after "
      "the previous one joining its start (dockerd's API call and containerd's 'starting signal loop' "
      "report one start); events without a time count 1 each. Informs: cost."},
     container_starts},
    {{FeatureId::container_start_latency_mean_s, "s", Layer::kSystem, FeatureScope::kHost, "syslog|journal",
      "Container start latency: mean seconds from a container_create to the last event of the first "
      "unpaired start (as in F128) that begins at or after it and at most 300 s later, i.e. until the "
      "container runs. Null without pairs. Informs: cost."},
     container_start_latency_mean_s},
    {{FeatureId::vbios_versions, "count", Layer::kDriver, FeatureScope::kPerGpu, "nvidia_smi_q",
      "Distinct VBIOS versions nvidia-smi -q reported for the GPU (by bus id) across every report in "
      "the directory: 1 is a stable VBIOS, 2 or more means it was flashed between reports (boots). The "
      "evidence lists the versions per GPU in order. Host: the most of any GPU. Informs: reliability "
      "(a changed VBIOS is a suspect when errors start or stop). (Replaces "
      "container_start_latency_max_s; F129's evidence gives the longest.)"},
     vbios_versions},
    {{FeatureId::service_failures, "count", Layer::kSystem, FeatureScope::kHost, "syslog|journal",
      "systemd units that failed: service_failed events ('<unit>: Failed with result', older systemd's"
      " 'Unit <unit> entered failed state'); the 'Failed to start' line of the same failure is not"
      " counted again. Informs: reliability."},
     count_of<EventKind::service_failed>},
    {{FeatureId::clock_event_hw_thermal_s, "s", Layer::kDriver, FeatureScope::kPerGpu, "query_gpu_csv|nvidia_smi_q",
      "Seconds of hardware thermal slowdown: the GPU's query-gpu rows with "
      "clocks_event_reasons.hw_thermal_slowdown (clocks_throttle_reasons.* of older drivers) Active, "
      "summed over their intervals; without such columns, since the driver loaded: the `HW Thermal "
      "Slowdown` counter of nvidia-smi -q `Clocks Event Reasons Counters` (the largest of the GPU's reports: they only grow while the driver stays loaded). The GPU"
      " reached the temperature at which the hardware protects itself, past the driver's own thermal "
      "target (F044). Informs: reliability (cooling failed: fans, airflow, thermal paste). Part of "
      "F042. Host: the sum over GPUs. (Replaces cron_events_per_hour, the noise rate of syslog that "
      "no decision read.)"},
     clock_event_hw_thermal_s},
    {{FeatureId::log_uptime_s, "s", Layer::kSystem, FeatureScope::kHost, "dmon|query_gpu_csv|dmesg|syslog|journal",
      "Time the logs cover with the machine up: the observation window, from the earliest placed sample"
      " row or event to the latest sample row's end (ts + interval), event or stamped log line of any "
      "kind (recognized or not), minus for each reboot (as in F126) the gap from the latest earlier "
      "record or log line to the boot. Records placed at their file's "
      "modification time (no stamp of their own) do not widen the window. Informs: cost."},
     log_uptime_s},
    {{FeatureId::power_event_loss_s, "s", Layer::kDerived, FeatureScope::kHost, "dmon|query_gpu_csv + dmesg|syslog|journal",
      "GPU time lost to power events (L of F004): the suspended time inside the sampled span [first "
      "row's ts, last row's end), plus, for each AC switch of F117 outside a suspend and each resume "
      "that lies inside the span and interrupted a busy GPU (as in F123), the time without any sample "
      "row and not suspended from the event until the first row with sm > --idle-threshold, capped at "
      "300 s and at the span's end. Informs: cost."},
     power_event_loss_s},
    {{FeatureId::effective_gpu_hours, "h", Layer::kDerived, FeatureScope::kPerGpu, "dmon|query_gpu_csv (+ torch_trace)",
      "GPU-hours of useful work (cost: what the local GPU delivered, against cloud hours): gpu_busy_s "
      "(F017) / 3600 x (1 - launch_queue_fraction (F003), 0 when there is no profiler trace), i.e. "
      "effective_utilization (F006) times its window. Never above gpu_busy_s / 3600: suspended and lost"
      " time only enlarge F006's window. Per GPU; host: the sum over GPUs."},
     effective_gpu_hours},
    {{FeatureId::energy_per_busy_hour_kwh, "kWh/h", Layer::kDerived, FeatureScope::kPerGpu, "dmon|query_gpu_csv",
      "Energy per hour of useful GPU work, idle draw included: gpu_energy_kwh / (gpu_busy_s / 3600); "
      "null without busy rows. Per GPU; host from the host sums. Informs: cost."},
     energy_per_busy_hour_kwh},
    {{FeatureId::idle_energy_fraction, "ratio", Layer::kDerived, FeatureScope::kPerGpu, "dmon|query_gpu_csv",
      "Share of GPU energy spent while idle: gpu_idle_energy_kwh / gpu_energy_kwh. Per GPU; host from "
      "the host sums. Informs: cost."},
     idle_energy_fraction},
};

// The rows are in the order of feature_ids.hpp, one per FeatureId, so that a FeatureId is the
// row's index.
constexpr bool rows_follow_the_ids() {
  if (std::size(kCatalog) != kFeatureCount) return false;
  for (std::size_t i = 0; i < std::size(kCatalog); ++i)
    if (feature_slot(kCatalog[i].def.id) != i) return false;
  return true;
}
static_assert(rows_follow_the_ids(), "kCatalog must have one row per FeatureId, in feature_ids.hpp order");

}  // namespace

std::string_view layer_name(Layer l) noexcept {
  switch (l) {
    case Layer::kHardware: return "hardware";
    case Layer::kDriver: return "driver";
    case Layer::kRuntime: return "runtime";
    case Layer::kApplication: return "application";
    case Layer::kSystem: return "system";
    case Layer::kDerived: return "derived";
  }
  return "?";
}

std::string_view scope_name(FeatureScope s) noexcept { return s == FeatureScope::kPerGpu ? "per_gpu" : "host"; }

std::span<const FeatureDef> feature_catalog() {
  static const std::vector<FeatureDef> defs = [] {
    std::vector<FeatureDef> d;
    for (const auto& e : kCatalog) {
      const Row& r = e.def;
      d.push_back({feature_code(r.id), feature_name(r.id), r.unit, r.layer, r.scope, r.sources, r.definition});
    }
    return d;
  }();
  return defs;
}

const FeatureDef& feature_def(FeatureId id) { return feature_catalog()[feature_slot(id)]; }

std::size_t feature_index(std::string_view name_or_id) noexcept {
  for (std::size_t i = 0; i < kFeatureCount; ++i)
    if (feature_ids::kCodes[i] == name_or_id || feature_ids::kNames[i] == name_or_id) return i;
  return kNoFeature;
}

namespace features {

std::size_t feature_count() noexcept { return std::size(kCatalog); }

FeatureValue compute_host_feature(std::size_t index, const FeatureContext& ctx) {
  return kCatalog[index].compute(ctx, -1);
}

FeatureValue compute_gpu_feature(std::size_t index, const FeatureContext& ctx, int gpu) {
  const Entry& e = kCatalog[index];
  return e.def.scope == FeatureScope::kPerGpu ? e.compute(ctx, gpu) : FeatureValue{std::nullopt, "host feature", {}};
}

}  // namespace features

}  // namespace gpucost
