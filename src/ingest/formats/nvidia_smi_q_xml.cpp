// nvidia-smi -q -x: the XML twin of the -q report (`nvsmi_device_vN.dtd`), which many tools and
// scripts save instead of the text. It gives the same device facts as nvidia_smi_q.cpp (name,
// UUID, bus, PCIe link, power limits, memory, clock-event counters, ECC, retired pages, remapped
// rows, temperatures): one GpuDevice per GPU, no sample rows. A small tokenizer over each line
// (elements, text, comments; no DTD, no entities) keeps a stack of open element names; a leaf's
// place is read from its parents (`pci` > `pci_gpu_link_info` > `pcie_gen` > `max_link_gen`).
// What a paste leaves out (an elided block, a missing closing tag) only closes elements early.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "gpucost/text.hpp"
#include "ingest/formats/formats.hpp"
#include "ingest/formats/nvidia_smi_common.hpp"

namespace gpucost::formats {
namespace {

constexpr std::string_view kRoot = "nvidia_smi_log";
// As in nvidia_smi_q.cpp: more GPUs than a node has is damage, not a report.
constexpr std::size_t kMaxGpus = 256;
// The report nests seven levels deep (`gpu` > `pci` > `pci_gpu_link_info` > `pcie_gen` > ...).
constexpr std::size_t kMaxDepth = 32;

bool is_name_byte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
         c == '.' || c == ':';
}

// The element name at the start of a tag's inside (`gpu id="..."` -> `gpu`).
std::string_view tag_name(std::string_view inside) {
  std::size_t n = 0;
  while (n < inside.size() && is_name_byte(inside[n])) ++n;
  return inside.substr(0, n);
}

// The value of attribute `name` in a tag's inside (`gpu id="00000000:01:00.0"`), or empty.
std::string_view attribute(std::string_view inside, std::string_view name) {
  for (std::size_t at = inside.find(name); at != std::string_view::npos; at = inside.find(name, at + 1)) {
    if (at == 0 || inside[at - 1] != ' ') continue;
    std::size_t i = at + name.size();
    if (i + 1 >= inside.size() || inside[i] != '=' || (inside[i + 1] != '"' && inside[i + 1] != '\'')) continue;
    const char quote = inside[i + 1];
    const std::size_t end = inside.find(quote, i + 2);
    if (end == std::string_view::npos) return {};
    return inside.substr(i + 2, end - i - 2);
  }
  return {};
}

// Element names only this report has: they say "mine" more strongly than any tag.
bool is_known_element(std::string_view name) {
  for (std::string_view k : {"driver_version", "attached_gpus", "product_name", "uuid", "pci_bus_id", "minor_number",
                             "vbios_version", "fb_memory_usage", "gpu_power_readings", "power_readings",
                             "performance_state", "clocks_event_reasons", "clocks_throttle_reasons", "cuda_version"})
    if (name == k) return true;
  return false;
}

// The sections of a <gpu> element that occur nowhere else in it (but under <mig_devices>, whose
// instances have memory of their own): one that opens deeper is the next section of the GPU,
// after a closing tag that a paste lost.
bool is_gpu_section(std::string_view name) {
  for (std::string_view k : {"pci", "clocks_event_reasons", "clocks_throttle_reasons", "clocks_event_reasons_counters",
                             "clocks_throttle_reasons_counters", "fb_memory_usage", "bar1_memory_usage", "utilization",
                             "ecc_mode", "ecc_errors", "retired_pages", "remapped_rows", "temperature",
                             "gpu_power_readings", "power_readings", "gpu_memory_power_readings",
                             "module_power_readings", "clocks", "applications_clocks", "max_clocks", "supported_clocks",
                             "processes"})
    if (name == k) return true;
  return false;
}

// What people put where they cut a paste: `...`, `…`, `[...]`, `[snip]`, `<snip>` is markup.
bool looks_like_elision(std::string_view t) {
  if (text::ifind(t, "snip") != std::string_view::npos) return true;
  bool dots = false;
  for (const char c : t) {
    if (c == '.' || c == '\xe2' || c == '\x80' || c == '\xa6') dots = true;  // `…` is E2 80 A6
    else if (c != '[' && c != ']' && c != '(' && c != ')' && c != ' ') return false;
  }
  return dots;
}

// Real lines of the format, with what the parser makes of them (tests/unit/format_samples_test.cpp).
constexpr FormatSample kSamples[] = {
    {"nvidia-smi-q-x.xml", "tests/data/real/smiq-xml/h200-580-q-x.xml (its first 133 lines)",
     R"smp(<?xml version="1.0" ?>
<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v13.dtd">
<nvidia_smi_log>
	<timestamp>Fri Dec  4 02:03:00 2026</timestamp>
	<driver_version>580.159.04</driver_version>
	<cuda_version>13.0</cuda_version>
	<attached_gpus>1</attached_gpus>
	<gpu id="00000000:00:06.0">
		<product_name>NVIDIA H200</product_name>
		<product_brand>NVIDIA</product_brand>
		<product_architecture>Hopper</product_architecture>
		<display_mode>Requested functionality has been deprecated</display_mode>
		<display_attached>Yes</display_attached>
		<display_active>Disabled</display_active>
		<persistence_mode>Enabled</persistence_mode>
		<addressing_mode>None</addressing_mode>
		<mig_mode>
			<current_mig>Disabled</current_mig>
			<pending_mig>Disabled</pending_mig>
		</mig_mode>
		<mig_devices>
			None
		</mig_devices>
		<accounting_mode>Disabled</accounting_mode>
		<accounting_mode_buffer_size>4000</accounting_mode_buffer_size>
		<driver_model>
			<current_dm>N/A</current_dm>
			<pending_dm>N/A</pending_dm>
		</driver_model>
		<serial>1653924169899</serial>
		<uuid>GPU-8ba4de82-3e9f-8b13-4dab-0496da041e52</uuid>
		<pdi>0x436ecd7c8244f8be</pdi>
		<minor_number>0</minor_number>
		<vbios_version>96.00.A5.00.1A</vbios_version>
		<multigpu_board>No</multigpu_board>
		<board_id>0x6</board_id>
		<board_part_number>692-2G520-0282-001</board_part_number>
		<gpu_part_number>2335-895-A1</gpu_part_number>
		<gpu_fru_part_number>N/A</gpu_fru_part_number>
		<platformInfo>
			<chassis_serial_number>N/A</chassis_serial_number>
			<slot_number>N/A</slot_number>
			<tray_index>N/A</tray_index>
			<host_id>N/A</host_id>
			<peer_type>N/A</peer_type>
			<module_id>8</module_id>
			<gpu_fabric_guid>N/A</gpu_fabric_guid>
		</platformInfo>
		<inforom_version>
			<img_version>G520.0282.02.02</img_version>
			<oem_object>2.1</oem_object>
			<ecc_object>7.16</ecc_object>
			<pwr_object>N/A</pwr_object>
		</inforom_version>
		<inforom_bbx_flush>
			<latest_timestamp>N/A</latest_timestamp>
			<latest_duration>N/A</latest_duration>
		</inforom_bbx_flush>
		<gpu_operation_mode>
			<current_gom>N/A</current_gom>
			<pending_gom>N/A</pending_gom>
		</gpu_operation_mode>
		<c2c_mode>Disabled</c2c_mode>
		<gpu_virtualization_mode>
			<virtualization_mode>Pass-Through</virtualization_mode>
			<host_vgpu_mode>N/A</host_vgpu_mode>
			<vgpu_heterogeneous_mode>N/A</vgpu_heterogeneous_mode>
		</gpu_virtualization_mode>
		<gpu_recovery_action>None</gpu_recovery_action>
		<gsp_firmware_version>580.159.04</gsp_firmware_version>
		<ibmnpu>
			<relaxed_ordering_mode>N/A</relaxed_ordering_mode>
		</ibmnpu>
		<pci>
			<pci_bus>00</pci_bus>
			<pci_device>06</pci_device>
			<pci_domain>0000</pci_domain>
			<pci_base_class>3</pci_base_class>
			<pci_sub_class>2</pci_sub_class>
			<pci_device_id>233510DE</pci_device_id>
			<pci_bus_id>00000000:00:06.0</pci_bus_id>
			<pci_sub_system_id>18BF10DE</pci_sub_system_id>
			<pci_gpu_link_info>
				<pcie_gen>
					<max_link_gen>5</max_link_gen>
					<current_link_gen>5</current_link_gen>
					<device_current_link_gen>5</device_current_link_gen>
					<max_device_link_gen>5</max_device_link_gen>
					<max_host_link_gen>N/A</max_host_link_gen>
				</pcie_gen>
				<link_widths>
					<max_link_width>16x</max_link_width>
					<current_link_width>16x</current_link_width>
				</link_widths>
			</pci_gpu_link_info>
			<pci_bridge_chip>
				<bridge_chip_type>N/A</bridge_chip_type>
				<bridge_chip_fw>N/A</bridge_chip_fw>
			</pci_bridge_chip>
			<replay_counter>0</replay_counter>
			<replay_rollover_counter>0</replay_rollover_counter>
			<tx_util>1007 KB/s</tx_util>
			<rx_util>527 KB/s</rx_util>
			<atomic_caps_outbound>N/A</atomic_caps_outbound>
			<atomic_caps_inbound>N/A</atomic_caps_inbound>
		</pci>
		<fan_speed>N/A</fan_speed>
		<performance_state>P0</performance_state>
		<clocks_event_reasons>
			<clocks_event_reason_gpu_idle>Active</clocks_event_reason_gpu_idle>
			<clocks_event_reason_applications_clocks_setting>Not Active</clocks_event_reason_applications_clocks_setting>
			<clocks_event_reason_sw_power_cap>Not Active</clocks_event_reason_sw_power_cap>
			<clocks_event_reason_hw_slowdown>Not Active</clocks_event_reason_hw_slowdown>
			<clocks_event_reason_hw_thermal_slowdown>Not Active</clocks_event_reason_hw_thermal_slowdown>
			<clocks_event_reason_hw_power_brake_slowdown>Not Active</clocks_event_reason_hw_power_brake_slowdown>
			<clocks_event_reason_sync_boost>Not Active</clocks_event_reason_sync_boost>
			<clocks_event_reason_sw_thermal_slowdown>Not Active</clocks_event_reason_sw_thermal_slowdown>
			<clocks_event_reason_display_clocks_setting>Not Active</clocks_event_reason_display_clocks_setting>
		</clocks_event_reasons>
		<clocks_event_reasons_counters>
			<clocks_event_reasons_counters_sw_power_cap>0 us</clocks_event_reasons_counters_sw_power_cap>
			<clocks_event_reasons_counters_sync_boost>0 us</clocks_event_reasons_counters_sync_boost>
			<clocks_event_reasons_counters_sw_therm_slowdown>0 us</clocks_event_reasons_counters_sw_therm_slowdown>
			<clocks_event_reasons_counters_hw_therm_slowdown>0 us</clocks_event_reasons_counters_hw_therm_slowdown>
			<clocks_event_reasons_counters_hw_power_brake>0 us</clocks_event_reasons_counters_hw_power_brake>
		</clocks_event_reasons_counters>
		<sparse_operation_mode>Disabled</sparse_operation_mode>
		<fb_memory_usage>
			<total>143771 MiB</total>
			<reserved>616 MiB</reserved>
			<used>0 MiB</used>
			<free>143156 MiB</free>
		</fb_memory_usage>
)smp",
     0},
};

