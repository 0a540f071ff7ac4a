// The application layer (profiler traces, F003), services (containers, cron) and the derived
// figures the cost model reads (effective_utilization, energy per useful hour).
#include <gtest/gtest.h>

#include "timeline_builder.hpp"

namespace gpucost {
namespace {

using namespace test;
using M = GpuMetric;

ProfilerSummary trace(std::uint32_t file, double span_s, double queue_s, double busy_s, std::uint64_t launches,
                      std::uint64_t kernels, double delay_ms) {
  ProfilerSummary p;
  p.file = file;
  p.span_ns = static_cast<TimeNs>(span_s * kNsPerSec);
  p.queue_ns = static_cast<TimeNs>(queue_s * kNsPerSec);
  p.kernel_busy_ns = static_cast<TimeNs>(busy_s * kNsPerSec);
  p.launches = launches;
  p.kernels = kernels;
  p.launch_delay_mean_ns = static_cast<TimeNs>(delay_ms * kNsPerMs);
  return p;
}

TEST(FeaturesApplication, ProfilerTracesGiveTheLaunchQueueFraction) {
  TimelineBuilder b;
  const auto t1 = b.file("trace1.json", FormatId::torch_trace);
  const auto t2 = b.file("trace2.json", FormatId::torch_trace);
  b.profile(trace(t1, 1, 0.02, 0.7, 100, 100, 1.7)).profile(trace(t2, 3, 0.1, 2.5, 300, 310, 1.0));
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(host(fs, "F003"), 0.12 / 4));
  EXPECT_TRUE(has_value(host(fs, "launch_queue_fraction"), 0.03));
  EXPECT_TRUE(has_value(host(fs, "profiler_kernel_busy_fraction"), 0.8));
  EXPECT_TRUE(has_value(host(fs, "profiler_launch_delay_mean_ms"), 1.175));  // (1.7 x 100 + 1 x 300) / 400
  EXPECT_TRUE(has_value(host(fs, "profiler_kernels_per_s"), 102.5));
  EXPECT_EQ(host(fs, "F003").evidence, "2 trace(s) spanning 4 s; first trace1.json; queue 0.12 s");
}

TEST(FeaturesApplication, NoTraceIsNullWithTheAgreedReason) {
  TimelineBuilder b;
  b.samples(b.file("dmon.txt", FormatId::dmon), 0, 10, 0, {{M::sm_pct, 50}});
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(is_null_with(host(fs, "launch_queue_fraction"), "no PyTorch profiler trace in the directory"));
  for (auto name : {"profiler_kernel_busy_fraction", "profiler_launch_delay_mean_ms", "profiler_kernels_per_s"})
    EXPECT_TRUE(is_null_with(host(fs, name), "no PyTorch profiler trace")) << name;
}

// GPU 0: 10 rows at 100 W, 2 idle; GPU 1: 10 rows at 50 W, 5 idle.
TimelineBuilder utilization_fixture() {
  TimelineBuilder b;
  const auto d = b.file("dmon.txt", FormatId::dmon);
  for (int i = 0; i < 10; ++i) {
    b.sample(d, at(i), 0, {{M::sm_pct, i < 2 ? 0.0 : 90.0}, {M::power_w, 100}});
    b.sample(d, at(i), 1, {{M::sm_pct, i < 5 ? 0.0 : 90.0}, {M::power_w, 50}});
  }
  b.profile(trace(b.file("trace.json", FormatId::torch_trace), 1, 0.03, 0.9, 10, 10, 1));
  return b;
}

TEST(FeaturesDerived, EffectiveUtilizationIsBusyTimeOverItsWindow) {
  TimelineBuilder b = utilization_fixture();
  const FeatureSet fs = run_features(b.build());  // no kernel log: power loss and lost time unmeasured
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "effective_utilization"), 0.8 * 0.97));
  EXPECT_TRUE(has_value(of_gpu(fs, 1, "effective_utilization"), 0.5 * 0.97));
  EXPECT_TRUE(has_value(host(fs, "effective_utilization"), 13.0 / 20 * 0.97));
  const std::string& ev = host(fs, "effective_utilization").evidence;
  EXPECT_NE(ev.find("not measured, not counted: power-event loss not measured (no kernel"), std::string::npos) << ev;
  EXPECT_NE(ev.find("lost GPU time not measured"), std::string::npos) << ev;
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "effective_gpu_hours"), 8.0 / 3600 * 0.97));
  EXPECT_TRUE(has_value(host(fs, "effective_gpu_hours"), 13.0 / 3600 * 0.97));

  // With a kernel log and a 10 s suspend inside the sampled span: the window grows by 10 s.
  TimelineBuilder s;
  const auto d = s.file("dmon.txt", FormatId::dmon);
  s.file("kern.log", FormatId::syslog);
  s.samples(d, 0, 5, 0, {{M::sm_pct, 90}}).samples(d, 15, 5, 0, {{M::sm_pct, 90}});
  s.suspend(at(5), at(15));
  const FeatureSet fl = run_features(s.build());
  EXPECT_TRUE(has_value(host(fl, "power_event_loss_fraction"), 0.5));
  EXPECT_TRUE(has_value(host(fl, "effective_utilization"), 0.5));  // 10 busy s / (10 sampled + 10 suspended)
  EXPECT_NE(host(fl, "effective_utilization").evidence.find("launch queueing not measured"), std::string::npos);
}

