// `ps aux` every 60 s (procps-ng 3.3.17 layout), each snapshot after the marker line
// `### gpucost-ps <RFC 3339 local>`. The collection loop sleeps on the monotonic clock, so
// after a suspend the snapshots go on 60 s of awake time apart. Besides the training job
// (container shim, python and its data-loader workers) the machine runs what competes for the
// GPU and the CPU: a browser, an editor, Xorg, a Jupyter kernel (a second python).
#include <algorithm>

#include "sim/emit.hpp"
#include "sim/plan.hpp"
#include "sim/writers.hpp"

namespace gpucost::sim {

namespace {

struct Proc {
  std::string user;
  std::int32_t pid = 0;
  TimeNs start = 0, end = kNoTime;
  std::int64_t vsz = 0, rss = 0;
  std::string tty = "?", stat = "S", cmd;
  double share = 0;  ///< mean fraction of one CPU while awake
  double cpu_s = 0;
};

class ProcTable {
 public:
  explicit ProcTable(const World& w) : w_(w), rng_(w.options.seed, 70) {}
  Proc& add(std::string user, std::int32_t pid, TimeNs start, std::int64_t vsz, std::int64_t rss, std::string stat,
            std::string cmd, double share = 0, std::string tty = "?") {
    Proc p;
    p.user = std::move(user);
    p.pid = pid;
    p.start = start;
    p.vsz = vsz;
    p.rss = rss;
    p.stat = std::move(stat);
    p.cmd = std::move(cmd);
    p.share = share;
    p.tty = std::move(tty);
    procs_.push_back(std::move(p));
    return procs_.back();
  }
  void kthread(std::int32_t pid, TimeNs start, std::string name, const char* stat = "I<") {
    add("root", pid, start, 0, 0, stat, "[" + std::move(name) + "]");
  }
  std::vector<Proc>& procs() { return procs_; }
  Rng& rng() { return rng_; }