class Format final : public LogFormat {
 public:
  FormatId id() const noexcept override { return FormatId::nvidia_smi_q_xml; }
  std::span<const FormatSample> samples() const noexcept override { return kSamples; }

  int score(std::string_view line) const noexcept override {
    const std::string_view t = text::trim(line);
    if (t.size() < 3 || t.front() != '<') return 0;
    // `<!DOCTYPE nvidia_smi_log ...>`, `<nvidia_smi_log>`, or the whole report on one line.
    if (text::contains(t, "<nvidia_smi_log") || (t.substr(0, 9) == "<!DOCTYPE" && text::contains(t, kRoot)))
      return kSignatureScore;
    if (t.substr(0, 5) == "<?xml") return 40;
    const std::string_view name = tag_name(t.substr(t[1] == '/' ? 2 : 1));
    if (name.empty() || t.find('>') == std::string_view::npos) return 0;
    if (name == "gpu" && !attribute(t.substr(1), "id").empty()) return 90;
    return is_known_element(name) ? 60 : 30;
  }

  void parse(LineSource& src, FileSink& sink) const override;
};

// One GPU of the file (several reports in one file, `-q -x -l N`, update the same device).
struct DeviceState {
  GpuDevice dev;
  int power_limit_rank = 0;  // which element set power_limit_w: 1 power_limit, 2 current_, 3 enforced_
  // `gpu_temp_tlimit` (the reading's distance below T.Limit) and `gpu_temp_slow_tlimit_threshold`
  // (where slowdown begins, relative to T.Limit) of the current report.
  std::optional<double> tlimit_margin_c, slowdown_tlimit_c;
  bool slowdown_printed = false;  // `gpu_temp_slow_threshold` itself was printed
};

