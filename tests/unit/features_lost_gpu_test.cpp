// Issue 14: a GPU that falls off the bus is lost (gpu_lost_s, per GPU and host) and its
// effective utilization counts the lost time; kernel messages that name a PCI address or a GPU
// index count for that GPU; known-benign messages, CPU thermal lines and corrected AER errors are
// no GPU errors; Xid classes come from NVIDIA's catalog (data/xid-catalog.csv).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "features/compute.hpp"
#include "gpucost/features/xid_catalog.hpp"
#include "timeline_builder.hpp"

namespace gpucost {
namespace {

using namespace test;
using M = GpuMetric;

// GPU 0 busy for 100 s; GPU 1 busy for 50 s, then it falls off the bus at 50.2 s.
TimelineBuilder lost_fixture() {
  TimelineBuilder b;
  const auto d = b.file("dmon.txt", FormatId::dmon);
  const auto k = b.file("kern.log", FormatId::syslog);
  b.device(device(0, "0000:01:00")).device(device(1, "0000:02:00"));
  b.samples(d, 0, 100, 0, {{M::sm_pct, 90}}).samples(d, 0, 50, 1, {{M::sm_pct, 90}});
  b.event(k, at(50.2), EventKind::xid, 79, "PCI:0000:02:00", "NVRM: Xid (PCI:0000:02:00): 79, GPU has fallen off the bus.");
  b.event(k, at(50.3), EventKind::fallen_off_bus, {}, "0000:02:00.0", "NVRM: GPU 0000:02:00.0: GPU has fallen off the bus.");
  b.event(k, at(80), EventKind::rm_init_failed, {}, "0000:02:00.0", "NVRM: GPU 0000:02:00.0: rm_init_adapter failed, device minor number 1");
  return b;
}

TEST(FeaturesLostGpu, TimeAfterAFallOffTheBusIsLostForThatGpuAndTheHost) {
  const FeatureSet fs = run_features(lost_fixture().build());
  EXPECT_TRUE(has_value(of_gpu(fs, 1, "gpu_lost_s"), 49.8));  // until the end of the window (100 s)
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "gpu_lost_s"), 0));
  EXPECT_TRUE(has_value(host(fs, "gpu_lost_s"), 49.8));
  EXPECT_NE(of_gpu(fs, 1, "gpu_lost_s").evidence.find("3 loss events"), std::string::npos) << of_gpu(fs, 1, "gpu_lost_s").evidence;
  // Before issue 14 the lost GPU scored 1.0 like the healthy one: its rows just stopped.
  EXPECT_TRUE(has_value(of_gpu(fs, 1, "effective_utilization"), 50 / (50 + 49.8)));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "effective_utilization"), 1));
  EXPECT_TRUE(has_value(host(fs, "effective_utilization"), 150 / (150 + 49.8)));
  EXPECT_TRUE(has_value(of_gpu(fs, 1, "fallen_off_bus_events"), 1));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "fallen_off_bus_events"), 0));
  EXPECT_TRUE(has_value(of_gpu(fs, 1, "rm_init_failed_events"), 1));
}

TEST(FeaturesLostGpu, TheLossEndsWhenTheGpuIsBack) {
  TimelineBuilder b = lost_fixture();
  b.samples(0, 70, 10, 1, {{M::sm_pct, 90}});  // GPU 1 reports again from 70 s to 80 s
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(of_gpu(fs, 1, "gpu_lost_s"), 19.8 + 20));  // 50.2 .. 70, then 80 .. 100
  TimelineBuilder boot = lost_fixture();
  boot.event(1, at(90), EventKind::boot);  // a reboot brings it back
  EXPECT_TRUE(has_value(of_gpu(run_features(boot.build()), 1, "gpu_lost_s"), 39.8));
}

