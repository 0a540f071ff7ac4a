// nvidia-smi -q -x (the XML report): the same GpuDevice facts as the text report of -q.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "gpucost/ingest/ingest.hpp"

namespace gpucost {
namespace {

std::string read_data(const std::string& rel) {
  std::ifstream in(std::string(GPUCOST_TEST_DATA) + "/" + rel, std::ios::binary);
  EXPECT_TRUE(in.good()) << rel;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Parsed {
  IngestResult out;
  Diagnostics diag;
  const FileDiagnostics& file() const { return diag.files.at(0); }
  std::uint64_t nonblank() const { return file().lines - file().blank; }
};

Parsed parse_text(const std::string& text, const std::string& name) {
  Parsed p;
  IngestStage(IngestOptions{}).run_buffer(text, name, FormatId::unknown, p.out, p.diag);
  return p;
}

const std::string kH200Xml = "real/smiq-xml/h200-580-q-x.xml";

TEST(NvidiaSmiQXmlFormat, TheH200ReportGivesItsDevice) {
  const Parsed p = parse_text(read_data(kH200Xml), "h200-580-q-x.xml");
  EXPECT_EQ(format_name(p.file().format), "nvidia_smi_q_xml");
  EXPECT_EQ(p.file().accepted, p.nonblank());
  EXPECT_EQ(p.file().rejected(), 0u);
  EXPECT_EQ(p.out.samples.rows(), 0u);
  EXPECT_EQ(p.out.events.rows(), 0u);
  ASSERT_EQ(p.out.devices.size(), 1u);
  const GpuDevice& d = p.out.devices[0];
  EXPECT_EQ(d.name, "NVIDIA H200");
  EXPECT_EQ(d.uuid, "GPU-8ba4de82-3e9f-8b13-4dab-0496da041e52");
  EXPECT_EQ(d.pci_bus, "0000:00:06");
  EXPECT_EQ(d.index, 0);
  EXPECT_EQ(d.driver_version, "580.159.04");
  EXPECT_EQ(d.line, 8u);
  EXPECT_EQ(d.pcie_gen_max, 5);
  EXPECT_EQ(d.pcie_gen_current, 5);
  EXPECT_EQ(d.pcie_width_max, 16);
  EXPECT_EQ(d.pcie_width_current, 16);
  EXPECT_EQ(d.power_limit_w, 700.0);  // gpu_power_readings/current_power_limit; the module's is N/A
  EXPECT_EQ(d.memory_total_mib, 143771.0);
  ASSERT_EQ(d.vbios_versions.size(), 1u);
  EXPECT_EQ(d.vbios_versions[0], "96.00.A5.00.1A");
  ASSERT_EQ(d.gsp_firmware_versions.size(), 1u);
  EXPECT_EQ(d.gsp_firmware_versions[0], "580.159.04");
  EXPECT_EQ(d.clock_event_sw_power_cap_us, 0.0);
  EXPECT_EQ(d.clock_event_sw_thermal_us, 0.0);
  EXPECT_EQ(d.clock_event_hw_thermal_us, 0.0);
  EXPECT_EQ(d.clock_event_hw_power_brake_us, 0.0);
  EXPECT_EQ(d.ecc_volatile_corrected, 0.0);
  EXPECT_EQ(d.ecc_volatile_uncorrected, 0.0);
  EXPECT_EQ(d.ecc_aggregate_corrected, 0.0);
  EXPECT_EQ(d.ecc_aggregate_uncorrected, 0.0);
  EXPECT_FALSE(d.retired_pages_sbe);  // `N/A` on a GPU that remaps rows instead
  EXPECT_FALSE(d.retired_pages_pending);
  EXPECT_EQ(d.row_remap_pending, false);
  EXPECT_EQ(d.row_remap_failed, false);
  EXPECT_EQ(d.temp_current_c, 38.0);
  EXPECT_EQ(d.temp_slowdown_c, 85.0);  // 38 C + 49 C below T.Limit - 2 C (slowdown T.Limit offset)
}

// The text report the same machine printed seconds later: every device fact agrees.
TEST(NvidiaSmiQXmlFormat, GivesWhatTheTextReportOfTheSameGpuGives) {
  const Parsed xml = parse_text(read_data(kH200Xml), "h200-580-q-x.xml");
  const Parsed txt = parse_text(read_data("real/collect-h200-580/nvidia-smi-q-start.txt"), "nvidia-smi-q-start.txt");
  ASSERT_EQ(format_name(txt.file().format), "nvidia_smi_q");
  ASSERT_EQ(xml.out.devices.size(), 1u);
  ASSERT_EQ(txt.out.devices.size(), 1u);
  const GpuDevice& a = xml.out.devices[0];
  const GpuDevice& b = txt.out.devices[0];
  EXPECT_EQ(a.index, b.index);
  EXPECT_EQ(a.pci_bus, b.pci_bus);
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.uuid, b.uuid);
  EXPECT_EQ(a.driver_version, b.driver_version);
  EXPECT_EQ(a.pcie_gen_current, b.pcie_gen_current);
  EXPECT_EQ(a.pcie_gen_max, b.pcie_gen_max);
  EXPECT_EQ(a.pcie_width_current, b.pcie_width_current);
  EXPECT_EQ(a.pcie_width_max, b.pcie_width_max);
  EXPECT_EQ(a.power_limit_w, b.power_limit_w);
  EXPECT_EQ(a.memory_total_mib, b.memory_total_mib);
  EXPECT_EQ(a.vbios_versions, b.vbios_versions);
  EXPECT_EQ(a.gsp_firmware_versions, b.gsp_firmware_versions);
  EXPECT_EQ(a.clock_event_sw_power_cap_us, b.clock_event_sw_power_cap_us);
  EXPECT_EQ(a.clock_event_sw_thermal_us, b.clock_event_sw_thermal_us);
  EXPECT_EQ(a.clock_event_hw_thermal_us, b.clock_event_hw_thermal_us);
  EXPECT_EQ(a.clock_event_hw_power_brake_us, b.clock_event_hw_power_brake_us);
  EXPECT_EQ(a.ecc_volatile_corrected, b.ecc_volatile_corrected);
  EXPECT_EQ(a.ecc_volatile_uncorrected, b.ecc_volatile_uncorrected);
  EXPECT_EQ(a.ecc_aggregate_corrected, b.ecc_aggregate_corrected);
  EXPECT_EQ(a.ecc_aggregate_uncorrected, b.ecc_aggregate_uncorrected);
  EXPECT_EQ(a.retired_pages_sbe, b.retired_pages_sbe);
  EXPECT_EQ(a.retired_pages_dbe, b.retired_pages_dbe);
  EXPECT_EQ(a.retired_pages_pending, b.retired_pages_pending);
  EXPECT_EQ(a.row_remap_pending, b.row_remap_pending);
  EXPECT_EQ(a.row_remap_failed, b.row_remap_failed);
  EXPECT_EQ(a.temp_current_c, b.temp_current_c);
  EXPECT_EQ(a.temp_slowdown_c, b.temp_slowdown_c);
}

// What a paste does to the report: the command's prompt before it, a block cut out and marked
// `...`, a closing tag lost with it. The facts outside the cut are still read.
TEST(NvidiaSmiQXmlFormat, APromptLineAndElisionsInsideArePartOfThePaste) {
  std::string xml = read_data(kH200Xml);
  const auto cut_from = xml.find("\t\t<supported_clocks>");
  const auto cut_to = xml.find("\t\t<processes>");
  ASSERT_NE(cut_from, std::string::npos);
  ASSERT_NE(cut_to, std::string::npos);
  xml.replace(cut_from, cut_to - cut_from, "\t\t...\n");
  const auto pci_end = xml.find("\t\t</pci>\n");
  ASSERT_NE(pci_end, std::string::npos);
  xml.erase(pci_end, 9);  // `</pci>` lost: the GPU's next section (`clocks_event_reasons`) closes it
  const Parsed p = parse_text("user@h200:~$ nvidia-smi -q -x\n" + xml, "paste.txt");
  EXPECT_EQ(format_name(p.file().format), "nvidia_smi_q_xml");
  EXPECT_EQ(p.file().prompts, 1u);
  EXPECT_EQ(p.file().rejected(), 0u);
  EXPECT_EQ(p.file().accepted + p.file().prompts, p.nonblank());
  ASSERT_EQ(p.out.devices.size(), 1u);
  const GpuDevice& d = p.out.devices[0];
  EXPECT_EQ(d.power_limit_w, 700.0);
  EXPECT_EQ(d.memory_total_mib, 143771.0);
  EXPECT_EQ(d.pcie_width_current, 16);
  EXPECT_EQ(d.uuid, "GPU-8ba4de82-3e9f-8b13-4dab-0496da041e52");
  bool noted = false;
  for (const auto& n : p.file().notes) noted |= n.find("elided") != std::string::npos;
  EXPECT_TRUE(noted) << "the `...` line is noted as an elision";
  bool repaired = false;
  for (const auto& n : p.file().notes) repaired |= n.find("closing tag is missing") != std::string::npos;
  EXPECT_TRUE(repaired);
}

// A script's copy on one line (`ElementTree.tostring`), and a MIG GPU whose instances list memory
// of their own: the GPU's `fb_memory_usage` is the GPU's, the instance's is not.
TEST(NvidiaSmiQXmlFormat, OneLineAndMigInstancesMemory) {
  const std::string xml =
      "<nvidia_smi_log><driver_version>550.54.15</driver_version><gpu id=\"00000000:07:00.0\">"
      "<product_name>NVIDIA A100-SXM4-40GB</product_name><minor_number>0</minor_number>"
      "<mig_devices><mig_device><index>0</index><fb_memory_usage><total>9728 MiB</total></fb_memory_usage>"
      "</mig_device></mig_devices><fb_memory_usage><total>40960 MiB</total></fb_memory_usage></gpu></nvidia_smi_log>\n";
  const Parsed p = parse_text(xml, "a100.xml");
  EXPECT_EQ(format_name(p.file().format), "nvidia_smi_q_xml");
  EXPECT_EQ(p.file().accepted, 1u);
  ASSERT_EQ(p.out.devices.size(), 1u);
  EXPECT_EQ(p.out.devices[0].memory_total_mib, 40960.0);
  EXPECT_EQ(p.out.devices[0].driver_version, "550.54.15");
  EXPECT_EQ(p.out.devices[0].pci_bus, "0000:07:00");
}

// The layout of drivers before 530 (`power_readings` with `power_limit` and
// `enforced_power_limit`, `clocks_throttle_reasons`, ECC totals under `single_bit`/`double_bit`,
// `gpu_temp_slow_threshold`, `remapped_rows` as N/A): element names as a driver 515.65.01
// GTX 1050 report prints them (a public Go test fixture found through the code corpus); the
// values are written for this test, two GPUs, no DOCTYPE and no line breaks inside elements.
TEST(NvidiaSmiQXmlFormat, OlderDriversPowerReadingsAndEccTotals) {
  const std::string xml = R"(<?xml version="1.0" ?>
<nvidia_smi_log>
	<driver_version>515.65.01</driver_version>
	<attached_gpus>2</attached_gpus>
	<gpu id="00000000:01:00.0">
		<product_name>NVIDIA GeForce GTX 1050</product_name>
		<uuid>GPU-00000000-1111-2222-3333-444444444444</uuid>
		<minor_number>1</minor_number>
		<pci>
			<pci_bus_id>00000000:01:00.0</pci_bus_id>
			<pci_gpu_link_info>
				<pcie_gen>
					<max_link_gen>3</max_link_gen>
					<current_link_gen>3</current_link_gen>
				</pcie_gen>
				<link_widths>
					<max_link_width>16x</max_link_width>
					<current_link_width>8x</current_link_width>
				</link_widths>
			</pci_gpu_link_info>
		</pci>
		<fb_memory_usage>
			<total>4096 MiB</total>
		</fb_memory_usage>
		<ecc_errors>
			<volatile>
				<single_bit>
					<device_memory>3</device_memory>
					<total>3</total>
				</single_bit>
				<double_bit>
					<total>1</total>
				</double_bit>
			</volatile>
		</ecc_errors>
		<retired_pages>
			<multiple_single_bit_retirement>
				<retired_count>2</retired_count>
			</multiple_single_bit_retirement>
			<pending_retirement>Yes</pending_retirement>
		</retired_pages>
		<remapped_rows>N/A</remapped_rows>
		<temperature>
			<gpu_temp>44 C</gpu_temp>
			<gpu_temp_slow_threshold>97 C</gpu_temp_slow_threshold>
		</temperature>
		<power_readings>
			<power_draw>N/A</power_draw>
			<power_limit>75.00 W</power_limit>
			<enforced_power_limit>70.00 W</enforced_power_limit>
			<max_power_limit>75.00 W</max_power_limit>
		</power_readings>
	</gpu>
	<gpu id="00000000:02:00.0">
		<product_name>NVIDIA GeForce GTX 1050</product_name>
		<power_readings>
			<power_limit>75.00 W</power_limit>
		</power_readings>
	</gpu>
</nvidia_smi_log>
)";
  const Parsed p = parse_text(xml, "q.xml");
  EXPECT_EQ(format_name(p.file().format), "nvidia_smi_q_xml");
  EXPECT_EQ(p.file().accepted, p.nonblank());
  ASSERT_EQ(p.out.devices.size(), 2u);
  const GpuDevice& a = p.out.devices[0];
  EXPECT_EQ(a.index, 1);
  EXPECT_EQ(a.driver_version, "515.65.01");
  EXPECT_EQ(a.pcie_width_max, 16);
  EXPECT_EQ(a.pcie_width_current, 8);
  EXPECT_EQ(a.power_limit_w, 70.0);  // enforced over power_limit, as in the text report
  EXPECT_EQ(a.memory_total_mib, 4096.0);
  EXPECT_EQ(a.ecc_volatile_corrected, 3.0);
  EXPECT_EQ(a.ecc_volatile_uncorrected, 1.0);
  EXPECT_FALSE(a.ecc_aggregate_corrected);
  EXPECT_EQ(a.retired_pages_sbe, 2.0);
  EXPECT_EQ(a.retired_pages_pending, true);
  EXPECT_FALSE(a.row_remap_pending);
  EXPECT_EQ(a.temp_slowdown_c, 97.0);
  const GpuDevice& b = p.out.devices[1];
  EXPECT_EQ(b.pci_bus, "0000:02:00");  // from the <gpu id="..."> attribute alone
  EXPECT_FALSE(b.index);  // no <minor_number>, and its place (1) is the first GPU's number
  EXPECT_EQ(b.power_limit_w, 75.0);
}

TEST(NvidiaSmiQXmlFormat, ALineOutsideTheReportIsRejected) {
  const Parsed p = parse_text("this is not xml\n<nvidia_smi_log>\n<driver_version>580.1</driver_version>\n</nvidia_smi_log>\n",
                              "q.xml");
  EXPECT_EQ(format_name(p.file().format), "nvidia_smi_q_xml");
  EXPECT_EQ(p.file().rejected(), 1u);
  EXPECT_TRUE(p.out.devices.empty());
}

}  // namespace
}  // namespace gpucost