// `Yes`/`No` (also `Active`/`Not Active`); nullopt for anything else.
std::optional<bool> yes_no(std::string_view v) {
  if (v == "Yes" || v == "Active") return true;
  if (v == "No" || v == "Not Active") return false;
  return std::nullopt;
}

void add_to(std::optional<double>& sum, double v) { sum = sum.value_or(0) + v; }

class XmlReportParser {
 public:
  explicit XmlReportParser(FileSink& sink) : sink_(sink) {}

  void line(const Line& line) {
    const std::string_view s = line.text;
    if (text::is_blank(s)) return;
    line_ = line.number;
    text_.reset();
    bool markup = in_comment_ || in_tag_;
    std::size_t i = 0;
    if (in_comment_) {
      const auto end = s.find("-->");
      if (end == std::string_view::npos) return sink_.accept();
      in_comment_ = false;
      i = end + 3;
    } else if (in_tag_) {  // a tag whose attributes went on to this line
      const auto end = s.find('>');
      if (end == std::string_view::npos) return sink_.accept();
      in_tag_ = false;
      if (end > 0 && s[end - 1] == '/') close(names_top());
      i = end + 1;
    }
    while (i < s.size()) {
      const auto lt = s.find('<', i);
      if (const std::string_view t = text::trim(s.substr(i, lt == std::string_view::npos ? lt : lt - i)); !t.empty())
        text_ = t;
      if (lt == std::string_view::npos) break;
      markup = true;
      if (s.substr(lt, 4) == "<!--") {
        const auto end = s.find("-->", lt + 4);
        if (end == std::string_view::npos) {
          in_comment_ = true;
          break;
        }
        i = end + 3;
        continue;
      }
      const auto gt = s.find('>', lt);
      const std::string_view inside = s.substr(lt + 1, gt == std::string_view::npos ? gt : gt - lt - 1);
      i = gt == std::string_view::npos ? s.size() : gt + 1;
      if (inside.empty() || inside[0] == '?' || inside[0] == '!') continue;  // `<?xml ...?>`, `<!DOCTYPE ...>`
      if (inside[0] == '/') {
        close(tag_name(inside.substr(1)));
        continue;
      }
      const std::string_view name = tag_name(inside);
      if (name.empty()) continue;
      open(name, inside);
      if (gt == std::string_view::npos) in_tag_ = true;
      else if (inside.back() == '/') close(name);
    }
    if (markup || in_document_) {
      // Text alone on a line inside the report is an element's text (`None` of <mig_devices>) or
      // what the person who pasted it left out (`...`, `[snip]`): structure either way.
      if (!markup && looks_like_elision(text::trim(s))) ++elisions_;
      sink_.accept();
      return;
    }
    sink_.problem(line, Problem::unparsable_line, "not part of an nvidia-smi -q -x report (no XML element)");
  }

