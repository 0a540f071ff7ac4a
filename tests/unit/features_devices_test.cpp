// What nvidia-smi -q says about each GPU: PCIe link (x8 instead of x16), limits, memory.
#include <gtest/gtest.h>

#include "timeline_builder.hpp"

namespace gpucost {
namespace {

using namespace test;
using M = GpuMetric;

GpuDevice device(int index, int width, int width_max, int gen, int gen_max) {
  GpuDevice d;
  d.index = index;
  d.pcie_width_current = width;
  d.pcie_width_max = width_max;
  d.pcie_gen_current = gen;
  d.pcie_gen_max = gen_max;
  d.power_limit_w = index == 0 ? 115 : 450;
  d.memory_total_mib = index == 0 ? 8188 : 24564;
  return d;
}

TEST(FeaturesDevices, PcieLinkPerGpuAndTheWorstForTheHost) {
  TimelineBuilder b;
  b.file("nvidia-smi-q.txt", FormatId::nvidia_smi_q);
  b.device(device(0, 8, 16, 4, 4)).device(device(1, 16, 16, 3, 4));
  const FeatureSet fs = run_features(b.build());
  ASSERT_EQ(fs.gpus, (std::vector<int>{0, 1}));  // devices with an index are GPUs even without samples
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "pcie_link_width"), 8));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "pcie_link_width_max"), 16));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "pcie_link_width_ratio"), 0.5));
  EXPECT_TRUE(has_value(of_gpu(fs, 1, "pcie_link_width_ratio"), 1));
  EXPECT_TRUE(has_value(of_gpu(fs, 1, "pcie_link_gen"), 3));
  EXPECT_TRUE(has_value(host(fs, "pcie_link_width"), 8));
  EXPECT_TRUE(has_value(host(fs, "pcie_link_width_max"), 16));
  EXPECT_TRUE(has_value(host(fs, "pcie_link_width_ratio"), 0.5));
  EXPECT_TRUE(has_value(host(fs, "pcie_link_gen"), 3));
  EXPECT_TRUE(has_value(host(fs, "pcie_link_gen_max"), 4));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "gpu_power_limit_w"), 115));
  EXPECT_TRUE(has_value(host(fs, "gpu_power_limit_w"), 565));
  EXPECT_TRUE(has_value(host(fs, "gpu_memory_total_mib"), 8188 + 24564));
  EXPECT_TRUE(has_value(host(fs, "gpu_count"), 2));
  EXPECT_EQ(host(fs, "pcie_link_width").evidence, "2 GPU(s); lowest from nvidia-smi-q.txt:0");
}

TEST(FeaturesDevices, UnindexedDevicesCountForTheHost) {
  TimelineBuilder b;
  b.file("nvidia-smi-q.txt", FormatId::nvidia_smi_q);
  GpuDevice d = device(0, 8, 16, 4, 4);
  d.index.reset();
  b.device(d);
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(fs.gpus.empty());
  EXPECT_TRUE(has_value(host(fs, "pcie_link_width_ratio"), 0.5));
  EXPECT_TRUE(has_value(host(fs, "gpu_count"), 1));
}

TEST(FeaturesDevices, MissingReportIsNull) {
  TimelineBuilder b;
  b.samples(b.file("dmon.txt", FormatId::dmon), 0, 3, 0, {{M::sm_pct, 50}});
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(is_null_with(host(fs, "pcie_link_width"), "nvidia-smi -q"));
  EXPECT_TRUE(is_null_with(of_gpu(fs, 0, "pcie_link_width_ratio"), "nvidia-smi -q"));
  EXPECT_TRUE(is_null_with(host(fs, "gpu_power_limit_w"), "power limit"));
  EXPECT_TRUE(is_null_with(host(fs, "gpu_memory_total_mib"), "total memory"));
  EXPECT_TRUE(is_null_with(host(run_features(TimelineBuilder().build()), "pcie_link_gen"), "no nvidia-smi -q report"));
}

}  // namespace
}  // namespace gpucost
