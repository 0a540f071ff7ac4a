// Issue 35: the driver's own recovery action. Xid 154 names what the driver needs (`from 0x0
// (None) to 0x1 (GPU Reset Required)`): the finding keys on the hex value, keeps the line as
// evidence, ties it to the Xid before it and makes that action its next step; a hardware Xid that
// comes back after a recovery escalates to inspect / RMA; application Xids never mark the
// hardware unhealthy on their own; --ignore-finding leaves a rule out and says so.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>

#include "gpucost/findings/findings.hpp"
#include "unit/ground_truth.hpp"

namespace gpucost::findings {
namespace {

namespace fs = std::filesystem;

const Finding* by_rule(const std::vector<Finding>& fs, std::string_view rule) {
  for (const auto& f : fs)
    if (f.rule == rule) return &f;
  return nullptr;
}

// A dmesg of one boot with the driver loaded, then `lines` (kernel messages, one a second).
const ground_truth::Case& dmesg_with(const std::string& name, std::initializer_list<std::string_view> lines) {
  const fs::path dir = sim::testing::temp_dir("recovery-" + name);
  fs::create_directories(dir);
  std::ofstream k(dir / "dmesg.txt");
  k << "[    0.000000] Linux version 6.8.0-48-generic (buildd@lcy02-amd64-010) (gcc 13.2.0) #48-Ubuntu SMP\n";
  k << "[    5.120000] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  570.86.15  Fri Jan 24 10:10:16 UTC 2025\n";
  int s = 1000;
  for (auto l : lines) k << fmt::format("[ {:5}.120000] {}\n", s++, l);
  k.close();
  return ground_truth::pipeline_on(dir);
}

constexpr std::string_view kXid120 =
    "NVRM: Xid (PCI:0000:01:00): 120, pid=4242, name=python, GSP task exception: load access page fault "
    "(cause:0xd) @ pc:0x140ca4a, partition:4#0, task:3";
constexpr std::string_view kXid48 = "NVRM: Xid (PCI:0000:01:00): 48, pid=4242, name=python, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 6, subpartition 0.";
constexpr std::string_view kReset =
    "NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)";
constexpr std::string_view kReboot =
    "NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)";
constexpr std::string_view kDrain =
    "NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x3 (Drain P2P)";
constexpr std::string_view kReload =
    "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  570.86.15  Fri Jan 24 10:10:16 UTC 2025";

TEST(FindingsRecovery, GpuResetRequiredAfterAGspErrorIsAWarningToResetTheGpu) {
  const auto& c = dmesg_with("reset", {kXid120, kReset});
  const auto fs = find(c.result->timeline, c.result->features, nullptr, {});
  const Finding* r = by_rule(fs, "gpu_recovery_action");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->id, "R15");
  EXPECT_EQ(r->severity, Severity::kWarning);
  EXPECT_NE(r->title.find("asks for a GPU reset after Xid 120 (GSP error)"), std::string::npos) << r->title;
  EXPECT_NE(r->next_step.find("Reset the GPU"), std::string::npos) << r->next_step;
  EXPECT_NE(r->next_step.find("nvidia-smi -r"), std::string::npos) << r->next_step;
  EXPECT_EQ(r->next_step.find("eboot"), std::string::npos) << r->next_step;
  // The line itself is the evidence, with the Xid it answers.
  ASSERT_EQ(r->events.size(), 2u);
  EXPECT_NE(r->events[0].text.find("): 120,"), std::string::npos) << r->events[0].text;
  EXPECT_NE(r->events[1].text.find("to 0x1 (GPU Reset Required)"), std::string::npos) << r->events[1].text;
  EXPECT_EQ(r->events[1].file, "dmesg.txt");
  EXPECT_EQ(r->events[1].line, 4u);
}

TEST(FindingsRecovery, NodeRebootRequiredIsCriticalAndSaysReboot) {
  const auto& c = dmesg_with("reboot", {kXid120, kReboot});
  const auto fs = find(c.result->timeline, c.result->features, nullptr, {});
  const Finding* r = by_rule(fs, "gpu_recovery_action");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->severity, Severity::kCritical);
  EXPECT_NE(r->title.find("asks for a node reboot"), std::string::npos) << r->title;
  EXPECT_NE(r->next_step.find("Reboot the node"), std::string::npos) << r->next_step;
  EXPECT_NE(r->next_step.find("a GPU reset is not enough"), std::string::npos) << r->next_step;
}

TEST(FindingsRecovery, EachActionIsKeyedOnItsHexValue) {
  // The words after the value are the driver's; the value decides (0x3 Drain P2P here).
  const auto& c = dmesg_with("drain", {kXid120, kDrain});
  const auto fs = find(c.result->timeline, c.result->features, nullptr, {});
  const Finding* r = by_rule(fs, "gpu_recovery_action");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->severity, Severity::kWarning);
  EXPECT_NE(r->next_step.find("Drain peer-to-peer traffic"), std::string::npos) << r->next_step;
  // Back to 0x0 (None): the action was taken, information only.
  const auto& done = dmesg_with(
      "cleared",
      {kXid120, kReset,
       "NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x1 (GPU Reset Required) to 0x0 (None)"});
  const auto fd = find(done.result->timeline, done.result->features, nullptr, {});
  const Finding* n = by_rule(fd, "gpu_recovery_action");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->severity, Severity::kInfo) << n->title;
  EXPECT_NE(n->title.find("back to none"), std::string::npos) << n->title;
}