TEST(FeaturesLostGpu, KernelMessagesCountForTheGpuTheyName) {
  TimelineBuilder b;
  const auto d = b.file("dmon.txt", FormatId::dmon);
  const auto k = b.file("dmesg.txt", FormatId::dmesg);
  b.device(device(0, "0000:01:00")).device(device(1, "0000:02:00"));
  b.samples(d, 0, 10, 0, {{M::sm_pct, 90}}).samples(d, 0, 10, 1, {{M::sm_pct, 90}});
  b.event(k, at(1), EventKind::driver_error, {}, {}, "nvidia-modeset: ERROR: GPU:1: Failed to query display engine status.");
  // The root port reports first; the GPU's address follows.
  b.event(k, at(2), EventKind::pcie_aer, 1, "0000:00:03.1", "pcieport 0000:00:03.1: AER: Uncorrected (Non-Fatal) error received: 0000:02:00.0");
  b.event(k, at(3), EventKind::pcie_aer, 0, "0000:02:00.0", "nvidia 0000:02:00.0: PCIe Bus Error: severity=Corrected, type=Physical Layer");
  b.event(k, at(4), EventKind::gsp_error, {}, {}, "NVRM: GPU1 _kgspLogXid119: ********** GSP Timeout **********");
  b.event(k, at(5), EventKind::rm_init_failed, {}, "0000:01:00.0", "NVRM: GPU 0000:01:00.0: rm_init_adapter failed");
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(of_gpu(fs, 1, "driver_error_events"), 1));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "driver_error_events"), 0));
  EXPECT_TRUE(has_value(of_gpu(fs, 1, "pcie_aer_events"), 2));
  EXPECT_TRUE(has_value(of_gpu(fs, 1, "pcie_aer_uncorrected_events"), 1));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "pcie_aer_events"), 0));
  EXPECT_TRUE(has_value(of_gpu(fs, 1, "gsp_error_events"), 1));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "rm_init_failed_events"), 1));
  EXPECT_TRUE(has_value(of_gpu(fs, 1, "rm_init_failed_events"), 0));
  // GPU 1: the modeset error, the uncorrected AER error, the GSP timeout; not the corrected one.
  EXPECT_TRUE(has_value(of_gpu(fs, 1, "hw_error_events"), 3));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "hw_error_events"), 1));
}

TEST(FeaturesLostGpu, AnotherDevicesAerErrorIsNotTheOnlyGpus) {
  // One GPU without bus ids: an NVIDIA driver message is about it, an NVMe drive's AER error is not.
  TimelineBuilder b;
  const auto d = b.file("dmon.txt", FormatId::dmon);
  const auto k = b.file("dmesg.txt", FormatId::dmesg);
  b.samples(d, 0, 10, 0, {{M::sm_pct, 90}});
  b.event(k, at(1), EventKind::pcie_aer, 1, "0000:03:00.0", "nvme 0000:03:00.0: AER: PCIe Bus Error: severity=Uncorrected (Non-Fatal)");
  b.event(k, at(2), EventKind::xid, 13, "PCI:0000:01:00", "NVRM: Xid (PCI:0000:01:00): 13, Graphics Exception");
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "pcie_aer_events"), 0));
  EXPECT_TRUE(has_value(host(fs, "pcie_aer_events"), 1));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "xid_events"), 1));
  EXPECT_TRUE(has_value(host(fs, "hw_error_events"), 0));
}

TEST(FeaturesLostGpu, BenignMessagesCpuThermalLinesAndCorrectedAerAreNoGpuErrors) {
  TimelineBuilder b;
  const auto d = b.file("dmon.txt", FormatId::dmon);
  const auto k = b.file("kern.log", FormatId::syslog);
  b.samples(d, 0, 100, 0, {{M::sm_pct, 90}, {M::gpu_temp_c, 85}});
  for (int i = 0; i < 50; ++i)
    b.event(k, at(i), EventKind::driver_error, {}, {},
            "nvidia-modeset: ERROR: GPU:0: Failed to query display engine channel state: 0x0000c67d:4:0:0x0000000f");
  b.event(k, at(60), EventKind::driver_error, {}, {}, "nvidia-modeset: ERROR: GPU:0: Failed to query display engine status.");
  b.event(k, at(61), EventKind::thermal, 1, {}, "mce: CPU4: Core temperature is above threshold, cpu clock is throttled (total events = 3)");
  b.event(k, at(62), EventKind::pcie_aer, 0, {}, "nvidia 0000:01:00.0: PCIe Bus Error: severity=Corrected, type=Physical Layer");
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(host(fs, "benign_driver_messages"), 50));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "benign_driver_messages"), 50));
  EXPECT_TRUE(has_value(host(fs, "driver_error_events"), 1));
  EXPECT_TRUE(has_value(host(fs, "driver_errors_while_hot"), 1));
  EXPECT_TRUE(has_value(host(fs, "hw_error_events"), 1));  // only the display engine status error
  EXPECT_TRUE(has_value(host(fs, "thermal_events"), 1));
  EXPECT_TRUE(has_value(host(fs, "pcie_aer_corrected_events"), 1));
  EXPECT_TRUE(has_value(host(fs, "maintenance_incidents"), 0));
}

TEST(FeaturesLostGpu, EveryBenignMessageSaysWhyAndWhoSaysSo) {
  ASSERT_FALSE(features::benign_driver_messages_table().empty());
  for (const auto& b : features::benign_driver_messages_table()) {
    EXPECT_FALSE(b.parts[0].empty());
    EXPECT_GT(b.why.size(), 40u) << b.parts[0];
    EXPECT_NE(b.why.find('#'), std::string_view::npos) << "a public report (owner/repo#N) shows it: " << b.parts[0];
    EXPECT_TRUE(features::is_benign_driver_message(std::string(b.parts[0]) + " x " + std::string(b.parts[1])));
  }
  EXPECT_FALSE(features::is_benign_driver_message("nvidia-modeset: ERROR: GPU:0: Failed to query display engine status."));
}

