// nvidia-smi -q: the long key/value report, alone or inside nvidia-bug-report.log(.gz). What a
// GPU is (name, UUID, bus, PCIe link, power limit, memory) becomes one GpuDevice per GPU; every
// line of the report is structure. Sections nest by indentation (`PCI` > `GPU Link Info` >
// `PCIe Generation` > `Max`), so a small stack of section kinds tells the `Max` of a PCIe
// generation from the `Max` of a clock.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "gpucost/text.hpp"
#include "ingest/formats/formats.hpp"
#include "ingest/formats/nvidia_smi_common.hpp"
#include "ingest/formats/nvidia_smi_mig.hpp"

namespace gpucost::formats {
namespace {

constexpr std::string_view kBanner = "NVSMI LOG";
// More GPUs than a machine has (8 to 16 per node, 72 in an NVL72 rack; one report is one node)
// is damage or an attack: each further section would cost a search of the devices before it.
constexpr std::size_t kMaxGpus = 256;
// MIG devices kept per GPU: an A100 or H100 has at most 7.
constexpr std::size_t kMaxMigPerGpu = 16;
constexpr std::string_view kBugReportStart = "Start of NVIDIA bug report log file";

enum class Section : std::uint8_t {
  kOther,
  kPci,
  kPcieGeneration,
  kLinkWidth,
  kPowerReadings,
  kFbMemory,
  kClockEventCounters,  // `Clocks Event Reasons Counters` (`Clocks Throttle ...`)
  kEccErrors,
  kEccVolatile,
  kEccAggregate,  // `ECC Errors` > `Volatile` / `Aggregate`
  kEccVolatileSbe,
  kEccVolatileDbe,
  kEccAggregateSbe,
  kEccAggregateDbe,  // older: > `Single Bit`
  kRetiredPages,
  kRemappedRows,
  kTemperature,
  // A MIG-enabled GPU's `MIG Devices` > `MIG Device` (issue 38): its ids and `FB Memory Usage`
  // are the device's; every other section inside is kMigOther, so that a MIG device's ECC counts
  // and memory never overwrite its GPU's.
  kMigDevices,
  kMigDevice,
  kMigFbMemory,
  kMigOther
};

// A section title, read inside its parent (`Volatile` is an ECC section only under `ECC Errors`).
Section section_of(std::string_view name, Section parent) {
  if (parent == Section::kMigDevice) return name == "FB Memory Usage" ? Section::kMigFbMemory : Section::kMigOther;
  if (parent == Section::kMigFbMemory || parent == Section::kMigOther) return Section::kMigOther;
  if (name == "MIG Device") return Section::kMigDevice;
  if (parent == Section::kMigDevices) return Section::kMigOther;
  if (name == "MIG Devices") return Section::kMigDevices;
  if (parent == Section::kEccErrors) {
    if (name == "Volatile") return Section::kEccVolatile;
    if (name == "Aggregate") return Section::kEccAggregate;
  }
  if (parent == Section::kEccVolatile || parent == Section::kEccAggregate) {
    const bool vol = parent == Section::kEccVolatile;
    if (name == "Single Bit") return vol ? Section::kEccVolatileSbe : Section::kEccAggregateSbe;
    if (name == "Double Bit") return vol ? Section::kEccVolatileDbe : Section::kEccAggregateDbe;
  }
  if (name == "Clocks Event Reasons Counters" || name == "Clocks Throttle Reasons Counters")
    return Section::kClockEventCounters;
  if (name == "ECC Errors") return Section::kEccErrors;
  if (name == "Retired Pages") return Section::kRetiredPages;
  if (name == "Remapped Rows") return Section::kRemappedRows;
  if (name == "Temperature") return Section::kTemperature;
  if (name == "PCI") return Section::kPci;
  if (name == "PCIe Generation") return Section::kPcieGeneration;
  if (name == "Link Width") return Section::kLinkWidth;
  if (name == "Power Readings" || name == "GPU Power Readings") return Section::kPowerReadings;
  if (name == "FB Memory Usage" || name == "Memory Usage") return Section::kFbMemory;
  return Section::kOther;
}

bool is_rule(std::string_view t) {
  if (t.size() < 20) return false;
  for (char c : t)
    if (c != '_') return false;
  return true;
}

bool is_banner(std::string_view t) { return t.size() > 20 && t.front() == '=' && text::contains(t, kBanner); }

// `GPU 00000000:01:00.0` (also `GPU 0000:01:00.0`, `GPU 0:2:0` of very old drivers): the bus id.
std::string_view gpu_section_bus(std::string_view line) {
  if (line.substr(0, 4) != "GPU ") return {};
  std::string_view bus = text::trim(line.substr(4));
  if (bus.empty() || bus.find(' ') != std::string_view::npos || bus.find(':') == std::string_view::npos) return {};
  for (char c : bus)
    if (!text::is_hex(c) && c != ':' && c != '.') return {};
  return bus;
}

std::size_t indent_of(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  return i;
}

// `    Key                : value` -> key and value; false when the line has no ` : ` shape.
bool split_key_value(std::string_view t, std::string_view& key, std::string_view& value) {
  const auto colon = t.find(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  key = text::trim(t.substr(0, colon));
  value = text::trim(t.substr(colon + 1));
  if (key.empty()) return false;
  // The key is words padded with blanks before the colon: `Bus Id          : 00000000:01:00.0`.
  return colon + 1 == t.size() || t[colon + 1] == ' ' || t[colon - 1] == ' ';
}

bool is_known_key(std::string_view k) {
  for (std::string_view w : {"Product Name", "Product Brand", "GPU UUID", "Minor Number", "Bus Id", "VBIOS Version",
                             "Persistence Mode", "Performance State", "Power Draw", "Power Limit", "Serial Number",
                             "Display Mode", "Compute Mode", "Accounting Mode"})
    if (k == w) return true;
  return false;
}

// Real lines of the format, with what the parser makes of them (tests/unit/format_samples_test.cpp).
constexpr FormatSample kSamples[] = {
    {"nvidia-smi-q.txt", "tests/data/gpu/q-1gpu-driver410-enforced-limit.txt",
     R"smp(==============NVSMI LOG==============

Timestamp                           : Mon Nov  5 14:50:59 2018
Driver Version                      : 410.48

Attached GPUs                       : 1
GPU 00000000:18:00.0
    Product Name                    : Tesla V100-PCIE-32GB
    Product Brand                   : Tesla
    Display Mode                    : Enabled
    Display Active                  : Disabled
    Persistence Mode                : Disabled
    Accounting Mode                 : Disabled
    Accounting Mode Buffer Size     : 4000
    Driver Model
        Current                     : N/A
        Pending                     : N/A
    Serial Number                   : 0321618081234
    GPU UUID                        : GPU-49658c1e-79e3-7941-12cb-1dfe9c53a7d2
    Minor Number                    : 0
    VBIOS Version                   : 88.00.48.00.02
    MultiGPU Board                  : No
    Board ID                        : 0x1800
    GPU Part Number                 : 900-2G500-0010-000
    Inforom Version
        Image Version               : G500.0202.00.02
        OEM Object                  : 1.1
        ECC Object                  : 5.0
        Power Management Object     : N/A
    GPU Operation Mode
        Current                     : N/A
        Pending                     : N/A
    GPU Virtualization Mode
        Virtualization mode         : None
    IBMNPU
        Relaxed Ordering Mode       : N/A
    PCI
        Bus                         : 0x18
        Device                      : 0x00
        Domain                      : 0x0000
        Device Id                   : 0x1DB610DE
        Bus Id                      : 00000000:18:00.0
        Sub System Id               : 0x124A10DE
        GPU Link Info
            PCIe Generation
                Max                 : 3
                Current             : 3
            Link Width
                Max                 : 16x
                Current             : 16x
        Bridge Chip
            Type                    : N/A
            Firmware                : N/A
        Replays since reset         : 0
        Tx Throughput               : 29000 KB/s
        Rx Throughput               : 148000 KB/s
    Fan Speed                       : N/A
    Performance State               : P0
    Clocks Throttle Reasons
        Idle                        : Not Active
        Applications Clocks Setting : Not Active
        SW Power Cap                : Not Active
        HW Slowdown                 : Not Active
            HW Thermal Slowdown     : Not Active
            HW Power Brake Slowdown : Not Active
        Sync Boost                  : Not Active
        SW Thermal Slowdown         : Not Active
        Display Clock Setting       : Not Active
    FB Memory Usage
        Total                       : 32480 MiB
        Used                        : 30217 MiB
        Free                        : 2263 MiB
    BAR1 Memory Usage
        Total                       : 32768 MiB
        Used                        : 8 MiB
        Free                        : 32760 MiB
    Compute Mode                    : Default
    Utilization
        Gpu                         : 46 %
        Memory                      : 5 %
        Encoder                     : 0 %
        Decoder                     : 0 %
    Encoder Stats
        Active Sessions             : 0
        Average FPS                 : 0
        Average Latency             : 0
    Ecc Mode
        Current                     : Enabled
        Pending                     : Enabled
    ECC Errors
        Volatile
            Single Bit            
                Device Memory       : 0
                Register File       : 0
                L1 Cache            : 0
                L2 Cache            : 0
                Texture Memory      : N/A
                Texture Shared      : N/A
                CBU                 : N/A
                Total               : 0
            Double Bit            
                Device Memory       : 0
                Register File       : 0
                L1 Cache            : 0
                L2 Cache            : 0
                Texture Memory      : N/A
                Texture Shared      : N/A
                CBU                 : 0
                Total               : 0
    Retired Pages
        Single Bit ECC              : 0
        Double Bit ECC              : 0
        Pending                     : No
    Temperature
        GPU Current Temp            : 41 C
        GPU Shutdown Temp           : 90 C
        GPU Slowdown Temp           : 87 C
        GPU Max Operating Temp      : 83 C
        Memory Current Temp         : 40 C
        Memory Max Operating Temp   : 85 C
    Power Readings
        Power Management            : Supported
        Power Draw                  : 61.02 W
        Power Limit                 : 250.00 W
        Default Power Limit         : 250.00 W
        Enforced Power Limit        : 225.00 W
        Min Power Limit             : 100.00 W
        Max Power Limit             : 250.00 W
    Clocks
        Graphics                    : 1380 MHz
        SM                          : 1380 MHz
        Memory                      : 877 MHz
        Video                       : 1237 MHz
    Applications Clocks
        Graphics                    : 1230 MHz
        Memory                      : 877 MHz
    Max Clocks
        Graphics                    : 1380 MHz
        SM                          : 1380 MHz
        Memory                      : 877 MHz
        Video                       : 1237 MHz
    Clock Policy
        Auto Boost                  : N/A
        Auto Boost Default          : N/A
    Processes
        Process ID                  : 315406
            Type                    : C
            Name                    : /usr/bin/python
            Used GPU Memory         : 30204 MiB

)smp",
     0},
};

class Format final : public LogFormat {
 public:
  FormatId id() const noexcept override { return FormatId::nvidia_smi_q; }
  std::span<const FormatSample> samples() const noexcept override { return kSamples; }