  void finish() {
    // As for the text report: a GPU without `minor_number` is numbered by its place in the report.
    const std::size_t unnumbered = nvsmi::number_by_report_order(devices_);
    if (unnumbered)
      sink_.diagnostics().notes.push_back(fmt::format(
          "nvidia-smi -q -x: {} of {} <gpu> elements have no <minor_number>; numbered by their order in the report "
          "(nvidia-smi's order, by PCI bus id)",
          unnumbered, devices_.size()));
    if (elisions_)
      sink_.diagnostics().notes.push_back(fmt::format(
          "nvidia-smi -q -x: {} line(s) inside the report are text between elements (elided parts of a paste); "
          "read as structure",
          elisions_));
    if (repaired_)
      sink_.diagnostics().notes.push_back(fmt::format(
          "nvidia-smi -q -x: {} section(s) of a <gpu> opened inside another one whose closing tag is missing; read as "
          "the GPU's next section",
          repaired_));
    if (!seen_root_ && sink_.diagnostics().accepted > 0)
      sink_.diagnostics().notes.push_back("nvidia-smi -q -x: no <nvidia_smi_log> element (a fragment of the report)");
    if (devices_.empty() && sink_.diagnostics().accepted > 0)
      sink_.diagnostics().notes.push_back("nvidia-smi -q -x: no <gpu> element in the report, so it names no GPU");
    for (auto& d : devices_) sink_.devices().push_back(std::move(d.dev));
  }

