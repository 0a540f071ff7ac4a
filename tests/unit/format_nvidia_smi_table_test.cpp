// The `nvidia-smi` table (format nvidia_smi_table): real pastes in tests/data/mig (SOURCES.md),
// and the wider layout of R530 and later.
#include <gtest/gtest.h>

#include <string>

#include "kernel_fixture.hpp"

namespace gpucost {
namespace {

using testing::parse_text;
using testing::read_test_file;

TEST(NvidiaSmiTable, TheGpuRowsOfARealR520PasteAreTwoGpusWithCapAndMemory) {
  const auto p = parse_text(read_test_file("mig/smi-table-gpus-mig-enabled-a100-520-excerpt.txt"), "nvidia-smi.txt");
  EXPECT_EQ(p.file().format, FormatId::nvidia_smi_table);
  EXPECT_EQ(p.file().rejected(), 0u);
  ASSERT_EQ(p.out.devices.size(), 2u);
  const GpuDevice& g0 = p.out.devices[0];
  EXPECT_EQ(g0.index, 0);
  EXPECT_EQ(g0.name, "NVIDIA A100 80G");  // nvidia-smi cut the name: `NVIDIA A100 80G...`
  EXPECT_EQ(g0.pci_bus, "0000:31:00");
  EXPECT_EQ(g0.driver_version, "520.61.05");
  EXPECT_EQ(g0.power_limit_w, 300.0);
  EXPECT_EQ(g0.memory_total_mib, 81920.0);
  EXPECT_EQ(p.out.devices[1].index, 1);
  EXPECT_EQ(p.out.devices[1].pci_bus, normalize_pci_bus("00000000:B1:00.0"));
  EXPECT_TRUE(g0.mig_devices.empty());
}

TEST(NvidiaSmiTable, TheMigDevicesBlockListsEachDeviceWithItsInstances) {
  const auto p = parse_text(read_test_file("mig/smi-table-mig-devices-block-a100-excerpt.txt"), "nvidia-smi.txt");
  EXPECT_EQ(p.file().format, FormatId::nvidia_smi_table);
  EXPECT_EQ(p.file().rejected(), 0u);
  ASSERT_EQ(p.out.devices.size(), 1u);
  const GpuDevice& g = p.out.devices[0];
  EXPECT_EQ(g.index, 1);
  ASSERT_EQ(g.mig_devices.size(), 3u);
  EXPECT_EQ(g.mig_devices[0].device, 0);
  EXPECT_EQ(g.mig_devices[0].gpu_instance, 3);
  EXPECT_EQ(g.mig_devices[0].compute_instance, 0);
  EXPECT_DOUBLE_EQ(g.mig_devices[0].memory_gb, 19968.0 / 1024);
  EXPECT_EQ(g.mig_devices[1].gpu_instance, 5);
  EXPECT_EQ(g.mig_devices[2].gpu_instance, 6);
  EXPECT_EQ(g.mig_devices[2].device, 2);
  // The excerpt has no GPU row: the GPU's memory, and so the share, is unknown.
  EXPECT_FALSE(g.mig_devices[0].share.has_value());
  EXPECT_TRUE(g.mig_devices[0].profile.empty());
}

TEST(NvidiaSmiTable, AWholeTableGivesEachMigDeviceItsShareOfTheGpu) {
  // The clock line nvidia-smi prints first, then the GPU rows, the MIG devices and the processes.
  std::string table = "Thu Feb  2 10:11:12 2023       \n";
  table += read_test_file("mig/smi-table-gpus-mig-enabled-a100-520-excerpt.txt");
  table += "+-------------------------------+----------------------+----------------------+\n\n";
  table += read_test_file("mig/smi-table-mig-devices-block-a100-excerpt.txt");
  table += "\n";
  table += read_test_file("mig/smi-table-processes-gi-ci-a100-excerpt.txt");
  const auto p = parse_text(table, "nvidia-smi.txt");
  EXPECT_EQ(p.file().format, FormatId::nvidia_smi_table);
  EXPECT_EQ(p.file().rejected(), 0u);
  // A blank line is counted blank, never accepted too (the fuzz smoke run found it).
  EXPECT_LE(p.file().accepted + p.file().blank, p.file().lines);
  EXPECT_GT(p.file().blank, 0u);
  ASSERT_EQ(p.out.devices.size(), 2u);
  const GpuDevice& g1 = p.out.devices[1];
  EXPECT_EQ(g1.index, 1);
  ASSERT_EQ(g1.mig_devices.size(), 3u);
  // 19968 of 81920 MiB: 1.95 of the 8 memory slices, so 2 eighths.
  EXPECT_EQ(g1.mig_devices[0].share, 0.25);
  EXPECT_TRUE(p.out.devices[0].mig_devices.empty());
}

// The R530+ layout: wider name cell, the persistence mode right-aligned, `Off` after the bus id.
TEST(NvidiaSmiTable, TheWiderLayoutOfNewerDriversIsRead) {
  const std::string table =
      "Wed Jul 31 07:38:40 2024\n"
      "+---------------------------------------------------------------------------------------+\n"
      "| NVIDIA-SMI 535.183.01             Driver Version: 535.183.01   CUDA Version: 12.2     |\n"
      "|-----------------------------------------+----------------------+----------------------+\n"
      "| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
      "| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |\n"
      "|                                         |                      |               MIG M. |\n"
      "|=========================================+======================+======================|\n"
      "|   0  NVIDIA GeForce RTX 4090        Off | 00000000:01:00.0 Off |                  Off |\n"
      "|  0%   37C    P8              21W / 450W |    355MiB / 24564MiB |      0%      Default |\n"
      "|                                         |                      |                  N/A |\n"
      "+-----------------------------------------+----------------------+----------------------+\n"
      "\n"
      "+---------------------------------------------------------------------------------------+\n"
      "| Processes:                                                                            |\n"
      "|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |\n"
      "|        ID   ID                                                             Usage      |\n"
      "|=======================================================================================|\n"
      "|    0   N/A  N/A      1949      G   /usr/lib/xorg/Xorg                          205MiB |\n"
      "+---------------------------------------------------------------------------------------+\n";
  const auto p = parse_text(table, "gpu.txt");
  EXPECT_EQ(p.file().format, FormatId::nvidia_smi_table);
  EXPECT_EQ(p.file().rejected(), 0u);
  ASSERT_EQ(p.out.devices.size(), 1u);
  EXPECT_EQ(p.out.devices[0].name, "NVIDIA GeForce RTX 4090");
  EXPECT_EQ(p.out.devices[0].pci_bus, "0000:01:00");
  EXPECT_EQ(p.out.devices[0].power_limit_w, 450.0);
  EXPECT_EQ(p.out.devices[0].memory_total_mib, 24564.0);
  EXPECT_EQ(p.out.devices[0].driver_version, "535.183.01");
}

TEST(NvidiaSmiTable, ALineOutsideTheTableIsRejectedAndTheRestKept) {
  std::string table = read_test_file("mig/smi-table-gpus-mig-enabled-a100-520-excerpt.txt");
  table.insert(table.find("|   1  NVIDIA"), "this GPU keeps crashing, see below\n");
  const auto p = parse_text(table, "nvidia-smi.txt", FormatId::nvidia_smi_table);
  EXPECT_EQ(p.file().rejected(), 1u);
  EXPECT_EQ(p.out.devices.size(), 2u);
}

}  // namespace
}  // namespace gpucost
