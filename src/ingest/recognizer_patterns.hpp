#pragma once
// The recognizer's built-in patterns: literal needles per ident family (no regex), and how the
// fields of a matching message are read. recognizer.cpp matches them, recognizer_extract.cpp
// reads the fields, recognizer_docs.cpp writes docs/events.md from them.

#ifndef GPUCOST_LAYER_INGEST
#error "gpucost_ingest header: include it only in gpucost_ingest or a layer above it (docs/architecture.md, Layers)"
#endif

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "gpucost/ingest/recognizer.hpp"
#include "gpucost/records/events.hpp"

namespace gpucost::recognizer_detail {

// How the fields of a recognized message are read (the pattern table says which applies).
enum class Extract : std::uint8_t {
  kNone,
  kXid,             // `Xid (PCI:0000:01:00): 31, pid=1234, name=proc, ...`
  kPciFirst,        // gpu = first PCI address in the text
  kAerSeverity,     // code = 0/1/2 from `severity=`, gpu = reporting device
  kI915Hang,        // `GPU HANG: ecode ..., in Xorg [1220]`
  kOom,             // `Killed process 1234 (python3)`
  kSegfault,        // `python3[1234]: segfault at ...`
  kTraps,           // `traps: python3[1234] general protection fault ...`
  kUnitBefore,      // `docker.service: Failed with result 'exit-code'.`
  kUnitAfter,       // `Unit docker.service entered failed state.` (systemd < 230)
  kContainerAfter,  // `Started libcontainer container 3f2a...`
  kDockerCreate,    // `Calling POST /v1.41/containers/create?name=foo`
  kDockerStart,     // `Calling POST /v1.41/containers/<id>/start`
  kFieldContainer,  // logfmt `container=<id>`
  kFieldPath,       // logfmt `path=/run/containerd/.../<id>`
  kFieldId,         // logfmt `id=<id>`
  kPodman,          // `container start <id> (image=..., name=foo, ...)`
  kAcpidAc,         // `ac_adapter ACPI0003:00 00000080 00000001`: last field = new state
  kUpowerAc,        // `line_power_AC ... online: yes`
};

/// A built-in pattern: `needle` must occur (at the start when at_start), and `also` too when
/// given. `key` is four bytes of the needle that the prefilter looks for (default: its first
/// four); `code` is a fixed code for kinds whose code the pattern itself decides.
struct Builtin {
  EventKind kind;
  std::string_view needle;
  std::string_view also = {};
  Extract extract = Extract::kNone;
  std::int64_t code = INT64_MIN;
  bool at_start = false;
  std::string_view key = {};

