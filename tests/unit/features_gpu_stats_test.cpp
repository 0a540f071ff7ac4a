// GPU sample statistics, checked against values computed by hand from small timelines.
#include <gtest/gtest.h>

#include "timeline_builder.hpp"

namespace gpucost {
namespace {

using namespace test;
using M = GpuMetric;

// GPU 0: 10 rows, 1 s apart; GPU 1: 4 rows, 2 s apart. Values chosen to be summed by hand:
//   GPU 0 sm    0 0 50 100 100  3  80  90 10  5   (sum 438)
//         pwr  20 20 100 150 150 25 120 130 40 30   (sum 785)
//         temp 60 62 70  80  85  79  78  77 81 65   (sum 737)
//   GPU 1 sm   100 0 60 100, pwr 200 50 150 250, temp 90 70 75 95 (at 0, 2, 4, 6 s)
Timeline two_gpus() {
  TimelineBuilder b;
  const auto f = b.file("dmon.txt", FormatId::dmon);
  const double sm0[] = {0, 0, 50, 100, 100, 3, 80, 90, 10, 5};
  const double pw0[] = {20, 20, 100, 150, 150, 25, 120, 130, 40, 30};
  const double t0[] = {60, 62, 70, 80, 85, 79, 78, 77, 81, 65};
  for (int i = 0; i < 10; ++i)
    b.sample(f, at(i), 0, {{M::sm_pct, sm0[i]}, {M::power_w, pw0[i]}, {M::gpu_temp_c, t0[i]}});
  const double sm1[] = {100, 0, 60, 100}, pw1[] = {200, 50, 150, 250}, t1[] = {90, 70, 75, 95};
  for (int i = 0; i < 4; ++i)
    b.sample(f, at(2 * i), 1, {{M::sm_pct, sm1[i]}, {M::power_w, pw1[i]}, {M::gpu_temp_c, t1[i]}}, 2 * kNsPerSec);
  return b.build();
}

TEST(FeaturesGpuStats, ContractFeaturesPerGpuAndHost) {
  const FeatureSet fs = run_features(two_gpus());
  ASSERT_EQ(fs.gpus, (std::vector<int>{0, 1}));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "gpu_samples"), 10));
  EXPECT_TRUE(has_value(of_gpu(fs, 1, "gpu_samples"), 4));
  EXPECT_TRUE(has_value(host(fs, "gpu_samples"), 14));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "gpu_sampled_s"), 10));
  EXPECT_TRUE(has_value(of_gpu(fs, 1, "gpu_sampled_s"), 8));
  EXPECT_TRUE(has_value(host(fs, "gpu_sampled_s"), 10));  // union of [0,10) and [0,8)
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "gpu_util_mean_pct"), 43.8));
  EXPECT_TRUE(has_value(of_gpu(fs, 1, "gpu_util_mean_pct"), 65));
  EXPECT_TRUE(has_value(host(fs, "gpu_util_mean_pct"), 698.0 / 14));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "gpu_idle_fraction"), 0.4));  // 0, 0, 3, 5
  EXPECT_TRUE(has_value(of_gpu(fs, 1, "gpu_idle_fraction"), 0.25));
  EXPECT_TRUE(has_value(host(fs, "F002"), 5.0 / 14));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "gpu_power_mean_w"), 78.5));
  EXPECT_TRUE(has_value(of_gpu(fs, 1, "gpu_power_mean_w"), 162.5));
  EXPECT_TRUE(has_value(host(fs, "gpu_power_mean_w"), 1435.0 / 14));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "gpu_energy_kwh"), 785 / 3.6e6));
  EXPECT_TRUE(has_value(of_gpu(fs, 1, "gpu_energy_kwh"), 1300 / 3.6e6));
  EXPECT_TRUE(has_value(host(fs, "gpu_energy_kwh"), 2085 / 3.6e6));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "gpu_temp_max_c"), 85));
  EXPECT_TRUE(has_value(host(fs, "gpu_temp_max_c"), 95));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "gpu_time_above_temp_s"), 4));  // 80 85 79 81; 78 is not above
  EXPECT_TRUE(has_value(of_gpu(fs, 1, "gpu_time_above_temp_s"), 4));  // 90 95, 2 s each
  EXPECT_TRUE(has_value(host(fs, "gpu_time_above_temp_s"), 8));
  EXPECT_EQ(host(fs, "gpu_samples").evidence, "14 rows; first dmon.txt:1");
}