// Issue 14: the suspended time was taken out of the sampled hours and then again through F006,
// so F135 fell below the busy hours.
TEST(FeaturesDerived, EffectiveGpuHoursNeverExceedBusyHoursNorFallBelowThemForSuspends) {
  TimelineBuilder s;
  const auto d = s.file("dmon.txt", FormatId::dmon);
  s.file("kern.log", FormatId::syslog);
  s.samples(d, 0, 100, 0, {{M::sm_pct, 90}}).samples(d, 1100, 100, 0, {{M::sm_pct, 90}});
  s.samples(d, 1200, 50, 0, {{M::sm_pct, 0}});
  s.suspend(at(100), at(1100));
  const FeatureSet fs = run_features(s.build());
  ASSERT_TRUE(has_value(host(fs, "gpu_busy_s"), 200));
  EXPECT_TRUE(has_value(host(fs, "effective_gpu_hours"), 200.0 / 3600));  // not 250/3600 x (1 - 0.2 - 0.8)
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "effective_gpu_hours"), 200.0 / 3600));
  EXPECT_TRUE(has_value(host(fs, "effective_utilization"), 200.0 / (250 + 1000)));
}

// Issue 14: F006 is defined on one window; each source only adds what it measures. From dmon
// alone it is B / S; with the kernel logs B / (S + L), L the measured power-event loss.
TEST(FeaturesDerived, EffectiveUtilizationFromDmonAloneAndWithKernelLogsDifferByTheMeasuredLoss) {
  auto build = [](bool kernel) {
    TimelineBuilder s;
    const auto d = s.file("dmon.txt", FormatId::dmon);
    if (kernel) {
      const auto k = s.file("kern.log", FormatId::syslog);
      s.event(k, at(40), EventKind::suspend).event(k, at(100), EventKind::resume);
      s.suspend(at(40), at(100));
    }
    s.samples(d, 0, 40, 0, {{M::sm_pct, 70}}).samples(d, 100, 60, 0, {{M::sm_pct, 1}});
    return run_features(s.build());
  };
  const FeatureSet alone = build(false), with = build(true);
  const FeatureValue& a = host(alone, "effective_utilization");
  const FeatureValue& w = host(with, "effective_utilization");
  ASSERT_TRUE(a.value && w.value);
  const double loss = *host(with, "power_event_loss_s").value;
  EXPECT_DOUBLE_EQ(loss, 60);
  EXPECT_DOUBLE_EQ(*a.value, 40.0 / 100);
  EXPECT_DOUBLE_EQ(40.0 / *w.value - 40.0 / *a.value, loss);  // the windows differ by exactly L
  EXPECT_NE(a.evidence.find("power-event loss not measured"), std::string::npos) << a.evidence;
  EXPECT_EQ(w.evidence.find("power-event loss not measured"), std::string::npos) << w.evidence;
}

TEST(FeaturesDerived, EffectiveUtilizationIsClampedAndNullWithoutUtilization) {
  TimelineBuilder b;
  const auto d = b.file("dmon.txt", FormatId::dmon);
  b.samples(d, 0, 10, 0, {{M::sm_pct, 0}, {M::power_w, 30}});
  b.profile(trace(b.file("trace.json", FormatId::torch_trace), 1, 0.5, 0.1, 1, 1, 1));
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(host(fs, "effective_utilization"), 0));  // no busy row
  EXPECT_TRUE(is_null_with(host(fs, "energy_per_busy_hour_kwh"), "no busy samples"));
  EXPECT_TRUE(has_value(host(fs, "idle_energy_fraction"), 1));

  TimelineBuilder p;
  p.samples(p.file("dmon.txt", FormatId::dmon), 0, 10, 0, {{M::power_w, 30}});
  EXPECT_TRUE(is_null_with(host(run_features(p.build()), "effective_utilization"), "sm_pct"));
  EXPECT_TRUE(is_null_with(host(run_features(p.build()), "effective_gpu_hours"), "sm_pct"));
}

