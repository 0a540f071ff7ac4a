// The event recognizer: every built-in pattern on the wording real logs print (sources in
// tests/data/kernel/SOURCES.md), the fields it extracts, noise rejection, --patterns files, and
// docs/events.md being current.
#include "gpucost/ingest/recognizer.hpp"

#include "gpucost/features/xid_catalog.hpp"
#include "gpucost/records/devices.hpp"
#include "gpucost/records/events.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace gpucost {
namespace {

const EventRecognizer& rec() {
  static const EventRecognizer r;
  return r;
}

std::optional<Recognition> kernel(std::string_view text) { return rec().classify("kernel", text); }

void expect_kind(std::string_view ident, std::string_view text, EventKind kind) {
  const auto r = rec().classify(ident, text);
  ASSERT_TRUE(r.has_value()) << ident << ": " << text;
  EXPECT_EQ(r->kind, kind) << ident << ": " << text << " -> " << event_kind_name(r->kind);
}

void expect_none(std::string_view ident, std::string_view text) {
  const auto r = rec().classify(ident, text);
  EXPECT_FALSE(r.has_value()) << ident << ": " << text << " -> " << event_kind_name(r->kind);
}

// ---- NVIDIA ------------------------------------------------------------------------------------

TEST(Recognizer, XidNewFormWithPidAndName) {
  const auto r = kernel(
      "NVRM: Xid (PCI:0000:01:00): 31, pid=13705, name=UnrealEditor, channel 0x0000000c, intr 00000000. MMU Fault: "
      "ENGINE GRAPHICS GPC2 GPCCLIENT_PROP_0 faulted @ 0x0_00000000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->kind, EventKind::xid);
  EXPECT_EQ(r->code, 31);
  EXPECT_EQ(r->gpu, "PCI:0000:01:00");
  EXPECT_EQ(r->pid, 13705);
  EXPECT_EQ(r->process, "UnrealEditor");
}

TEST(Recognizer, XidOldFormWithoutPci) {
  const auto r = kernel("NVRM: Xid (0000:01:00): 13, 0001 00000000 0000a097 00001b0c 1000f010 00000000");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->code, 13);
  EXPECT_EQ(r->gpu, "0000:01:00");
  EXPECT_EQ(r->pid, INT64_MIN);
  EXPECT_EQ(r->process, "");
}

TEST(Recognizer, XidUnknownPidAndName) {
  const auto r = kernel(
      "NVRM: Xid (PCI:0000:00:06): 119, pid='<unknown>', name=<unknown>, Timeout waiting for RPC from GSP! "
      "Expected function FREE (0x0 0x0).");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->code, 119);
  EXPECT_EQ(r->pid, INT64_MIN);
  EXPECT_EQ(r->process, "");
}

TEST(Recognizer, XidProcessNameWithBlanksAndPidOnly) {
  const auto a = kernel("NVRM: Xid (PCI:0000:01:00): 43, pid=2817, name=Web Content, Ch 00000038");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->process, "Web Content");
  const auto b = kernel("NVRM: Xid (PCI:0000:c1:00): 31, pid=12890, Ch 0000003b, intr 00000000. MMU Fault");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->pid, 12890);
  EXPECT_EQ(b->process, "");
}

// On a MIG-enabled GPU the driver names the GPU instance after the address (issue 38): the Xid
// belongs to the physical GPU, the same key as its plain Xids, and the instance is read back.
TEST(Recognizer, XidNamingAMigGpuInstanceIsTheGpusXid) {
  const auto r = kernel("NVRM: Xid (PCI:0000:4b:00 GPU-I:05): 43, pid=1234, name=python, Ch 00000008");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->kind, EventKind::xid);
  EXPECT_EQ(r->code, 43);
  EXPECT_EQ(r->gpu, "PCI:0000:4b:00");
  EXPECT_EQ(r->pid, 1234);
  EXPECT_EQ(normalize_pci_bus(r->gpu), normalize_pci_bus("PCI:0000:4b:00"));
  EXPECT_EQ(xid_gpu_instance("NVRM: Xid (PCI:0000:4b:00 GPU-I:05): 43, pid=1234, name=python, Ch 00000008"), 5);
  EXPECT_EQ(xid_gpu_instance("NVRM: Xid (PCI:0000:4b:00): 43, pid=1234, name=python, Ch 00000008"), std::nullopt);
  EXPECT_EQ(xid_gpu_instance("NVRM: Xid (PCI:0000:4b:00 GPU-I:): 43"), std::nullopt);
}