TEST(FeaturesGpuStats, ThresholdOptionsChangeIdleAndHot) {
  FeatureOptions o;
  o.idle_threshold_pct = 10;
  o.temp_threshold_c = 80;
  const FeatureSet fs = run_features(two_gpus(), o);
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "gpu_idle_fraction"), 0.5));  // + the row at 10 %
  EXPECT_TRUE(has_value(host(fs, "gpu_idle_fraction"), 6.0 / 14));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "gpu_time_above_temp_s"), 2));  // 85, 81
  EXPECT_TRUE(has_value(host(fs, "gpu_time_above_temp_s"), 6));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "gpu_busy_s"), 5));
  EXPECT_EQ(fs.options.idle_threshold_pct, 10);
}

// Issue 14: clock efficiency under load (it replaces the video-encoder mean): busy rows only, each
// against its own GPU's highest clock, so an idle 300 MHz row and GPUs of different models do not
// distort it.
TEST(FeaturesGpuStats, ClockEfficiencyUnderLoad) {
  TimelineBuilder b;
  const auto f = b.file("dmon.txt", FormatId::dmon);
  const double sm0[] = {0, 90, 90, 90}, pclk0[] = {300, 2000, 1800, 1600};
  for (int i = 0; i < 4; ++i) b.sample(f, at(i), 0, {{M::sm_pct, sm0[i]}, {M::pclk_mhz, pclk0[i]}});
  b.sample(f, at(0), 1, {{M::sm_pct, 50}, {M::pclk_mhz, 1000}});
  b.sample(f, at(1), 1, {{M::sm_pct, 50}, {M::pclk_mhz, 500}});
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "gpu_busy_clock_ratio"), (1 + 0.9 + 0.8) / 3));
  EXPECT_TRUE(has_value(of_gpu(fs, 1, "gpu_busy_clock_ratio"), 0.75));
  EXPECT_TRUE(has_value(host(fs, "gpu_busy_clock_ratio"), (2.7 + 1.5) / 5));
  EXPECT_NE(host(fs, "gpu_busy_clock_ratio").evidence.find("highest clocks 1000-2000 MHz"), std::string::npos)
      << host(fs, "gpu_busy_clock_ratio").evidence;
  // No clock column: null with the reason.
  EXPECT_TRUE(is_null_with(of_gpu(run_features(two_gpus()), 0, "gpu_busy_clock_ratio"), "no sample of GPU 0 reports pclk_mhz"));
}

// Issue 14: SM utilization while busy (it replaces a 95th percentile of the same column, 100 on
// both GPUs here): the idle rows that F002 counts stay out.
TEST(FeaturesGpuStats, UtilizationWhileBusy) {
  const FeatureSet fs = run_features(two_gpus());
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "gpu_util_busy_mean_pct"), 430.0 / 6));  // 50 100 100 80 90 10
  EXPECT_TRUE(has_value(of_gpu(fs, 1, "gpu_util_busy_mean_pct"), 260.0 / 3));  // 100 60 100
  EXPECT_TRUE(has_value(host(fs, "gpu_util_busy_mean_pct"), 690.0 / 9));
  EXPECT_EQ(of_gpu(fs, 0, "gpu_util_busy_mean_pct").evidence.rfind("6 busy rows", 0), 0u)
      << of_gpu(fs, 0, "gpu_util_busy_mean_pct").evidence;
  FeatureOptions o;
  o.idle_threshold_pct = 10;  // the row at 10 % is idle now
  EXPECT_TRUE(has_value(of_gpu(run_features(two_gpus(), o), 0, "gpu_util_busy_mean_pct"), 84));
  o.idle_threshold_pct = 100;  // nothing is busy
  EXPECT_TRUE(is_null_with(of_gpu(run_features(two_gpus(), o), 0, "gpu_util_busy_mean_pct"), "no busy rows"));
  // The memory controller over the same busy rows: GPU 0 mem 10 20 30 40 50 60 70 80 90 100 at
  // sm 0 0 50 100 100 3 80 90 10 5 -> rows 3, 4, 5, 7, 8, 9.
  TimelineBuilder b;
  const auto f = b.file("dmon.txt", FormatId::dmon);
  const double sm0[] = {0, 0, 50, 100, 100, 3, 80, 90, 10, 5};
  for (int i = 0; i < 10; ++i) b.sample(f, at(i), 0, {{M::sm_pct, sm0[i]}, {M::mem_pct, 10.0 * (i + 1)}});
  EXPECT_TRUE(has_value(of_gpu(run_features(b.build()), 0, "gpu_mem_util_busy_mean_pct"), (30 + 40 + 50 + 70 + 80 + 90) / 6.0));
  EXPECT_TRUE(is_null_with(of_gpu(fs, 0, "gpu_mem_util_busy_mean_pct"), "no sample of GPU 0 reports mem_pct"));
  // GPU 0 temp: 737 / 10.
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "gpu_temp_mean_c"), 73.7));
}

