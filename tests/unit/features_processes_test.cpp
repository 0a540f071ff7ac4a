// ps snapshots (CPU and memory contention, desktop GPU clients, D state, WSL2) and nvidia-smi pmon
// (processes sharing each GPU).
#include <gtest/gtest.h>

#include "features/compute.hpp"
#include "timeline_builder.hpp"

namespace gpucost {
namespace {

using namespace test;
using M = GpuMetric;

Timeline two_snapshots() {
  TimelineBuilder b;
  const auto f = b.file("ps.txt", FormatId::ps);
  b.process(f, at(0), 0, 1, 0.0, 0.1, "/sbin/init", "Ss");
  b.process(f, at(0), 0, 100, 95, 20, "python train.py --epochs 10", "R");
  b.process(f, at(0), 0, 200, 5, 1, "/usr/lib/xorg/Xorg :0 -seat seat0", "Ssl");
  b.process(f, at(0), 0, 300, 12, 3, "/opt/google/chrome/chrome --type=gpu-process", "Sl");
  b.process(f, at(0), 0, 400, 0, 0, "[nvidia-modeset/kthread_q]", "D");
  b.process(f, at(60), 1, 1, 0.0, 0.1, "/sbin/init", "Ss");
  b.process(f, at(60), 1, 100, 99, 21, "python train.py --epochs 10", "R");
  b.process(f, at(60), 1, 500, 30, 5, "code --type=renderer", "Sl");
  return b.build();
}

TEST(FeaturesProcesses, PsSnapshotFigures) {
  const FeatureSet fs = run_features(two_snapshots());
  EXPECT_TRUE(has_value(host(fs, "ps_snapshots"), 2));
  EXPECT_TRUE(has_value(host(fs, "cpu_load_pct_mean"), (112 + 129) / 2.0));
  EXPECT_TRUE(has_value(host(fs, "cpu_competing_pct_mean"), (17 + 30) / 2.0));
  EXPECT_TRUE(has_value(host(fs, "ps_busy_processes_mean"), 2));
  EXPECT_TRUE(has_value(host(fs, "mem_used_pct_mean"), (24.1 + 26.1) / 2));
  EXPECT_TRUE(has_value(host(fs, "desktop_gpu_clients_max"), 2));  // Xorg and chrome
  EXPECT_TRUE(has_value(host(fs, "ps_uninterruptible_max"), 1));
  EXPECT_TRUE(has_value(host(fs, "wsl2_host"), 0));
  EXPECT_EQ(host(fs, "ps_snapshots").evidence, "2 ps snapshots; first ps.txt:1");
}

TEST(FeaturesProcesses, DesktopClientsByProgramName) {
  using features::is_desktop_gpu_client;
  EXPECT_TRUE(is_desktop_gpu_client("/usr/bin/gnome-shell"));
  EXPECT_TRUE(is_desktop_gpu_client("/usr/lib/firefox/firefox -contentproc -childID 1"));
  EXPECT_TRUE(is_desktop_gpu_client("Xwayland :0 -rootless"));
  EXPECT_FALSE(is_desktop_gpu_client("python train.py --browser chrome"));
  EXPECT_FALSE(is_desktop_gpu_client("/usr/bin/chromedriver"));
  EXPECT_FALSE(is_desktop_gpu_client(""));
}

TEST(FeaturesProcesses, Wsl2FromPsOrBootMessage) {
  TimelineBuilder ps;
  ps.process(ps.file("ps.txt", FormatId::ps), at(0), 0, 1, 0.0, 0.0, "/init", "Sl");
  EXPECT_TRUE(has_value(host(run_features(ps.build()), "wsl2_host"), 1));

  TimelineBuilder k;
  k.event(k.file("dmesg.txt", FormatId::dmesg), at(0), EventKind::boot, {}, {},
          "Linux version 5.15.133.1-microsoft-standard-WSL2 (root@1c602f52c2e4) (gcc (GCC) 11.2.0)");
  EXPECT_TRUE(has_value(host(run_features(k.build()), "wsl2_host"), 1));

  TimelineBuilder plain;
  plain.event(plain.file("dmesg.txt", FormatId::dmesg), at(0), EventKind::boot, {}, {},
              "Linux version 6.1.0-18-amd64 (debian-kernel@lists.debian.org)");
  EXPECT_TRUE(has_value(host(run_features(plain.build()), "wsl2_host"), 0));

  TimelineBuilder none;
  none.samples(none.file("dmon.txt", FormatId::dmon), 0, 3, 0, {{M::sm_pct, 1}});
  EXPECT_TRUE(is_null_with(host(run_features(none.build()), "wsl2_host"), "no kernel log and no ps"));
}

TEST(FeaturesProcesses, NoPsIsNull) {
  TimelineBuilder b;
  b.file("dmesg.txt", FormatId::dmesg);
  const FeatureSet fs = run_features(b.build());
  for (auto name : {"ps_snapshots", "cpu_load_pct_mean", "cpu_competing_pct_mean",
                    "ps_busy_processes_mean", "mem_used_pct_mean", "desktop_gpu_clients_max", "ps_uninterruptible_max"})
    EXPECT_TRUE(is_null_with(host(fs, name), "no ps snapshots")) << name;
  for (auto name : {"gpu_processes_mean", "gpu_processes_max", "gpu_competing_processes_mean", "gpu_top_process_sm_share"})
    EXPECT_TRUE(is_null_with(host(fs, name), "no nvidia-smi pmon")) << name;
}

TEST(FeaturesProcesses, PmonPerGpuAndHost) {
  TimelineBuilder b;
  const auto d = b.file("dmon.txt", FormatId::dmon);
  b.samples(d, 0, 2, 0, {{M::sm_pct, 90}}).samples(d, 0, 2, 1, {{M::sm_pct, 50}});
  const auto p = b.file("pmon.txt", FormatId::pmon);
  b.process(p, at(0), 0, 100, std::nullopt, std::nullopt, "python", "", 0, 80);
  b.process(p, at(0), 0, 100, std::nullopt, std::nullopt, "python", "", 0, std::nullopt);  // same pid again
  b.process(p, at(0), 0, 200, std::nullopt, std::nullopt, "Xorg", "", 0, 10);
  b.process(p, at(0), 0, 300, std::nullopt, std::nullopt, "python", "", 1, 50);
  b.process(p, at(1), 1, 100, std::nullopt, std::nullopt, "python", "", 0, 70);
  b.process(p, at(1), 1, 300, std::nullopt, std::nullopt, "python", "", 1, 0);
  b.process(p, at(1), 1, 400, std::nullopt, std::nullopt, "firefox", "", 1, 20);
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "gpu_processes_mean"), 1.5));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "gpu_processes_max"), 2));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "gpu_competing_processes_mean"), 0.5));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "gpu_top_process_sm_share"), 150.0 / 160));
  EXPECT_TRUE(has_value(of_gpu(fs, 1, "gpu_top_process_sm_share"), 1));
  EXPECT_TRUE(has_value(host(fs, "gpu_processes_mean"), 1.5));
  EXPECT_TRUE(has_value(host(fs, "gpu_competing_processes_mean"), 0.5));
  EXPECT_TRUE(has_value(host(fs, "gpu_top_process_sm_share"), 220.0 / 230));
  // pmon present, ps absent: the ps features stay null.
  EXPECT_TRUE(is_null_with(host(fs, "ps_snapshots"), "no ps snapshots"));
}

}  // namespace
}  // namespace gpucost