TEST(XidCatalog, EveryCodeInTheFileIsClassedAndTheDocumentedOnesAreThere) {
  std::ifstream in(std::string(GPUCOST_SOURCE_DIR) + "/data/xid-catalog.csv");
  std::stringstream ss;
  ss << in.rdbuf();
  ASSERT_FALSE(ss.str().empty());
  EXPECT_EQ(ss.str(), embedded_xid_catalog_csv()) << "the binary carries an old data/xid-catalog.csv: re-run cmake";
  EXPECT_NE(ss.str().find("https://docs.nvidia.com/deploy/xid-errors/"), std::string::npos) << "source URL";
  EXPECT_NE(ss.str().find("Observed: 20"), std::string::npos) << "date observed";
  const auto& cat = xid_catalog();
  std::set<int> codes;
  for (const auto& x : cat) {
    codes.insert(x.code);
    EXPECT_FALSE(x.name.empty()) << x.code;
    EXPECT_FALSE(x.action.empty()) << x.code;
    EXPECT_TRUE(std::set<std::string>({"application", "driver_firmware", "memory_ecc", "bus", "recovery_action"}).count(x.xid_class))
        << "Xid " << x.code << " is not classed";
    EXPECT_EQ(xid_info(x.code), &x);
  }
  for (int c : {8, 13, 31, 32, 38, 43, 44, 45, 48, 56, 57, 61, 62, 63, 64, 68, 69, 74, 79, 92, 94, 95, 109, 110, 119,
                120, 121, 136, 140, 143, 154})
    EXPECT_TRUE(codes.count(c)) << "Xid " << c << " is missing";
  EXPECT_EQ(xid_info(999), nullptr);
  EXPECT_EQ(xid_info(-1), nullptr);
  EXPECT_EQ(xid_info(79)->needs, XidNeeds::kReboot);
  EXPECT_EQ(xid_info(13)->needs, XidNeeds::kNone);
}

TEST(XidCatalog, RowsThatDoNotParseAreRejectedWithTheirLine) {
  EXPECT_THROW(
      parse_xid_catalog(
          "# c\ncode,name,cause,class,action,needs_person,note,mnemonic,immediate,investigatory,subcodes\n8,a,application,application,x\n"),
      std::invalid_argument);
  EXPECT_THROW(
      parse_xid_catalog(
          "code,name,cause,class,action,needs_person,note,mnemonic,immediate,investigatory,subcodes\n8,a,cosmic,application,x,none,,M,I,V,\n"),
      std::invalid_argument);
  EXPECT_THROW(
      parse_xid_catalog(
          "code,name,cause,class,action,needs_person,note,mnemonic,immediate,investigatory,subcodes\n8,a,application,misc,x,none,,M,I,V,\n"),
      std::invalid_argument);
  EXPECT_THROW(
      parse_xid_catalog(
          "code,name,cause,class,action,needs_person,note,mnemonic,immediate,investigatory,subcodes\n8,a,application,application,x,soon,,M,I,V,\n"),
      std::invalid_argument);
  EXPECT_THROW(
      parse_xid_catalog(
          "code,name,cause,class,action,needs_person,note,mnemonic,immediate,investigatory,subcodes\n8,a,application,application,x,none,,M,I,V,\n"
          "8,a,application,application,x,none,,M,I,V,\n"),
      std::invalid_argument);
  // The 7-column header of the catalog before the resolution buckets is refused, not misread.
  EXPECT_THROW(
      parse_xid_catalog("code,name,cause,class,action,needs_person,note\n8,a,application,application,x,none,\n"),
      std::invalid_argument);
  const auto one = parse_xid_catalog(
      "code,name,cause,class,action,needs_person,note,mnemonic,immediate,investigatory,subcodes\n149,a,hardware,bus,x,reset,,M,I,V,P;Q\n");
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].subcodes, (std::vector<std::string>{"P", "Q"}));
}