TEST(FeaturesDerived, EnergyPerUsefulHour) {
  TimelineBuilder b = utilization_fixture();
  const FeatureSet fs = run_features(b.build());
  // GPU 0: 1000 J over 8 busy seconds = 125 W = 0.125 kWh per busy hour.
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "energy_per_busy_hour_kwh"), 0.125));
  // Host: 1500 J over 13 busy GPU-seconds.
  EXPECT_TRUE(has_value(host(fs, "energy_per_busy_hour_kwh"), 1500.0 / 13 / 1000));
  EXPECT_TRUE(has_value(of_gpu(fs, 0, "idle_energy_fraction"), 0.2));
  EXPECT_TRUE(has_value(host(fs, "idle_energy_fraction"), (200.0 + 250) / 1500));
}

TEST(FeaturesServices, ContainerStartsMergeAndLatencyRunsUntilTheContainerRuns) {
  TimelineBuilder b;
  const auto j = b.file("journal.txt", FormatId::journal_short);
  // dockerd's create, dockerd's start API call, containerd's "starting signal loop".
  b.event(j, at(10), EventKind::container_create).event(j, at(10.5), EventKind::container_start);
  b.event(j, at(12.5), EventKind::container_start);  // the same start: latency 2.5 s
  b.event(j, at(100), EventKind::container_create).event(j, at(100.4), EventKind::container_start);
  b.event(j, at(101.7), EventKind::container_start);  // latency 1.7 s
  b.event(j, at(1000), EventKind::container_start);   // no create before it
  b.event(j, at(2000), EventKind::container_start).event(j, at(2008), EventKind::container_start);
  b.event(j, at(2016), EventKind::container_start);   // 8 s steps: one start
  b.event(j, kNoTime, EventKind::container_start);    // unplaced: a start of its own
  b.event(j, at(3000), EventKind::container_create);  // no start follows within 300 s
  b.event(j, at(3400), EventKind::container_stop);
  b.event(j, at(3500), EventKind::service_failed);
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(host(fs, "container_starts"), 5));
  EXPECT_TRUE(has_value(host(fs, "container_start_latency_mean_s"), 2.1));
  EXPECT_TRUE(has_value(host(fs, "service_failures"), 1));
  EXPECT_EQ(host(fs, "container_start_latency_mean_s").evidence,
            "2 pairs of 4 starts; first create journal.txt:1; longest 2.5 s");

  TimelineBuilder only_starts;
  only_starts.event(only_starts.file("journal.txt", FormatId::journal_short), at(1), EventKind::container_start);
  EXPECT_TRUE(is_null_with(host(run_features(only_starts.build()), "container_start_latency_mean_s"),
                           "no container create/start pairs (0 creates, 1 starts)"));
}

TEST(FeaturesServices, NoServiceLogIsNull) {
  TimelineBuilder b;
  b.event(b.file("dmesg.txt", FormatId::dmesg), at(1), EventKind::container_start);
  const FeatureSet fs = run_features(b.build());
  for (auto name : {"container_starts", "container_start_latency_mean_s",
                    "service_failures", "gpu_service_restarts"})
    EXPECT_TRUE(is_null_with(host(fs, name), "no syslog or journal")) << name;
}

TEST(FeaturesServices, LogUptimeSpansTheServiceLog) {
  TimelineBuilder b;
  const auto s = b.file("syslog", FormatId::syslog);
  for (double t : {0.0, 600.0, 1200.0, 1800.0, 3600.0}) b.event(s, at(t), EventKind::cron);
  const FeatureSet fs = run_features(b.build());
  EXPECT_TRUE(has_value(host(fs, "log_uptime_s"), 3600));
  EXPECT_EQ(host(fs, "log_uptime_s").evidence,
            "2026-11-29T12:00:00.000Z .. 2026-11-29T13:00:00.000Z minus 0 reboot gaps (0 s)");
}

}  // namespace
}  // namespace gpucost
