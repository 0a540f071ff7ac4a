// Issue 38: the MIG devices of real `nvidia-smi -L` pastes (tests/data/mig, sources in its
// SOURCES.md), each with its profile, ids, UUID and share of its GPU.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "ingest/formats/nvidia_smi_mig.hpp"

namespace gpucost::ingest {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(GPUCOST_TEST_DATA) + "/mig/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(MigListing, OnlyTheMigGpuOfAMixedNodeHasDevices) {
  const auto t = fixture("smi-L-a100-80g-4x1g20gb-then-3-whole.txt");
  ASSERT_FALSE(t.empty());
  const auto v = parse_mig_listing(t);
  ASSERT_EQ(v.size(), 4u) << "GPUs 1-3 are whole: no MIG devices";
  for (std::size_t i = 0; i < v.size(); ++i) {
    EXPECT_EQ(v[i].gpu, 0);
    EXPECT_EQ(v[i].device, static_cast<int>(i));
    EXPECT_EQ(v[i].profile, "1g.20gb");
    EXPECT_EQ(v[i].compute_slices, 1);
    EXPECT_EQ(v[i].memory_gb, 20);
    ASSERT_TRUE(v[i].share);
    EXPECT_DOUBLE_EQ(*v[i].share, 0.25) << "20 GB of 80 GB: 2 of 8 memory slices";
  }
  EXPECT_EQ(v[0].gpu_uuid, "GPU-513536b6-7d19-9063-b049-1e69664bb298");
  EXPECT_EQ(v[0].gpu_name, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(v[3].uuid, "MIG-930574a9-d43a-5d2b-95da-3e68384c8d6b");
}

TEST(MigListing, EveryProfileOfTheRealPastes) {
  const auto half = parse_mig_listing(fixture("smi-L-a100-80g-pcie-2x3g40gb-530.txt"));
  ASSERT_EQ(half.size(), 2u);
  EXPECT_EQ(half[1].profile, "3g.40gb");
  EXPECT_EQ(half[1].compute_slices, 3);
  EXPECT_EQ(half[1].uuid, "MIG-3adbed3a-d03d-549f-a016-ba1fd7359f23");
  EXPECT_DOUBLE_EQ(half[1].share.value_or(-1), 0.5);
  EXPECT_EQ(half[0].gpu_name, "NVIDIA A100 80GB PCIe");

  const auto one = parse_mig_listing(fixture("smi-L-a100-80g-pcie-1x2g20gb.txt"));
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].profile, "2g.20gb");
  EXPECT_DOUBLE_EQ(one[0].share.value_or(-1), 0.25);

  const auto seven = parse_mig_listing(fixture("smi-L-a100-sxm4-80g-7x1g10gb-535.txt"));
  ASSERT_EQ(seven.size(), 7u);
  double sum = 0;
  for (const auto& d : seven) sum += d.share.value_or(0);
  EXPECT_DOUBLE_EQ(sum, 7.0 / 8) << "7 x 1g.10gb take 7 of the 8 memory slices";
  EXPECT_EQ(seven[6].device, 6);
  EXPECT_EQ(seven[6].uuid, "MIG-1aae4990-b962-574e-8375-119d6d9b9687");
}

TEST(MigListing, AGpuNameWithoutMemoryGivesNoShare) {
  const auto v =
      parse_mig_listing("GPU 0: NVIDIA H100 (UUID: GPU-1)\n  MIG 1g.10gb     Device  0: (UUID: MIG-2)\nnot a line\n");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_FALSE(v[0].share) << "the share is stated only where the GPU's memory is known";
  EXPECT_EQ(v[0].memory_gb, 10);
  EXPECT_TRUE(parse_mig_listing("  MIG 1g.10gb     Device  0: (UUID: MIG-2)\n").empty()) << "no GPU line first";
}

}  // namespace
}  // namespace gpucost::ingest
