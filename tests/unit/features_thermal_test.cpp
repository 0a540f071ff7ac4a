// Heat: utilization decay (F001), clock drop, thermal episodes, violation counters, hardware
// errors and the utilization drop after them.
#include <gtest/gtest.h>

#include "timeline_builder.hpp"

namespace gpucost {
namespace {

using namespace test;
using M = GpuMetric;

TEST(FeaturesThermal, UtilizationDecayUnderHeatComparesHotAndCoolRows) {
  TimelineBuilder b;
  const auto f = b.file("dmon.txt", FormatId::dmon);
  b.samples(f, 0, 4, 0, {{M::sm_pct, 90}, {M::gpu_temp_c, 70}, {M::pclk_mhz, 1800}});
  b.samples(f, 4, 4, 0, {{M::sm_pct, 45}, {M::gpu_temp_c, 85}, {M::pclk_mhz, 1500}});
  b.sample(f, at(8), 0, {{M::sm_pct, 0}});  // no temperature: not used
  b.samples(f, 0, 2, 1, {{M::sm_pct, 60}, {M::gpu_temp_c, 60}});
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "F001"), 50));  // 100 x (90 - 45) / 90
  EXPECT_TRUE(has_value(host(fs, "gpu_util_heat_decay_pct"), 43.75));  // cool 480/6 = 80, hot 45
  EXPECT_TRUE(is_null_with(of_gpu(fs, 1, "F001"), "no sample of GPU 1 above 78 °C"));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "gpu_pclk_heat_drop_pct"), 100.0 * 300 / 1800));
  EXPECT_EQ(of_gpu(fs, 0, "F001").evidence, "hot: 4 busy rows, mean sm_pct 45; cool: 4 busy rows, mean 90; first dmon.txt:1");

  FeatureOptions o;
  o.temp_threshold_c = 90;  // nothing is hot any more
  EXPECT_TRUE(is_null_with(host(run_features(b.build(), o), "F001"), "no GPU sample above 90 °C"));
  o.temp_threshold_c = 50;  // everything is hot
  EXPECT_TRUE(is_null_with(host(run_features(b.build(), o), "F001"), "at or below 50 °C"));
}

// Issue 14: F001 compared busy hot rows with idle cool ones and measured the load, not the heat.
TEST(FeaturesThermal, HeatDecayComparesBusyRowsOnly) {
  TimelineBuilder b;
  const auto f = b.file("dmon.txt", FormatId::dmon);
  b.samples(f, 0, 10, 0, {{M::sm_pct, 0}, {M::gpu_temp_c, 40}, {M::pclk_mhz, 210}});    // idle and cool
  b.samples(f, 10, 10, 0, {{M::sm_pct, 90}, {M::gpu_temp_c, 70}, {M::pclk_mhz, 1800}}); // busy and cool
  b.samples(f, 20, 10, 0, {{M::sm_pct, 90}, {M::gpu_temp_c, 85}, {M::pclk_mhz, 1800}}); // busy and hot
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "F001"), 0));  // was -100: cool mean 45 with the idle rows
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "gpu_pclk_heat_drop_pct"), 0));

  TimelineBuilder only_idle_cool;
  const auto g = only_idle_cool.file("dmon.txt", FormatId::dmon);
  only_idle_cool.samples(g, 0, 10, 0, {{M::sm_pct, 0}, {M::gpu_temp_c, 40}});
  only_idle_cool.samples(g, 10, 10, 0, {{M::sm_pct, 90}, {M::gpu_temp_c, 85}});
  EXPECT_TRUE(is_null_with(of_gpu(run_features(only_idle_cool.build()), 0, "F001"), "heat cannot be separated from load"));
}