TEST(FeaturesGpuStats, BusyIdleTimeAndPowerByState) {
  const FeatureSet fs = run_features(two_gpus());
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "gpu_busy_s"), 6));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "gpu_idle_s"), 4));
  EXPECT_TRUE(has_value(of_gpu(fs, 1, "gpu_busy_s"), 6));
  EXPECT_TRUE(has_value(host(fs, "gpu_busy_s"), 12));
  EXPECT_TRUE(has_value(host(fs, "gpu_idle_s"), 6));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "gpu_idle_energy_kwh"), 95 / 3.6e6));  // 20 20 25 30
  EXPECT_TRUE(has_value(host(fs, "gpu_idle_energy_kwh"), 195 / 3.6e6));      // + 50 W x 2 s
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "gpu_idle_power_mean_w"), 23.75));
  EXPECT_TRUE(has_value(host(fs, "gpu_idle_power_mean_w"), 29));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "gpu_busy_power_mean_w"), 115));  // 100 150 150 120 130 40
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "gpu_longest_idle_s"), 2));
  EXPECT_TRUE(has_value(host(fs, "gpu_longest_idle_s"), 2));
  EXPECT_TRUE(has_value(host(fs, "gpu_idle_episodes"), 0));
  EXPECT_TRUE(has_value(host(fs, "gpu_count"), 2));
}

TEST(FeaturesGpuStats, IdleEpisodesNeedSixtySecondsAndBreakAtGaps) {
  TimelineBuilder b;
  const auto f = b.file("dmon.txt", FormatId::dmon);
  b.samples(f, 0, 70, 0, {{M::sm_pct, 0}});      // 70 s idle: one episode
  b.samples(f, 70, 5, 0, {{M::sm_pct, 90}});
  b.samples(f, 75, 40, 0, {{M::sm_pct, 1}});     // 40 s idle: too short
  b.samples(f, 200, 40, 0, {{M::sm_pct, 2}});    // after an 85 s gap: 40 s, does not join the run above
  b.samples(f, 0, 61, 1, {{M::sm_pct, 0}}, 1.0);  // GPU 1: 61 s idle
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "gpu_idle_episodes"), 1));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "gpu_longest_idle_s"), 70));
  EXPECT_TRUE(has_value(of_gpu(fs, 1, "gpu_idle_episodes"), 1));
  EXPECT_TRUE(has_value(host(fs, "gpu_idle_episodes"), 2));
  EXPECT_TRUE(has_value(host(fs, "gpu_longest_idle_s"), 70));
  // GPU 0 covers [0,115) and [200,240): 155 s of a 240 s span, an 85 s gap.
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "gpu_sample_gap_s"), 85));
  EXPECT_TRUE(has_value(host(fs, "gpu_sample_gap_s"), 85));
  EXPECT_TRUE(has_value(of_gpu(fs, 1, "gpu_sample_gap_s"), 0));
}