  int score(std::string_view line) const noexcept override {
    const std::string_view t = text::rtrim(line);
    if (is_banner(t)) return 100;
    if (text::contains(t, kBugReportStart) || t.substr(0, 29) == "nvidia-bug-report.sh Version:") return 100;
    if (is_rule(t)) return 80;
    if (t.substr(0, 5) == "*** /" || t.substr(0, 8) == "*** ls: ") return 60;
    if (!gpu_section_bus(t).empty()) return 90;
    std::string_view key, value;
    if (!split_key_value(t, key, value)) return 0;
    if (indent_of(t) == 0) {
      if (key == "Driver Version" || key == "Attached GPUs") return 90;
      if (key == "CUDA Version" || key == "Timestamp") return 50;
      return 0;
    }
    // Keys are padded to a column: at least two blanks before the colon.
    const auto colon = t.find(':');
    if (colon < 2 || t[colon - 1] != ' ' || t[colon - 2] != ' ') return 0;
    return is_known_key(key) ? 50 : 30;
  }

  void parse(LineSource& src, FileSink& sink) const override;
};

// One GPU of the file (several -q reports in one file update the same device).
struct DeviceState {
  GpuDevice dev;
  int power_limit_rank = 0;  // which key set power_limit_w: 1 Power Limit, 2 Current, 3 Enforced
  // `GPU T.Limit Temp` (the reading's distance below T.Limit) and `GPU Slowdown T.Limit Temp`
  // (where slowdown begins, relative to T.Limit) of the current report.
  std::optional<double> tlimit_margin_c, slowdown_tlimit_c;
  bool slowdown_printed = false;  // `GPU Slowdown Temp` itself was printed
};

// `Yes`/`No` (also `Active`/`Not Active`); nullopt for anything else.
std::optional<bool> yes_no(std::string_view v) {
  if (v == "Yes" || v == "Active") return true;
  if (v == "No" || v == "Not Active") return false;
  return std::nullopt;
}

void add_to(std::optional<double>& sum, double v) { sum = sum.value_or(0) + v; }

class ReportParser {
 public:
  explicit ReportParser(FileSink& sink) : sink_(sink) {}

