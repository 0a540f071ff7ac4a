// PyTorch profiler traces: the kernel-launch queueing sweep, checked on a real Kineto excerpt
// and on a synthetic trace whose numbers are worked out by hand below.
#include <gtest/gtest.h>

#include <string>

#include "ingest/formats/profiler_summary.hpp"
#include "structured_test_util.hpp"

namespace gpucost {
namespace {

using formats::TraceKernel;
using formats::TraceLaunch;
using testing::read_test_file;
using testing::run_format;
using testing::sample_reasons;

std::size_t count_lines(const std::string& s) {
  std::size_t n = 0;
  for (const char c : s) n += c == '\n';
  return n;
}

TEST(TorchTrace, RealKinetoExcerptFromHta) {
  // HolisticTraceAnalysis tests/data/call_stack/backward_thread.json: one cudaLaunchKernel at
  // 1666149715364374 µs whose kernel (correlation 2131433) starts at 1666149715428509 µs and runs
  // 45 µs. Queue = 1666149715428509 - 1666149715364374 = 64135 µs (no other kernel runs then);
  // span = ProfilerStep#552 from 1666149715033200 for 413451 µs, which ends last.
  const std::string data = read_test_file("structured/torch-trace-hta-backward-thread.json");
  auto run = run_format(FormatId::torch_trace, data);
  EXPECT_EQ(run->detection.format, FormatId::torch_trace);
  auto& d = run->diag();
  EXPECT_EQ(d.lines, count_lines(data));
  EXPECT_EQ(d.accepted, d.lines);
  EXPECT_EQ(d.rejected(), 0u);
  EXPECT_EQ(d.records, 1u);
  ASSERT_EQ(run->sink->profiles().size(), 1u);
  const ProfilerSummary& s = run->sink->profiles()[0];
  EXPECT_EQ(s.launches, 1u);
  EXPECT_EQ(s.kernels, 1u);
  EXPECT_EQ(s.span_ns, 413451 * kNsPerUs);
  EXPECT_EQ(s.queue_ns, 64135 * kNsPerUs);
  EXPECT_EQ(s.kernel_busy_ns, 45 * kNsPerUs);
  EXPECT_EQ(s.launch_delay_mean_ns, 64135 * kNsPerUs);
}

// torch-trace-synthetic-queue.json, by hand (µs):
//   launches  L1 100 (corr 1), L2 110 (corr 2), L3 200 (cudaLaunchKernelExC_v11060, corr 3),
//             L4 300.000 (cuLaunchKernel on cuda_driver, corr 4); cudaMemcpyAsync is no launch.
//   kernels   K1 [130,150) corr 1, K2 [140,170) corr 2, K3 [260,270) corr 3,
//             K4 [300.5,300.75) corr 4, K5 [400,410) corr 99 (no launch).
//   pending   [100,130) ∪ [110,140) ∪ [200,260) ∪ [300,300.5)
//   running   [130,170) ∪ [260,270) ∪ [300.5,300.75) ∪ [400,410)  -> busy 40+10+0.25+10 = 60.25
//   queue     [100,130) + [200,260) + [300,300.5) = 30 + 60 + 0.5 = 90.5
//   span      cpu_op [90,490) (the metadata event at ts 0 does not count) = 400
//   delay     (30 + 30 + 60 + 0.5) / 4 = 30.125
// F003 would be 90.5 / 400 = 0.22625.
TEST(TorchTrace, SyntheticTraceMatchesHandComputation) {
  const std::string data = read_test_file("structured/torch-trace-synthetic-queue.json");
  auto run = run_format(FormatId::torch_trace, data);
  EXPECT_EQ(run->detection.format, FormatId::torch_trace);
  EXPECT_EQ(run->diag().accepted, run->diag().lines);
  ASSERT_EQ(run->sink->profiles().size(), 1u);
  const ProfilerSummary& s = run->sink->profiles()[0];
  EXPECT_EQ(s.launches, 4u);
  EXPECT_EQ(s.kernels, 5u);
  EXPECT_EQ(s.queue_ns, 90500);
  EXPECT_EQ(s.kernel_busy_ns, 60250);
  EXPECT_EQ(s.span_ns, 400000);
  EXPECT_EQ(s.launch_delay_mean_ns, 30125);
  EXPECT_DOUBLE_EQ(static_cast<double>(s.queue_ns) / static_cast<double>(s.span_ns), 0.22625);
}

TEST(TorchTrace, TraceCutShortKeepsTheEventsBeforeTheCut) {
  // The synthetic trace cut after line 81, inside the event that starts on line 80 (K3). Before
  // it: L1, L2, L3 (whose kernel is lost), K1, K2. Queue = [100,140) - [130,170) = 30 µs;
  // busy = [130,170) = 40 µs; span still 400 µs (the cpu_op); delay = (30 + 30) / 2.
  const std::string full = read_test_file("structured/torch-trace-synthetic-queue.json");
  std::size_t pos = 0;
  for (int i = 0; i < 81; ++i) pos = full.find('\n', pos) + 1;
  const std::string data = full.substr(0, pos);
  auto run = run_format(FormatId::torch_trace, data);
  auto& d = run->diag();
  EXPECT_EQ(d.lines, 81u);
  EXPECT_EQ(d.accepted, 79u);
  EXPECT_EQ(run->problems(Problem::bad_json), 2u);  // line 80 with the sample, line 81 lost
  EXPECT_EQ(sample_reasons(d, Problem::bad_json),
            "truncated: the document ends inside this event; the summary covers the 9 events before it");
  ASSERT_EQ(d.samples.size(), 1u);
  EXPECT_EQ(d.samples[0].line, 80u);
  ASSERT_EQ(run->sink->profiles().size(), 1u);
  const ProfilerSummary& s = run->sink->profiles()[0];
  EXPECT_EQ(s.launches, 3u);
  EXPECT_EQ(s.kernels, 2u);
  EXPECT_EQ(s.queue_ns, 30000);
  EXPECT_EQ(s.kernel_busy_ns, 40000);
  EXPECT_EQ(s.span_ns, 400000);
  EXPECT_EQ(s.launch_delay_mean_ns, 30000);
}

TEST(TorchTrace, MalformedEventStopsTheParseWhereItIs) {
  const std::string data =
      "{\n"
      "  \"traceEvents\": [\n"
      "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 10, \"dur\": 5, \"args\": {\"correlation\": 1}},\n"
      "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 20 \"dur\": 5},\n"
      "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 30, \"dur\": 5}\n"
      "  ]\n"
      "}\n";
  auto run = run_format(FormatId::torch_trace, data);
  auto& d = run->diag();
  EXPECT_EQ(d.accepted, 3u);
  EXPECT_EQ(run->problems(Problem::bad_json), 4u);
  ASSERT_EQ(d.samples.size(), 1u);
  EXPECT_EQ(d.samples[0].line, 4u);
  EXPECT_NE(d.samples[0].reason.find("the summary covers the 1 events before it"), std::string::npos)
      << d.samples[0].reason;
  ASSERT_EQ(run->sink->profiles().size(), 1u);
  EXPECT_EQ(run->sink->profiles()[0].kernels, 1u);
}

TEST(TorchTrace, JsonWithoutTraceEventsIsNoTrace) {
  auto run = run_format(FormatId::torch_trace, "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": []\n}\n");
  EXPECT_EQ(run->problems(Problem::missing_field), 4u);
  EXPECT_EQ(sample_reasons(run->diag(), Problem::missing_field), "the JSON document has no traceEvents array");
  EXPECT_TRUE(run->sink->profiles().empty());
}

TEST(TorchTrace, BareEventArrayAndOldKinetoCategories) {
  // Chrome's JSON Array Format, with the capitalized categories of early Kineto releases.
  const std::string data =
      "[\n"
      "{\"ph\": \"X\", \"cat\": \"Runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 13721, \"tid\": \"456\", \"ts\": 405, \"dur\": 5, \"args\": {\"correlation\": 40348, \"external id\": 4}},\n"
      "{\"ph\": \"X\", \"cat\": \"Kernel\", \"name\": \"void cunn_ClassNLLCriterion_updateGradInput_kernel<float>\", \"pid\": 0, \"tid\": \"stream 7\", \"ts\": 430, \"dur\": 15, \"args\": {\"correlation\": 40348, \"external id\": 4}}\n"
      "]\n";
  auto run = run_format(FormatId::torch_trace, data);
  EXPECT_EQ(run->detection.format, FormatId::torch_trace);
  ASSERT_EQ(run->sink->profiles().size(), 1u);
  const ProfilerSummary& s = run->sink->profiles()[0];
  EXPECT_EQ(s.launches, 1u);
  EXPECT_EQ(s.queue_ns, 25000);      // 405 .. 430
  EXPECT_EQ(s.span_ns, 40000);       // 405 .. 445
  EXPECT_EQ(s.kernel_busy_ns, 15000);
}

TEST(TorchTrace, SweepOnHandMadeIntervals) {
  // Launch 1 at 0 -> kernel [10,20); launch 2 at 5 -> kernel [15,40) (overlaps the first);
  // launch 3 at 50 -> kernel at 45 (the clocks disagree: no pending time, delay -5);
  // launch 4 at 60 with no kernel; kernel [70,80) with no launch.
  std::vector<TraceLaunch> l = {{2, 5}, {1, 0}, {3, 50}, {4, 60}};
  std::vector<TraceKernel> k = {{1, 10, 20}, {2, 15, 40}, {3, 45, 47}, {INT64_MIN, 70, 80}};
  const ProfilerSummary s = formats::summarize_launches(l, k);
  EXPECT_EQ(s.launches, 4u);
  EXPECT_EQ(s.kernels, 4u);
  EXPECT_EQ(s.queue_ns, 10);         // [0,10): nothing runs while 1 and 2 wait
  EXPECT_EQ(s.kernel_busy_ns, 42);   // [10,40) + [45,47) + [70,80)
  EXPECT_EQ(s.launch_delay_mean_ns, 5);  // (10 + 10 - 5) / 3: skewed pairs count as they are
}

TEST(TorchTrace, TimesAreExactNanoseconds) {
  EXPECT_EQ(formats::trace_us_to_ns("198093488368.463"), 198093488368463);
  EXPECT_EQ(formats::trace_us_to_ns("1666149715364374"), 1666149715364374000);
  EXPECT_EQ(formats::trace_us_to_ns("300.5"), 300500);
  EXPECT_EQ(formats::trace_us_to_ns("0.0005"), 1);  // half a nanosecond rounds up
  EXPECT_EQ(formats::trace_us_to_ns("1.5e3"), 1500000);
  EXPECT_EQ(formats::trace_us_to_ns("-2"), -2000);
  EXPECT_EQ(formats::trace_us_to_ns("12a"), std::nullopt);
  EXPECT_EQ(formats::trace_us_to_ns("1."), std::nullopt);
  EXPECT_EQ(formats::trace_us_to_ns("99999999999999999"), std::nullopt);
  EXPECT_EQ(formats::trace_us_to_ns("9999999999999999"), std::nullopt);  // would overflow as ns
  EXPECT_EQ(formats::trace_us_to_ns("1e300"), std::nullopt);
}

TEST(TorchTrace, LaunchNames) {
  EXPECT_TRUE(formats::is_kernel_launch_name("cudaLaunchKernel"));
  EXPECT_TRUE(formats::is_kernel_launch_name("cudaLaunchKernelExC_v11060"));
  EXPECT_TRUE(formats::is_kernel_launch_name("cuLaunchKernel"));
  EXPECT_TRUE(formats::is_kernel_launch_name("hipModuleLaunchKernel"));
  EXPECT_FALSE(formats::is_kernel_launch_name("cudaMemcpyAsync"));
  EXPECT_FALSE(formats::is_kernel_launch_name("cudaLaunchHostFunc"));
  EXPECT_FALSE(formats::is_kernel_launch_name("cudaLaunchKernel_vX"));
}

TEST(TorchTrace, Scores) {
  const LogFormat& f = *find_format(FormatId::torch_trace);
  EXPECT_EQ(f.score("  \"schemaVersion\": 1,"), 100);
  EXPECT_EQ(f.score("    \"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7,"), 100);
  EXPECT_EQ(f.score("            \"name\": \"ProfilerStep#552\","), 40);
  EXPECT_EQ(f.score("  },"), 20);
  EXPECT_EQ(f.score("                        2048,"), 20);
  EXPECT_EQ(f.score("  \"host\": \"gpu-box\","), 0);
  EXPECT_EQ(f.score("Nov 29 19:50:45 host kernel: {"), 0);
}

}  // namespace
}  // namespace gpucost