TEST(FindingsRecovery, AHardwareXidBackAfterARecoveryEscalatesToRma) {
  // Xid 48 asks for a reset; the driver is reloaded (the reset); the same Xid 48 comes back.
  const auto& c = dmesg_with("escalate", {kXid48, kReset, kReload, kXid48, kReset});
  const auto fs = find(c.result->timeline, c.result->features, nullptr, {});
  const Finding* r = by_rule(fs, "gpu_recovery_action");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->severity, Severity::kCritical);
  EXPECT_NE(r->next_step.find("Xid 48 came back after 1 reset(s) or reboot(s)"), std::string::npos) << r->next_step;
  EXPECT_NE(r->next_step.find("RMA"), std::string::npos) << r->next_step;
  const Finding* rma = by_rule(fs, "rma_candidate");
  ASSERT_NE(rma, nullptr);  // two hardware Xids only: below --finding-rma-xids (3), escalated by the recurrence
  EXPECT_NE(rma->title.find("Xid 48 came back"), std::string::npos) << rma->title;

  // The threshold is an option: two recoveries needed, one seen: the driver's reset stands.
  FindingOptions patient;
  patient.xid_escalation_recoveries = 2;
  const auto fp = find(c.result->timeline, c.result->features, nullptr, patient);
  const Finding* w = by_rule(fp, "gpu_recovery_action");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->severity, Severity::kWarning);
  EXPECT_EQ(w->next_step.find("RMA"), std::string::npos) << w->next_step;
  EXPECT_EQ(by_rule(fp, "rma_candidate"), nullptr);

  // Without a recovery between them the second Xid 48 is no recurrence after a reset.
  const auto& twice = dmesg_with("no-recovery", {kXid48, kXid48, kReset});
  const auto ft = find(twice.result->timeline, twice.result->features, nullptr, {});
  EXPECT_EQ(by_rule(ft, "rma_candidate"), nullptr);
  ASSERT_NE(by_rule(ft, "gpu_recovery_action"), nullptr);
  EXPECT_EQ(by_rule(ft, "gpu_recovery_action")->severity, Severity::kWarning);
}

TEST(FindingsRecovery, ApplicationXidsNeverMarkTheHardwareUnhealthy) {
  std::vector<std::string> lines;
  for (int round = 0; round < 3; ++round)
    for (int code : {13, 31, 43, 45, 94})
      lines.push_back(fmt::format("NVRM: Xid (PCI:0000:01:00): {}, pid={}, name=python, Ch 0000000{}", code,
                                  5000 + round, code % 10));
  const fs::path dir = sim::testing::temp_dir("recovery-application");
  fs::create_directories(dir);
  {
    std::ofstream k(dir / "dmesg.txt");
    k << "[    0.000000] Linux version 6.8.0-48-generic (buildd@lcy02-amd64-010) (gcc 13.2.0) #48-Ubuntu SMP\n";
    int s = 1000;
    for (const auto& l : lines) k << fmt::format("[ {:5}.000000] {}\n", s += 30, l);
  }
  const auto& c = ground_truth::pipeline_on(dir);
  const auto fs = find(c.result->timeline, c.result->features, nullptr, {});
  ASSERT_NE(by_rule(fs, "application_gpu_faults"), nullptr);
  for (const auto& f : fs) EXPECT_EQ(f.severity, Severity::kInfo) << f.id << " " << f.title;
  EXPECT_EQ(by_rule(fs, "gpu_memory_errors"), nullptr);
  EXPECT_EQ(by_rule(fs, "rma_candidate"), nullptr);
}

TEST(FindingsIgnore, AnIgnoredRuleIsListedNotDropped) {
  const auto& c = dmesg_with("ignore", {kXid120, kReset});
  EXPECT_TRUE(is_rule("R15"));
  EXPECT_TRUE(is_rule("gpu_recovery_action"));
  EXPECT_FALSE(is_rule("R99"));
  FindingOptions o;
  o.ignore = {"gpu_recovery_action", "R03"};
  const auto fs = find(c.result->timeline, c.result->features, nullptr, o);
  EXPECT_EQ(by_rule(fs, "gpu_recovery_action"), nullptr);
  const Finding* ig = by_rule(fs, "ignored_findings");
  ASSERT_NE(ig, nullptr);
  EXPECT_EQ(ig->id, "R16");
  EXPECT_EQ(ig->severity, Severity::kInfo);
  EXPECT_NE(ig->title.find("2 rule(s) ignored"), std::string::npos) << ig->title;
  // What was left out, and what it would have said.
  EXPECT_NE(ig->next_step.find("R15 gpu_recovery_action (warning: GPU 0000:01:00: the driver asks for a GPU reset"),
            std::string::npos)
      << ig->next_step;
  EXPECT_NE(ig->next_step.find("R03 pcie_link_degraded (did not fire)"), std::string::npos) << ig->next_step;
  // Nothing ignored: no such finding.
  EXPECT_EQ(by_rule(find(c.result->timeline, c.result->features, nullptr, {}), "ignored_findings"), nullptr);
}

}  // namespace
}  // namespace gpucost::findings