TEST(Recognizer, Xid79IsAnXidNotABareFallOffTheBus) {
  const auto r = kernel("NVRM: Xid (PCI:0000:3b:00): 79, pid=1911, name=python3, GPU has fallen off the bus.");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->kind, EventKind::xid);
  EXPECT_EQ(r->code, 79);
}

TEST(Recognizer, FallenOffTheBusWithoutXid) {
  const auto a = kernel("NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->kind, EventKind::fallen_off_bus);
  EXPECT_EQ(a->gpu, "0000:3b:00.0");
  const auto b = kernel("NVRM: GPU at PCI:0000:01:00: GPU has fallen off the bus.");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->gpu, "0000:01:00");
  // The 570 driver's multi-line message, joined: the PCI ID `10de:26b5` is no address.
  const auto c = kernel(
      "NVRM: The NVIDIA GPU 0000:b3:00.0\nNVRM: (PCI ID: 10de:26b5) installed in this system has\n"
      "NVRM: fallen off the bus and is not responding to commands.");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->kind, EventKind::fallen_off_bus);
  EXPECT_EQ(c->gpu, "0000:b3:00.0");
}

TEST(Recognizer, RmInitAdapterOnePerAttempt) {
  const auto r = kernel("NVRM: GPU 0000:09:00.0: rm_init_adapter failed, device minor number 0");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->kind, EventKind::rm_init_failed);
  EXPECT_EQ(r->gpu, "0000:09:00.0");
  expect_kind("kernel", "NVRM: rm_init_adapter failed for device bearing minor number 0", EventKind::rm_init_failed);
  expect_kind("kernel", "NVRM: rm_init_adapter(0) failed", EventKind::rm_init_failed);
  // The other lines of the same burst are not events of their own.
  expect_none("kernel", "NVRM: GPU 0000:09:00.0: RmInitAdapter failed! (0x22:0x56:894)");
  expect_none("kernel", "NVRM: RmInitAdapter: osInitNvMapping failed, bailing out of RmInitAdapter");
  expect_none("kernel", "NVRM: osInitNvMapping: *** Cannot attach gpu");
}

TEST(Recognizer, GspErrors) {
  expect_kind("kernel",
              "NVRM: kgspHealthCheck_TU102: ****************************** GSP-CrashCat Report "
              "*******************************",
              EventKind::gsp_error);
  expect_kind("kernel",
              "NVRM: _kgspLogXid119: ********************************* GSP Timeout "
              "**********************************",
              EventKind::gsp_error);
  expect_kind("kernel",
              "NVRM: GPU0 _kgspLogXid119: ********************************* GSP Failure "
              "**********************************",
              EventKind::gsp_error);
  expect_none("kernel", "NVRM: GPU0 kgspInitRm_IMPL: GSP firmware version 535.104.05");
}

TEST(Recognizer, GspBackToBackTimeoutMarksAReset) {
  expect_kind("kernel",
              "NVRM: nvAssertFailedNoLog: Assertion failed: Back to back GSP RPC timeout detected! GPU marked for "
              "reset @ kernel_gsp.c:2459",
              EventKind::gpu_reset);
}

TEST(Recognizer, Asserts) {
  expect_kind("kernel",
              "NVRM: nvAssertFailedNoLog: Assertion failed: (status == NV_OK) || (status == "
              "NV_ERR_GPU_IN_FULLCHIP_RESET) @ rs_server.c:1375",
              EventKind::nv_assert);
  expect_kind("kernel",
              "NVRM: GPU0 nvAssertOkFailedNoLog: Assertion failed: Current device is not valid "
              "[NV_ERR_INVALID_DEVICE] (0x00000026) returned from rmDeviceGpuLocksAcquire @ virtual_mem.c:115",
              EventKind::nv_assert);
  expect_none("kernel", "NVRM: GPU0 vaspaceapiConstruct_IMPL: Could not construct VA space. Status 62");
}

