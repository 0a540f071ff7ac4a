#pragma once
/// \file world.hpp
/// The simulated machine and everything that happens to it: its GPUs, boots, suspends, AC
/// changes, containers and injected errors, planned once from the scenario and the seed
/// (scenario.cpp). The writers only print this world in each log's format; the truth is
/// computed from the same world, so both always agree.

#ifndef GPUCOST_LAYER_SIM
#error "gpucost_sim header: include it only in gpucost_sim or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpucost/align/zone.hpp"
#include "gpucost/records/events.hpp"
#include "gpucost/time.hpp"

namespace gpucost::sim {

/// The machines `gpucost simulate` knows.
enum class ScenarioKind : std::uint8_t {
  kLaptop,   ///< RTX 4060 Laptop GPU, Asia/Shanghai, lid/suspend/AC, 4-6 h training job
  kServer,   ///< 4x A100-SXM4-80GB, America/Chicago, no suspend/lid/AC, more noise
  kNoDmon,  ///< the laptop without dmon and -q files (kernel, journal and ps only)
  kDatacenter,  ///< the server, healthy: busy at its power limit by design, no fault of any kind
};
std::string_view scenario_name(ScenarioKind k) noexcept;
std::optional<ScenarioKind> scenario_from_name(std::string_view name) noexcept;

/// What `gpucost simulate` was asked for.
struct SimOptions {
  ScenarioKind scenario = ScenarioKind::kLaptop;
  std::uint64_t seed = 1;
  std::string out_dir;
  double hours = 0;              ///< simulated span after boot; 0 = the scenario's default
  std::uint64_t size_bytes = 0;  ///< aim for about this many bytes in all files (0 = no aim)
  /// Background chatter (cron, network, desktop, firewall lines) as a multiple of the
  /// scenario's own rate of its random sources; periodic ones (cron) keep their period.
  double noise = 1;
};

/// How a user-space message reaches the journal (its `_TRANSPORT`).
enum class Transport : std::uint8_t { kKernel, kSyslog, kJournal, kStdoutStream };

/// A program that logs, with the fields its journal entries carry.
struct Daemon {
  std::string ident;       ///< SYSLOG_IDENTIFIER and the syslog tag
  std::string comm;        ///< _COMM
  std::string exe;         ///< _EXE
  std::string cmdline;     ///< _CMDLINE
  std::string unit;        ///< _SYSTEMD_UNIT ("" for none)
  std::string invocation;  ///< _SYSTEMD_INVOCATION_ID
  std::int32_t pid = 0;
  std::int32_t uid = 0;
  Transport transport = Transport::kJournal;
  std::uint8_t facility = 3;  ///< syslog facility (3 daemon, 9 cron, 4 auth, 1 user)
};

/// Files a record is written to.
enum Dest : std::uint8_t {
  kToDmesg = 1,    ///< dmesg.txt (current boot only)
  kToKernLog = 2,  ///< kern.log (or kern.log.1 / kern.log.2.gz for previous boots)
  kToSyslog = 4,   ///< syslog (user space only)
  kToJournal = 8,  ///< journal.json (current boot only)
};
inline constexpr std::uint8_t kKernelDest = kToDmesg | kToKernLog | kToJournal;
inline constexpr std::uint8_t kUserDest = kToSyslog | kToJournal;

/// One message as a program printed it, before any log format is applied.
struct LogRecord {
  TimeNs ts = 0;    ///< true instant (UTC ns, whole µs): printk time for the kernel, write time else
  TimeNs mono = 0;  ///< kernel messages: the printk monotonic stamp (whole µs)
  std::string message;
  const Daemon* daemon = nullptr;  ///< nullptr: a kernel message
  std::int32_t pid = 0;            ///< overrides daemon->pid when non-zero (CRON children)
  std::uint8_t dest = 0;           ///< Dest bits
  std::uint8_t priority = 6;       ///< syslog priority 0..7
  std::uint8_t boot = 0;           ///< 0 the simulated boot, 1 and 2 previous boots
  // Ground truth: set when the record is an injected event (the recognizers must see it).
  std::int8_t kind = -1;  ///< EventKind
  std::int32_t code = -1;
  std::int8_t gpu = -1;   ///< GPU index
  bool initial = false;   ///< the boot-time AC report (sets the state, is no switch)
};

/// A GPU as nvidia-smi describes it.
struct GpuSpec {
  int index = 0;
  std::string name, brand, architecture;
  std::string pci;     ///< `0000:01:00`, as Xid lines print it (the kernel's lower-case hex; + `.0` is the device)
  std::string bus_id;  ///< `00000000:01:00.0`, as nvidia-smi prints it
  std::string uuid, serial, vbios, board_part, device_id, subsystem_id;
  int minor = 0;
  double power_limit_w = 0, power_default_w = 0, power_min_w = 0, power_max_w = 0;
  double battery_power_limit_w = 0;  ///< laptops: the limit while on battery
  int mem_total_mib = 0, mem_reserved_mib = 0, bar1_total_mib = 0;
  int max_pclk = 0, max_mclk = 0, max_sm_clk = 0, max_video_clk = 0;
  int busy_pclk = 0, busy_mclk = 0, idle_mclk = 0;
  int idle_power_w = 0;
  int train_fb_mib = 0;  ///< memory a training job holds
  bool has_mtemp = false, has_ecc = false;
  int pcie_gen_max = 4, pcie_width_max = 16, pcie_width_cur = 16;
  int shutdown_temp = 0, slowdown_temp = 0, max_operating_temp = 0;
};

/// What a GPU is doing.
enum class GpuMode : std::uint8_t {
  kIdle,  ///< no job: SM at or below the idle threshold
  kLoad,  ///< a job is starting (loading data and the model): low, rising SM
  kTrain,  ///< training
  kHot,  ///< training while too hot: throttled, SM decaying
  /// The job waits on itself (its input pipeline, an evaluation or a checkpoint on the CPU): SM
  /// idle while its process keeps its memory on the GPU.
  kStall,
};

/// A span of a GPU's time in one mode (outside all spans a GPU is in `base` mode).
struct GpuSegment {
  TimeNs begin = 0, end = 0;
  GpuMode mode = GpuMode::kIdle;
};

/// A lid close and suspend/resume cycle (laptop).
struct SuspendCycle {
  TimeNs lid_close = 0;
  TimeNs freeze = 0;       ///< user space frozen: no dmon row, no ps snapshot, no user message
  TimeNs sleep_begin = 0;  ///< the kernel clock stops
  TimeNs sleep_end = 0;    ///< the kernel clock runs again
  TimeNs thaw = 0;         ///< user space runs again
  TimeNs duration() const noexcept { return sleep_end - sleep_begin; }
};

/// A `docker run` of the training job.
struct ContainerRun {
  std::string id;     ///< 64 hex digits
  std::string name;   ///< docker's random name
  TimeNs create = 0;  ///< dockerd `Calling POST .../containers/create`
  TimeNs start_api = 0;    ///< dockerd `Calling POST .../containers/<id>/start`
  TimeNs running = 0;      ///< containerd `starting signal loop`
  TimeNs exit = kNoTime;   ///< containerd `shim disconnected`
  std::int32_t shim_pid = 0, python_pid = 0;
};

/// One boot of the machine.
struct Boot {
  TimeNs wall = 0;  ///< wall-clock instant of monotonic 0
  TimeNs end = 0;   ///< last instant with records
  std::string id;   ///< _BOOT_ID (32 hex)
  TimeNs journald_start = 0, rsyslog_start = 0;  ///< monotonic instants the readers of kmsg start
};

/// Everything the logs will show, planned before a byte is written.
struct World {
  SimOptions options;
  ScenarioKind kind = ScenarioKind::kLaptop;
  bool laptop = true;
  bool has_dmon = true;    ///< dmon.log and nvidia-smi-q.txt are written
  bool has_syslog = true;  ///< syslog is written

