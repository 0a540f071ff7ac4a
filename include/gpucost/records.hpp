#pragma once
/// \file records.hpp
/// What ingest extracts from the logs: the schemas of the three tables (GPU samples, events,
/// processes), the kinds of events, the log formats, and the few small records (boot anchors,
/// GPU devices, profiler summaries) that are not rows of a table.

#ifndef GPUCOST_LAYER_BASE
#error "gpucost_base header: include it only in gpucost_base or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpucost/table.hpp"
#include "gpucost/time.hpp"

namespace gpucost {

// X(name, description). The list is the single source of truth for `kind` in the timeline and
// for docs/timeline.md; the `code` column's meaning is given per kind.
#define GPUCOST_EVENT_KINDS(X)                                                                    \
  X(xid, "NVIDIA Xid error (`NVRM: Xid (PCI:...): N, ...`); code = Xid number")                   \
  X(fallen_off_bus, "GPU has fallen off the bus (with or without an Xid 79)")                     \
  X(rm_init_failed, "`RmInitAdapter failed` / `rm_init_adapter failed`: the driver could not "   \
                    "initialise the GPU")                                                         \
  X(gsp_error, "GSP firmware error, timeout or crash report")                                    \
  X(nv_assert, "NVRM assertion failure (`nvAssertFailed`, `nvAssertOkFailed`)")                   \
  X(gpu_reset, "GPU reset or recovery (NVIDIA or i915 `Resetting chip`)")                        \
  X(driver_load, "NVIDIA kernel module loaded (`NVRM: loading NVIDIA UNIX ...`)")                 \
  X(driver_error, "other NVIDIA driver errors (nvidia-modeset/nvidia-drm `ERROR`, probe failed)") \
  X(i915_hang, "Intel iGPU hang (`GPU HANG: ecode ...`)")                                         \
  X(pcie_aer, "PCIe AER error report; code = 0 corrected, 1 non-fatal, 2 fatal")                  \
  X(pcie_link_degraded, "PCIe link running below its capability (`downgraded`, `limited by`)")   \
  X(taint, "kernel tainted (`... taints kernel`)")                                                \
  X(thermal, "thermal event: temperature above threshold, clock throttled, thermal shutdown")     \
  X(ac_online, "AC adapter plugged in (kernel ACPI, acpid, upower, power_supply)")               \
  X(ac_offline, "AC adapter unplugged: running on battery")                                       \
  X(lid_close, "laptop lid closed (systemd-logind, acpid)")                                       \
  X(lid_open, "laptop lid opened")                                                                \
  X(suspend, "system suspends (kernel `PM: suspend entry`, systemd-logind/systemd-sleep)")       \
  X(resume, "system resumes (kernel `PM: suspend exit`, systemd `returned from sleep`)")         \
  X(boot, "a boot starts (journal `-- Boot ... --`/`-- Reboot --`, kernel `Linux version`)")      \
  X(shutdown, "orderly power-off or reboot requested (systemd-logind, systemd)")                  \
  X(container_create, "container created (dockerd/podman)")                                       \
  X(container_start, "container started (dockerd/containerd/podman)")                             \
  X(container_stop, "container stopped or exited")                                                \
  X(service_failed, "a systemd unit failed (`Failed with result`, `entered failed state`)")       \
  X(service_restart, "a GPU-related daemon restarted (nvidia-persistenced, nvidia-powerd ...)")    \
  X(oom_kill, "out-of-memory kill; pid/process = the victim")                                      \
  X(segfault, "a process crashed (`segfault at`, `traps:`); pid/process = the process")            \
  X(cron, "cron job start (noise; counted for the noise rate)")                                   \
  X(user, "matched a user pattern from --patterns")                                             \
  X(log_end, "the last stamped line of a file in one boot, of any kind (ingest to align only: "   \
             "align keeps its time in Timeline::log_ends, never as an event)")

/// The kind of a recognized event (the timeline's `kind`).
enum class EventKind : std::uint8_t {
#define GPUCOST_X(name, desc) name,
  GPUCOST_EVENT_KINDS(GPUCOST_X)
#undef GPUCOST_X
      count_
};
inline constexpr std::size_t kEventKindCount = static_cast<std::size_t>(EventKind::count_);
/// Name of a kind as printed (`xid`, `ac_offline`).
std::string_view event_kind_name(EventKind k) noexcept;
/// One-line description of a kind.
std::string_view event_kind_description(EventKind k) noexcept;
/// Kind of a name, or nullopt.
std::optional<EventKind> event_kind_from_name(std::string_view name) noexcept;

/// What a format's records are, for the stages after ingest (a bit mask; each format's
/// registration row in GPUCOST_FORMATS lists its traits).
enum FormatTrait : std::uint8_t {
  kTraitKernelLog = 1 << 0,         ///< kernel messages (NVRM, ACPI, PM): dmesg, kern.log, the journal
  kTraitServiceLog = 1 << 1,        ///< system service messages (dockerd, systemd units): syslog, journal
  kTraitProcessSnapshots = 1 << 2,  ///< process tables (ps)
  kTraitGpuProcesses = 1 << 3,      ///< per-process GPU use (nvidia-smi pmon)
  kTraitDeviceReport = 1 << 4,      ///< a device report (nvidia-smi -q): PCIe link, power limits
  kTraitNotALog = 1 << 5,           ///< recognized only to be listed, then skipped: never a usable log
};

// The one registration list of the log formats, in detection order (a tie in detection goes to
// the earlier row). X(name, source family, GPU sample priority, traits, file name hints,
// description):
// - name: the FormatId, and the parser `formats::<name>_format()` (src/ingest/formats/).
// - source family: the timeline's `source` (`dmon`, `dmesg`, `syslog`, `journal`, ...).
// - GPU sample priority: 0 when the format writes no GPU sample rows; else its rank when two
//   sources sample one GPU at the same time (1 first; align keeps one source per GPU at a time).
// - traits: FormatTrait bits (0 for none).
// - file name hints: words in a file's path that break a near tie in detection towards this
//   format (journalctl short output and a classic syslog file can be byte-identical).
// Its parser file holds the format's sample lines (LogFormat::samples), which the unit tests run.
#define GPUCOST_FORMATS(X)                                                                         \
  X(manifest, "manifest", 0, 0, "", "collect-logs.sh manifest.json")                               \
  X(sim_truth, "none", 0, kTraitNotALog, "",                                                       \
    "`gpucost simulate`'s truth.json: ground truth for tests, not a log (skipped)")                \
  X(torch_trace, "profiler", 0, 0, "", "PyTorch profiler Chrome trace JSON (`traceEvents`)")       \
  X(journal_json, "journal", 0, kTraitKernelLog | kTraitServiceLog, "",                            \
    "journalctl -o json (one object per line)")                                                    \
  X(journal_export, "journal", 0, kTraitKernelLog | kTraitServiceLog, "",                          \
    "journalctl -o export (KEY=value records)")                                                    \
  X(nvidia_smi_q, "dmon", 0, kTraitDeviceReport, "",                                               \
    "`nvidia-smi -q` report (also inside nvidia-bug-report.log)")                                  \
  X(dmon, "dmon", 1, 0, "", "`nvidia-smi dmon` (any -s selection, -o D/T/DT)")                     \
  X(pmon, "dmon", 4, kTraitGpuProcesses, "", "`nvidia-smi pmon` per-process GPU use")              \
  X(query_gpu_csv, "dmon", 2, 0, "",                                                               \
    "`nvidia-smi --query-gpu=... --format=csv` (also `column -t` aligned)")                        \
  X(dmesg, "dmesg", 0, kTraitKernelLog, "dmesg",                                                   \
    "dmesg: raw `[ mono]`, `-T` ctime, `--time-format iso`, `-x`, `-r`")                           \
  X(syslog, "syslog", 0, kTraitKernelLog | kTraitServiceLog, "syslog kern.log messages",           \
    "kern.log/syslog: BSD `Mmm dd hh:mm:ss host ident:` or RFC 3339 stamps")                       \
  X(journal_short, "journal", 0, kTraitKernelLog | kTraitServiceLog, "journal",                    \
    "journalctl short/short-iso/short-precise/-monotonic/-unix")                                   \
  X(ps, "ps", 0, kTraitProcessSnapshots, "",                                                       \
    "`ps aux` / `ps -eo ...` snapshots, with `### gpucost-ps <RFC 3339>` markers")                 \
  X(dcgmi_dmon, "dmon", 3, 0, "",                                                                  \
    "`dcgmi dmon -e <field ids>` (NVIDIA DCGM): GPU rows as samples")                              \
  X(nvidia_smi_q_xml, "dmon", 0, kTraitDeviceReport, "",                                           \
    "`nvidia-smi -q -x` XML report: the -q report's device fields")                                \
  X(acpid, "acpid", 0, 0, "acpid",                                                                 \
    "acpid's own log (`/var/log/acpid`): `[ctime] received event ...`")                           \
  X(nvidia_smi_list, "dmon", 0, 0, "",                                                             \
    "`nvidia-smi -L` GPU list, with each GPU's MIG devices")                                       \
  X(nvidia_smi_table, "dmon", 0, 0, "",                                                            \
    "`nvidia-smi` table: GPU rows (name, PCI address, power cap, memory) and MIG devices")

/// A log format that detection can choose.
enum class FormatId : std::uint8_t {
#define GPUCOST_X(name, family, sample_priority, traits, hints, desc) name,
  GPUCOST_FORMATS(GPUCOST_X)
#undef GPUCOST_X
      unknown
};
inline constexpr std::size_t kFormatCount = static_cast<std::size_t>(FormatId::unknown);

/// A format's registration row (see GPUCOST_FORMATS).
struct FormatInfo {
  std::string_view name;
  std::string_view family;        ///< the timeline's `source`
  int sample_priority = 0;        ///< 0 = no GPU samples; else 1 first when sources overlap
  unsigned traits = 0;            ///< FormatTrait bits
  std::string_view name_hints;    ///< space-separated words of a file path
  std::string_view description;
};
/// The registration row of a format (FormatId::unknown: a row named `unknown`, no traits).
const FormatInfo& format_info(FormatId f) noexcept;
std::string_view format_name(FormatId f) noexcept;
/// The source family of a format (`dmon`, `dmesg`, `syslog`, `journal`, `ps`, ...): the
/// timeline's `source`.
std::string_view format_family(FormatId f) noexcept;
std::string_view format_description(FormatId f) noexcept;
/// Whether the format's registration lists the trait.
inline bool format_has(FormatId f, FormatTrait t) noexcept { return (format_info(f).traits & t) != 0; }
/// Whether the format writes GPU sample rows.
inline bool format_samples_gpus(FormatId f) noexcept { return format_info(f).sample_priority > 0; }

/// How a row's raw wall-clock stamp is to be read; align turns it into UTC.
enum class WallKind : std::uint8_t {
  kNone = 0,     ///< no wall-clock stamp (monotonic only, or nothing)
  kUtc,          ///< raw is UTC ns already
  kLocal,        ///< raw is a local civil time read as if UTC; needs the zone
  kLocalNoYear,  ///< like kLocal, but the year is provisional: see no_year_raw() (time.hpp)
  kLocalNoDate,  ///< raw is ns since local midnight of day 0 (+1 day per midnight rollover)
  kRelative,     ///< raw is ns since the start of the file (rows placed by sampling interval)
};

/// Flags on an event or sample (bit mask).
enum RowFlags : std::int64_t {
  kFlagApproxTime = 1 << 0,      ///< no stamp of its own: placed at the file's mtime or by context
  kFlagUnreliableWall = 1 << 1,  ///< dmesg -T ctime: boot time + monotonic, wrong after suspend
  kFlagContinued = 1 << 2,       ///< the message had continuation lines joined to it
  kFlagTruncated = 1 << 3,       ///< the line was longer than --max-line-length and was cut
  kFlagFromMonotonic = 1 << 4,   ///< (align) ts_ns came from monotonic time and an anchor
  kFlagFromWall = 1 << 5,        ///< (align) ts_ns came from the wall-clock stamp
};

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

// X(name, unit, dmon header names, query-gpu field names, description).
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

/// Columns of the event table.
namespace event_col {
enum : std::size_t {
  ts_ns = 0,    ///< UTC ns (align); null when the event cannot be placed
  wall_kind,    ///< WallKind of wall_raw_ns
  wall_raw_ns,  ///< raw wall stamp
  mono_ns,      ///< kernel monotonic ns since boot, when the line carries it
  boot_id,      ///< (dict) boot id when the source names it (journal _BOOT_ID)
  boot_seq,     ///< boot ordinal within the file (monotonic restarted, `-- Boot --` marker)
  kind,         ///< EventKind
  format,       ///< FormatId of the file
  file,         ///< index into IngestResult::files
  line,         ///< 1-based line number of the message's first line
  code,         ///< kind-specific number (Xid code, AER severity); null when none
  gpu,          ///< (dict) PCI bus id `0000:01:00` as printed in the message, or GPU index
  pid,          ///< process id named by the message
  process,      ///< (dict) process name named by the message
  ident,        ///< (dict) syslog identifier / unit (`kernel` for kernel lines)
  text,         ///< (text) message, continuation lines joined with '\n'
  flags,        ///< RowFlags
  repeat,       ///< events the row stands for: 1, or a run of one message repeated (see below)
  count_
};
}

/// Whether repeats of a kind's message are aggregated into one row per second (a `repeat`
/// count > 1): the kinds that are counted, not paired or ordered. Boots, suspends and resumes,
/// power and lid changes, driver loads, resets, containers and `log_end` marks stay one row per
/// line, since the features pair or order them. See docs/timeline.md, "Repeated messages".
constexpr bool event_kind_aggregates(EventKind k) noexcept {
  switch (k) {
    case EventKind::xid:
    case EventKind::rm_init_failed:
    case EventKind::gsp_error:
    case EventKind::nv_assert:
    case EventKind::driver_error:
    case EventKind::i915_hang:
    case EventKind::pcie_aer:
    case EventKind::pcie_link_degraded:
    case EventKind::taint:
    case EventKind::thermal:
    case EventKind::service_failed:
    case EventKind::segfault:
    case EventKind::cron:
    case EventKind::user:
      return true;
    default:
      return false;
  }
}

/// Events that row r of an event table stands for (its `repeat`; 1 when null).
inline std::uint64_t event_repeat(const Table& events, std::size_t r) noexcept {
  const Column& c = events.column(event_col::repeat);
  return c.is_valid(r) ? static_cast<std::uint64_t>(c.get_int(r)) : 1;
}
/// Events an event table stands for: Σ event_repeat over its rows.
std::uint64_t event_total(const Table& events) noexcept;

/// Columns of the process table (ps snapshots, nvidia-smi pmon).
namespace process_col {
enum : std::size_t {
  ts_ns = 0,
  wall_kind,
  wall_raw_ns,
  file,
  line,
  snapshot,     ///< snapshot ordinal within the file
  user,         ///< (dict)
  pid,
  cpu_pct,      ///< %CPU (ps)
  mem_pct,      ///< %MEM (ps)
  vsz_kib,
  rss_kib,
  stat,         ///< (dict) process state letters
  command,      ///< (dict) command line as printed
  gpu,          ///< GPU index (pmon), null for ps
  gpu_sm_pct,   ///< SM % used by this process (pmon)
  gpu_mem_pct,  ///< memory % used by this process (pmon)
  count_
};
}

/// Makes an empty table with the sample schema.
Table make_sample_table();
/// Makes an empty table with the event schema.
Table make_event_table();
/// Makes an empty table with the process schema.
Table make_process_table();

/// Wall stamps before 2000-01-01 UTC are a clock that was never set, not a date: journald's
/// `__REALTIME_TIMESTAMP` 0, or 1970 + uptime on a board without a real-time clock until NTP
/// steps it. Such a stamp places nothing and anchors no boot (Problem::implausible_time).
inline constexpr TimeNs kPlausibleWallFloorNs = days_from_civil(2000, 1, 1) * kNsPerDay;

/// A line that carries both a monotonic and a wall-clock stamp: `boot_wall = wall - mono`.
/// Align maps monotonic kernel time to UTC from these, piecewise (the offset jumps at each resume).
struct BootAnchor {
  std::string boot_id;          ///< known boot id, empty when the source does not name it
  std::uint32_t file = 0;       ///< index into IngestResult::files
  std::int32_t boot_seq = 0;    ///< boot ordinal within the file
  std::uint64_t line = 0;
  TimeNs mono_ns = kNoTime;     ///< monotonic stamp
  TimeNs wall_raw_ns = kNoTime; ///< wall stamp, read per wall_kind
  WallKind wall_kind = WallKind::kNone;
  TimeNs precision_ns = kNsPerSec;  ///< resolution of the wall stamp (1 s for BSD syslog)
};

/// What `nvidia-smi -q`, --query-gpu and NVRM lines tell about one GPU.
/// A MIG device (a GPU instance with its compute instance) of a GPU (issue 38).
struct MigDevice {
  std::string profile;                 ///< `1g.10gb`
  int device = -1;                     ///< the MIG device index on its GPU (`Device  0:`)
  std::optional<int> gpu_instance, compute_instance;  ///< GI/CI ids where printed
  int compute_slices = 0;              ///< the profile's `Ng`
  double memory_gb = 0;                ///< the profile's memory
  std::string uuid;                    ///< `MIG-...`
  /// Its share of the GPU by memory slices (eighths), nullopt where the GPU's memory is unknown.
  std::optional<double> share;
};

struct GpuDevice {
  std::optional<int> index;           ///< nvidia-smi index (minor number) when known
  std::string pci_bus;                ///< normalized `0000:01:00` (domain:bus:device)
  std::string name;                   ///< product name
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

/// What a PyTorch profiler trace says about kernel-launch queueing (feature F003).
struct ProfilerSummary {
  std::uint32_t file = 0;
  TimeNs span_ns = 0;        ///< wall span of the trace
  TimeNs queue_ns = 0;       ///< time the GPU sat idle while a launched kernel was pending
  TimeNs kernel_busy_ns = 0; ///< time at least one kernel ran
  std::uint64_t launches = 0;
  std::uint64_t kernels = 0;
  TimeNs launch_delay_mean_ns = 0;  ///< mean (kernel start - launch call start)
};

/// Normalizes a PCI address as NVRM prints it (`PCI:0000:01:00`, `0000:01:00.0`,
/// `00000000:01:00.0`) to `0000:01:00`; empty when it is none.
std::string normalize_pci_bus(std::string_view s);

}  // namespace gpucost