TEST(Recognizer, DriverLoadAndErrors) {
  expect_kind("kernel",
              "NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  575.51.02  Release Build  (root@Kyrios)",
              EventKind::driver_load);
  expect_none("kernel",
              "nvidia-modeset: Loading NVIDIA UNIX Open Kernel Mode Setting Driver for x86_64  575.51.02  Release Build");
  expect_kind("kernel", "nvidia-modeset: ERROR: GPU:0: Failed to query display engine status", EventKind::driver_error);
  expect_kind("kernel",
              "[drm:nv_drm_atomic_commit [nvidia_drm]] *ERROR* [nvidia-drm] [GPU ID 0x00000900] Flip event timeout on "
              "head 0",
              EventKind::driver_error);
  expect_kind("kernel", "NVRM: The NVIDIA probe routine failed for 1 device(s).", EventKind::driver_error);
  expect_kind("kernel",
              "NVRM: API mismatch: the client has the version 535.54.03, but\nNVRM: this kernel module has the version "
              "530.41.03.  Please\nNVRM: make sure that this kernel module and all NVIDIA driver\nNVRM: components have "
              "the same version.",
              EventKind::driver_error);
  // An i915 *ERROR* is no NVIDIA driver error.
  expect_none("kernel", "[drm:i915_set_reset_status [i915]] *ERROR* gpu hanging too fast, banning!");
  expect_none("kernel", "NVRM: GPU at PCI:0000:01:00: GPU-4e391288-897c-ba5d-6944-dfbea55ebcfa");
}

// ---- other GPUs, PCIe, the kernel --------------------------------------------------------------

TEST(Recognizer, I915Hangs) {
  const auto old_form = kernel("[drm] GPU HANG: ecode 8:0:0x85dffefd, in Xorg [1220], reason: Ring hung, action: reset");
  ASSERT_TRUE(old_form);
  EXPECT_EQ(old_form->kind, EventKind::i915_hang);
  EXPECT_EQ(old_form->pid, 1220);
  EXPECT_EQ(old_form->process, "Xorg");
  EXPECT_EQ(old_form->gpu, "");
  const auto new_form = kernel("i915 0000:00:02.0: [drm] GPU HANG: ecode 4:1:9fe7fbfd, in Xorg [996]");
  ASSERT_TRUE(new_form);
  EXPECT_EQ(new_form->gpu, "0000:00:02.0");
  EXPECT_EQ(new_form->pid, 996);
  EXPECT_EQ(new_form->process, "Xorg");
  expect_none("kernel", "[drm] GPU hangs can indicate a bug anywhere in the entire gfx stack, including userspace.");
  expect_none("kernel", "i915 0000:00:02.0: [drm] Xorg[996] context reset due to GPU hang");
}

TEST(Recognizer, GpuResets) {
  expect_kind("kernel", "drm/i915: Resetting chip after gpu hang", EventKind::gpu_reset);
  const auto r = kernel("i915 0000:00:02.0: [drm] Resetting chip for stopped heartbeat on rcs0");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->kind, EventKind::gpu_reset);
  EXPECT_EQ(r->gpu, "0000:00:02.0");
  const auto a = kernel("amdgpu 0000:03:00.0: amdgpu: GPU reset begin!");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->kind, EventKind::gpu_reset);
  EXPECT_EQ(a->gpu, "0000:03:00.0");
}

TEST(Recognizer, AerSeverities) {
  const auto c = kernel("pcieport 0000:00:1c.5: PCIe Bus Error: severity=Corrected, type=Physical Layer, id=00e5(Receiver ID)");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->kind, EventKind::pcie_aer);
  EXPECT_EQ(c->code, 0);
  EXPECT_EQ(c->gpu, "0000:00:1c.5");
  EXPECT_EQ(kernel("pcieport 0000:00:03.1: PCIe Bus Error: severity=Correctable, type=Data Link Layer, (Transmitter ID)")->code, 0);
  const auto nf = kernel("nvidia 0000:01:00.0: PCIe Bus Error: severity=Uncorrected (Non-Fatal), type=Transaction Layer, (Requester ID)");
  ASSERT_TRUE(nf);
  EXPECT_EQ(nf->code, 1);
  EXPECT_EQ(nf->gpu, "0000:01:00.0");
  EXPECT_EQ(kernel("pcieport 0000:00:01.0: AER: PCIe Bus Error: severity=Uncorrected (Fatal), type=Inaccessible, (Unregistered Agent ID)")->code, 2);
  // The lines around a report are not reports.
  expect_none("kernel", "pcieport 0000:00:1c.5: AER: Corrected error received: id=00e5");
  expect_none("kernel", "pcieport 0000:00:1d.0: AER: Multiple Corrected error received: 0000:03:00.0");
  expect_none("kernel", "pcieport 0000:00:1c.5:   device [8086:9d15] error status/mask=00000001/00002000");
  expect_none("kernel", "pcieport 0000:00:1c.5:    [ 0] Receiver Error");
}

