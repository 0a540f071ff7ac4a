#pragma once
/// \file events.hpp
/// The event table: the kinds of events (GPUCOST_EVENT_KINDS, EventKind), the table's columns
/// (event_col) and schema, and the `repeat` count of aggregated rows.

#ifndef GPUCOST_LAYER_BASE
#error "gpucost_base header: include it only in gpucost_base or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "gpucost/records/formats.hpp"  // event_col::format
#include "gpucost/records/stamps.hpp"  // event_col::wall_kind, flags
#include "gpucost/table.hpp"

namespace gpucost {

// X(name, description). The list is the single source of truth for `kind` in the timeline and
// for docs/timeline.md; the `code` column's meaning is given per kind.
// Laid out by hand: clang-format leaves the table alone.
// clang-format off
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
// clang-format on

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

// Aligned by hand: clang-format leaves the columns alone.
// clang-format off
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
// clang-format on

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
    case EventKind::user: return true;
    default: return false;
  }
}

/// Events that row r of an event table stands for (its `repeat`; 1 when null).
inline std::uint64_t event_repeat(const Table& events, std::size_t r) noexcept {
  const Column& c = events.column(event_col::repeat);
  return c.is_valid(r) ? static_cast<std::uint64_t>(c.get_int(r)) : 1;
}
/// Events an event table stands for: Σ event_repeat over its rows.
std::uint64_t event_total(const Table& events) noexcept;

/// Makes an empty table with the event schema.
Table make_event_table();

}  // namespace gpucost