  std::string hostname, machine_id, zone_name;
  Zone zone;
  std::string os_pretty, kernel_release, kernel_version_line, driver_version, cuda_version;
  int cpu_threads = 8;
  std::int64_t mem_total_kb = 0;

  std::vector<Boot> boots;  ///< [0] the simulated boot, [1] and [2] previous ones (rotated kern.log)
  TimeNs span_end = 0;      ///< end of the simulated boot's records
  TimeNs collect_begin = 0;  ///< the collection script starts dmon and the ps loop

  std::vector<GpuSpec> gpus;
  std::vector<std::vector<GpuSegment>> segments;  ///< per GPU, sorted, non-overlapping
  std::vector<GpuMode> base_mode;                 ///< per GPU: mode outside segments
  std::vector<TimeNs> dmon_end;                   ///< per GPU: no rows from here (GPU lost)
  std::vector<std::pair<TimeNs, TimeNs>> battery;  ///< spans on battery
  std::vector<SuspendCycle> suspends;
  std::vector<ContainerRun> containers;

  std::vector<std::unique_ptr<Daemon>> daemons;
  std::vector<LogRecord> scheduled;  ///< planned messages (events and their context), sorted by ts

  /// Total time asleep before instant ts (sum of suspends that ended at or before ts).
  TimeNs suspended_before(TimeNs ts) const noexcept;
  /// The kernel monotonic clock at instant ts of boot `boot` (it stops during suspends).
  TimeNs mono_at(TimeNs ts, int boot = 0) const noexcept;
  /// The instant the simulated boot's monotonic clock reads mono.
  TimeNs wall_of_mono(TimeNs mono) const noexcept;
  /// True while user space is frozen for a suspend (or asleep).
  bool frozen(TimeNs ts) const noexcept;
  /// When a kernel message printed at ts is read by a daemon that started at monotonic
  /// `reader_start` of boot `boot`: not before that start, and not while user space is frozen.
  TimeNs read_by(TimeNs ts, int boot, TimeNs reader_start) const noexcept;
  /// Local offset east of UTC at instant ts.
  TimeNs offset_at(TimeNs ts) const { return zone.offset_at(ts); }
  /// The daemon with this ident (nullptr when none).
  const Daemon* daemon(std::string_view ident) const noexcept;
  /// The GPU mode at instant t (segments are searched from `hint`, advanced for sequential use).
  GpuMode mode_at(int gpu, TimeNs t, std::size_t& hint) const noexcept;
  /// True when instant t is on battery.
  bool on_battery(TimeNs t) const noexcept;
};

/// Plans the world for the options (deterministic in the options).
World build_world(const SimOptions& options);

/// The scenario's default span in hours for a seed (laptop 4-6 h, server 6 h).
double default_hours(ScenarioKind kind, std::uint64_t seed);

}  // namespace gpucost::sim