TEST(Recognizer, PcieLinkDegraded) {
  const auto r = kernel(
      "pci 0000:01:00.0: 32.000 Gb/s available PCIe bandwidth, limited by 2.5 GT/s PCIe x16 link at 0000:00:01.0 "
      "(capable of 252.048 Gb/s with 16.0 GT/s PCIe x16 link)");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->kind, EventKind::pcie_link_degraded);
  EXPECT_EQ(r->gpu, "0000:01:00.0");
}

TEST(Recognizer, Taints) {
  expect_kind("kernel", "nvidia: module license 'NVIDIA' taints kernel.", EventKind::taint);
  expect_kind("kernel", "nvidia: loading out-of-tree module taints kernel.", EventKind::taint);
  expect_kind("kernel", "nvidia: module verification failed: signature and/or required key missing - tainting kernel",
              EventKind::taint);
  expect_none("kernel", "Disabling lock debugging due to kernel taint");
}

TEST(Recognizer, Thermal) {
  const auto hot = kernel("CPU0: Core temperature above threshold, cpu clock throttled (total events = 1)");
  ASSERT_TRUE(hot);
  EXPECT_EQ(hot->kind, EventKind::thermal);
  EXPECT_EQ(hot->code, 1);
  EXPECT_EQ(kernel("mce: CPU4: Package temperature above threshold, cpu clock throttled")->code, 1);
  // The wording since Linux 5.5 (arch/x86/kernel/cpu/mce/therm_throt.c).
  EXPECT_EQ(kernel("mce: CPU0: Core temperature is above threshold, cpu clock is throttled (total events = 42)")->code, 1);
  EXPECT_EQ(kernel("CPU0: Core temperature/speed normal")->code, 0);
  EXPECT_EQ(kernel("thermal thermal_zone0: critical temperature reached (105 C), shutting down")->code, 2);
  expect_none("kernel", "CPU0: Package power limit notification (total events = 1)");
}

TEST(Recognizer, AcAdapterKernel) {
  expect_kind("kernel", "ACPI: AC: AC Adapter [ADP1] (on-line)", EventKind::ac_online);
  expect_kind("kernel", "ACPI: AC Adapter [AC] (off-line)", EventKind::ac_offline);
  expect_kind("kernel", "ACPI: AC Adapter [ACAD] (on-line)", EventKind::ac_online);
}

TEST(Recognizer, KernelSuspendResumeBoot) {
  expect_kind("kernel", "PM: suspend entry (deep)", EventKind::suspend);
  expect_kind("kernel", "PM: suspend entry (s2idle)", EventKind::suspend);
  expect_kind("kernel", "PM: hibernation: hibernation entry", EventKind::suspend);
  expect_kind("kernel", "PM: Entering mem sleep", EventKind::suspend);
  expect_kind("kernel", "PM: suspend exit", EventKind::resume);
  expect_kind("kernel", "PM: hibernation: hibernation exit", EventKind::resume);
  expect_kind("kernel", "PM: Finishing wakeup.", EventKind::resume);
  expect_kind("kernel",
              "Linux version 5.18.18 (nixbld@localhost) (gcc (GCC) 11.3.0, GNU ld (GNU Binutils) 2.38) #1-NixOS SMP",
              EventKind::boot);
  expect_none("kernel", "Command line: BOOT_IMAGE=/vmlinuz Linux version 6.1 quiet");
  // Kernels before 4.15 have no `PM: suspend entry`: their suspend is these lines, and the wake
  // is ACPI's. (From 4.15 to 5.1 `PM: Syncing filesystems` follows `PM: suspend entry` within
  // milliseconds: suspend events within 60 s are one cycle, so it adds no suspend.)
  expect_kind("kernel", "PM: Syncing filesystems ... done.", EventKind::suspend);
  expect_kind("kernel", "PM: Preparing system for mem sleep", EventKind::suspend);
  expect_kind("kernel", "PM: Suspending system (mem)", EventKind::suspend);
  expect_kind("kernel", "ACPI: Waking up from system sleep state S3", EventKind::resume);
  expect_kind("kernel", "ACPI: PM: Waking up from system sleep state S3", EventKind::resume);
  expect_none("kernel", "ACPI: PM: Preparing to enter system sleep state S3");
}

