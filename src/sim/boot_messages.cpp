// What a boot prints: the kernel's boot messages (taken from real dmesg output of Ubuntu 22.04
// machines, see docs/simulate.md), then the services starting. Previous boots only need their
// kernel lines (they are only in the rotated kern.log files) and a little kernel noise.
#include <string>

#include "sim/emit.hpp"
#include "sim/plan.hpp"

namespace gpucost::sim {

namespace {

struct BootLine {
  double at;  ///< seconds after boot
  const char* text;
  int priority;
  EventKind kind;  ///< count_ = no event
};

constexpr EventKind kNone = EventKind::count_;

// `{AUDIT}` becomes `audit(<epoch>.<ms>:<serial>)`.
constexpr BootLine kLaptopKernel[] = {
    {0.0, "{VERSION}", 5, EventKind::boot},
    {0.0, "Command line: BOOT_IMAGE=/boot/vmlinuz-6.8.0-49-generic root=UUID=4c1f2b7e-9a0d-4e53-8b1e-2f7d6c3a9e10 ro quiet splash vt.handoff=7", 6, kNone},
    {0.0, "KERNEL supported cpus:", 6, kNone},
    {0.0, "  Intel GenuineIntel", 6, kNone},
    {0.0, "  AMD AuthenticAMD", 6, kNone},
    {0.0, "  Hygon HygonGenuine", 6, kNone},
    {0.0, "  Centaur CentaurHauls", 6, kNone},
    {0.0, "  zhaoxin   Shanghai  ", 6, kNone},
    {0.0, "BIOS-provided physical RAM map:", 6, kNone},
    {0.0, "BIOS-e820: [mem 0x0000000000000000-0x000000000009efff] usable", 6, kNone},
    {0.0, "NX (Execute Disable) protection: active", 6, kNone},
    {0.0, "efi: EFI v2.8 by INSYDE Corp.", 6, kNone},
    {0.0, "SMBIOS 3.4.0 present.", 6, kNone},
    {0.0, "DMI: LENOVO 83DV/LNVNB161216, BIOS M5CN31WW 06/20/2023", 6, kNone},
    {0.0, "tsc: Detected 2100.000 MHz processor", 6, kNone},
    {0.004612, "ACPI: Early table checksum verification disabled", 6, kNone},
    {0.011538, "Memory: 16046212K/16615364K available (20480K kernel code, 4468K rwdata, 14364K rodata, 4816K init, 17804K bss, 569152K reserved, 0K cma-reserved)", 6, kNone},
    {0.040113, "Dynamic Preempt: voluntary", 6, kNone},
    {0.052117, "smpboot: CPU0: 13th Gen Intel(R) Core(TM) i5-13420H (family: 0x6, model: 0xba, stepping: 0x2)", 6, kNone},
    {0.092645, "smp: Brought up 1 node, 12 CPUs", 6, kNone},
    {0.135821, "ACPI: Added _OSI(Module Device)", 6, kNone},
    {0.294170, "ACPI: PCI Root Bridge [PC00] (domain 0000 [bus 00-fe])", 6, kNone},
    {0.322581, "pci 0000:01:00.0: [10de:28e0] type 00 class 0x030000 PCIe Legacy Endpoint", 6, kNone},
    {0.322877, "pci 0000:01:00.0: 63.012 Gb/s available PCIe bandwidth, limited by 8.0 GT/s PCIe x8 link at 0000:00:01.0 (capable of 126.024 Gb/s with 16.0 GT/s PCIe x8 link)", 6, EventKind::pcie_link_degraded},
    {0.341077, "pci 0000:00:02.0: vgaarb: setting as boot VGA device", 6, kNone},
    {0.372944, "iommu: Default domain type: Translated", 6, kNone},
    {0.591402, "Initialise system trusted keyrings", 6, kNone},
    {0.743215, "ACPI: AC: AC Adapter [ADP1] (on-line)", 6, EventKind::ac_online},
    {0.743530, "input: Lid Switch as /devices/LNXSYSTM:00/LNXSYBUS:00/PNP0A08:00/device:29/PNP0C09:00/PNP0C0D:00/input/input0", 6, kNone},
    {0.743598, "ACPI: button: Lid Switch [LID0]", 6, kNone},
    {0.743701, "input: Power Button as /devices/LNXSYSTM:00/LNXSYBUS:00/PNP0C0C:00/input/input1", 6, kNone},
    {0.743755, "ACPI: button: Power Button [PWRB]", 6, kNone},
    {0.768101, "ACPI: battery: Slot [BAT0] (battery present)", 6, kNone},
    {0.824410, "Serial: 8250/16550 driver, 32 ports, IRQ sharing enabled", 6, kNone},
    {1.011742, "nvme nvme0: pci function 0000:04:00.0", 6, kNone},
    {1.028840, "nvme nvme0: 12/0/0 default/read/poll queues", 6, kNone},
    {1.031270, " nvme0n1: p1 p2", 6, kNone},
    {1.612004, "EXT4-fs (nvme0n1p2): mounted filesystem 4c1f2b7e-9a0d-4e53-8b1e-2f7d6c3a9e10 ro with ordered data mode. Quota mode: none.", 6, kNone},
    {2.861005, "EXT4-fs (nvme0n1p2): re-mounted 4c1f2b7e-9a0d-4e53-8b1e-2f7d6c3a9e10 r/w. Quota mode: none.", 6, kNone},
    {3.102660, "lp: driver loaded but no devices found", 6, kNone},
    {3.461299, "nvidia: loading out-of-tree module taints kernel.", 4, EventKind::taint},
    {3.461310, "nvidia: module license 'NVIDIA' taints kernel.", 4, EventKind::taint},
    {3.461312, "Disabling lock debugging due to kernel taint", 4, kNone},
    {3.490218, "nvidia-nvlink: Nvlink Core is being initialized, major device number 236", 6, kNone},
    {3.491077, "nvidia 0000:01:00.0: vgaarb: changed VGA decodes: olddecodes=io+mem,decodes=none:owns=none", 6, kNone},
    {3.537941, "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.120  Fri Sep 13 10:10:01 UTC 2024", 5, EventKind::driver_load},
    {3.602118, "nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver for UNIX platforms  550.120  Fri Sep 13 09:56:03 UTC 2024", 5, kNone},
    {3.661503, "[drm] [nvidia-drm] [GPU ID 0x00000100] Loading driver", 6, kNone},
    {3.912420, "[drm] Initialized nvidia-drm 0.0.0 20160202 for 0000:01:00.0 on minor 1", 6, kNone},
    {4.028519, "[drm] Initialized i915 1.6.0 20230929 for 0000:00:02.0 on minor 0", 6, kNone},
    {4.210834, "iwlwifi 0000:00:14.3: Detected Intel(R) Wi-Fi 6 AX201 160MHz, REV=0x430", 6, kNone},
    {4.395226, "Bluetooth: hci0: Firmware revision 0.0 build 14 week 44 2023", 6, kNone},
    {4.802113, "audit: type=1400 {AUDIT}: apparmor=\"STATUS\" operation=\"profile_load\" profile=\"unconfined\" name=\"nvidia_modprobe\" pid=711 comm=\"apparmor_parser\"", 5, kNone},
    {5.217331, "loop3: detected capacity change from 0 to 151992", 6, kNone},
    {6.731094, "wlp0s20f3: authenticate with 9c:53:22:4f:a1:07", 6, kNone},
    {6.760812, "wlp0s20f3: associated", 6, kNone},
    {6.812550, "IPv6: ADDRCONF(NETDEV_CHANGE): wlp0s20f3: link becomes ready", 6, kNone},
    {9.118243, "rfkill: input handler disabled", 6, kNone},
    {11.402120, "Bluetooth: RFCOMM TTY layer initialized", 6, kNone},
};

constexpr BootLine kServerKernel[] = {
    {0.0, "{VERSION}", 5, EventKind::boot},
    {0.0, "Command line: BOOT_IMAGE=/vmlinuz-5.15.0-126-generic root=/dev/mapper/ubuntu--vg-ubuntu--lv ro", 6, kNone},
    {0.0, "KERNEL supported cpus:", 6, kNone},
    {0.0, "  Intel GenuineIntel", 6, kNone},
    {0.0, "  AMD AuthenticAMD", 6, kNone},
    {0.0, "  Hygon HygonGenuine", 6, kNone},
    {0.0, "  Centaur CentaurHauls", 6, kNone},
    {0.0, "  zhaoxin   Shanghai  ", 6, kNone},
    {0.0, "BIOS-provided physical RAM map:", 6, kNone},
    {0.0, "DMI: Supermicro AS -4124GO-NART/H12DSG-O-CPU, BIOS 2.4 04/19/2022", 6, kNone},
    {0.0, "tsc: Fast TSC calibration using PIT", 6, kNone},
    {0.012774, "Memory: 528196216K/536737628K available (16393K kernel code, 4371K rwdata, 10564K rodata, 3232K init, 6644K bss, 8541412K reserved, 0K cma-reserved)", 6, kNone},
    {0.151907, "smpboot: CPU0: AMD EPYC 7313 16-Core Processor (family: 0x19, model: 0x1, stepping: 0x1)", 6, kNone},
    {0.309512, "smp: Brought up 1 node, 32 CPUs", 6, kNone},
    {1.201137, "pci 0000:07:00.0: [10de:20b2] type 00 class 0x030200", 6, kNone},
    {1.203018, "pci 0000:0f:00.0: [10de:20b2] type 00 class 0x030200", 6, kNone},
    {1.204992, "pci 0000:47:00.0: [10de:20b2] type 00 class 0x030200", 6, kNone},
    {1.206871, "pci 0000:4e:00.0: [10de:20b2] type 00 class 0x030200", 6, kNone},
    {1.512833, "iommu: Default domain type: Translated ", 6, kNone},
    {2.312054, "nvme nvme0: 32/0/0 default/read/poll queues", 6, kNone},
    {2.340117, " nvme0n1: p1 p2 p3", 6, kNone},
    {3.018711, "EXT4-fs (dm-0): mounted filesystem with ordered data mode. Opts: (null). Quota mode: none.", 6, kNone},
    {4.512301, "nvidia: loading out-of-tree module taints kernel.", 4, EventKind::taint},
    {4.512319, "nvidia: module license 'NVIDIA' taints kernel.", 4, EventKind::taint},
    {4.512321, "Disabling lock debugging due to kernel taint", 4, kNone},
    {4.611204, "nvidia-nvlink: Nvlink Core is being initialized, major device number 508", 6, kNone},
    {4.713377, "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.216.03  Fri Oct 25 23:47:58 UTC 2024", 5, EventKind::driver_load},
    {4.902516, "nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver for UNIX platforms  535.216.03  Fri Oct 25 23:29:03 UTC 2024", 5, kNone},
    {5.118204, "[drm] [nvidia-drm] [GPU ID 0x00000700] Loading driver", 6, kNone},
    {5.301947, "[drm] [nvidia-drm] [GPU ID 0x00000f00] Loading driver", 6, kNone},
    {5.482206, "[drm] [nvidia-drm] [GPU ID 0x00004700] Loading driver", 6, kNone},
    {5.660913, "[drm] [nvidia-drm] [GPU ID 0x00004e00] Loading driver", 6, kNone},
    {6.201133, "mlx5_core 0000:41:00.0: firmware version: 20.39.1002", 6, kNone},
    {7.450177, "IPv6: ADDRCONF(NETDEV_CHANGE): enp65s0f0np0: link becomes ready", 6, kNone},
    {9.811640, "audit: type=1400 {AUDIT}: apparmor=\"STATUS\" operation=\"profile_load\" profile=\"unconfined\" name=\"nvidia_modprobe\" pid=1184 comm=\"apparmor_parser\"", 5, kNone},
};

std::string expand(const World& w, const char* text, TimeNs ts, Rng& rng) {
  std::string s = text;
  if (s == "{VERSION}") return w.kernel_version_line;
  if (auto p = s.find("{AUDIT}"); p != std::string::npos) {
    std::string a = "audit(";
    append_int(a, ts / kNsPerSec);
    a += '.';
    append_zero_padded(a, ts % kNsPerSec / kNsPerMs, 3);
    a += ':';
    append_int(a, rng.range(2, 40));
    a += ')';
    s.replace(p, 7, a);
  }
  return s;
}

void user_boot(World& w, Emitter& e, Rng& rng) {
  const Boot& b = w.boots.front();
  const double jitter = rng.uniform(0.98, 1.02);
  auto at = [&](double s) { return b.wall + seconds(s * jitter); };
  const Daemon* sd = w.daemon("systemd");
  e.user(at(2.30), sd,
         "systemd 249.11-0ubuntu3.12 running in system mode (+PAM +AUDIT +SELINUX +APPARMOR +IMA +SMACK +SECCOMP "
         "+GCRYPT +GNUTLS +OPENSSL +ACL +BLKID +CURL +ELFUTILS +FIDO2 +IDN2 -IDN +IPTC +KMOD +LIBCRYPTSETUP "
         "+LIBFDISK +PCRE2 -PWQUALITY -P11KIT -QRENCODE +BZIP2 +LZ4 +XZ +ZLIB +ZSTD -XKBCOMMON +UTMP +SYSVINIT "
         "default-hierarchy=unified)");
  e.user(at(2.31), sd, "Detected architecture x86-64.");
  e.user(at(2.33), sd, "Hostname set to <" + w.hostname + ">.");
  e.user(at(3.90), sd, "Starting Login Service...");
  const Daemon* logind = w.daemon("systemd-logind");
  e.user(at(4.20), logind, "New seat seat0.");
  if (w.laptop) {
    e.user(at(4.21), logind, "Watching system buttons on /dev/input/event1 (Power Button)");
    e.user(at(4.22), logind, "Watching system buttons on /dev/input/event0 (Lid Switch)");
    e.user(at(4.23), logind, "Watching system buttons on /dev/input/event9 (Intel HID events)");
    const Daemon* acpid = w.daemon("acpid");
    e.user(at(4.30), acpid, "starting up with netlink and the input layer");
    e.user(at(4.31), acpid, "1 rule loaded");
    e.user(at(4.32), acpid, "waiting for events: event logging is on");
    e.user(at(4.10), sd, "Starting Network Manager...");
    std::string nm = "<info>  [";
    const TimeNs t = at(4.25);
    append_int(nm, t / kNsPerSec);
    nm += '.';
    append_zero_padded(nm, t % kNsPerSec / (100 * kNsPerUs), 4);
    nm += "] NetworkManager (version 1.36.6) is starting... (boot:" + b.id.substr(0, 8) + "-" + b.id.substr(8, 4) +
          "-" + b.id.substr(12, 4) + "-" + b.id.substr(16, 4) + "-" + b.id.substr(20) + ")";
    e.user(t, w.daemon("NetworkManager"), nm);
    e.user(at(4.60), sd, "Started Network Manager.");
  } else {
    e.user(at(4.40), w.daemon("systemd-networkd"), "enp65s0f0np0: Link UP");
    e.user(at(4.90), w.daemon("systemd-networkd"), "enp65s0f0np0: Gained carrier");
    e.user(at(3.20), w.daemon("multipathd"), "--------start up--------");
    e.user(at(3.21), w.daemon("multipathd"), "read /etc/multipath.conf");
    e.user(at(3.25), w.daemon("multipathd"), "path checkers start up");
  }
  e.user(at(4.70), w.daemon("systemd-logind"), "Watching system buttons on /dev/input/event2 (Sleep Button)");
  Rng lr(w.options.seed, 31);
  const Daemon* ctd = w.daemon("containerd");
  e.user(at(5.00), ctd,
         logfmt_time(w, at(5.00), lr) +
             " level=info msg=\"starting containerd\" revision=88bf19b2105c8b17560993bee28a01ddc2f97182 version=1.7.24");
  e.user(at(5.05), ctd, logfmt_time(w, at(5.05), lr) + " level=info msg=serving... address=/run/containerd/containerd.sock");
  e.user(at(5.06), ctd, logfmt_time(w, at(5.06), lr) + " level=info msg=\"containerd successfully booted in 0.051922s\"");
  const Daemon* np = w.daemon("nvidia-persistenced");
  e.user(at(5.20), np, "Verbose syslog connection opened");
  annotate(e.user(at(5.21), np, "Started (" + std::to_string(np->pid) + ")"), EventKind::service_restart);
  for (const auto& g : w.gpus) e.user(at(5.22), np, "device " + (g.pci + ".0") + " - registered");
  const Daemon* dk = w.daemon("dockerd");
  e.user(at(5.80), dk, logfmt_time(w, at(5.80), lr) + " level=info msg=\"Starting up\"");
  e.user(at(5.81), dk, logfmt_time(w, at(5.81), lr) + " level=debug msg=\"Listener created for HTTP on unix (/var/run/docker.sock)\"");
  e.user(at(6.40), dk, logfmt_time(w, at(6.40), lr) + " level=info msg=\"Loading containers: start.\"");
  e.user(at(6.90), dk, logfmt_time(w, at(6.90), lr) + " level=info msg=\"Loading containers: done.\"");
  e.user(at(7.00), dk,
         logfmt_time(w, at(7.00), lr) +
             " level=info msg=\"Docker daemon\" commit=41ca978 containerd-snapshotter=false storage-driver=overlay2 version=27.3.1");
  e.user(at(7.01), dk, logfmt_time(w, at(7.01), lr) + " level=info msg=\"Daemon has completed initialization\"");
  e.user(at(7.10), dk, logfmt_time(w, at(7.10), lr) + " level=info msg=\"API listen on /run/docker.sock\"");
  e.user(at(7.11), sd, "Started Docker Application Container Engine.");
  e.user(at(8.20), sd, w.laptop ? "Reached target Graphical Interface." : "Reached target Multi-User System.");
  e.user(at(8.30), sd,
         w.laptop ? "Startup finished in 5.103s (firmware) + 2.402s (loader) + 2.198s (kernel) + 6.112s (userspace) = 15.815s."
                  : "Startup finished in 41.208s (firmware) + 4.512s (loader) + 5.318s (kernel) + 8.077s (userspace) = 59.115s.");
}

}  // namespace

void schedule_boot(World& w, int boot, Rng& rng) {
  Emitter e(w, w.scheduled);
  const Boot& b = w.boots[static_cast<std::size_t>(boot)];
  const double jitter = rng.uniform(0.97, 1.03);
  auto emit_lines = [&](const BootLine* lines, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
      const auto& l = lines[i];
      const TimeNs ts = b.wall + seconds(l.at * jitter);
      auto& r = e.kernel(ts, expand(w, l.text, ts, rng), l.priority, boot);
      if (l.kind != kNone) {
        annotate(r, l.kind, -1, l.kind == EventKind::pcie_link_degraded ? 0 : -1);
        r.initial = l.kind == EventKind::ac_online;
      }
    }
  };
  if (w.laptop) emit_lines(kLaptopKernel, std::size(kLaptopKernel));
  else emit_lines(kServerKernel, std::size(kServerKernel));
  if (boot == 0) {
    user_boot(w, e, rng);
    return;
  }
  // A previous boot: a little kernel noise until it ends.
  for (TimeNs t = b.wall + minutes(2); t < b.end; t += minutes(rng.uniform(2, 30))) {
    if (w.laptop) {
      std::string m = "[UFW BLOCK] IN=wlp0s20f3 OUT= MAC=01:00:5e:00:00:01:9c:53:22:4f:a1:07:08:00 SRC=192.168.1.1 "
                      "DST=224.0.0.1 LEN=36 TOS=0x00 PREC=0x00 TTL=1 ID=0 DF PROTO=2 ";
      e.kernel(t, std::move(m), 4, boot);
    } else {
      e.kernel(t, "IPv4: martian source 10.20.0.255 from 10.20.0.17, on dev enp65s0f0np0", 4, boot);
    }
  }
}

}  // namespace gpucost::sim