TEST(FeaturesThermal, EpisodesAndTimeToHot) {
  TimelineBuilder b;
  const auto f = b.file("dmon.txt", FormatId::dmon);
  const double t0[] = {60, 62, 70, 80, 85, 79, 78, 77, 81, 65};  // runs: 80 85 79 (3 s), 81 (1 s)
  for (int i = 0; i < 10; ++i) b.sample(f, at(i), 0, {{M::gpu_temp_c, t0[i]}});
  const double t1[] = {90, 70, 75, 95};  // runs: 90 (2 s), 95 (2 s)
  for (int i = 0; i < 4; ++i) b.sample(f, at(2 * i), 1, {{M::gpu_temp_c, t1[i]}}, 2 * kNsPerSec);
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "gpu_thermal_episodes"), 2));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "gpu_thermal_episode_mean_s"), 2));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "gpu_time_to_hot_s"), 3));
  EXPECT_TRUE(has_value(of_gpu(fs, 1, "gpu_time_to_hot_s"), 0));
  EXPECT_TRUE(has_value(host(fs, "gpu_thermal_episodes"), 4));
  EXPECT_TRUE(has_value(host(fs, "gpu_thermal_episode_mean_s"), 2));  // (3 + 1 + 2 + 2) / 4
  EXPECT_TRUE(has_value(host(fs, "gpu_time_to_hot_s"), 0));

  FeatureOptions o;
  o.temp_threshold_c = 100;
  const FeatureSet cold = run_features(b.build(), o);
  EXPECT_TRUE(has_value(host(cold, "gpu_thermal_episodes"), 0));  // the source is there: 0, not null
  EXPECT_TRUE(is_null_with(host(cold, "gpu_thermal_episode_mean_s"), "above 100"));
  EXPECT_TRUE(is_null_with(host(cold, "gpu_time_to_hot_s"), "above 100"));
}

TEST(FeaturesThermal, ViolationCounters) {
  TimelineBuilder b;
  const auto f = b.file("dmon.txt", FormatId::dmon);
  b.sample(f, at(0), 0, {{M::tviol, 0}, {M::pviol_pct, 0}});
  b.sample(f, at(1), 0, {{M::tviol, 1}, {M::pviol_pct, 0}});
  b.sample(f, at(2), 0, {{M::tviol, 0}, {M::pviol_pct, 5}});
  b.sample(f, at(3), 0, {{M::tviol, 0}});
  b.sample(f, at(4), 0, {{M::sm_pct, 10}});  // reports neither
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(host(fs, "gpu_thermal_violation_fraction"), 0.25));
  EXPECT_TRUE(has_value(host(fs, "gpu_throttled_fraction"), 0.5));
  EXPECT_TRUE(has_value(host(fs, "gpu_power_violation_mean_pct"), 5.0 / 3));

  TimelineBuilder q;
  q.samples(q.file("q.csv", FormatId::query_gpu_csv), 0, 3, 0, {{M::sm_pct, 10}});
  EXPECT_TRUE(is_null_with(host(run_features(q.build()), "gpu_throttled_fraction"), "pviol or tviol"));
  EXPECT_TRUE(is_null_with(host(run_features(q.build()), "gpu_thermal_violation_fraction"), "tviol"));
}

TEST(FeaturesThermal, HardwareErrorSetAndThermalEvents) {
  TimelineBuilder b;
  const auto k = b.file("kern.log", FormatId::syslog);
  b.samples(b.file("dmon.txt", FormatId::dmon), 0, 3600, 0, {{M::sm_pct, 50}});  // one hour sampled
  b.event(k, at(1), EventKind::xid, 79);           // bus: yes
  b.event(k, at(2), EventKind::xid, 13);           // application: no
  b.event(k, at(3), EventKind::xid, 154);          // recovery notice: no
  b.event(k, at(4), EventKind::driver_error);      // yes
  b.event(k, at(5), EventKind::thermal, 0);        // back to normal: no
  // Issue 14: the kernel's thermal lines are the CPU's (machine check), not a GPU error, and a
  // corrected AER error was retried by the link: neither is a GPU hardware error.
  b.event(k, at(6), EventKind::thermal, 1);        // CPU heat: thermal_events, not a GPU error
  b.event(k, at(7), EventKind::thermal);           // no code: heat, thermal_events
  b.event(k, at(8), EventKind::pcie_aer, 0);       // corrected: no
  b.event(k, at(9), EventKind::taint);             // no
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(host(fs, "hw_error_events"), 2));
  EXPECT_TRUE(has_value(host(fs, "thermal_events"), 2));
  EXPECT_EQ(host(fs, "hw_error_events").evidence, "2 hardware error events; first kern.log:1");

  TimelineBuilder none;
  none.file("kern.log", FormatId::syslog);
  const FeatureSet empty = run_features(none.build());
  EXPECT_TRUE(has_value(host(empty, "hw_error_events"), 0));
  EXPECT_TRUE(has_value(host(empty, "thermal_events"), 0));
  EXPECT_TRUE(is_null_with(host(run_features(TimelineBuilder().build()), "hw_error_events"), "no kernel"));
}