// The catalog as NVIDIA published it when read (2026-12-06): the codes past 143, the NVLink5
// sub-codes, and both resolution buckets.
TEST(XidCatalog, TheNewCodesAreNamedAndBucketed) {
  const XidInfo* sw = xid_info(155);
  ASSERT_NE(sw, nullptr);
  EXPECT_EQ(sw->mnemonic, "NVLINK_SW_DEFINED_ERROR");
  EXPECT_EQ(sw->immediate, "RESET_GPU");
  EXPECT_EQ(sw->investigatory, "INVESTIGATE_SW_USER");
  EXPECT_EQ(sw->needs, XidNeeds::kReset);
  for (int c = 144; c <= 172; ++c) {
    const XidInfo* x = xid_info(c);
    ASSERT_NE(x, nullptr) << "Xid " << c << " is missing";
    EXPECT_FALSE(x->mnemonic.empty()) << c;
    if (c <= 161) {
      EXPECT_FALSE(x->immediate.empty()) << "Xid " << c << " has no immediate bucket";
    }
  }
  for (int c = 144; c <= 150; ++c) {
    EXPECT_EQ(xid_info(c)->immediate, "WORKFLOW_NVLINK5_ERR") << c;
    EXPECT_EQ(xid_info(c)->xid_class, "bus") << c;
    EXPECT_FALSE(xid_info(c)->subcodes.empty()) << "Xid " << c << " lists no sub-code";
  }
  const auto& netir = xid_info(149)->subcodes;
  EXPECT_NE(std::find(netir.begin(), netir.end(), "NETIR_LINK_DOWN"), netir.end());
  EXPECT_EQ(xid_info(158)->mnemonic, "GPU_FATAL_TIMEOUT");
  EXPECT_EQ(xid_info(158)->needs, XidNeeds::kReset);
  EXPECT_EQ(xid_info(157)->needs, XidNeeds::kRma) << "no repair is possible after a retirement failure";
  EXPECT_EQ(xid_info(154)->immediate, "XID_154");
  EXPECT_EQ(xid_info(154)->needs, XidNeeds::kPerLine);
  EXPECT_EQ(xid_info(143)->immediate, "RESET_GPU");
  EXPECT_EQ(xid_info(173), nullptr) << "Xid 173 could not be sourced: it is left out, not invented";
  // Every row names the catalog's buckets but where the catalog gives none (162-172).
  for (const auto& x : xid_catalog()) {
    EXPECT_FALSE(x.mnemonic.empty()) << x.code;
    if (x.code < 162) {
      EXPECT_FALSE(x.immediate.empty()) << x.code;
    }
  }
}

// Application Xids never mark the hardware unhealthy on their own, whatever the new rows add.
TEST(XidCatalog, ApplicationXidsStayApplication) {
  for (int c : {8, 13, 31, 43, 45, 94, 137}) {
    const XidInfo* x = xid_info(c);
    ASSERT_NE(x, nullptr) << c;
    EXPECT_EQ(x->xid_class, "application") << "Xid " << c;
    EXPECT_EQ(x->needs, XidNeeds::kNone) << "Xid " << c;
  }
  EXPECT_EQ(features::xid_class(std::int64_t{13}), features::XidClass::kApplication);
  EXPECT_EQ(features::xid_class(std::int64_t{94}), features::XidClass::kApplication);
  EXPECT_EQ(features::xid_class(std::int64_t{149}), features::XidClass::kBus);
  EXPECT_EQ(features::xid_class(std::int64_t{156}), features::XidClass::kMemoryEcc);
}

// Xid 38 and 109 were "other" before the catalog: they never counted as incidents.
TEST(XidCatalog, CodesBeyondTheClassicOnesCountAsIncidents) {
  TimelineBuilder b;
  const auto k = b.file("dmesg.txt", FormatId::dmesg);
  b.event(k, at(0), EventKind::xid, 38, "PCI:0000:01:00", "NVRM: Xid (PCI:0000:01:00): 38, Driver firmware error");
  b.event(k, at(1000), EventKind::xid, 109, "PCI:0000:01:00", "NVRM: Xid (PCI:0000:01:00): 109, errorString CTX SWITCH TIMEOUT");
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(host(fs, "maintenance_incidents"), 1));
  EXPECT_TRUE(has_value(host(fs, "application_xid_incidents"), 1));
  EXPECT_TRUE(has_value(host(fs, "xid_other_events"), 0));
  EXPECT_TRUE(has_value(host(fs, "xid_driver_firmware_events"), 1));
  EXPECT_TRUE(has_value(host(fs, "xid_application_events"), 1));
}

TEST(XidCatalog, Xid119IsAGspError) {
  TimelineBuilder b;
  const auto k = b.file("dmesg.txt", FormatId::dmesg);
  b.event(k, at(0), EventKind::xid, 119, "PCI:0000:01:00", "NVRM: Xid (PCI:0000:01:00): 119, Timeout after 6s of waiting for RPC response from GPU0 GSP!");
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(host(fs, "gsp_error_events"), 1));
}

}  // namespace
}  // namespace gpucost
