// The messages of the planned events, worded as the real programs word them (sources in
// docs/simulate.md): docker/containerd starting and losing the training container, NVIDIA Xid
// errors, lid close and suspend/resume, AC adapter changes, thermal trouble, PCIe AER reports.
#include <algorithm>
#include <string>

#include "sim/emit.hpp"
#include "sim/plan.hpp"

namespace gpucost::sim {

namespace {

constexpr const char* kDockerApi = "v1.47";
constexpr const char* kImage = "nvcr.io/nvidia/pytorch:24.10-py3";

std::string logfmt(const World& w, TimeNs ts, Rng& rng, const std::string& rest) {
  return logfmt_time(w, ts, rng) + " " + rest;
}

void container_start(World& w, Emitter& e, const ContainerRun& c, Rng& rng) {
  const Daemon* dk = w.daemon("dockerd");
  const Daemon* ctd = w.daemon("containerd");
  const std::string api = std::string("/") + kDockerApi + "/containers/";
  e.user(c.create - seconds(0.004), dk, logfmt(w, c.create - seconds(0.004), rng, "level=debug msg=\"Calling HEAD /_ping\""));
  annotate(e.user(c.create, dk, logfmt(w, c.create, rng, "level=debug msg=\"Calling POST " + api + "create\"")),
           EventKind::container_create);
  e.user(c.create + seconds(0.0003), dk,
         logfmt(w, c.create + seconds(0.0003), rng,
                std::string("level=debug msg=\"form data: {\\\"AttachStderr\\\":true,\\\"AttachStdin\\\":false,"
                            "\\\"AttachStdout\\\":true,\\\"Cmd\\\":[\\\"python\\\",\\\"train.py\\\",\\\"--config\\\","
                            "\\\"configs/vit_b16.yaml\\\"],\\\"HostConfig\\\":{\\\"DeviceRequests\\\":[{\\\"Capabilities\\\":"
                            "[[\\\"gpu\\\"]],\\\"Count\\\":-1,\\\"DeviceIDs\\\":null,\\\"Driver\\\":\\\"\\\"}],"
                            "\\\"IpcMode\\\":\\\"host\\\",\\\"ShmSize\\\":17179869184},\\\"Image\\\":\\\"") +
                    kImage + "\\\",\\\"WorkingDir\\\":\\\"/workspace\\\"}\""));
  e.user(c.create + seconds(0.081), dk,
         logfmt(w, c.create + seconds(0.081), rng,
                "level=debug msg=\"container mounted via layerStore: /var/lib/docker/overlay2/" + random_hex(rng, 64) +
                    "/merged\" container=" + c.id + " storage-driver=overlay2"));
  e.user(c.start_api - seconds(0.003), dk,
         logfmt(w, c.start_api - seconds(0.003), rng,
                "level=debug msg=\"Calling POST " + api + c.id + "/attach?stderr=1&stdout=1&stream=1\""));
  e.user(c.start_api - seconds(0.002), dk,
         logfmt(w, c.start_api - seconds(0.002), rng,
                "level=debug msg=\"Calling POST " + api + c.id + "/wait?condition=next-exit\""));
  annotate(e.user(c.start_api, dk, logfmt(w, c.start_api, rng, "level=debug msg=\"Calling POST " + api + c.id + "/start\"")),
           EventKind::container_start);
  // The bridge port of the container's network namespace.
  const std::string veth = "veth" + random_hex(rng, 7);
  const TimeNs k = c.start_api + (c.running - c.start_api) / 3;
  e.kernel(k, "docker0: port 1(" + veth + ") entered blocking state");
  e.kernel(k + seconds(0.000012), "docker0: port 1(" + veth + ") entered disabled state");
  e.kernel(k + seconds(0.000031), "device " + veth + " entered promiscuous mode");
  TimeNs t = c.running - seconds(0.0009);
  for (const char* plugin : {"io.containerd.event.v1.publisher\\\"...\" runtime=io.containerd.runc.v2 type=io.containerd.event.v1",
                             "io.containerd.internal.v1.shutdown\\\"...\" runtime=io.containerd.runc.v2 type=io.containerd.internal.v1",
                             "io.containerd.ttrpc.v1.task\\\"...\" runtime=io.containerd.runc.v2 type=io.containerd.ttrpc.v1"}) {
    t += seconds(0.00006);
    e.user(t, ctd, logfmt(w, t, rng, std::string("level=info msg=\"loading plugin \\\"") + plugin));
  }
  annotate(e.user(c.running, ctd,
                  logfmt(w, c.running, rng,
                         "level=info msg=\"starting signal loop\" namespace=moby path=/run/containerd/"
                         "io.containerd.runtime.v2.task/moby/" + c.id + " pid=" + std::to_string(c.shim_pid) +
                             " runtime=io.containerd.runc.v2")),
           EventKind::container_start);
  e.kernel(c.running + seconds(0.21), "eth0: renamed from veth" + random_hex(rng, 7));
  e.kernel(c.running + seconds(0.23), "docker0: port 1(" + veth + ") entered blocking state");
  e.kernel(c.running + seconds(0.23) + 4000, "docker0: port 1(" + veth + ") entered forwarding state");
  // Draws in sequence (from the right, as the committed example was written): operands of one
  // expression are unsequenced, and compilers order them differently.
  const auto key_us = rng.range(100, 999);
  const auto key_ms = rng.range(18, 60);
  e.user(c.running + seconds(0.24), dk,
         logfmt(w, c.running + seconds(0.24), rng,
                "level=debug msg=\"sandbox set key processing took " + std::to_string(key_ms) + "." +
                    std::to_string(key_us) + "ms for container " + c.id + "\""));
}

void container_exit(World& w, Emitter& e, const ContainerRun& c, Rng& rng) {
  const Daemon* dk = w.daemon("dockerd");
  const Daemon* ctd = w.daemon("containerd");
  annotate(e.user(c.exit, ctd,
                  logfmt(w, c.exit, rng, "level=info msg=\"shim disconnected\" id=" + c.id + " namespace=moby")),
           EventKind::container_stop);
  // containerd's follow-up to the same disconnection: the recognizer reads one stop from
  // containerd (`shim disconnected`), not this second line, so the truth has no event here.
  e.user(c.exit + seconds(0.0002), ctd,
         logfmt(w, c.exit + seconds(0.0002), rng,
                "level=warning msg=\"cleaning up after shim disconnected\" id=" + c.id + " namespace=moby"));
  e.user(c.exit + seconds(0.0003), ctd, logfmt(w, c.exit + seconds(0.0003), rng, "level=info msg=\"cleaning up dead shim\" namespace=moby"));
  // dockerd's view of the same exit: a third report of the stop (features merge them).
  annotate(e.user(c.exit + seconds(0.0011), dk,
                  logfmt(w, c.exit + seconds(0.0011), rng,
                         "level=info msg=\"ignoring event\" container=" + c.id +
                             " module=libcontainerd namespace=moby topic=/tasks/delete type=\"*events.TaskDelete\"")),
           EventKind::container_stop);
  e.kernel(c.exit + seconds(0.012), "docker0: port 1(veth" + random_hex(rng, 7) + ") entered disabled state");
}

/// The running container's python process at t (0 when none).
std::int32_t python_at(const World& w, TimeNs t) {
  for (const auto& c : w.containers)
    if (t >= c.running && (c.exit == kNoTime || t < c.exit)) return c.python_pid;
  return 0;
}

std::string xid_text(const World& w, const XidPlan& x, Rng& rng) {
  const GpuSpec& g = w.gpus[static_cast<std::size_t>(x.gpu)];
  const std::int32_t pid = python_at(w, x.t);
  const std::string who = pid ? "pid=" + std::to_string(pid) + ", name=python" : "pid='<unknown>', name=<unknown>";
  std::string s = "NVRM: Xid (PCI:" + g.pci + "): " + std::to_string(x.code) + ", ";
  switch (x.code) {
    // Random parts are drawn in sequence, from the right (see container_start_messages).
    case 13: {
      const auto sm = rng.range(0, 1), tpc = rng.range(0, 5), gpc = rng.range(0, 2);
      return s + who + ", Graphics SM Warp Exception on (GPC " + std::to_string(gpc) + ", TPC " + std::to_string(tpc) +
             ", SM " + std::to_string(sm) + "): Out Of Range Address";
    }
    case 31: {
      const std::string page = random_hex(rng, 5), high = random_hex(rng, 2);
      const auto client = rng.range(0, 7), gpc = rng.range(0, 2);
      const std::string channel = random_hex(rng, 2);
      return s + who + ", channel 0x000000" + channel + ", intr 00000000. MMU Fault: ENGINE GRAPHICS GPC" +
             std::to_string(gpc) + " GPCCLIENT_T1_" + std::to_string(client) + " faulted @ 0x7f" + high + "_" + page +
             "000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ";
    }
    case 43: return s + who + ", Ch 000000" + random_hex(rng, 2);
    case 62: {
      const std::string second = random_hex(rng, 4), first = random_hex(rng, 4);
      return s + "pid='<unknown>', name=<unknown>, " + first + "(" + second + ") 00000000 00000000";
    }
    case 119:
      return s + who + ", Timeout after 6s of waiting for RPC response from GPU" + std::to_string(x.gpu) +
             " GSP! Expected function 76 (GSP_RM_CONTROL) (0x2080" + random_hex(rng, 4) + " 0x4).";
    case 48: {
      const auto sub = rng.range(0, 1), partition = rng.range(0, 5);
      return s + "pid='<unknown>', name=<unknown>, An uncorrectable double bit error (DBE) has been detected on GPU in "
                 "the framebuffer at partition " + std::to_string(partition) + ", subpartition " + std::to_string(sub) + ".";
    }
    case 63:
      return s + "pid='<unknown>', name=<unknown>, Row Remapper: New row (0x0000000" + random_hex(rng, 9) +
             ") is marked for remapping, reset gpu to activate.";
    case 79: return s + "pid='<unknown>', name=<unknown>, GPU has fallen off the bus.";
    case 109:
      return s + who + ", Ch 000000" + random_hex(rng, 2) + ", errorString CTX SWITCH TIMEOUT, Info 0x" + random_hex(rng, 5);
    default: return s + who;
  }
}

void xid(World& w, Emitter& e, const XidPlan& x, std::vector<bool>& announced, Rng& rng) {
  const GpuSpec& g = w.gpus[static_cast<std::size_t>(x.gpu)];
  if (!announced[static_cast<std::size_t>(x.gpu)]) {  // the driver names the GPU before its first Xid
    announced[static_cast<std::size_t>(x.gpu)] = true;
    e.kernel(x.t - seconds(0.000004), "NVRM: GPU at PCI:" + g.pci + ": " + g.uuid, 4);
    e.kernel(x.t - seconds(0.000002), "NVRM: GPU Board Serial Number: " + (w.laptop ? std::string("0") : g.serial), 4);
  }
  annotate(e.kernel(x.t, xid_text(w, x, rng), 4), EventKind::xid, x.code, x.gpu);
  if (x.code == 79) {
    annotate(e.kernel(x.t + seconds(0.000151), "NVRM: GPU " + (g.pci + ".0") + ": GPU has fallen off the bus.", 3),
             EventKind::fallen_off_bus, -1, x.gpu);
    e.kernel(x.t + seconds(0.000163), "NVRM: A GPU crash dump has been created. If possible, please run", 3);
    e.kernel(x.t + seconds(0.000164), "NVRM: nvidia-bug-report.sh as root to collect this data before", 3);
    e.kernel(x.t + seconds(0.000165), "NVRM: the NVIDIA kernel module is unloaded.", 3);
  }
}

void suspend_cycle(World& w, Emitter& e, const SuspendCycle& s, Rng& rng) {
  const Daemon* logind = w.daemon("systemd-logind");
  const Daemon* acpid = w.daemon("acpid");
  const Daemon* sd = w.daemon("systemd");
  const Daemon* nm = w.daemon("NetworkManager");
  const Daemon* sleep = w.daemon("systemd-sleep");
  const TimeNs L = s.lid_close;
  auto nm_stamp = [&](TimeNs t) {
    std::string m = "<info>  [";
    append_int(m, t / kNsPerSec);
    m += '.';
    append_zero_padded(m, t % kNsPerSec / (100 * kNsPerUs), 4);
    return m + "] ";
  };
  annotate(e.user(L, acpid, "received input layer event \"button/lid LID close\""), EventKind::lid_close);
  annotate(e.user(L + seconds(0.0011), acpid, "completed input layer event \"button/lid LID close\""), EventKind::lid_close);
  annotate(e.user(L + seconds(0.0042), logind, "Lid closed."), EventKind::lid_close);
  annotate(e.user(L + seconds(0.0210), logind, "Suspending..."), EventKind::suspend);
  e.user(L + seconds(0.0330), nm, nm_stamp(L + seconds(0.0330)) + "manager: sleep: sleep requested (sleeping: no  enabled: yes)");
  e.user(L + seconds(0.0350), nm, nm_stamp(L + seconds(0.0350)) + "manager: NetworkManager state is now ASLEEP");
  e.user(L + seconds(0.0600), sd, "Starting NVIDIA system suspend actions...");
  e.user(L + seconds(0.2100), sd, "nvidia-suspend.service: Deactivated successfully.");
  e.user(L + seconds(0.2110), sd, "Finished NVIDIA system suspend actions.");
  e.user(L + seconds(0.2150), sd, "Reached target Sleep.");
  e.user(L + seconds(0.2170), sd, "Starting System Suspend...");
  const TimeNs enter = s.freeze - seconds(0.070);
  const std::int32_t sleep_pid = pid_at(w, L + seconds(0.217), 0);
  auto& ent = e.user(enter, sleep, "Entering sleep state 'suspend'...");
  ent.pid = sleep_pid;
  annotate(ent, EventKind::suspend);
  annotate(e.kernel(s.freeze - seconds(0.069), "PM: suspend entry (deep)"), EventKind::suspend);
  e.kernel(s.freeze - seconds(0.052), "Filesystems sync: 0.0" + std::to_string(rng.range(10, 17)) + " seconds");
  // Printed while user space is frozen: rsyslog and journald read these after the thaw.
  e.kernel(s.freeze, "Freezing user space processes");
  e.kernel(s.freeze + seconds(0.0021), "Freezing user space processes completed (elapsed 0.002 seconds)");
  e.kernel(s.freeze + seconds(0.0022), "OOM killer disabled.");
  e.kernel(s.freeze + seconds(0.0023), "Freezing remaining freezable tasks");
  e.kernel(s.freeze + seconds(0.0031), "Freezing remaining freezable tasks completed (elapsed 0.000 seconds)");
  e.kernel(s.freeze + seconds(0.0032), "printk: Suspending console(s) (use no_console_suspend to debug)");
  const TimeNs pre = s.sleep_begin - seconds(0.09);
  e.kernel(pre, "ACPI: EC: interrupt blocked");
  e.kernel(pre + seconds(0.031), "ACPI: PM: Preparing to enter system sleep state S3");
  e.kernel(pre + seconds(0.032), "ACPI: EC: event blocked");
  e.kernel(pre + seconds(0.033), "ACPI: EC: EC stopped");
  e.kernel(pre + seconds(0.034), "ACPI: PM: Saving platform NVS memory");
  e.kernel(pre + seconds(0.035), "Disabling non-boot CPUs ...");
  for (int cpu = 1; cpu < w.cpu_threads; ++cpu)
    e.kernel(pre + seconds(0.036 + 0.004 * cpu), "smpboot: CPU " + std::to_string(cpu) + " is now offline");
  // The kernel clock stops here for the whole sleep; the next lines have wall = boot + mono + D.
  const TimeNs post = s.sleep_end;
  e.kernel(post, "ACPI: PM: Low-level resume complete");
  e.kernel(post + seconds(0.0001), "ACPI: EC: EC started");
  e.kernel(post + seconds(0.0002), "ACPI: PM: Restoring platform NVS memory");
  e.kernel(post + seconds(0.0013), "Enabling non-boot CPUs ...");
  for (int cpu = 1; cpu < w.cpu_threads; ++cpu) {
    e.kernel(post + seconds(0.002 + 0.003 * cpu), "smpboot: Booting Node 0 Processor " + std::to_string(cpu) + " APIC 0x" + random_hex(rng, 1));
    e.kernel(post + seconds(0.0025 + 0.003 * cpu), "CPU" + std::to_string(cpu) + " is up");
  }
  // The ACPI wake is a resume event too (old kernels print no `PM: suspend exit`): within 60 s
  // of the one below, it is the same resume cycle.
  annotate(e.kernel(post + seconds(0.061), "ACPI: PM: Waking up from system sleep state S3"), EventKind::resume);
  e.kernel(post + seconds(0.072), "ACPI: EC: interrupt unblocked");
  e.kernel(post + seconds(0.073), "ACPI: EC: event unblocked");
  e.kernel(post + seconds(0.210), "nvme nvme0: 12/0/0 default/read/poll queues");
  e.kernel(s.thaw - seconds(0.0030), "OOM killer enabled.");
  e.kernel(s.thaw - seconds(0.0029), "Restarting tasks ... done.");
  e.kernel(s.thaw + seconds(0.0004), "random: crng reseeded on system resumption");
  annotate(e.kernel(s.thaw + seconds(0.0011), "PM: suspend exit"), EventKind::resume);
  auto& ret = e.user(s.thaw + seconds(0.0420), sleep, "System returned from sleep state.");
  ret.pid = sleep_pid;
  annotate(ret, EventKind::resume);
  e.user(s.thaw + seconds(0.0470), sd, "systemd-suspend.service: Deactivated successfully.");
  e.user(s.thaw + seconds(0.0480), sd, "Finished System Suspend.");
  e.user(s.thaw + seconds(0.0490), sd, "Stopped target Sleep.");
  e.user(s.thaw + seconds(0.0500), sd, "Reached target Suspend.");
  e.user(s.thaw + seconds(0.0510), logind, "Operation 'sleep' finished.");
  e.user(s.thaw + seconds(0.0520), sd, "Stopped target Suspend.");
  e.user(s.thaw + seconds(0.0600), sd, "Starting NVIDIA system resume actions...");
  e.user(s.thaw + seconds(0.0610), nm, nm_stamp(s.thaw + seconds(0.0610)) + "manager: sleep: wake requested (sleeping: yes  enabled: yes)");
  e.user(s.thaw + seconds(0.0900), w.daemon("systemd-resolved"), "Clock change detected. Flushing caches.");
  e.user(s.thaw + seconds(0.4100), sd, "nvidia-resume.service: Deactivated successfully.");
  e.user(s.thaw + seconds(0.4110), sd, "Finished NVIDIA system resume actions.");
  const TimeNs open = s.thaw + seconds(rng.uniform(0.8, 1.9));
  annotate(e.user(open, acpid, "received input layer event \"button/lid LID open\""), EventKind::lid_open);
  annotate(e.user(open + seconds(0.0010), acpid, "completed input layer event \"button/lid LID open\""), EventKind::lid_open);
  annotate(e.user(open + seconds(0.0036), logind, "Lid opened."), EventKind::lid_open);
  e.user(open + seconds(2.4), nm, nm_stamp(open + seconds(2.4)) + "manager: NetworkManager state is now CONNECTED_GLOBAL");
}

void ac_change(World& w, Emitter& e, const AcPlan& a, Rng& rng) {
  const EventKind k = a.online ? EventKind::ac_online : EventKind::ac_offline;
  annotate(e.kernel(a.t, std::string("ACPI: AC: AC Adapter [ADP1] (") + (a.online ? "on" : "off") + "-line)"), k);
  const Daemon* acpid = w.daemon("acpid");
  const std::string ev = std::string("ac_adapter ACPI0003:00 00000080 0000000") + (a.online ? "1" : "0");
  const TimeNs t = a.t + seconds(rng.uniform(0.002, 0.02));
  annotate(e.user(t, acpid, "received netlink event \"" + ev + "\""), k);
  annotate(e.user(t + seconds(0.0009), acpid, "completed netlink event \"" + ev + "\""), k);
  e.user(t + seconds(0.0410), acpid, "received netlink event \"battery PNP0C0A:00 00000080 00000001\"");
  e.user(t + seconds(0.0416), acpid, "completed netlink event \"battery PNP0C0A:00 00000080 00000001\"");
}

void hot_phase(World& w, Emitter& e, const HotPlan& h, Rng& rng) {
  // The seed article: nvidia-modeset errors come with the heat, then SM utilization sinks.
  const int n = static_cast<int>(rng.range(2, 4));
  for (int i = 0; i < n; ++i)
    annotate(e.kernel(h.begin + seconds(rng.uniform(90, 240)),
                      "nvidia-modeset: ERROR: GPU:" + std::to_string(h.gpu) + ": Failed to query display engine status.", 3),
             EventKind::driver_error, -1, h.gpu);
  if (!w.laptop) return;
  const TimeNs t = h.begin + seconds(rng.uniform(100, 160));
  const int events = static_cast<int>(rng.range(3, 40));
  annotate(e.kernel(t, "mce: CPU4: Core temperature is above threshold, cpu clock is throttled (total events = " + std::to_string(events) + ")", 4),
           EventKind::thermal, 1);
  annotate(e.kernel(t + seconds(0.00002), "mce: CPU4: Package temperature is above threshold, cpu clock is throttled (total events = " + std::to_string(events + 7) + ")", 4),
           EventKind::thermal, 1);
  const TimeNs n2 = h.end + seconds(rng.uniform(20, 60));
  annotate(e.kernel(n2, "mce: CPU4: Core temperature/speed normal (total events = " + std::to_string(events) + ")", 6), EventKind::thermal, 0);
  annotate(e.kernel(n2 + seconds(0.00002), "mce: CPU4: Package temperature/speed normal (total events = " + std::to_string(events + 7) + ")", 6),
           EventKind::thermal, 0);
}

void aer_burst(World& w, Emitter& e, const AerPlan& a, Rng&) {
  const GpuSpec& g = w.gpus[static_cast<std::size_t>(a.gpu)];
  const std::string dev = (g.pci + ".0");
  static constexpr const char* kRootPort[] = {"0000:00:01.1", "0000:00:03.1", "0000:40:01.1", "0000:40:03.1"};
  e.kernel(a.t, std::string("pcieport ") + kRootPort[a.gpu] + ": AER: Corrected error received: " + dev, 4);
  annotate(e.kernel(a.t + seconds(0.000012), "nvidia " + dev + ": PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)", 4),
           EventKind::pcie_aer, 0, a.gpu);
  e.kernel(a.t + seconds(0.000015), "nvidia " + dev + ":   device [10de:20b2] error status/mask=00000001/0000e000", 4);
  e.kernel(a.t + seconds(0.000017), "nvidia " + dev + ":    [ 0] RxErr                  (First)", 4);
}

// nvidia-modeset polling the display engine of a hybrid-graphics laptop's powered-down GPU: bursts
// of known-benign ERROR lines (issue 14: counted as benign_driver_messages, never as errors).
void modeset_spam(World& w, Emitter& e, TimeNs from, Rng& rng) {
  TimeNs t = from;
  for (int burst = 0; burst < 30 && t < w.span_end; ++burst) {
    for (int ch : {4, 6})
      annotate(e.kernel(t + seconds(0.00026 * (ch / 2 - 2)),
                        "nvidia-modeset: ERROR: GPU:0: Failed to query display engine channel state: 0x0000c67d:" +
                            std::to_string(ch) + ":0:0x0000000f",
                        3),
               EventKind::driver_error, -1, 0);
    t += seconds(rng.uniform(40, 80));
  }
}

void login(World& w, Emitter& e, TimeNs t) {
  const Daemon* logind = w.daemon("systemd-logind");
  const Daemon* sd = w.daemon("systemd");
  if (w.laptop) {
    e.user(t, logind, "New session 2 of user dev.");
    e.user(t + seconds(0.012), sd, "Started Session 2 of User dev.");
    e.user(t + seconds(1.9), w.daemon("gnome-shell"), "Will monitor session 2");
  } else {
    e.user(t, logind, "New session 1 of user ubuntu.");
    e.user(t + seconds(0.011), sd, "Started Session 1 of User ubuntu.");
  }
}

}  // namespace

void schedule_events(World& w, const Plan& plan, Rng& rng) {
  Emitter e(w, w.scheduled);
  login(w, e, plan.login);
  for (const auto& c : w.containers) {
    container_start(w, e, c, rng);
    if (c.exit != kNoTime) container_exit(w, e, c, rng);
  }
  std::vector<bool> announced(w.gpus.size(), false);
  for (const auto& x : plan.xids) xid(w, e, x, announced, rng);
  for (const auto& s : w.suspends) suspend_cycle(w, e, s, rng);
  for (const auto& a : plan.ac) ac_change(w, e, a, rng);
  for (const auto& h : plan.hot) hot_phase(w, e, h, rng);
  for (const auto& a : plan.aer) aer_burst(w, e, a, rng);
  if (w.laptop) modeset_spam(w, e, plan.login + seconds(rng.uniform(20, 40)), rng);
}

}  // namespace gpucost::sim
