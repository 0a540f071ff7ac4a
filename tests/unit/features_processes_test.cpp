// ps snapshots (CPU and memory contention, desktop GPU clients, D state, WSL2) and nvidia-smi pmon
// (processes sharing each GPU).
#include <gtest/gtest.h>

#include <numeric>
#include <tuple>

#include "features/compute.hpp"
#include "features/context.hpp"
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

// The process groups, as the plain definition makes them: row indexes stably sorted by
// (pmon?, file, snapshot, gpu), then cut where the key changes.
struct Grouping {
  std::vector<std::uint32_t> order;
  std::vector<std::tuple<std::uint32_t, std::uint32_t, int>> ps, pmon;
};

Grouping groups_by_definition(const Table& p) {
  auto key = [&](std::uint32_t r) {
    const Column& g = p.column(process_col::gpu);
    const Column& s = p.column(process_col::snapshot);
    return std::tuple(g.is_valid(r), p.column(process_col::file).get_int(r), s.is_valid(r) ? s.get_int(r) : -1,
                      g.is_valid(r) ? g.get_int(r) : -1);
  };
  Grouping out;
  out.order.resize(p.rows());
  std::iota(out.order.begin(), out.order.end(), 0u);
  std::stable_sort(out.order.begin(), out.order.end(), [&](auto a, auto b) { return key(a) < key(b); });
  for (std::uint32_t i = 0, j; i < out.order.size(); i = j) {
    for (j = i + 1; j < out.order.size() && key(out.order[j]) == key(out.order[i]);) ++j;
    const auto k = key(out.order[i]);
    if (std::get<0>(k)) out.pmon.emplace_back(i, j, static_cast<int>(std::get<3>(k)));
    else out.ps.emplace_back(i, j, -1);
  }
  return out;
}

Grouping groups_of(const features::FeatureContext& ctx) {
  Grouping out;
  for (std::size_t i = 0; i < ctx.process_order.size(); ++i) out.order.push_back(ctx.process_order[i]);
  for (const auto& g : ctx.ps_groups) out.ps.emplace_back(g.begin, g.end, g.gpu);
  for (const auto& g : ctx.pmon_groups) out.pmon.emplace_back(g.begin, g.end, g.gpu);
  return out;
}

// Rows in key order are grouped in one pass, rows out of it are sorted first; ps-only and mixed
// tables alike, on one thread or beside the rest of the context (100 000 rows and more): the
// groups are always those of the definition.
TEST(FeaturesProcesses, GroupsAreThoseOfTheDefinitionInOrderOrNotOnAnyThreads) {
  struct Case {
    const char* name;
    bool interleave_files, with_pmon;
  };
  for (const Case c : {Case{"in order", false, false}, Case{"two ps files interleaved", true, false},
                       Case{"ps and pmon", false, true}, Case{"all of it", true, true}}) {
    for (const int snapshots : {3, 1'000}) {
      TimelineBuilder b;
      const auto f0 = b.file("ps-a.txt", FormatId::ps), f1 = b.file("ps-b.txt", FormatId::ps);
      const auto pm = b.file("pmon.log", FormatId::pmon);
      for (int s = 0; s < snapshots; ++s) {
        // The builder orders rows by (time, snapshot, pid): a second file's snapshots taken
        // between the first one's put the files' rows out of key order.
        for (int pid = 1; pid <= 100; ++pid) b.process(f0, at(2 * s), s, pid, 1, 1, "cmd");
        if (c.interleave_files)
          for (int pid = 1; pid <= 3; ++pid) b.process(f1, at(2 * s + 1), s, pid, 1, 1, "cmd");
        if (c.with_pmon)
          for (int gpu = 0; gpu < 2; ++gpu) b.process(pm, at(2 * s), s, 50 + gpu, {}, {}, "python", "", gpu, 90.0);
      }
      const Timeline t = b.build();
      const Grouping want = groups_by_definition(t.processes);
      for (const unsigned threads : {1u, 2u}) {
        const features::FeatureContext ctx(t, FeatureOptions{}, threads);
        const Grouping got = groups_of(ctx);
        SCOPED_TRACE(testing::Message() << c.name << ", " << t.processes.rows() << " rows, threads " << threads);
        EXPECT_EQ(got.order, want.order);
        EXPECT_EQ(got.ps, want.ps);
        EXPECT_EQ(got.pmon, want.pmon);
        EXPECT_EQ(got.ps.size(), static_cast<std::size_t>(snapshots) * (c.interleave_files ? 2 : 1));
      }
    }
  }
}

}  // namespace
}  // namespace gpucost