  void line(const Line& line) {
    const std::string_view t = text::rtrim(line.text);
    if (text::is_blank(t)) return;
    if (is_banner(t)) {
      in_report_ = true;
      seen_report_ = true;
      driver_.clear();
      current_ = -1;
      depth_ = 0;
      sink_.accept();
      return;
    }
    if (!seen_report_ && !bug_report_ && text::contains(t, kBugReportStart)) bug_report_ = true;
    if (is_rule(t)) {  // a bug report's section separator ends the nvidia-smi output
      in_report_ = false;
      current_ = -1;
      sink_.accept();
      return;
    }
    if (in_report_) {
      report_line(t, line.number);
      sink_.accept();
      return;
    }
    if (bug_report_) {  // every other section of a bug report is the report's own structure
      sink_.accept();
      return;
    }
    // A plain -q file pasted without its banner: the report begins at its first top-level line
    // (`Driver Version : ...`, `GPU 00000000:01:00.0`); from there on, section titles inside a
    // GPU block (`    Clocks Throttle Reasons`) are the report's too.
    std::string_view key, value;
    const bool gpu_section = !gpu_section_bus(t).empty();
    if (gpu_section || split_key_value(t, key, value)) {
      if (gpu_section || (indent_of(t) == 0 && (key == "Driver Version" || key == "Attached GPUs" ||
                                                key == "Timestamp" || key == "CUDA Version"))) {
        in_report_ = true;
        if (!bannerless_noted_) {
          bannerless_noted_ = true;
          sink_.diagnostics().notes.push_back(fmt::format(
              "nvidia-smi -q: no `==NVSMI LOG==` banner; the report is read from line {}", line.number));
        }
      }
      report_line(t, line.number);
      sink_.accept();
      return;
    }
    sink_.problem(line, Problem::unparsable_line, "not part of an nvidia-smi -q report (before its NVSMI LOG banner)");
  }