TEST(Recognizer, OomKills) {
  const auto r = kernel(
      "Out of memory: Killed process 2354 (python3) total-vm:35842048kB, anon-rss:31432512kB, file-rss:0kB, "
      "shmem-rss:0kB, UID:1000 pgtables:62048kB oom_score_adj:0");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->kind, EventKind::oom_kill);
  EXPECT_EQ(r->pid, 2354);
  EXPECT_EQ(r->process, "python3");
  // Old kernels: the choice and the kill are two lines; only the kill is the event.
  expect_none("kernel", "Out of memory: Kill process 2354 (python3) score 953 or sacrifice child");
  const auto old = kernel("Killed process 2354 (python3) total-vm:35842048kB, anon-rss:31432512kB, file-rss:0kB");
  ASSERT_TRUE(old);
  EXPECT_EQ(old->pid, 2354);
  const auto cg = kernel("Memory cgroup out of memory: Killed process 4242 (pt_main_thread) total-vm:1234kB");
  ASSERT_TRUE(cg);
  EXPECT_EQ(cg->process, "pt_main_thread");
  expect_none("kernel", "oom_reaper: reaped process 2354 (python3), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB");
}

TEST(Recognizer, Crashes) {
  const auto s = kernel(
      "python3[12345]: segfault at 0 ip 00007f3a2c1b2d10 sp 00007ffd5d9c7e60 error 4 in "
      "libcuda.so.535.104.05[7f3a2bf00000+1e00000]");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->kind, EventKind::segfault);
  EXPECT_EQ(s->pid, 12345);
  EXPECT_EQ(s->process, "python3");
  EXPECT_EQ(kernel("Web Content[3010]: segfault at 0 ip 00007f0000000000 sp 00007ffc00000000 error 6")->process,
            "Web Content");
  const auto t = kernel("traps: python3[4242] general protection fault ip:7f0c1a2b3c4d sp:7ffd0e0f1a2b error:0 in libc.so.6");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->kind, EventKind::segfault);
  EXPECT_EQ(t->pid, 4242);
  EXPECT_EQ(t->process, "python3");
}

// ---- daemons -----------------------------------------------------------------------------------

TEST(Recognizer, Logind) {
  expect_kind("systemd-logind", "Lid closed.", EventKind::lid_close);
  expect_kind("systemd-logind", "Lid opened.", EventKind::lid_open);
  expect_kind("systemd-logind", "Suspending...", EventKind::suspend);
  expect_kind("systemd-logind", "Suspending, then hibernating...", EventKind::suspend);
  expect_kind("systemd-logind", "Hibernating...", EventKind::suspend);
  expect_kind("systemd-logind", "The system will suspend now!", EventKind::suspend);
  expect_kind("systemd-logind", "The system will hibernate now!", EventKind::suspend);
  expect_kind("systemd-logind", "System is halting.", EventKind::shutdown);
  expect_kind("systemd-logind", "System is powering down.", EventKind::shutdown);
  expect_kind("systemd-logind", "System is rebooting.", EventKind::shutdown);
  expect_kind("systemd-logind", "System is rebooting (Kernel update).", EventKind::shutdown);
  expect_none("systemd-logind", "Watching system buttons on /dev/input/event1 (Lid Switch)");
  expect_none("systemd-logind", "Power key pressed.");
  expect_none("systemd-logind", "Operation 'sleep' finished.");
  // The same words from another daemon are not logind's.
  expect_none("gnome-shell", "Lid closed.");
}

TEST(Recognizer, SystemdSleepOldAndNew) {
  expect_kind("systemd-sleep", "Entering sleep state 'suspend'...", EventKind::suspend);
  expect_kind("systemd-sleep", "Performing sleep operation 'suspend'...", EventKind::suspend);
  expect_kind("systemd-sleep", "Suspending system...", EventKind::suspend);
  expect_kind("systemd-sleep", "Hibernating system...", EventKind::suspend);
  expect_kind("systemd-sleep", "System returned from sleep state.", EventKind::resume);
  expect_kind("systemd-sleep", "System returned from sleep operation 'hibernate'.", EventKind::resume);
  expect_kind("systemd-sleep", "System resumed.", EventKind::resume);
  expect_kind("systemd-sleep", "Failed to put system to sleep. System resumed again: Device or resource busy",
              EventKind::resume);
  expect_none("systemd-sleep", "Successfully froze unit 'user.slice'.");
}