  std::string_view prefilter_key() const noexcept { return key.empty() ? needle.substr(0, 4) : key; }
};

using K = EventKind;
using X = Extract;

// Kernel messages (ident `kernel`, or none). Order matters: the first match wins, so an
// `Xid ...: 79, ... fallen off the bus` line is an xid, not a bare fallen_off_bus.
inline constexpr Builtin kKernel[] = {
    {K::xid, "Xid (", {}, X::kXid, INT64_MIN, false, "Xid "},
    {K::gsp_error, "GSP-CrashCat Report", {}, X::kNone, INT64_MIN, false, "Cras"},
    {K::gsp_error, " GSP Timeout *", {}, X::kNone, INT64_MIN, false, "GSP "},
    {K::gsp_error, " GSP Failure *", {}, X::kNone, INT64_MIN, false, "GSP "},
    {K::gpu_reset, "GPU marked for reset", {}, X::kNone, INT64_MIN, false, "mark"},
    {K::fallen_off_bus, "fallen off the bus", {}, X::kPciFirst},
    {K::rm_init_failed, "rm_init_adapter", "failed", X::kPciFirst},
    {K::nv_assert, "nvAssert", "ailed"},
    {K::driver_load, "NVRM: loading NVIDIA UNIX", {}, X::kNone, INT64_MIN, true, "A UN"},
    {K::driver_error, "nvidia-modeset: ERROR", {}, X::kNone, INT64_MIN, false, "ERRO"},
    {K::driver_error, "*ERROR*", "nvidia", X::kNone, INT64_MIN, false, "ERRO"},
    {K::driver_error, "NVIDIA probe routine failed", {}, X::kNone, INT64_MIN, false, "prob"},
    {K::driver_error, "NVRM: API mismatch", {}, X::kNone, INT64_MIN, false, "API "},
    {K::i915_hang, "GPU HANG: ecode", {}, X::kI915Hang, INT64_MIN, false, "HANG"},
    {K::gpu_reset, "Resetting chip", {}, X::kPciFirst, INT64_MIN, false, "chip"},
    {K::gpu_reset, "GPU reset begin", {}, X::kPciFirst, INT64_MIN, false, "rese"},
    {K::pcie_aer, "PCIe Bus Error: severity=", {}, X::kAerSeverity},
    {K::pcie_link_degraded, "available PCIe bandwidth, limited by", {}, X::kPciFirst, INT64_MIN, false, "PCIe"},
    {K::taint, "taints kernel", {}, X::kNone, INT64_MIN, false, "aint"},
    {K::taint, "tainting kernel", {}, X::kNone, INT64_MIN, false, "aint"},
    {K::thermal, "temperature above threshold", {}, X::kNone, 1, false, "abov"},
    // Kernels since 5.5 word it `Core temperature is above threshold, cpu clock is throttled`.
    {K::thermal, "temperature is above threshold", {}, X::kNone, 1, false, "abov"},
    {K::thermal, "temperature/speed normal", {}, X::kNone, 0, false, "spee"},
    {K::thermal, "ritical temperature", {}, X::kNone, 2, false, "ical"},
    {K::ac_online, "AC Adapter [", "(on-line)", X::kNone, INT64_MIN, false, "Adap"},
    {K::ac_offline, "AC Adapter [", "(off-line)", X::kNone, INT64_MIN, false, "Adap"},
    {K::suspend, "PM: suspend entry"},
    {K::suspend, "hibernation entry"},
    {K::suspend, "PM: Entering mem sleep"},
    // Kernels before 4.15 have no `PM: suspend entry`: their suspend begins with these lines.
    {K::suspend, "PM: Syncing filesystems"},
    {K::suspend, "PM: Preparing system for "},
    {K::suspend, "PM: Suspending system ("},
    {K::resume, "PM: suspend exit"},
    {K::resume, "hibernation exit"},
    {K::resume, "PM: Finishing wakeup"},
    // `ACPI: Waking up from system sleep state S3` (older), `ACPI: PM: Waking up ...` (newer).
    {K::resume, "Waking up from system sleep state S"},
    {K::boot, "Linux version ", {}, X::kNone, INT64_MIN, true},
    {K::oom_kill, "Killed process ", {}, X::kOom},
    {K::segfault, "segfault at ", {}, X::kSegfault},
    {K::segfault, "traps: ", {}, X::kTraps, INT64_MIN, true},
};

// Messages of any non-kernel ident: ACPI events as acpid or a handler script logs them.
inline constexpr Builtin kAnyIdent[] = {
    {K::ac_online, "ac_adapter ", {}, X::kAcpidAc},
    {K::lid_close, "button/lid ", " close", X::kNone, INT64_MIN, false, "butt"},
    {K::lid_open, "button/lid ", " open", X::kNone, INT64_MIN, false, "butt"},
};

inline constexpr Builtin kLogind[] = {
    {K::lid_close, "Lid closed"},
    {K::lid_open, "Lid opened"},
    {K::suspend, "Suspending", {}, X::kNone, INT64_MIN, true},
    {K::suspend, "Hibernating", {}, X::kNone, INT64_MIN, true},
    {K::suspend, "The system will suspend now!"},
    {K::suspend, "The system will hibernate now!"},
    {K::shutdown, "System is powering down", {}, X::kNone, INT64_MIN, true},
    {K::shutdown, "System is rebooting", {}, X::kNone, INT64_MIN, true},
    {K::shutdown, "System is halting", {}, X::kNone, INT64_MIN, true},
};

inline constexpr Builtin kSleep[] = {
    {K::suspend, "Entering sleep state"},
    {K::suspend, "Performing sleep operation"},
    {K::suspend, "Suspending system"},
    {K::suspend, "Hibernating system"},
    {K::resume, "System returned from sleep"},
    {K::resume, "System resumed"},
};

inline constexpr Builtin kSystemd[] = {
    {K::service_failed, ": Failed with result '", {}, X::kUnitBefore},
    {K::service_failed, "Unit ", " entered failed state", X::kUnitAfter, INT64_MIN, true},
    {K::container_start, "Started libcontainer container ", {}, X::kContainerAfter, INT64_MIN, true},
};

inline constexpr Builtin kDockerd[] = {
    {K::container_create, "Calling POST ", "/containers/create", X::kDockerCreate},
    {K::container_start, "Calling POST ", "/start", X::kDockerStart},
    {K::container_stop, "msg=\"ignoring event\"", "topic=/tasks/delete", X::kFieldContainer},
    // dockerd runs an embedded containerd when none is installed; its lines carry dockerd's ident.
    {K::container_start, "msg=\"starting signal loop\"", {}, X::kFieldPath},
};

inline constexpr Builtin kContainerd[] = {
    {K::container_start, "msg=\"starting signal loop\"", {}, X::kFieldPath},
    {K::container_stop, "msg=\"shim disconnected\"", {}, X::kFieldId},
};

inline constexpr Builtin kPodman[] = {
    {K::container_create, "container create ", {}, X::kPodman},
    {K::container_start, "container start ", {}, X::kPodman},
    {K::container_stop, "container died ", {}, X::kPodman},
};

inline constexpr Builtin kPersistenced[] = {{K::service_restart, "Started (", {}, X::kNone, INT64_MIN, true}};
inline constexpr Builtin kPowerd[] = {{K::service_restart, "nvidia-powerd version", {}, X::kNone, INT64_MIN, true}};
inline constexpr Builtin kCron[] = {{K::cron, "CMD (", {}, X::kNone}};
inline constexpr Builtin kUpower[] = {{K::ac_online, "line_power", "online", X::kUpowerAc}};

/// Which table a message is checked against, chosen by its ident.
struct Family {
  std::string_view label;              // for the docs
  std::span<const Builtin> patterns;
  std::array<std::string_view, 4> idents;
};

inline constexpr Family kFamilies[] = {
    {"systemd-logind", kLogind, {"systemd-logind"}},
    {"systemd-sleep", kSleep, {"systemd-sleep"}},
    {"systemd (PID 1 and user managers)", kSystemd, {"systemd"}},
    {"dockerd", kDockerd, {"dockerd", "docker"}},
    {"containerd", kContainerd, {"containerd"}},
    {"podman", kPodman, {"podman"}},
    {"nvidia-persistenced", kPersistenced, {"nvidia-persistenced"}},
    {"nvidia-powerd", kPowerd, {"nvidia-powerd"}},
    {"cron (CRON, cron, crond, CROND)", kCron, {"CRON", "cron", "crond", "CROND"}},
    {"upowerd", kUpower, {"upowerd", "upower"}},
};

/// Reads the fields `b.extract` names from a message that matched `b` into r (kind, code, gpu,
/// pid, process); false when the message lacks them after all (the pattern does not apply).
bool apply(const Builtin& b, std::string_view t, Recognition& r) noexcept;

}  // namespace gpucost::recognizer_detail