  void finish() {
    // `-q -d MEMORY,...` prints no `Minor Number`.
    const std::size_t unnumbered = nvsmi::number_by_report_order(devices_);
    if (unnumbered)
      sink_.diagnostics().notes.push_back(fmt::format(
          "nvidia-smi -q: {} of {} GPU sections have no `Minor Number` (a report limited with -d, or an old driver); numbered by "
          "their order in the report (nvidia-smi's order, by PCI bus id)",
          unnumbered, devices_.size()));
    if (devices_.empty() && sink_.diagnostics().accepted > 0)
      sink_.diagnostics().notes.push_back("nvidia-smi -q: no `GPU <bus id>` section in the report, so it names no GPU" +
                                          std::string(driver_.empty() ? "" : " (the driver version alone is known)"));
    for (auto& d : devices_)
      for (MigDevice& m : d.dev.mig_devices)
        if (m.memory_gb > 0 && d.dev.memory_total_mib && *d.dev.memory_total_mib > 0)
          m.share = ingest::mig_share(m.memory_gb * 1024, *d.dev.memory_total_mib);
    for (auto& d : devices_) sink_.devices().push_back(std::move(d.dev));
  }

 private:
  void report_line(std::string_view t, std::uint64_t number) {
    const std::size_t indent = indent_of(t);
    if (indent == 0) {
      depth_ = 0;
      if (const std::string_view bus = gpu_section_bus(t); !bus.empty()) {
        open_gpu(bus, number);
        return;
      }
      std::string_view key, value;
      if (split_key_value(t, key, value) && key == "Driver Version") driver_.assign(value);
      if (t.substr(0, 4) != "GPU ") current_ = -1;  // `Unit ...` sections of --query --unit
      return;
    }
    while (depth_ > 0 && stack_[depth_ - 1].indent >= indent) --depth_;
    std::string_view key, value;
    if (!split_key_value(t, key, value)) {
      if (depth_ < stack_.size()) {
        const Section parent = depth_ ? stack_[depth_ - 1].section : Section::kOther;
        stack_[depth_] = {indent, section_of(text::trim(t), parent)};
        ++depth_;
        if (stack_[depth_ - 1].section == Section::kMigDevice && current_ >= 0) {
          auto& mig = devices_[static_cast<std::size_t>(current_)].dev.mig_devices;
          if (mig.size() < kMaxMigPerGpu) mig.emplace_back();
        }
      }
      return;
    }
    if (current_ < 0) return;
    key_value(depth_ ? stack_[depth_ - 1].section : Section::kOther, key, value);
  }