 private:
  std::string_view names_top() const { return depth_ ? std::string_view(names_[depth_ - 1]) : std::string_view(); }

  void open(std::string_view name, std::string_view inside) {
    if (name == kRoot) {  // a new report (`-q -x -l N` prints one after the other)
      depth_ = 0;
      gpu_at_ = -1;
      current_ = -1;
      driver_.clear();
      seen_root_ = true;
    }
    if (name == "gpu") {
      // A <gpu> inside another one is the next GPU after an elided `</gpu>`.
      if (gpu_at_ >= 0) depth_ = static_cast<std::size_t>(gpu_at_);
      gpu_at_ = static_cast<int>(depth_);
      open_gpu(attribute(inside, "id"));
    }
    in_document_ = true;
    if (gpu_at_ >= 0 && is_gpu_section(name)) {
      const auto section = static_cast<std::size_t>(gpu_at_) + 1;
      if (depth_ > section && names_[section] != "mig_devices") {
        depth_ = section;
        ++repaired_;
      }
    }
    if (depth_ == kMaxDepth) {
      ++too_deep_;
      return;
    }
    names_[depth_].assign(name);
    ++depth_;
    text_.reset();
  }

  void close(std::string_view name) {
    if (too_deep_) {
      --too_deep_;
      return;
    }
    // The innermost open element of that name; one that is not open was elided: ignored.
    std::size_t k = depth_;
    while (k > 0 && names_[k - 1] != name) --k;
    if (k == 0) return;
    if (k == depth_ && text_) leaf(k - 1, *text_);
    depth_ = k - 1;
    text_.reset();
    if (gpu_at_ >= static_cast<int>(depth_)) {
      gpu_at_ = -1;
      current_ = -1;
    }
    if (depth_ == 0) in_document_ = name != kRoot;
  }

  void open_gpu(std::string_view bus) {
    current_ = -1;
    std::string norm = normalize_pci_bus(bus);
    if (!norm.empty())
      for (std::size_t i = 0; i < devices_.size(); ++i)
        if (devices_[i].dev.pci_bus == norm) current_ = static_cast<int>(i);
    if (current_ < 0 && devices_.size() >= kMaxGpus) {
      Diagnostics::record(sink_.diagnostics(), Problem::too_many_devices, line_, 0, {},
                          fmt::format("<gpu id=\"{}\"> is one more than the {} GPUs a machine can have; its element is "
                                      "counted, not read",
                                      text::excerpt(bus, 32), kMaxGpus));
      return;
    }
    if (current_ < 0) {
      devices_.emplace_back();
      current_ = static_cast<int>(devices_.size() - 1);
      devices_.back().dev.pci_bus = std::move(norm);
      devices_.back().dev.line = line_;
    }
    DeviceState& st = devices_[static_cast<std::size_t>(current_)];
    GpuDevice& d = st.dev;
    d.file = sink_.file_index();
    if (!driver_.empty()) d.driver_version = driver_;
    // A newer report's values win: what a report sums or derives starts again.
    st.power_limit_rank = 0;
    st.tlimit_margin_c.reset();
    st.slowdown_tlimit_c.reset();
    st.slowdown_printed = false;
    d.ecc_volatile_corrected.reset();
    d.ecc_volatile_uncorrected.reset();
    d.ecc_aggregate_corrected.reset();
    d.ecc_aggregate_uncorrected.reset();
  }

