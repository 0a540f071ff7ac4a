#include "sim/noise.hpp"

#include <algorithm>

#include "sim/emit.hpp"
#include "sim/plan.hpp"

namespace gpucost::sim {

enum class Noise::Kind : std::uint8_t {
  kCronMinute, kCronSysstat, kCronHourly, kDockerPs, kDockerStats, kAnacron, kDhcp, kWpaSignal, kRtkit,
  kGnomeShell, kDbusActivation, kSnapd, kResolved, kUfw, kAudit, kTxPower, kSshSession, kMultipath, kMartian, kSynFlood,
};

Noise::Noise(const World& w) : w_(w), rng_(w.options.seed, 40) {
  const TimeNs t0 = w.boots.front().wall;
  const TimeNs minute0 = (t0 / kNsPerMin + 1) * kNsPerMin;
  auto periodic = [&](Kind k, TimeNs first, double every_s) { sources_.push_back({k, first, every_s, true}); };
  auto random = [&](Kind k, double per_hour) {
    const double mean = 3600.0 / (per_hour * w.options.noise);
    sources_.push_back({k, t0 + seconds(20 + mean * rng_.uniform(0.05, 1.0)), mean, false});
  };
  periodic(Kind::kCronMinute, minute0, 60);
  periodic(Kind::kCronSysstat, (t0 / (10 * kNsPerMin) + 1) * 10 * kNsPerMin + 5 * kNsPerMin, 600);
  periodic(Kind::kCronHourly, (t0 / kNsPerHour + 1) * kNsPerHour + 17 * kNsPerMin, 3600);
  periodic(Kind::kDockerPs, w.collect_begin + seconds(30), w.laptop ? 60 : 15);
  if (w.laptop) {
    periodic(Kind::kAnacron, (t0 / kNsPerHour + 1) * kNsPerHour + 30 * kNsPerMin, 3600);
    periodic(Kind::kDhcp, t0 + minutes(30), 1800);
    random(Kind::kWpaSignal, 12);
    random(Kind::kRtkit, 10);
    random(Kind::kGnomeShell, 6);
    random(Kind::kDbusActivation, 2);
    random(Kind::kSnapd, 0.4);
    random(Kind::kResolved, 1);
    random(Kind::kUfw, 15);
    random(Kind::kAudit, 4);
    random(Kind::kTxPower, 1);
  } else {
    periodic(Kind::kDockerStats, w.collect_begin + seconds(45), 30);
    random(Kind::kSshSession, 4);
    random(Kind::kMultipath, 12);
    random(Kind::kMartian, 4);
    random(Kind::kSynFlood, 0.5);
    random(Kind::kSnapd, 0.4);
    random(Kind::kResolved, 0.5);
  }
}

void Noise::generate(TimeNs from, TimeNs to, std::vector<LogRecord>& out) {
  for (auto& s : sources_) {
    while (s.next < to) {
      // Asleep or frozen, nothing runs; cron and timers catch up at their next slot.
      if (s.next >= from && s.next < w_.span_end && !w_.frozen(s.next)) emit(s.kind, s.next, out);
      s.next += seconds(s.periodic ? s.mean_s : s.mean_s * rng_.uniform(0.1, 1.9));
    }
  }
  auto ready = std::stable_partition(pending_.begin(), pending_.end(), [&](const LogRecord& r) { return r.ts < to; });
  for (auto it = pending_.begin(); it != ready; ++it)
    if (it->ts < w_.span_end && !w_.frozen(it->ts)) out.push_back(std::move(*it));
  pending_.erase(pending_.begin(), ready);
}

void Noise::emit(Kind k, TimeNs t0, std::vector<LogRecord>& out) {
  Emitter e(w_, out);
  Emitter later(w_, pending_);
  const TimeNs t = t0 + seconds(rng_.uniform(0.01, 0.9));
  const Daemon* sd = w_.daemon("systemd");
  auto cron = [&](const char* cmd, int slot) {
    auto& r = e.user(t, w_.daemon("CRON"), cmd);
    r.pid = pid_at(w_, t, slot);
  };
  auto docker = [&](TimeNs at, const std::string& msg) {
    return logfmt_time(w_, at, rng_) + " level=debug msg=\"" + msg + "\"";
  };
  switch (k) {
    case Kind::kCronMinute:
      cron(w_.laptop ? "(dev) CMD (/home/dev/bin/battery-log.sh >> /home/dev/.cache/battery.log 2>&1)"
                     : "(root) CMD (/usr/local/bin/gpu-textfile.sh > /var/lib/node_exporter/gpu.prom.tmp 2>/dev/null)",
           3);
      break;
    case Kind::kCronSysstat: cron("(root) CMD (command -v debian-sa1 > /dev/null && debian-sa1 1 1)", 4); break;
    case Kind::kCronHourly: cron("(root) CMD (   cd / && run-parts --report /etc/cron.hourly)", 9); break;
    case Kind::kDockerPs:
      e.user(t, w_.daemon("dockerd"), docker(t, "Calling HEAD /_ping"));
      e.user(t + seconds(0.0011), w_.daemon("dockerd"), docker(t + seconds(0.0011), "Calling GET /v1.47/containers/json"));
      break;
    case Kind::kDockerStats: {
      const ContainerRun* c = nullptr;
      for (const auto& r : w_.containers)
        if (t >= r.running && (r.exit == kNoTime || t < r.exit)) c = &r;
      if (c) e.user(t, w_.daemon("dockerd"), docker(t, "Calling GET /v1.47/containers/" + c->id.substr(0, 12) + "/stats?stream=0"));
      break;
    }
    case Kind::kAnacron: {
      const Daemon* an = w_.daemon("anacron");
      const std::int32_t pid = pid_at(w_, t, 8);
      e.user(t, sd, "Started Run anacron jobs.");
      const CivilTime c = ns_to_civil(t + w_.offset_at(t));
      std::string day;
      append_zero_padded(day, c.year, 4);
      day += '-';
      append_zero_padded(day, c.month, 2);
      day += '-';
      append_zero_padded(day, c.day, 2);
      e.user(t + seconds(0.004), an, "Anacron 2.3 started on " + day).pid = pid;
      e.user(t + seconds(0.006), an, "Normal exit (0 jobs run)").pid = pid;
      e.user(t + seconds(0.009), sd, "anacron.service: Deactivated successfully.");
      break;
    }
    case Kind::kDhcp: {
      const Daemon* nm = w_.daemon("NetworkManager");
      std::string m = "<info>  [";
      append_int(m, t / kNsPerSec);
      m += '.';
      append_zero_padded(m, t % kNsPerSec / (100 * kNsPerUs), 4);
      e.user(t, nm, m + "] dhcp4 (wlp0s20f3): state changed new lease, address=192.168.1.37");
      break;
    }
    case Kind::kWpaSignal: {
      static constexpr int kTxRates[] = {286700, 573500, 866700, 1200900};
      std::string m = "wlp0s20f3: CTRL-EVENT-SIGNAL-CHANGE above=";
      const int signal = static_cast<int>(rng_.range(-71, -48));
      m += signal > -65 ? "1" : "0";
      m += " signal=" + std::to_string(signal) + " noise=9999 txrate=" + std::to_string(rng_.pick(kTxRates));
      e.user(t, w_.daemon("wpa_supplicant"), m);
      break;
    }
    case Kind::kRtkit: {
      // Random parts are drawn in sequence, from the right: operands of one expression are
      // unsequenced, and compilers order them differently.
      const auto processes = rng_.range(2, 5), threads = rng_.range(4, 9);
      e.user(t, w_.daemon("rtkit-daemon"),
             "Supervising " + std::to_string(threads) + " threads of " + std::to_string(processes) + " processes of 1 users.");
      break;
    }
    case Kind::kGnomeShell:
      if (rng_.chance(0.6))
        e.user(t, w_.daemon("gnome-shell"),
               "Can't update stage views actor <unnamed>[<MetaWindowActorX11>:0x55d1c" + random_hex(rng_, 7) +
                   "] is on because it needs an allocation.", 4);
      else
        e.user(t, w_.daemon("gnome-shell"),
               "Window manager warning: Buggy client sent a _NET_ACTIVE_WINDOW message with a timestamp of 0 for 0x4a0000" +
                   std::to_string(rng_.range(1, 9)) + " (Code - train)", 4);
      break;
    case Kind::kDbusActivation: {
      const Daemon* db = w_.daemon("dbus-daemon");
      e.user(t, db,
             "[system] Activating via systemd: service name='org.freedesktop.timedate1' "
             "unit='dbus-org.freedesktop.timedate1.service' requested by ':1." + std::to_string(rng_.range(60, 140)) +
                 "' (uid=1000 pid=2051 comm=\"/usr/bin/gnome-shell \" label=\"unconfined\")", 5);
      e.user(t + seconds(0.002), sd, "Starting Time & Date Service...");
      e.user(t + seconds(0.051), db, "[system] Successfully activated service 'org.freedesktop.timedate1'", 5);
      e.user(t + seconds(0.052), sd, "Started Time & Date Service.");
      later.user(t + seconds(30.1), sd, "systemd-timedated.service: Deactivated successfully.");
      break;
    }
    case Kind::kSnapd: e.user(t, w_.daemon("snapd"), "autorefresh.go:540: auto-refresh: all snaps are up-to-date"); break;
    case Kind::kResolved:
      e.user(t, w_.daemon("systemd-resolved"),
             w_.laptop ? "Using degraded feature set UDP instead of UDP+EDNS0 for DNS server 192.168.1.1."
                       : "Using degraded feature set TCP instead of UDP for DNS server 10.20.0.2.");
      break;
    case Kind::kUfw: {
      std::string m = "[UFW BLOCK] IN=wlp0s20f3 OUT= MAC=";
      if (rng_.chance(0.7)) {
        m += "01:00:5e:00:00:01:9c:53:22:4f:a1:07:08:00 SRC=192.168.1.1 DST=224.0.0.1 LEN=36 TOS=0x00 PREC=0x00 TTL=1 ID=0 DF PROTO=2 ";
      } else {
        const auto udp_len = rng_.range(52, 220), id = rng_.range(1000, 65000), len = rng_.range(72, 240),
                   src = rng_.range(20, 90);
        m += "ff:ff:ff:ff:ff:ff:3c:7c:3f:1e:0b:52:08:00 SRC=192.168.1." + std::to_string(src) + " DST=192.168.1.255 LEN=" +
             std::to_string(len) + " TOS=0x00 PREC=0x00 TTL=64 ID=" + std::to_string(id) +
             " DF PROTO=UDP SPT=57621 DPT=57621 LEN=" + std::to_string(udp_len) + " ";
      }
      e.kernel(t, std::move(m), 4);
      break;
    }
    case Kind::kAudit: {
      std::string m = "audit: type=1400 audit(";
      append_int(m, t / kNsPerSec);
      m += '.';
      append_zero_padded(m, t % kNsPerSec / kNsPerMs, 3);
      const auto pid = rng_.range(2900, 3300), serial = rng_.range(120, 4000);
      m += ':' + std::to_string(serial) +
           "): apparmor=\"DENIED\" operation=\"open\" class=\"file\" profile=\"snap.firefox.firefox\" "
           "name=\"/proc/pressure/memory\" pid=" + std::to_string(pid) +
           " comm=\"firefox\" requested_mask=\"r\" denied_mask=\"r\" fsuid=1000 ouid=0";
      e.kernel(t, std::move(m), 5);
      break;
    }
    case Kind::kTxPower: e.kernel(t, "wlp0s20f3: Limiting TX power to 23 (23 - 0) dBm as advertised by 9c:53:22:4f:a1:07"); break;
    case Kind::kSshSession: {
      const int n = session_++;
      const Daemon* logind = w_.daemon("systemd-logind");
      e.user(t, logind, "New session " + std::to_string(n) + " of user ubuntu.");
      e.user(t + seconds(0.011), sd, "Started Session " + std::to_string(n) + " of User ubuntu.");
      const TimeNs end = t + seconds(rng_.uniform(20, 1500));
      later.user(end, logind, "Session " + std::to_string(n) + " logged out. Waiting for processes to exit.");
      later.user(end + seconds(0.013), sd, "session-" + std::to_string(n) + ".scope: Deactivated successfully.");
      later.user(end + seconds(0.014), logind, "Removed session " + std::to_string(n) + ".");
      break;
    }
    case Kind::kMultipath: {
      const Daemon* mp = w_.daemon("multipathd");
      e.user(t, mp, "sda: failed to get udev uid: Invalid argument", 3);
      e.user(t + seconds(0.00004), mp, "sda: failed to get sysfs uid: Invalid argument", 3);
      e.user(t + seconds(0.00006), mp, "sda: failed to get sgio uid: No such file or directory", 3);
      break;
    }
    case Kind::kMartian:
      e.kernel(t, "IPv4: martian source 10.20.0.255 from 10.20.0." + std::to_string(rng_.range(10, 60)) + ", on dev enp65s0f0np0", 4);
      {
        const std::string b2 = random_hex(rng_, 2), b1 = random_hex(rng_, 2);
        e.kernel(t + seconds(0.000004), "ll header: 00000000: ff ff ff ff ff ff 0c 42 a1 " + b1 + " " + b2 + " 7e 08 00", 4);
      }
      break;
    case Kind::kSynFlood:
      e.kernel(t, "TCP: request_sock_TCP: Possible SYN flooding on port 9100. Sending cookies.  Check SNMP counters.", 4);
      break;
  }
}

}  // namespace gpucost::sim