TEST(Recognizer, SystemdServiceFailures) {
  const auto r = rec().classify("systemd", "docker.service: Failed with result 'exit-code'.");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->kind, EventKind::service_failed);
  EXPECT_EQ(r->process, "docker.service");
  const auto old = rec().classify("systemd", "Unit nvidia-persistenced.service entered failed state.");
  ASSERT_TRUE(old);
  EXPECT_EQ(old->process, "nvidia-persistenced.service");
  // These accompany a `Failed with result` line: one event per failure.
  expect_none("systemd", "Failed to start Docker Application Container Engine.");
  expect_none("systemd", "docker.service: Unit entered failed state.");
  expect_none("systemd", "docker.service: Main process exited, code=exited, status=1/FAILURE");
  expect_none("systemd", "Started Session 3 of user root.");
}

TEST(Recognizer, Containers) {
  const auto lc = rec().classify(
      "systemd", "Started libcontainer container 89f31672e75b906283166a7d8eb26f12bdd5e66949a93b4a47dfa30e025f6bc5.");
  ASSERT_TRUE(lc);
  EXPECT_EQ(lc->kind, EventKind::container_start);
  EXPECT_EQ(lc->process, "89f31672e75b");

  const auto create = rec().classify(
      "dockerd", "time=\"2023-08-24T10:39:53.891983761Z\" level=debug msg=\"Calling POST /v1.43/containers/create?name=trainer\"");
  ASSERT_TRUE(create);
  EXPECT_EQ(create->kind, EventKind::container_create);
  EXPECT_EQ(create->process, "trainer");
  const auto start = rec().classify("dockerd", "time=\"2023-08-24T10:39:54Z\" level=debug msg=\"Calling POST /v1.43/containers/8f2e1c0a9b7d/start\"");
  ASSERT_TRUE(start);
  EXPECT_EQ(start->kind, EventKind::container_start);
  EXPECT_EQ(start->process, "8f2e1c0a9b7d");
  const auto stop = rec().classify(
      "dockerd",
      "time=\"2026-01-04T04:29:21.333993942+09:00\" level=info msg=\"ignoring event\" "
      "container=d1b496c8d966d65fb8784fa50c1122aec635287df466b38f0445425f9145006a module=libcontainerd namespace=moby "
      "topic=/tasks/delete type=\"*events.TaskDelete\"");
  ASSERT_TRUE(stop);
  EXPECT_EQ(stop->kind, EventKind::container_stop);
  EXPECT_EQ(stop->process, "d1b496c8d966");
  expect_none("dockerd", "time=\"2023-08-24T10:39:53.891983761Z\" level=info msg=\"Starting up\"");
  // dockerd's embedded containerd logs under dockerd's ident.
  const auto embedded = rec().classify(
      "dockerd",
      "time=\"2023-08-26T19:22:54.385411802Z\" level=info msg=\"starting signal loop\" namespace=moby "
      "path=/run/docker/containerd/daemon/io.containerd.runtime.v2.task/moby/"
      "bd4cb19537b4c39131b084e04c1e0bd0a9f2a5c2f5c3e1d9b8a7f6e5d4c3b2a1 pid=2630");
  ASSERT_TRUE(embedded);
  EXPECT_EQ(embedded->kind, EventKind::container_start);
  EXPECT_EQ(embedded->process, "bd4cb19537b4");

  const auto loop = rec().classify(
      "containerd",
      "time=\"2023-06-20T22:20:27.947665970Z\" level=info msg=\"starting signal loop\" namespace=moby "
      "path=/run/containerd/io.containerd.runtime.v2.task/moby/89f31672e75b906283166a7d8eb26f12bdd5e66949a93b4a47dfa30e025f6bc5 "
      "pid=1293 runtime=io.containerd.runc.v2");
  ASSERT_TRUE(loop);
  EXPECT_EQ(loop->kind, EventKind::container_start);
  EXPECT_EQ(loop->process, "89f31672e75b");
  const auto shim = rec().classify(
      "containerd",
      "time=\"2021-02-22T20:44:24.963618913Z\" level=info msg=\"shim disconnected\" "
      "id=389215170b90c6f6c6a0a9b9f64e02b9b73e58c0cfe5941a2bd07b76072ef2b1");
  ASSERT_TRUE(shim);
  EXPECT_EQ(shim->kind, EventKind::container_stop);
  EXPECT_EQ(shim->process, "389215170b90");
  expect_none("containerd",
              "time=\"2021-02-22T20:44:24Z\" level=warning msg=\"cleaning up after shim disconnected\" "
              "id=389215170b90c6f6c6a0a9b9f64e02b9b73e58c0cfe5941a2bd07b76072ef2b1 namespace=moby");

  const auto died = rec().classify(
      "podman",
      "2021-07-19 01:57:32.878374998 +0000 UTC m=+1110.936765616 container died "
      "4c828c19c702ee51fc6eda68d52859ca2c477eb90aca9266273ff778aa1048ed (image=quay.io/openshift/okd-content@sha256:"
      "7707231ca5ce9c574cbcc8cd10b5b311fb98d59907f01696a76ea75e5ee65f09, name=reverent_morse)");
  ASSERT_TRUE(died);
  EXPECT_EQ(died->kind, EventKind::container_stop);
  EXPECT_EQ(died->process, "reverent_morse");
  expect_kind("podman", "2021-07-19 01:57:30.1 +0000 UTC m=+1.0 container create 4c828c19c702 (image=alpine, name=x)",
              EventKind::container_create);
  expect_kind("podman", "2021-07-19 01:57:30.2 +0000 UTC m=+1.1 container start 4c828c19c702 (image=alpine, name=x)",
              EventKind::container_start);
}