  void open_gpu(std::string_view bus, std::uint64_t number) {
    std::string norm = normalize_pci_bus(bus);
    current_ = -1;
    for (std::size_t i = 0; i < devices_.size(); ++i)
      if (devices_[i].dev.pci_bus == norm) current_ = static_cast<int>(i);
    if (current_ < 0 && devices_.size() >= kMaxGpus) {  // its keys are skipped (current_ < 0)
      Diagnostics::record(sink_.diagnostics(), Problem::too_many_devices, number, 0, {},
                          fmt::format("GPU {} is one more than the {} GPUs a machine can have; its section is "
                                      "counted, not read",
                                      text::excerpt(bus, 32), kMaxGpus));
      return;
    }
    if (current_ < 0) {
      devices_.emplace_back();
      current_ = static_cast<int>(devices_.size() - 1);
      devices_.back().dev.pci_bus = std::move(norm);
      devices_.back().dev.line = number;
    }
    GpuDevice& d = devices_[static_cast<std::size_t>(current_)].dev;
    d.file = sink_.file_index();
    if (!driver_.empty()) d.driver_version = driver_;
    // A newer report's values win: what a report sums or derives starts again.
    DeviceState& st = devices_[static_cast<std::size_t>(current_)];
    st.power_limit_rank = 0;
    st.tlimit_margin_c.reset();
    st.slowdown_tlimit_c.reset();
    st.slowdown_printed = false;
    d.ecc_volatile_corrected.reset();
    d.ecc_volatile_uncorrected.reset();
    d.ecc_aggregate_corrected.reset();
    d.ecc_aggregate_uncorrected.reset();
  }

