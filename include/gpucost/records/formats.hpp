#pragma once
/// \file formats.hpp
/// The log formats: GPUCOST_FORMATS, the one registration list, and what it generates
/// (FormatId, FormatInfo, FormatTrait).

#ifndef GPUCOST_LAYER_BASE
#error "gpucost_base header: include it only in gpucost_base or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace gpucost {

/// What a format's records are, for the stages after ingest (a bit mask; each format's
/// registration row in GPUCOST_FORMATS lists its traits).
enum FormatTrait : std::uint8_t {
  kTraitKernelLog = 1 << 0,  ///< kernel messages (NVRM, ACPI, PM): dmesg, kern.log, the journal
  kTraitServiceLog = 1 << 1,  ///< system service messages (dockerd, systemd units): syslog, journal
  kTraitProcessSnapshots = 1 << 2,  ///< process tables (ps)
  kTraitGpuProcesses = 1 << 3,  ///< per-process GPU use (nvidia-smi pmon)
  kTraitDeviceReport = 1 << 4,  ///< a device report (nvidia-smi -q): PCIe link, power limits
  kTraitNotALog = 1 << 5,  ///< recognized only to be listed, then skipped: never a usable log
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
// Laid out by hand: clang-format leaves the table alone.
// clang-format off
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
    "`nvidia-smi` table: GPU rows (name, PCI address, power cap, memory) and MIG devices")         \
  X(rapl_energy, "host_power", 0, 0, "rapl",                                                       \
    "CPU package and DRAM energy counters from powercap RAPL (collect-logs.sh rapl-energy.txt)")   \
  X(ipmi_dcmi_power, "host_power", 0, 0, "ipmi dcmi",                                              \
    "`ipmitool dcmi power reading`: the whole system's draw at the power supply input (BMC)")
// clang-format on

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
  std::string_view family;  ///< the timeline's `source`
  int sample_priority = 0;  ///< 0 = no GPU samples; else 1 first when sources overlap
  unsigned traits = 0;  ///< FormatTrait bits
  std::string_view name_hints;  ///< space-separated words of a file path
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

}  // namespace gpucost