// Issue 35: dmon skips a second now and then (three times in 130 s on a real H200). A gap of up
// to 1.5 intervals without rows is bridged and counted in the run; a longer one ends it.
TEST(FeaturesGpuStats, RunsBridgeASkippedSecondButNotALongerGap) {
  TimelineBuilder b;
  const auto f = b.file("dmon.txt", FormatId::dmon);
  auto row = [&](int gpu, int s, Metrics m) { b.sample(f, at(s), gpu, m); };
  // GPU 0: idle 0..29 without the rows at 10 and 20 (one skipped second each): one 30 s run; busy
  // 30..39; idle 40..69 without 50 and 51 (two seconds in a row): runs of 10 s and 18 s.
  for (int s = 0; s < 70; ++s) {
    if (s == 10 || s == 20 || s == 50 || s == 51) continue;
    row(0, s, {{M::sm_pct, s >= 30 && s < 40 ? 90.0 : 0.0}, {M::gpu_temp_c, 50}});
  }
  // GPU 1: idle 0..64 without 30: one idle episode of 65 s.
  for (int s = 0; s < 65; ++s)
    if (s != 30) row(1, s, {{M::sm_pct, 0}, {M::gpu_temp_c, 50}});
  // GPU 2: hot 0..9 without 5 (one episode of 10 s), cool at 10, hot 11..14 and 17..19 (two
  // missing rows end a run: episodes of 4 s and 3 s), cool to 24.
  for (int s = 0; s < 25; ++s)
    if (s != 5 && s != 15 && s != 16) row(2, s, {{M::sm_pct, 90}, {M::gpu_temp_c, s < 20 && s != 10 ? 85.0 : 60.0}});
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "gpu_longest_idle_s"), 30));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "gpu_idle_episodes"), 0));
  EXPECT_TRUE(has_value(of_gpu(fs, 1, "gpu_idle_episodes"), 1));
  EXPECT_TRUE(has_value(of_gpu(fs, 1, "gpu_longest_idle_s"), 65));
  EXPECT_TRUE(has_value(of_gpu(fs, 1, "gpu_thermal_episodes"), 0));
  EXPECT_TRUE(has_value(of_gpu(fs, 2, "gpu_thermal_episodes"), 3));
  EXPECT_TRUE(has_value(of_gpu(fs, 2, "gpu_thermal_episode_mean_s"), (10.0 + 4 + 3) / 3));
  // The skipped seconds stay what they are: time no row covers.
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "gpu_sample_gap_s"), 4));
}

TEST(FeaturesGpuStats, MeansMaximaAndMinimaOfTheOtherColumns) {
  TimelineBuilder b;
  const auto f = b.file("dmon.txt", FormatId::dmon);
  b.sample(f, at(0), 0, {{M::mem_pct, 10}, {M::enc_pct, 0}, {M::dec_pct, 4}, {M::pclk_mhz, 1500}, {M::mclk_mhz, 7000},
                         {M::fan_pct, 30}, {M::pviol_pct, 0}, {M::fb_mb, 500}, {M::bar1_mb, 5}, {M::mem_temp_c, 70},
                         {M::rxpci_mbs, 100}, {M::txpci_mbs, 50}});
  b.sample(f, at(1), 0, {{M::mem_pct, 30}, {M::enc_pct, 2}, {M::dec_pct, 8}, {M::pclk_mhz, 1700}, {M::mclk_mhz, 7000},
                         {M::fan_pct, 50}, {M::pviol_pct, 20}, {M::fb_mb, 4500}, {M::bar1_mb, 9}, {M::mem_temp_c, 88},
                         {M::rxpci_mbs, 100}, {M::txpci_mbs, 50}});
  b.sample(f, at(2), 0, {{M::rxpci_mbs, 30}});
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(host(fs, "gpu_mem_util_mean_pct"), 20));
  EXPECT_TRUE(is_null_with(host(fs, "gpu_busy_clock_ratio"), "no GPU sample reports sm_pct"));  // clocks, no sm
  EXPECT_TRUE(is_null_with(host(fs, "gpu_mem_util_busy_mean_pct"), "no GPU sample reports sm_pct"));
  EXPECT_TRUE(has_value(host(fs, "gpu_pclk_mean_mhz"), 1600));
  EXPECT_TRUE(has_value(host(fs, "gpu_power_violation_mean_pct"), 10));
  EXPECT_TRUE(has_value(host(fs, "gpu_fb_mean_mb"), 2500));
  EXPECT_TRUE(has_value(host(fs, "gpu_mem_temp_max_c"), 88));
  EXPECT_TRUE(has_value(host(fs, "gpu_pcie_rx_mean_mbs"), 230.0 / 3));
  EXPECT_TRUE(has_value(host(fs, "gpu_pcie_tx_mean_mbs"), 50));
  // Not reported at all: null, naming the column.
  EXPECT_TRUE(is_null_with(host(fs, "gpu_util_mean_pct"), "sm_pct"));
  EXPECT_TRUE(is_null_with(host(fs, "gpu_power_mean_w"), "power_w"));
  EXPECT_TRUE(is_null_with(of_gpu(fs, 0, "gpu_energy_kwh"), "no sample of GPU 0 reports power_w"));
  EXPECT_TRUE(is_null_with(host(fs, "gpu_fb_max_fraction"), "total memory"));
}