TEST(Recognizer, GpuDaemonsAndCron) {
  expect_kind("nvidia-persistenced", "Started (19176)", EventKind::service_restart);
  expect_none("nvidia-persistenced", "Shutdown (19176)");
  expect_kind("/usr/bin/nvidia-powerd", "nvidia-powerd version:1.0(build 1)", EventKind::service_restart);
  expect_kind("CRON", "(root) CMD (command -v debian-sa1 > /dev/null && debian-sa1 1 1)", EventKind::cron);
  expect_kind("CROND", "(root) CMD (run-parts /etc/cron.hourly)", EventKind::cron);
  expect_none("CRON", "pam_unix(cron:session): session opened for user root(uid=0) by (uid=0)");
}

TEST(Recognizer, AcpiEventsFromAnyIdent) {
  expect_kind("acpid", "received input layer event \"ac_adapter ACPI0003:00 00000080 00000001\"", EventKind::ac_online);
  expect_kind("root", "ACPI event: ac_adapter ACPI0003:00 00000080 00000000", EventKind::ac_offline);
  expect_kind("logger", "button/lid LID close", EventKind::lid_close);
  expect_kind("acpid", "button/lid LID open", EventKind::lid_open);
  expect_none("acpid", "ac_adapter ACPI0003:00");  // no state field
  expect_kind("upowerd", "line_power_AC: online: yes", EventKind::ac_online);
  expect_kind("upowerd", "line_power_ACAD: online: no", EventKind::ac_offline);
  expect_none("upowerd", "line_power_ACAD: online: unknown");
}

// ---- noise and the prefilter ---------------------------------------------------------------------

TEST(Recognizer, NoiseIsRejected) {
  for (std::string_view t : {
           "usb 1-1: new high-speed USB device number 5 using xhci_hcd",
           "EXT4-fs (nvme0n1p2): mounted filesystem with ordered data mode. Quota mode: none.",
           "iwlwifi 0000:00:14.3: CNVI_SCU_SEQ_DATA_DW9: 0x10",
           "NVRM: GPU Board Serial Number: 0",
           "pcieport 0000:00:03.1:    [12] Timeout",
           "fallback to default firmware",        // shares `fall` with fallen off the bus
           "Killing process group",               // shares `Kill` with the OOM killer
           "physical address space: 39 bits",     // shares `ical` with critical temperature
           "",
           "abc",
       })
    expect_none("kernel", t);
  for (std::string_view t : {
           "Accepted publickey for alice from 10.0.0.2 port 50122 ssh2",
           "authentication failure; logname= uid=0 euid=0 tty=NODEVssh ruser= rhost=218.188.2.4",
           "<info>  [1764445845.1234] device (wlp2s0): state change: config -> ip-config",
       })
    expect_none("sshd", t);
  // Kernel patterns do not apply to other idents.
  expect_none("sshd", "PM: suspend entry (deep)");
}