  // The element at depth k (still open) held the text v.
  void leaf(std::size_t k, std::string_view v) {
    const std::string_view name = names_[k];
    if (gpu_at_ < 0) {
      if (k == 1 && name == "driver_version" && names_[0] == kRoot && !nvsmi::is_null_value(v)) driver_.assign(v);
      return;
    }
    if (current_ < 0 || static_cast<int>(k) <= gpu_at_) return;
    DeviceState& st = devices_[static_cast<std::size_t>(current_)];
    GpuDevice& d = st.dev;
    const std::size_t level = k - static_cast<std::size_t>(gpu_at_);  // 1: a child of <gpu>
    const std::string_view parent = names_[k - 1];
    const std::string_view grand = level >= 2 ? std::string_view(names_[k - 2]) : std::string_view();
    const bool null = nvsmi::is_null_value(v);
    double x = 0;
    if (level == 1) {
      if (null) return;
      if (name == "product_name") d.name.assign(v);
      else if (name == "uuid") d.uuid.assign(v);
      else if (name == "minor_number") {
        if (const auto n = text::to_int<int>(v)) d.index = *n;
      } else if (name == "vbios_version") {
        if (std::find(d.vbios_versions.begin(), d.vbios_versions.end(), v) == d.vbios_versions.end())
          d.vbios_versions.emplace_back(v);
      } else if (name == "gsp_firmware_version") {
        if (std::find(d.gsp_firmware_versions.begin(), d.gsp_firmware_versions.end(), v) == d.gsp_firmware_versions.end())
          d.gsp_firmware_versions.emplace_back(v);
      }
      return;
    }
    if (level == 2 && parent == "pci") {
      if (name == "pci_bus_id" && !null) {
        std::string norm = normalize_pci_bus(v);
        if (!norm.empty()) d.pci_bus = std::move(norm);
      }
      return;
    }
    if (parent == "pcie_gen" || parent == "link_widths") {
      // A PCIe generation or lane count (`16x`); beyond 1024 it is no such thing (and no int).
      if (null || !nvsmi::parse_number_with_unit(v, x) || !(x >= 0 && x <= 1024)) return;
      const int n = static_cast<int>(x);
      if (name == "max_link_gen") d.pcie_gen_max = n;
      else if (name == "current_link_gen") d.pcie_gen_current = n;
      else if (name == "max_link_width") d.pcie_width_max = n;
      else if (name == "current_link_width") d.pcie_width_current = n;
      return;
    }
    if (level == 2 && (parent == "gpu_power_readings" || parent == "power_readings")) {
      const int rank = name == "enforced_power_limit" ? 3 : name == "current_power_limit" ? 2 : name == "power_limit" ? 1 : 0;
      if (rank == 0 || rank < st.power_limit_rank || null || !nvsmi::parse_number_with_unit(v, x)) return;
      d.power_limit_w = x;
      st.power_limit_rank = rank;
      return;
    }
    if (level == 2 && parent == "fb_memory_usage") {
      if (name == "total" && !null && nvsmi::parse_number_with_unit(v, x)) d.memory_total_mib = x;
      return;
    }
    if (level == 2 && (parent == "clocks_event_reasons_counters" || parent == "clocks_throttle_reasons_counters")) {
      if (null || !nvsmi::parse_number_with_unit(v, x) || x < 0) return;
      auto ends = [&](std::string_view tail) {
        return name.size() >= tail.size() && name.substr(name.size() - tail.size()) == tail;
      };
      if (ends("_sw_power_cap")) d.clock_event_sw_power_cap_us = x;
      else if (ends("_sw_therm_slowdown") || ends("_sw_thermal_slowdown")) d.clock_event_sw_thermal_us = x;
      else if (ends("_hw_therm_slowdown") || ends("_hw_thermal_slowdown")) d.clock_event_hw_thermal_us = x;
      else if (ends("_hw_power_brake")) d.clock_event_hw_power_brake_us = x;
      return;
    }
    if (level == 3 && grand == "ecc_errors" && (parent == "volatile" || parent == "aggregate")) {
      // `sram_correctable`, `sram_uncorrectable_parity`, `dram_uncorrectable` ... summed.
      if (null || !nvsmi::parse_number(v, x) || x < 0) return;
      const bool vol = parent == "volatile";
      if (text::contains(name, "uncorrectable")) add_to(vol ? d.ecc_volatile_uncorrected : d.ecc_aggregate_uncorrected, x);
      else if (text::contains(name, "correctable")) add_to(vol ? d.ecc_volatile_corrected : d.ecc_aggregate_corrected, x);
      return;
    }
    if (level == 4 && names_[k - 3] == "ecc_errors" && (parent == "single_bit" || parent == "double_bit")) {
      // Older drivers: `volatile` > `single_bit` > ... `total`.
      if (name != "total" || null || !nvsmi::parse_number(v, x) || x < 0) return;
      if (grand != "volatile" && grand != "aggregate") return;
      const bool vol = grand == "volatile", sbe = parent == "single_bit";
      (vol ? (sbe ? d.ecc_volatile_corrected : d.ecc_volatile_uncorrected)
           : (sbe ? d.ecc_aggregate_corrected : d.ecc_aggregate_uncorrected)) = x;
      return;
    }
    if (level == 3 && grand == "retired_pages" && name == "retired_count") {
      if (null || !nvsmi::parse_number(v, x) || x < 0) return;
      if (parent == "multiple_single_bit_retirement") d.retired_pages_sbe = x;
      else if (parent == "double_bit_retirement") d.retired_pages_dbe = x;
      return;
    }
    if (level == 2 && parent == "retired_pages") {
      if (name == "pending_blacklist" || name == "pending_retirement")
        if (const auto b = yes_no(v)) d.retired_pages_pending = *b;
      return;
    }
    if (level == 2 && parent == "remapped_rows") {
      if (name == "remapped_row_pending") {
        if (const auto b = yes_no(v)) d.row_remap_pending = *b;
      } else if (name == "remapped_row_failure") {
        if (const auto b = yes_no(v)) d.row_remap_failed = *b;
      }
      return;
    }
    if (level == 2 && parent == "temperature") {
      if (null || !nvsmi::parse_number_with_unit(v, x) || x < -300 || x > 300) return;
      if (name == "gpu_temp") d.temp_current_c = x;
      else if (name == "gpu_temp_slow_threshold") {
        d.temp_slowdown_c = x;
        st.slowdown_printed = true;
      } else if (name == "gpu_temp_tlimit") st.tlimit_margin_c = x;
      else if (name == "gpu_temp_slow_tlimit_threshold") st.slowdown_tlimit_c = x;
      else return;
      // Drivers that print T.Limit offsets: slowdown = reading + margin to T.Limit + offset.
      if (!st.slowdown_printed && d.temp_current_c && st.tlimit_margin_c && st.slowdown_tlimit_c)
        d.temp_slowdown_c = *d.temp_current_c + *st.tlimit_margin_c + *st.slowdown_tlimit_c;
    }
  }

  FileSink& sink_;
  std::vector<DeviceState> devices_;
  std::string driver_;                       // <driver_version> of the current report
  std::array<std::string, kMaxDepth> names_; // the open elements, outermost first
  std::size_t depth_ = 0;
  std::size_t too_deep_ = 0;                 // elements opened beyond kMaxDepth, not held
  int gpu_at_ = -1;                          // depth of the open <gpu> element, -1 when none
  int current_ = -1;                         // its index into devices_
  std::optional<std::string_view> text_;     // text of this line after the last tag
  std::uint64_t line_ = 0;
  std::uint64_t elisions_ = 0;
  std::uint64_t repaired_ = 0;  // GPU sections opened where an earlier one was left open
  bool in_comment_ = false, in_tag_ = false, in_document_ = false, seen_root_ = false;
};

void Format::parse(LineSource& src, FileSink& sink) const {
  XmlReportParser p(sink);
  feed_lines(src, sink, p);
}

}  // namespace

const LogFormat& nvidia_smi_q_xml_format() {
  static const Format f;
  return f;
}

}  // namespace gpucost::formats