TEST(FeaturesGpuStats, CountersAddIncreasesAndRestartsPerGpu) {
  TimelineBuilder b;
  const auto f = b.file("dmon.txt", FormatId::dmon);
  const double sb[] = {0, 2, 2, 5, 1, 3};  // +2 +0 +3, restart (+1), +2 = 8
  for (int i = 0; i < 6; ++i) {
    b.sample(f, at(i), 0, {{M::sbecc, sb[i]}, {M::dbecc, 0}, {M::pci_err, i == 5 ? 4.0 : 0.0}});
    if (i < 2) b.sample(f, at(i), 1, {{M::sbecc, 10.0 + 2 * i}});  // interleaved GPU 1: +2
  }
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "gpu_sbecc_errors"), 8));
  EXPECT_TRUE(has_value(of_gpu(fs, 1, "gpu_sbecc_errors"), 2));
  EXPECT_TRUE(has_value(host(fs, "gpu_sbecc_errors"), 10));
  EXPECT_TRUE(has_value(host(fs, "gpu_dbecc_errors"), 0));
  EXPECT_TRUE(has_value(host(fs, "gpu_pcie_replay_errors"), 4));
  EXPECT_TRUE(is_null_with(of_gpu(fs, 1, "gpu_dbecc_errors"), "dbecc"));
}

TEST(FeaturesGpuStats, LimitsAndTotalsComeFromRowsOrDevices) {
  TimelineBuilder b;
  const auto f = b.file("query.csv", FormatId::query_gpu_csv);
  b.sample(f, at(0), 0, {{M::power_w, 100}, {M::power_limit_w, 200}, {M::fb_mb, 1000}, {M::mem_total_mb, 8000}});
  b.sample(f, at(1), 0, {{M::power_w, 80}, {M::fb_mb, 6000}});  // the device's limit (100 W) and total (8000)
  GpuDevice d;
  d.index = 0;
  d.power_limit_w = 100;
  d.memory_total_mib = 8000;
  b.device(d);
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(host(fs, "gpu_power_limit_share"), (0.5 + 0.8) / 2));
  EXPECT_TRUE(has_value(host(fs, "gpu_fb_max_fraction"), 0.75));
  EXPECT_TRUE(has_value(host(fs, "gpu_power_limit_w"), 200));  // the rows' limit wins over the device's
  EXPECT_TRUE(has_value(host(fs, "gpu_memory_total_mib"), 8000));
}

TEST(FeaturesGpuStats, DeviceOnlyGpuHasNullSampleFeatures) {
  TimelineBuilder b;
  const auto f = b.file("dmon.txt", FormatId::dmon);
  b.samples(f, 0, 3, 0, {{M::sm_pct, 50}});
  GpuDevice d;
  d.index = 1;
  d.pci_bus = "0000:02:00";
  b.device(d);
  const FeatureSet fs = run_features(b.build());
  ASSERT_EQ(fs.gpus, (std::vector<int>{0, 1}));
  EXPECT_TRUE(is_null_with(of_gpu(fs, 1, "gpu_samples"), "no GPU samples of GPU 1"));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "gpu_samples"), 3));
  EXPECT_TRUE(has_value(host(fs, "gpu_count"), 2));
}

TEST(FeaturesGpuStats, NoSamplesMeansNullNotZero) {
  TimelineBuilder b;
  b.file("kern.log", FormatId::syslog);
  const FeatureSet fs = run_features(b.build());
  for (auto name : {"gpu_samples", "gpu_sampled_s", "gpu_util_mean_pct", "gpu_idle_fraction", "gpu_power_mean_w",
                    "gpu_energy_kwh", "gpu_temp_max_c", "gpu_time_above_temp_s", "gpu_pcie_rx_mean_mbs", "gpu_count"})
    EXPECT_FALSE(host(fs, name).value) << name;
  EXPECT_TRUE(is_null_with(host(fs, "gpu_samples"), "no GPU samples"));

  // A dmon file without a placed row: 0 rows, but nothing to average.
  TimelineBuilder empty;
  empty.file("dmon.txt", FormatId::dmon);
  const FeatureSet e = run_features(empty.build());
  EXPECT_TRUE(has_value(host(e, "gpu_samples"), 0));
  EXPECT_TRUE(is_null_with(host(e, "gpu_util_mean_pct"), "no GPU samples"));
}

}  // namespace
}  // namespace gpucost