  void key_value(Section section, std::string_view key, std::string_view value) {
    DeviceState& st = devices_[static_cast<std::size_t>(current_)];
    GpuDevice& d = st.dev;
    const bool null = nvsmi::is_null_value(value) || value.empty();
    double v = 0;
    switch (section) {
      case Section::kPcieGeneration:
      case Section::kLinkWidth: {
        // A PCIe generation or lane count; beyond 1024 it is no such thing (and no int).
        if (null || !nvsmi::parse_number_with_unit(value, v) || !(v >= 0 && v <= 1024)) return;
        const bool gen = section == Section::kPcieGeneration;
        if (key == "Max") (gen ? d.pcie_gen_max : d.pcie_width_max) = static_cast<int>(v);
        else if (key == "Current") (gen ? d.pcie_gen_current : d.pcie_width_current) = static_cast<int>(v);
        return;
      }
      case Section::kPowerReadings: {
        if (key == "Default Power Limit" || key == "Max Power Limit") {
          if (!null && nvsmi::parse_number_with_unit(value, v) && v > 0)
            (key[0] == 'D' ? d.power_default_limit_w : d.power_max_limit_w) = v;
          return;
        }
        const int rank = key == "Enforced Power Limit" ? 3 : key == "Current Power Limit" ? 2 : key == "Power Limit" ? 1 : 0;
        if (rank == 0 || rank < st.power_limit_rank || null || !nvsmi::parse_number_with_unit(value, v)) return;
        d.power_limit_w = v;
        st.power_limit_rank = rank;
        return;
      }
      case Section::kFbMemory:
        if (key == "Total" && !null && nvsmi::parse_number_with_unit(value, v)) d.memory_total_mib = v;
        return;
      case Section::kMigDevice:
      case Section::kMigFbMemory: {
        if (d.mig_devices.empty() || null || !nvsmi::parse_number_with_unit(value, v) || v < 0 || v > 1e9) return;
        MigDevice& m = d.mig_devices.back();
        if (section == Section::kMigFbMemory) {
          if (key == "Total") m.memory_gb = v / 1024;
        } else if (key == "Index") {
          m.device = static_cast<int>(v);
        } else if (key == "GPU Instance ID") {
          m.gpu_instance = static_cast<int>(v);
        } else if (key == "Compute Instance ID") {
          m.compute_instance = static_cast<int>(v);
        }
        return;
      }
      case Section::kMigDevices:
      case Section::kMigOther: return;
      case Section::kClockEventCounters: {
        if (null || !nvsmi::parse_number_with_unit(value, v) || v < 0) return;
        if (key == "SW Power Capping") d.clock_event_sw_power_cap_us = v;
        else if (key == "SW Thermal Slowdown") d.clock_event_sw_thermal_us = v;
        else if (key == "HW Thermal Slowdown") d.clock_event_hw_thermal_us = v;
        else if (key == "HW Power Braking") d.clock_event_hw_power_brake_us = v;
        return;
      }
      case Section::kEccErrors:
        return;
      case Section::kEccVolatile:
      case Section::kEccAggregate: {
        // `SRAM Correctable`, `SRAM Uncorrectable Parity`, `DRAM Uncorrectable` ... summed.
        if (null || !nvsmi::parse_number(value, v) || v < 0) return;
        const bool vol = section == Section::kEccVolatile;
        if (text::contains(key, "Uncorrectable")) add_to(vol ? d.ecc_volatile_uncorrected : d.ecc_aggregate_uncorrected, v);
        else if (text::contains(key, "Correctable")) add_to(vol ? d.ecc_volatile_corrected : d.ecc_aggregate_corrected, v);
        return;
      }
      case Section::kEccVolatileSbe:
      case Section::kEccVolatileDbe:
      case Section::kEccAggregateSbe:
      case Section::kEccAggregateDbe: {
        if (key != "Total" || null || !nvsmi::parse_number(value, v) || v < 0) return;
        if (section == Section::kEccVolatileSbe) d.ecc_volatile_corrected = v;
        else if (section == Section::kEccVolatileDbe) d.ecc_volatile_uncorrected = v;
        else if (section == Section::kEccAggregateSbe) d.ecc_aggregate_corrected = v;
        else d.ecc_aggregate_uncorrected = v;
        return;
      }
      case Section::kRetiredPages:
        if (key == "Pending Page Blacklist" || key == "Pending") {
          if (const auto b = yes_no(value)) d.retired_pages_pending = *b;
        } else if (!null && nvsmi::parse_number(value, v) && v >= 0) {
          if (key == "Single Bit ECC") d.retired_pages_sbe = v;
          else if (key == "Double Bit ECC") d.retired_pages_dbe = v;
        }
        return;
      case Section::kRemappedRows:
        if (key == "Pending") {
          if (const auto b = yes_no(value)) d.row_remap_pending = *b;
        } else if (key == "Remapping Failure Occurred") {
          if (const auto b = yes_no(value)) d.row_remap_failed = *b;
        }
        return;
      case Section::kTemperature: {
        if (null || !nvsmi::parse_number_with_unit(value, v) || v < -300 || v > 300) return;
        if (key == "GPU Current Temp") d.temp_current_c = v;
        else if (key == "GPU Slowdown Temp") {
          d.temp_slowdown_c = v;
          st.slowdown_printed = true;
        } else if (key == "GPU T.Limit Temp") st.tlimit_margin_c = v;
        else if (key == "GPU Slowdown T.Limit Temp") st.slowdown_tlimit_c = v;
        else return;
        // Drivers that print T.Limit offsets: slowdown = reading + margin to T.Limit + offset.
        if (!st.slowdown_printed && d.temp_current_c && st.tlimit_margin_c && st.slowdown_tlimit_c)
          d.temp_slowdown_c = *d.temp_current_c + *st.tlimit_margin_c + *st.slowdown_tlimit_c;
        return;
      }
      case Section::kPci:
        if (key == "Bus Id" && !null) {
          std::string norm = normalize_pci_bus(value);
          if (!norm.empty()) d.pci_bus = std::move(norm);
        }
        return;
      case Section::kOther:
        if (depth_ != 0) return;  // `Name` of a process, `Max` of a clock ...
        if (key == "Product Name" && !null) d.name.assign(value);
        else if (key == "VBIOS Version" && !null) {
          if (std::find(d.vbios_versions.begin(), d.vbios_versions.end(), value) == d.vbios_versions.end())
            d.vbios_versions.emplace_back(value);
        } else if (key == "GSP Firmware Version" && !null) {
          if (std::find(d.gsp_firmware_versions.begin(), d.gsp_firmware_versions.end(), value) ==
              d.gsp_firmware_versions.end())
            d.gsp_firmware_versions.emplace_back(value);
        }
        else if (key == "GPU UUID" && !null) d.uuid.assign(value);
        else if (key == "GPU Recovery Action" && !null) d.recovery_action.assign(value);
        else if (key == "Minor Number" && !null) {
          if (const auto n = text::to_int<int>(value)) d.index = *n;
        }
        return;
    }
  }

  struct Open {
    std::size_t indent = 0;
    Section section = Section::kOther;
  };

  FileSink& sink_;
  std::vector<DeviceState> devices_;
  std::string driver_;         // `Driver Version` of the current report
  int current_ = -1;           // index into devices_ of the open `GPU ...` section
  std::array<Open, 16> stack_{};
  std::size_t depth_ = 0;
  bool in_report_ = false, seen_report_ = false, bug_report_ = false;
  bool bannerless_noted_ = false;
};

void Format::parse(LineSource& src, FileSink& sink) const {
  ReportParser p(sink);
  feed_lines(src, sink, p);
}

}  // namespace

const LogFormat& nvidia_smi_q_format() {
  static const Format f;
  return f;
}

}  // namespace gpucost::formats