 private:
  const World& w_;
  Rng rng_;
  std::vector<Proc> procs_;
};

void kernel_threads(const World& w, ProcTable& t) {
  const TimeNs b = w.boots.front().wall;
  std::int32_t pid = 2;
  t.kthread(pid++, b, "kthreadd", "S");
  for (const char* n : {"pool_workqueue_release", "kworker/R-rcu_g", "kworker/R-rcu_p", "kworker/R-slub_", "kworker/R-netns",
                        "kworker/0:0H-events_highpri", "kworker/R-mm_pe", "rcu_tasks_kthread", "rcu_tasks_rude_kthread",
                        "rcu_tasks_trace_kthread", "ksoftirqd/0", "rcu_preempt", "migration/0", "idle_inject/0", "cpuhp/0"})
    t.kthread(pid++, b, n, std::string_view(n).rfind("kworker", 0) == 0 ? "I<" : "S");
  for (int c = 1; c < w.cpu_threads; ++c) {
    const std::string n = std::to_string(c);
    t.kthread(pid++, b, "cpuhp/" + n, "S");
    if (w.laptop) t.kthread(pid++, b, "idle_inject/" + n, "S");
    t.kthread(pid++, b, "migration/" + n, "S");
    t.kthread(pid++, b, "ksoftirqd/" + n, "S");
    t.kthread(pid++, b, "kworker/" + n + ":0H-events_highpri", "I<");
  }
  for (const char* n : {"kdevtmpfs", "kworker/R-inet_", "kauditd", "khungtaskd", "oom_reaper", "kworker/R-write",
                        "kcompactd0", "ksmd", "khugepaged", "kworker/R-kinte", "kworker/R-kbloc", "kworker/R-blkcg",
                        "irq/9-acpi", "kswapd0", "kworker/R-kthro", "kworker/R-nvme-", "kworker/R-nvme-", "scsi_eh_0",
                        "jbd2/nvme0n1p2-8", "kworker/R-ext4-", "nv_queue", "nv_queue", "nvidia-modeset/kthread_q",
                        "nvidia-modeset/deferred_close_kthread_q", "UVM global queue", "UVM deferred release queue",
                        "UVM Tools Event Queue", "kworker/u24:2-events_unbound", "kworker/u24:5-flush-259:0"})
    t.kthread(pid++, b + seconds(1.5), n, std::string_view(n).rfind("kworker", 0) == 0 ? "I" : "S");
  if (!w.laptop)
    for (std::size_t g = 1; g < w.gpus.size(); ++g) {
      t.kthread(pid++, b + seconds(4.6), "nv_queue", "S");
      t.kthread(pid++, b + seconds(4.6), "nv_queue", "S");
    }
}

void system_processes(const World& w, ProcTable& t) {
  const TimeNs b = w.boots.front().wall;
  auto at = [&](double s) { return b + seconds(s); };
  auto daemon_pid = [&](const char* ident, std::int32_t fallback) {
    const Daemon* d = w.daemon(ident);
    return d ? d->pid : fallback;
  };
  t.add("root", 1, b, 168532, 13064, "Ss", w.laptop ? "/sbin/init splash" : "/sbin/init", 0.002);
  t.add("root", w.laptop ? 331 : 612, at(2.2), 72116, 29184, "S<s", "/lib/systemd/systemd-journald", 0.003);
  t.add("root", w.laptop ? 372 : 655, at(2.4), 27800, 7512, "Ss", "/lib/systemd/systemd-udevd");
  if (!w.laptop) t.add("root", daemon_pid("multipathd", 712), at(3.2), 289320, 27276, "SLsl", "/sbin/multipathd -d -s", 0.001);
  t.add("systemd+", daemon_pid("systemd-resolved", 781), at(3.8), 25668, 13824, "Ss", "/lib/systemd/systemd-resolved");
  t.add("systemd+", w.laptop ? 782 : 1018, at(3.8), 89364, 6784, "Ssl", "/lib/systemd/systemd-timesyncd");
  if (w.laptop) {
    t.add("root", 880, at(4.0), 248872, 7412, "Ssl", "/usr/libexec/accounts-daemon");
    t.add("root", daemon_pid("acpid", 897), at(4.0), 2816, 1920, "Ss", "/usr/sbin/acpid -l");
    t.add("avahi", 883, at(4.0), 7672, 3744, "Ss", "avahi-daemon: running [" + w.hostname + ".local]");
    t.add("root", 886, at(4.0), 10912, 6272, "Ss", "/usr/lib/bluetooth/bluetoothd");
  }
  t.add("root", daemon_pid("CRON", 901), at(4.0), 9492, 2816, "Ss", "/usr/sbin/cron -f -P");
  t.add("message+", w.laptop ? 884 : 1206, at(4.0), 10308, 6144, "Ss",
        "@dbus-daemon --system --address=systemd: --nofork --nopidfile --systemd-activation --syslog-only", 0.001);
  if (w.laptop) t.add("root", daemon_pid("NetworkManager", 905), at(4.1), 266364, 20480, "Ssl", "/usr/sbin/NetworkManager --no-daemon", 0.001);
  else t.add("systemd+", daemon_pid("systemd-networkd", 1002), at(4.1), 16516, 8192, "Ss", "/lib/systemd/systemd-networkd");
  t.add("root", w.laptop ? 908 : 1209, at(4.1), 82768, 3968, "Ssl", "/usr/sbin/irqbalance --foreground", 0.001);
  t.add("root", w.laptop ? 910 : 1210, at(4.1), 34636, 19712, "Ss", "/usr/bin/python3 /usr/bin/networkd-dispatcher --run-startup-triggers");
  t.add("root", w.laptop ? 911 : 1212, at(4.1), 234532, 9088, "Ssl", "/usr/libexec/polkitd --no-debug");
  t.add("syslog", w.laptop ? 913 : 1213, at(4.1), 222404, 5888, "Ssl", "/usr/sbin/rsyslogd -n -iNONE", 0.001);
  t.add("root", daemon_pid("snapd", 930), at(4.2), 1990204, 38400, "Ssl", "/usr/lib/snapd/snapd", 0.001);
  t.add("root", daemon_pid("systemd-logind", 912), at(4.2), 49344, 7936, "Ss", "/lib/systemd/systemd-logind");
  if (w.laptop) {
    t.add("root", 931, at(4.2), 467676, 13568, "Ssl", "/usr/sbin/thermald --systemd --dbus-enable --adaptive", 0.002);
    t.add("root", 932, at(4.2), 468948, 12928, "Ssl", "/usr/libexec/udisks2/udisksd");
    t.add("root", daemon_pid("wpa_supplicant", 933), at(4.2), 18464, 11264, "Ss", "/sbin/wpa_supplicant -u -s -O /run/wpa_supplicant");
  }
  t.add("root", daemon_pid("containerd", 1050), at(5.0), 1946452, 48640, "Ssl", "/usr/bin/containerd", 0.003);
  t.add("nvidia-+", daemon_pid("nvidia-persistenced", 1001), at(5.2), 5320, 1792, "Ss",
        "/usr/bin/nvidia-persistenced --user nvidia-persistenced --no-persistence-mode --verbose");
  t.add("root", daemon_pid("dockerd", 1188), at(5.8), 2791288, 84120, "Ssl",
        "/usr/bin/dockerd -H fd:// --containerd=/run/containerd/containerd.sock", 0.004);
  if (!w.laptop) {
    t.add("root", 1422, at(6.0), 15432, 9344, "Ss", "sshd: /usr/sbin/sshd -D [listener] 0 of 10-100 startups");
    t.add("root", 1430, at(6.0), 6176, 1024, "Ss+", "/sbin/agetty -o -p -- \\u --noclear tty1 linux", 0, "tty1");
    t.add("prometh+", 1450, at(6.2), 1242388, 26112, "Ssl", "/usr/bin/prometheus-node-exporter --collector.textfile.directory=/var/lib/node_exporter", 0.004);
  }
}

void desktop_processes(const World& w, ProcTable& t, TimeNs login) {
  int next = 0;
  auto pid = [&](double, int) { return session_pid(w, next++); };
  auto at = [&](double s) { return login + seconds(s); };
  if (w.laptop) {
    t.add("root", 1391, w.boots.front().wall + seconds(8.1), 249752, 9088, "Ssl", "/usr/sbin/gdm3");
    t.add("root", pid(0, 9), at(0), 174720, 10496, "Sl", "gdm-session-worker [pam/gdm-password]");
    t.add("dev", pid(0.3, 8), at(0.3), 17296, 10112, "Ss", "/lib/systemd/systemd --user");
    t.add("dev", pid(0.4, 9), at(0.4), 169548, 5064, "S", "(sd-pam)");
    t.add("dev", pid(0.9, 8), at(0.9), 116732, 13568, "S<sl", "/usr/bin/pipewire", 0.004);
    t.add("dev", pid(0.9, 9), at(0.9), 381176, 18944, "S<sl", "/usr/bin/wireplumber", 0.002);
    t.add("dev", pid(1.4, 8), at(1.4), 174444, 2816, "Sl", "/usr/libexec/gdm-x-session --run-script env GNOME_SHELL_SESSION_MODE=ubuntu /usr/bin/gnome-session --session=ubuntu", 0, "tty2");
    t.add("dev", pid(1.5, 9), at(1.5), 25946440, 98816, "Sl+",
          "/usr/lib/xorg/Xorg vt2 -displayfd 3 -auth /run/user/1000/gdm/Xauthority -nolisten tcp -background none -noreset -keeptty -novtswitch -verbose 3",
          0.035, "tty2");
    t.add("dev", pid(2.0, 8), at(2.0), 228404, 16128, "Sl", "/usr/libexec/gnome-session-binary --session=ubuntu", 0, "tty2");
    t.add("dev", w.daemon("gnome-shell")->pid, at(2.2), 5211244, 396800, "Rsl", "/usr/bin/gnome-shell", 0.06);
    t.add("dev", pid(3.0, 8), at(3.0), 348552, 27904, "Ssl", "/usr/libexec/gsd-power", 0.001);
    t.add("dev", pid(3.1, 9), at(3.1), 665228, 40192, "SNsl", "/usr/libexec/tracker-miner-fs-3", 0.002);
    t.add("dev", pid(4.0, 8), at(4.0), 562900, 53760, "Ssl", "/usr/libexec/gnome-terminal-server", 0.004);
    t.add("dev", pid(4.2, 9), at(4.2), 19900, 5632, "Ss", "bash", 0, "pts/0");
    t.add("dev", pid(4.3, 8), at(4.3), 19900, 5504, "Ss", "bash", 0, "pts/1");
    t.add("dev", pid(9.0, 8), at(9.0), 33988344, 421376, "Sl", "/opt/google/chrome/chrome", 0.04);
    t.add("dev", pid(9.2, 9), at(9.2), 33897180, 171520, "Sl",
          "/opt/google/chrome/chrome --type=gpu-process --crashpad-handler-pid=2733 --enable-crash-reporter=, --change-stack-guard-on-fork=enable --gpu-preferences=WAAAAAAAAAAgAAAEAAAAAAAAAAAAAAAAAABgAAEAAAA4AAAAAAAAAAAAAAAAAAAAAgAAAAAAAAAAAAAAAAAAAAAAAAAQAAAAAAAAABAAAAAAAAAACAAAAAAAAAAIAAAAAAAAAA== --shared-files --field-trial-handle=3,i,7723052219012367117,4123512283121738471,262144 --variations-seed-version",
          0.03);
    t.add("dev", pid(12.0, 8), at(12.0), 1185435236, 158976, "Sl",
          "/usr/share/code/code --type=renderer --crashpad-handler-pid=2901 --enable-crash-reporter=9a4c6c5e-0c1d-4e11-8d2f-3b6c1c7a0f21,no_channel --user-data-dir=/home/dev/.config/Code --standard-schemes=vscode-webview,vscode-file --enable-sandbox --secure-schemes=vscode-webview,vscode-file --cors-schemes=vscode-webview,vscode-file --fetch-schemes=vscode-webview,vscode-file --service-worker-schemes=vscode-webview --code-cache-schemes=vscode-webview,vscode-file --app-path=/usr/share/code/resources/app --enable-sandbox --first-renderer-process --lang=en-US --num-raster-threads=4 --enable-main-frame-before-activation --renderer-client-id=4 --time-ticks-at-unix-epoch=-1763600395123456 --launch-time-ticks=72911234 --shared-files --field-trial-handle=3,i,1517268911208312134,2911451727312287650,262144 --variations-seed-version",
          0.025);
    t.add("dev", pid(11.8, 9), at(11.8), 34060708, 122368, "Sl", "/usr/share/code/code --unity-launch", 0.01);
    t.add("dev", pid(20.0, 8), at(20.0), 1223504, 112640, "Sl", "/usr/bin/python3 /home/dev/.local/bin/jupyter-lab --no-browser --port=8888", 0.004, "pts/0");
    t.add("dev", pid(31.0, 9), at(31.0), 14263652, 1287168, "Ssl",
          "/usr/bin/python3 -m ipykernel_launcher -f /home/dev/.local/share/jupyter/runtime/kernel-6e0c3b1a-3f0e-4c1b-9a53-7d2c1e8f4b60.json",
          0.08);
  } else {
    t.add("root", pid(0, 9), at(0), 17176, 11008, "Ss", "sshd: ubuntu [priv]");
    t.add("ubuntu", pid(0.2, 8), at(0.2), 17308, 9984, "Ss", "/lib/systemd/systemd --user");
    t.add("ubuntu", pid(0.5, 9), at(0.5), 17308, 7936, "S", "sshd: ubuntu@pts/0");
    t.add("ubuntu", pid(0.6, 8), at(0.6), 11340, 5376, "Ss", "-bash", 0, "pts/0");
    t.add("ubuntu", pid(2.0, 9), at(2.0), 10004, 4480, "S+", "tmux new -s train", 0, "pts/0");
    t.add("ubuntu", pid(2.1, 8), at(2.1), 12220, 4736, "Ss", "tmux new -s train", 0.001);
    t.add("ubuntu", pid(2.2, 9), at(2.2), 11340, 5504, "Ss", "-bash", 0, "pts/1");
  }
}

void job_processes(const World& w, ProcTable& t) {
  const std::string user = w.laptop ? "dev" : "ubuntu";
  const std::string tty = w.laptop ? "pts/0" : "pts/1";
  TimeNs dmon_end = 0;
  for (TimeNs e : w.dmon_end) dmon_end = std::max(dmon_end, e);
  t.add(user, pid_at(w, w.collect_begin, 9), w.collect_begin, 10104, 3968, "S+", "bash /home/" + user + "/bin/collect-gpu-logs.sh /var/tmp/gpulogs", 0, "pts/1");
  auto& dmon = t.add(user, pid_at(w, w.collect_begin + seconds(0.01), 8), w.collect_begin + seconds(0.01), 178532, 29440, "Sl+",
                     "nvidia-smi dmon -s pucvmet -o DT", 0.006, w.laptop ? "pts/1" : "pts/2");
  if (w.has_dmon) dmon.end = dmon_end;
  else dmon.end = w.collect_begin;  // no dmon in this scenario
  for (const auto& c : w.containers) {
    const TimeNs end = c.exit == kNoTime ? kNoTime : c.exit;
    auto& cli = t.add(user, pid_at(w, c.create - seconds(0.05), 9), c.create - seconds(0.05), 1932580, 39936, "Sl+",
                      "docker run --rm --gpus all --ipc=host -v /home/" + user +
                          "/proj:/workspace nvcr.io/nvidia/pytorch:24.10-py3 python train.py --config configs/vit_b16.yaml",
                      0.001, tty);
    cli.end = end;
    auto& shim = t.add("root", c.shim_pid, c.running - seconds(0.1), 1238596, 14592, "Sl",
                       "/usr/bin/containerd-shim-runc-v2 -namespace moby -id " + c.id + " -address /run/containerd/containerd.sock", 0.001);
    shim.end = end;
    auto& py = t.add("root", c.python_pid, c.running, 24189344, 3512320, "Rsl", "python train.py --config configs/vit_b16.yaml",
                     w.laptop ? 1.05 : 4.2);
    py.end = end;
    const int workers = w.laptop ? 4 : 8;
    for (int k = 0; k < workers; ++k) {
      auto& wk = t.add("root", c.python_pid + 10 * (k + 1), c.running + seconds(30 + k * 0.1), 21342768, 1893376, "Sl",
                       "python train.py --config configs/vit_b16.yaml", 0.35);
      wk.end = end;
    }
  }
}

void append_row(std::string& b, const World& w, const Proc& p, TimeNs now, TimeNs offset) {
  std::string_view user = p.user;
  b += user.size() > 8 ? std::string(user.substr(0, 7)) + "+" : std::string(user);
  if (user.size() < 8) b.append(8 - user.size(), ' ');
  b += ' ';
  append_int(b, p.pid, 7);
  const double elapsed = std::max(1.0, static_cast<double>(now - p.start) / 1e9);
  b += ' ';
  append_tenths(b, static_cast<std::int64_t>(p.cpu_s / elapsed * 1000.0), 4);
  b += ' ';
  append_tenths(b, p.rss * 1000 / w.mem_total_kb, 4);
  b += ' ';
  append_int(b, p.vsz, 6);
  b += ' ';
  append_int(b, p.rss, 5);
  b += ' ';
  append_left(b, p.tty, 8);
  b += ' ';
  append_left(b, p.stat, 4);
  b += ' ';
  // START: HH:MM within a day, else MonDD (local time).
  const CivilTime s = ns_to_civil(p.start + offset);
  std::string start;
  if (now - p.start < kNsPerDay) {
    append_zero_padded(start, s.hour, 2);
    start += ':';
    append_zero_padded(start, s.minute, 2);
  } else {
    start = kMonthAbbrev[s.month - 1];
    append_zero_padded(start, s.day, 2);
  }
  append_right(b, start, 5);
  b += ' ';
  const auto secs = static_cast<std::int64_t>(p.cpu_s);
  std::string time;
  append_int(time, secs / 60);
  time += ':';
  append_zero_padded(time, secs % 60, 2);
  append_right(b, time, 6);
  b += ' ';
  b += p.cmd;
  b += '\n';
}

}  // namespace

void write_ps(const World& w, OutFile& out) {
  ProcTable table(w);
  kernel_threads(w, table);
  system_processes(w, table);
  desktop_processes(w, table, login_time(w));
  job_processes(w, table);
  auto& procs = table.procs();
  std::sort(procs.begin(), procs.end(), [](const Proc& a, const Proc& b) { return a.pid < b.pid; });
  Rng& rng = table.rng();

  const TimeNs mono0 = w.mono_at(w.collect_begin) + seconds(0.5);
  const TimeNs mono_end = w.mono_at(w.span_end);
  TimeNs prev = w.boots.front().wall;
  const std::string user = w.laptop ? "dev" : "ubuntu";
  std::string& b = out.buf();
  std::int32_t sleep_pid = pid_at(w, w.collect_begin, 5);
  TimeNs sleep_start = w.collect_begin;
  for (TimeNs m = mono0; m < mono_end; m += 60 * kNsPerSec) {
    TimeNs now = w.wall_of_mono(m);
    for (const auto& s : w.suspends)  // frozen: the loop goes on with the thaw
      if (now >= s.freeze && now < s.thaw) now = s.thaw + seconds(0.05);
    const TimeNs offset = w.offset_at(now);
    // CPU time accrues only while awake.
    const double awake = static_cast<double>(w.mono_at(now) - w.mono_at(prev)) / 1e9;
    for (auto& p : procs)
      if (p.share > 0 && p.start < now && (p.end == kNoTime || p.end > prev)) {
        const double from = std::max(0.0, static_cast<double>(w.mono_at(std::max(p.start, prev)) - w.mono_at(prev)) / 1e9);
        double to = awake;
        if (p.end != kNoTime && p.end < now) to = std::max(from, static_cast<double>(w.mono_at(p.end) - w.mono_at(prev)) / 1e9);
        p.cpu_s += (to - from) * p.share * rng.uniform(0.8, 1.2);
      }
    prev = now;
    b += "### gpucost-ps ";
    append_rfc3339_local(b, now, offset);
    b += "\nUSER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND\n";
    const std::int32_t ps_pid = pid_at(w, now, 6);
    bool sleep_done = false, ps_done = false;
    auto extra = [&](std::int32_t upto) {
      if (!sleep_done && sleep_pid < upto) {
        Proc sl;
        sl.user = user;
        sl.pid = sleep_pid;
        sl.start = sleep_start;
        sl.vsz = 8280;
        sl.rss = 1024;
        sl.stat = "S+";
        sl.tty = "pts/1";
        sl.cmd = "sleep 60";
        append_row(b, w, sl, now, offset);
        sleep_done = true;
      }
      if (!ps_done && ps_pid < upto) {
        Proc ps;
        ps.user = user;
        ps.pid = ps_pid;
        ps.start = now;
        ps.vsz = 14052;
        ps.rss = 3840;
        ps.stat = "R+";
        ps.tty = "pts/1";
        ps.cmd = "ps aux";
        append_row(b, w, ps, now, offset);
        ps_done = true;
      }
    };
    for (const auto& p : procs) {
      if (p.start > now || (p.end != kNoTime && p.end <= now)) continue;
      extra(p.pid);
      append_row(b, w, p, now, offset);
    }
    extra(INT32_MAX);
    sleep_pid = pid_at(w, now + seconds(0.02), 5);
    sleep_start = now + seconds(0.02);
    out.maybe_flush();
  }
}

}  // namespace gpucost::sim