TEST(FeaturesThermal, UtilizationDropAfterHardwareError) {
  TimelineBuilder b;
  const auto d = b.file("dmon.txt", FormatId::dmon);
  const auto k = b.file("dmesg.txt", FormatId::dmesg);
  b.samples(d, 0, 30, 0, {{M::sm_pct, 90}});
  b.samples(d, 30, 30, 0, {{M::sm_pct, 30}});
  b.samples(d, 0, 60, 1, {{M::sm_pct, 50}});
  b.device(device(0, "0000:01:00")).device(device(1, "0000:02:00"));
  b.event(k, at(30), EventKind::xid, 79, "0000:01:00");
  b.event(k, at(50), EventKind::xid, 13, "0000:01:00");  // an application error: not a hardware error
  b.event(k, at(100), EventKind::driver_error);           // no GPU named, no rows around it
  const FeatureSet fs = run_features(b.build());
  // GPU 0: before [15,30) 15 rows of 90, after [30,45) 15 rows of 30.
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "gpu_util_drop_after_error_pct"), 100.0 * 60 / 90));
  // GPU 1: the Xid names GPU 0; the driver error has no rows around it.
  EXPECT_TRUE(is_null_with(of_gpu(fs, 1, "gpu_util_drop_after_error_pct"), "no SM samples within 15 s"));
  // Host: before (15 x 90 + 15 x 50) / 30 = 70, after (15 x 30 + 15 x 50) / 30 = 40.
  EXPECT_TRUE(has_value(host(fs, "gpu_util_drop_after_error_pct"), 100.0 * 30 / 70));
  EXPECT_EQ(of_gpu(fs, 0, "xid_events").value, 2);
  EXPECT_EQ(of_gpu(fs, 1, "xid_events").value, 0);

  TimelineBuilder quiet;
  quiet.samples(quiet.file("dmon.txt", FormatId::dmon), 0, 10, 0, {{M::sm_pct, 90}});
  quiet.file("dmesg.txt", FormatId::dmesg);
  EXPECT_TRUE(is_null_with(host(run_features(quiet.build()), "gpu_util_drop_after_error_pct"), "no placed hardware error"));
  TimelineBuilder nolog;
  nolog.samples(nolog.file("dmon.txt", FormatId::dmon), 0, 10, 0, {{M::sm_pct, 90}});
  EXPECT_TRUE(is_null_with(host(run_features(nolog.build()), "gpu_util_drop_after_error_pct"), "no kernel"));
}

TEST(FeaturesThermal, DriverErrorsWhileHot) {
  TimelineBuilder b;
  const auto d = b.file("dmon.txt", FormatId::dmon);
  const auto k = b.file("dmesg.txt", FormatId::dmesg);
  b.samples(d, 0, 5, 0, {{M::gpu_temp_c, 70}});
  b.samples(d, 5, 5, 0, {{M::gpu_temp_c, 85}});  // one thermal episode, [5, 10)
  b.event(k, at(2.5), EventKind::driver_error, {}, {}, "nvidia-modeset: ERROR: GPU:0: Failed to query display engine status");
  b.event(k, at(6.5), EventKind::driver_error);  // hot
  b.event(k, at(20), EventKind::driver_error);   // no row covers it
  b.event(k, kNoTime, EventKind::driver_error);  // not placed
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(host(fs, "driver_errors_while_hot"), 1));
  EXPECT_TRUE(has_value(host(fs, "driver_errors_per_thermal_episode"), 1));
  EXPECT_TRUE(has_value(host(fs, "driver_error_events"), 4));

  FeatureOptions o;
  o.temp_threshold_c = 90;
  const FeatureSet cool = run_features(b.build(), o);
  EXPECT_TRUE(has_value(host(cool, "driver_errors_while_hot"), 0));
  EXPECT_TRUE(is_null_with(host(cool, "driver_errors_per_thermal_episode"), "no thermal episodes"));
}

}  // namespace
}  // namespace gpucost