TEST(Recognizer, EmptyIdentIsKernel) {
  expect_kind("", "NVRM: Xid (PCI:0000:01:00): 31, pid=1, name=x, channel 0x1", EventKind::xid);
}

// ---- user patterns -----------------------------------------------------------------------------

std::string write_patterns(const std::string& name, const std::string& body) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << body;
  return path;
}

TEST(RecognizerPatterns, LoadedAndTriedAfterTheBuiltIns) {
  EventRecognizer r;
  const std::string path = write_patterns("ok.patterns",
                                          "# comment\n"
                                          "\n"
                                          "thermal\tkernel\tGPU is hot\r\n"
                                          "user\tmy-trainer\tcheckpoint saved\tepoch\n"
                                          "user\t\tcustom marker\n");
  EXPECT_EQ(r.load_file(path), "");
  ASSERT_EQ(r.user_patterns().size(), 3u);
  EXPECT_EQ(r.user_patterns()[0].needles, std::vector<std::string>{"GPU is hot"});  // CR stripped
  EXPECT_EQ(r.user_patterns()[1].label, "user");
  // `kernel` patterns apply to messages without an ident too.
  ASSERT_TRUE(r.classify("", "NVRM: GPU is hot, sir"));
  EXPECT_EQ(r.classify("", "NVRM: GPU is hot, sir")->kind, EventKind::thermal);
  EXPECT_FALSE(r.classify("sshd", "GPU is hot"));
  // Ident is a prefix; every needle must occur.
  EXPECT_EQ(r.classify("my-trainer-2", "epoch 3 checkpoint saved")->kind, EventKind::user);
  EXPECT_FALSE(r.classify("my-trainer", "checkpoint saved"));
  EXPECT_FALSE(r.classify("other", "epoch 3 checkpoint saved"));
  // An empty ident matches every source.
  EXPECT_EQ(r.classify("anything", "a custom marker here")->kind, EventKind::user);
  // Built-ins win.
  EXPECT_EQ(r.classify("kernel", "PM: suspend entry (deep) GPU is hot")->kind, EventKind::suspend);
}

TEST(RecognizerPatterns, BadFilesSayWhy) {
  EventRecognizer r;
  EXPECT_NE(r.load_file(::testing::TempDir() + "/does-not-exist.patterns").find("cannot open"), std::string::npos);
  const std::string bad_kind = write_patterns("bad-kind.patterns", "overheat\tkernel\thot\n");
  EXPECT_NE(r.load_file(bad_kind).find("unknown kind 'overheat'"), std::string::npos);
  // The last-line mark is no kind a pattern may produce.
  const std::string mark_kind = write_patterns("mark-kind.patterns", "log_end\tkernel\thot\n");
  EXPECT_NE(r.load_file(mark_kind).find("unknown kind 'log_end'"), std::string::npos);
  const std::string short_line = write_patterns("short.patterns", "thermal\tkernel\n");
  EXPECT_NE(r.load_file(short_line).find(":1: expected kind<TAB>ident<TAB>needle"), std::string::npos);
}

// ---- docs/events.md ----------------------------------------------------------------------------

TEST(Recognizer, EventsDocIsCurrent) {
  const std::string path = std::string(GPUCOST_SOURCE_DIR) + "/docs/events.md";
  const std::string want = event_catalog_markdown();
  if (std::getenv("GPUCOST_REGENERATE_DOCS")) std::ofstream(path, std::ios::binary) << want;
  std::ifstream in(path, std::ios::binary);
  std::stringstream have;
  have << in.rdbuf();
  EXPECT_EQ(have.str(), want) << "docs/events.md is stale; regenerate it (see its header)";
  // Every kind is documented.
  for (std::size_t i = 0; i < kEventKindCount; ++i)
    EXPECT_NE(want.find(fmt::format("## `{}`", event_kind_name(static_cast<EventKind>(i)))), std::string::npos);
}

}  // namespace
}  // namespace gpucost
