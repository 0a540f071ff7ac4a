// Issue 38: `gpucost analyze DIR` over real `nvidia-smi -L` pastes (tests/data/mig, sources in its
// SOURCES.md) lists each GPU's MIG devices in the JSON report (`gpus[].mig_devices`) and the table.
#include <gtest/gtest.h>
#include <simdjson.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "gpucost/align/timeline.hpp"
#include "gpucost/cost/from_logs.hpp"
#include "gpucost/ingest/detect.hpp"
#include "gpucost/ingest/format.hpp"
#include "gpucost/ingest/line_source.hpp"
#include "run_binary.hpp"

namespace fs = std::filesystem;
using gpucost::testing::run_gpucost;

namespace gpucost {
namespace {

fs::path mig_dir(const std::string& name, const std::string& fixture) {
  fs::path p = fs::temp_directory_path() / ("gpucost_mig_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(p);
  fs::create_directories(p);
  fs::copy_file(fs::path(GPUCOST_TEST_DATA) / "mig" / fixture, p / "nvidia-smi-L.txt");
  return p;
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(MigAnalyze, EveryRealListingIsDetectedAsNvidiaSmiList) {
  for (const char* f : {"smi-L-a100-80g-4x1g20gb-then-3-whole.txt", "smi-L-a100-80g-pcie-1x2g20gb.txt",
                        "smi-L-a100-80g-pcie-2x3g40gb-530.txt", "smi-L-a100-sxm4-80g-7x1g10gb-535.txt"}) {
    const std::string text = read(fs::path(GPUCOST_TEST_DATA) / "mig" / f);
    auto src = make_buffer_source(text, kDefaultMaxLineLength);
    EXPECT_EQ(detect_format(*src, "gpus.txt").format, FormatId::nvidia_smi_list) << f;
  }
}

TEST(MigAnalyze, TheJsonReportListsEachGpusMigDevices) {
  const fs::path d = mig_dir("mixed", "smi-L-a100-80g-4x1g20gb-then-3-whole.txt");
  auto r = run_gpucost({"analyze", d.string(), "--format", "json", "--no-timings", "--tz", "UTC"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element root = parser.parse(r.out);
  simdjson::dom::array gpus = root["gpus"];
  ASSERT_EQ(gpus.size(), 4u) << "four GPUs listed";
  std::size_t with_mig = 0;
  for (simdjson::dom::element g : gpus) {
    simdjson::dom::array mig;
    if (g["mig_devices"].get(mig) != simdjson::SUCCESS) continue;
    ++with_mig;
    EXPECT_EQ(int64_t(g["index"]), 0);
    EXPECT_EQ(std::string_view(g["name"]), "NVIDIA A100-SXM4-80GB");
    ASSERT_EQ(mig.size(), 4u);
    int64_t device = 0;
    for (simdjson::dom::element m : mig) {
      EXPECT_EQ(std::string_view(m["profile"]), "1g.20gb");
      EXPECT_EQ(int64_t(m["device"]), device++);
      EXPECT_EQ(double(m["memory_gb"]), 20.0);
      EXPECT_EQ(double(m["share"]), 0.25) << "20 of 80 GB: 2 of 8 memory slices";
      EXPECT_TRUE(m["gpu_instance"].is_null()) << "-L prints no GI id";
    }
    EXPECT_EQ(std::string_view(mig.at(0)["uuid"]), "MIG-ce861fb0-a248-58ce-a9a8-f9adbc22a66a");
  }
  EXPECT_EQ(with_mig, 1u) << "GPUs 1 to 3 run whole";
}

TEST(MigAnalyze, TheTableNamesTheMigDevices) {
  const fs::path d = mig_dir("seven", "smi-L-a100-sxm4-80g-7x1g10gb-535.txt");
  auto r = run_gpucost({"analyze", d.string(), "--tz", "UTC"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("MIG:   GPU 0 NVIDIA A100-SXM4-80GB: 7 MIG devices: 1g.10gb (device 0, share 0.125)"),
            std::string::npos)
      << r.out;
}

TEST(MigAnalyze, AStrayLineIsRejectedAndTheRestKept) {
  const std::string text =
      "GPU 0: NVIDIA A100 80GB PCIe (UUID: GPU-1)\n"
      "  MIG 3g.40gb     Device  0: (UUID: MIG-2)\n"
      "this is not nvidia-smi\n"
      "  MIG 3g.40gb     Device  1: (UUID: MIG-3)\n";
  const fs::path d = fs::temp_directory_path() / ("gpucost_mig_" + std::to_string(::getpid()) + "_stray");
  fs::remove_all(d);
  fs::create_directories(d);
  std::ofstream(d / "gpus.txt") << text;
  auto r = run_gpucost(
      {"analyze", d.string(), "--format", "json", "--no-timings", "--tz", "UTC", "--max-error-rate", "0.5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element root = parser.parse(r.out);
  EXPECT_EQ(int64_t(root["files"].at(0)["problems"]["unparsable_line"]), 1) << r.out.substr(0, 3000);
  simdjson::dom::array mig = root["gpus"].at(0)["mig_devices"];
  ASSERT_EQ(mig.size(), 2u);
  EXPECT_EQ(std::string_view(mig.at(1)["uuid"]), "MIG-3");
  EXPECT_EQ(double(mig.at(1)["share"]), 0.5) << "3g.40gb of 80 GB";
}

// A container that sees one MIG device (a real -L paste): the A100 80GB PCIe preset's price
// (12000 USD, data/local-gpus.csv) times the slice's share, 2g.20gb = 2 of 8 memory slices.
TEST(MigAnalyze, TheOnlyListedMigDeviceIsPricedAsItsShareOfTheGpu) {
  const fs::path d = mig_dir("one", "smi-L-a100-80g-pcie-1x2g20gb.txt");
  auto r = run_gpucost({"analyze", d.string(), "--format", "json", "--no-timings", "--tz", "UTC"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element root = parser.parse(r.out);
  simdjson::dom::element price = root["cost"]["inputs"]["local"]["purchase_price"];
  EXPECT_EQ(double(price["value"]), 3000.0);
  EXPECT_NE(std::string_view(price["note"]).find("priced as 0.25 of the GPU (memory slices of the profile)"),
            std::string_view::npos)
      << std::string_view(price["note"]);
  // Four slices listed: none is chosen, the whole GPU is priced.
  const fs::path four = mig_dir("four", "smi-L-a100-80g-4x1g20gb-then-3-whole.txt");
  auto whole = run_gpucost({"analyze", four.string(), "--format", "json", "--no-timings", "--tz", "UTC"});
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  simdjson::dom::element w = parser.parse(whole.out);
  EXPECT_EQ(double(w["cost"]["inputs"]["local"]["purchase_price"]["value"]), 12000.0);
  // The slice does a quarter of the GPU's work: the cloud's whole GPU does the same work 4 times
  // as fast (the cloud side of the slice, issue 38), where the whole GPU is compared at its ratio.
  const double whole_speed = double(w["cost"]["inputs"]["cloud"]["relative_speed"]["value"]);
  simdjson::dom::parser again;
  simdjson::dom::element one = again.parse(r.out);
  EXPECT_NEAR(double(one["cost"]["inputs"]["cloud"]["relative_speed"]["value"]), 4 * whole_speed, 1e-9 * whole_speed);
  EXPECT_NE(
      std::string_view(one["cost"]["inputs"]["cloud"]["relative_speed"]["note"]).find("/ 0.25 for the local MIG slice"),
      std::string_view::npos);
}

// The Xid line's layout is the quote (no real paste with `GPU-I:` was found).
TEST(MigAnalyze, AnXidOnAGpuInstanceNamesTheInstanceInTheReport) {
  const fs::path d = fs::temp_directory_path() / ("gpucost_mig_" + std::to_string(::getpid()) + "_xid");
  fs::remove_all(d);
  fs::create_directories(d);
  std::ofstream(d / "dmesg.txt")
      << "[  100.000000] NVRM: Xid (PCI:0000:4b:00 GPU-I:05): 43, pid=1234, name=python, Ch 00000008\n"
         "[  101.000000] NVRM: Xid (PCI:0000:4b:00): 43, pid=1235, name=python, Ch 00000009\n";
  auto r = run_gpucost({"analyze", d.string(), "--format", "json", "--no-timings", "--tz", "UTC"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element root = parser.parse(r.out);
  std::size_t xids = 0, on_instance = 0;
  for (simdjson::dom::element m : simdjson::dom::array(root["marks"]["items"])) {
    if (std::string_view(m["kind"]) != "xid") continue;
    ++xids;
    EXPECT_EQ(std::string_view(m["gpu"]), "0000:4b:00");
    int64_t gi = 0;
    if (m["gpu_instance"].get(gi) == simdjson::SUCCESS) {
      ++on_instance;
      EXPECT_EQ(gi, 5);
    }
  }
  EXPECT_EQ(xids, 2u);
  EXPECT_EQ(on_instance, 1u) << "only the first names a GPU instance";
  auto html = run_gpucost({"analyze", d.string(), "--format", "html", "--no-timings", "--tz", "UTC"});
  ASSERT_EQ(html.exit_code, 0) << html.err;
  EXPECT_NE(html.out.find("0000:4b:00 GPU instance 5"), std::string::npos);
}

// The nvidia-smi table and -q print no MIG UUID: three devices without one counted as one, and the
// GPU was priced as one slice. Such a device is its GPU, GI, CI and index; the same device read
// from two files is still one.
TEST(MigAnalyze, DevicesWithoutUuidsAreCountedByTheirInstances) {
  Timeline tl;
  GpuDevice gpu;
  gpu.index = 1;
  gpu.name = "NVIDIA A100 80G";
  for (int gi : {3, 5, 6}) {
    MigDevice m;
    m.device = static_cast<int>(gpu.mig_devices.size());
    m.gpu_instance = gi;
    m.compute_instance = 0;
    m.memory_gb = 19.5;
    m.share = 0.25;
    gpu.mig_devices.push_back(m);
  }
  tl.devices.push_back(gpu);
  EXPECT_FALSE(cost::mig_slice(tl).has_value());
  tl.devices[0].mig_devices.resize(1);
  tl.devices.push_back(tl.devices[0]);  // the same listing in a second file
  const auto slice = cost::mig_slice(tl);
  ASSERT_TRUE(slice.has_value());
  EXPECT_EQ(slice->share, 0.25);
  EXPECT_NE(slice->note.find("GPU instance 3 (no UUID printed)"), std::string::npos) << slice->note;
  EXPECT_NE(slice->note.find("its memory over the GPU's"), std::string::npos) << slice->note;
}

// Issue 38: a directory with both `nvidia-smi -L` (UUID, profile) and the nvidia-smi table (GI, CI,
// no UUID) listed each MIG device twice, so no slice was priced. Both print the GPU and the MIG
// device index: that is the device.
TEST(MigAnalyze, TheSameDeviceFromTheListAndTheTableIsOne) {
  Timeline tl;
  GpuDevice listed;  // nvidia-smi -L
  listed.index = 0;
  listed.name = "NVIDIA A100-SXM4-80GB";
  MigDevice l;
  l.device = 0;
  l.profile = "3g.40gb";
  l.uuid = "MIG-4e1b7d8e-2a6f-5c33-9d1e-0f3b2a1c4d5e";
  l.share = 0.5;
  listed.mig_devices.push_back(l);
  GpuDevice table;  // the nvidia-smi table's MIG devices block
  table.index = 0;
  table.name = "NVIDIA A100-SXM4-80GB";
  MigDevice t;
  t.device = 0;
  t.gpu_instance = 1;
  t.compute_instance = 0;
  t.share = 0.5;
  table.mig_devices.push_back(t);
  tl.devices = {listed, table};
  const auto slice = cost::mig_slice(tl);
  ASSERT_TRUE(slice.has_value());
  EXPECT_EQ(slice->share, 0.5);
  // A second device in either listing is a second device: no single slice.
  MigDevice other = t;
  other.device = 1;
  other.gpu_instance = 2;
  tl.devices[1].mig_devices.push_back(other);
  EXPECT_FALSE(cost::mig_slice(tl).has_value());
}

}  // namespace
}  // namespace gpucost
