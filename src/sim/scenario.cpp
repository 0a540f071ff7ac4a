// Plans a world: the machine of the scenario, then what happens to it and when. Everything is
// drawn from the seed; the message builders and the writers only print the plan.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "gpucost/sim/world.hpp"
#include "sim/emit.hpp"
#include "sim/plan.hpp"

namespace gpucost::sim {

namespace {

struct Interval {
  TimeNs b, e;
};

/// Places non-overlapping spans at random positions.
class Planner {
 public:
  void reserve(TimeNs b, TimeNs e) { busy_.push_back({b, e}); }
  bool is_free(TimeNs b, TimeNs e) const {
    for (const auto& s : busy_)
      if (b < s.e && s.b < e) return false;
    return true;
  }
  /// A start s in [lo, hi - dur] with [s - margin, s + dur + margin) free, reserved; or none.
  std::optional<TimeNs> place(Rng& rng, TimeNs lo, TimeNs hi, TimeNs dur, TimeNs margin) {
    if (hi - lo <= dur) return std::nullopt;
    for (int i = 0; i < 400; ++i) {
      const TimeNs s = whole_us(lo + static_cast<TimeNs>(rng.uniform() * static_cast<double>(hi - lo - dur)));
      if (is_free(s - margin, s + dur + margin)) {
        reserve(s - margin, s + dur + margin);
        return s;
      }
    }
    return std::nullopt;
  }

 private:
  std::vector<Interval> busy_;
};

TimeNs utc(int y, unsigned mo, unsigned d, unsigned h, unsigned mi, unsigned s, std::int64_t us) {
  return civil_to_ns(CivilTime{y, mo, d, h, mi, s, us * kNsPerUs});
}

Daemon& add_daemon(World& w, std::string ident, std::string exe, std::string cmdline, std::string unit,
                   std::int32_t pid, Transport transport, std::uint8_t facility, std::int32_t uid, Rng& rng) {
  auto d = std::make_unique<Daemon>();
  d->ident = std::move(ident);
  d->exe = std::move(exe);
  d->comm = d->exe.substr(d->exe.rfind('/') + 1).substr(0, 15);
  d->cmdline = std::move(cmdline);
  d->unit = std::move(unit);
  d->invocation = d->unit.empty() ? std::string() : random_hex(rng, 32);
  d->pid = pid;
  d->uid = uid;
  d->transport = transport;
  d->facility = facility;
  w.daemons.push_back(std::move(d));
  return *w.daemons.back();
}

void common_daemons(World& w, Rng& rng) {
  add_daemon(w, "systemd", "/usr/lib/systemd/systemd", w.laptop ? "/sbin/init splash" : "/sbin/init", "init.scope", 1,
             Transport::kJournal, 3, 0, rng);
  add_daemon(w, "systemd-logind", "/usr/lib/systemd/systemd-logind", "/lib/systemd/systemd-logind",
             "systemd-logind.service", w.laptop ? 912 : 1204, Transport::kJournal, 4, 0, rng);
  add_daemon(w, "systemd-resolved", "/usr/lib/systemd/systemd-resolved", "/lib/systemd/systemd-resolved",
             "systemd-resolved.service", w.laptop ? 781 : 1017, Transport::kJournal, 3, 101, rng);
  add_daemon(w, "CRON", "/usr/sbin/cron", "/usr/sbin/cron -f -P", "cron.service", w.laptop ? 901 : 1211,
             Transport::kSyslog, 9, 0, rng)
      .comm = "cron";
  add_daemon(w, "containerd", "/usr/bin/containerd", "/usr/bin/containerd", "containerd.service",
             w.laptop ? 1050 : 1388, Transport::kStdoutStream, 3, 0, rng);
  add_daemon(w, "dockerd", "/usr/bin/dockerd", "/usr/bin/dockerd -H fd:// --containerd=/run/containerd/containerd.sock",
             "docker.service", w.laptop ? 1188 : 1520, Transport::kStdoutStream, 3, 0, rng);
  add_daemon(w, "nvidia-persistenced", "/usr/bin/nvidia-persistenced", "/usr/bin/nvidia-persistenced --user nvidia-persistenced --no-persistence-mode --verbose",
             "nvidia-persistenced.service", w.laptop ? 1001 : 1302, Transport::kSyslog, 3, 123, rng);
  add_daemon(w, "snapd", "/usr/lib/snapd/snapd", "/usr/lib/snapd/snapd", "snapd.service", w.laptop ? 930 : 1230,
             Transport::kStdoutStream, 3, 0, rng);
  add_daemon(w, "systemd-sleep", "/usr/lib/systemd/systemd-sleep", "/lib/systemd/systemd-sleep suspend",
             "systemd-suspend.service", 0, Transport::kJournal, 3, 0, rng);
  add_daemon(w, "anacron", "/usr/sbin/anacron", "/usr/sbin/anacron -d -q -s", "anacron.service", 0, Transport::kSyslog,
             9, 0, rng);
  if (w.laptop) {
    add_daemon(w, "NetworkManager", "/usr/sbin/NetworkManager", "/usr/sbin/NetworkManager --no-daemon",
               "NetworkManager.service", 905, Transport::kJournal, 3, 0, rng);
    add_daemon(w, "wpa_supplicant", "/usr/sbin/wpa_supplicant", "/sbin/wpa_supplicant -u -s -O /run/wpa_supplicant",
               "wpa_supplicant.service", 933, Transport::kSyslog, 3, 0, rng);
    add_daemon(w, "acpid", "/usr/sbin/acpid", "/usr/sbin/acpid -l", "acpid.service", 897, Transport::kSyslog, 3, 0, rng);
    add_daemon(w, "rtkit-daemon", "/usr/libexec/rtkit-daemon", "/usr/libexec/rtkit-daemon", "rtkit-daemon.service",
               1422, Transport::kSyslog, 3, 0, rng);
    add_daemon(w, "gnome-shell", "/usr/bin/gnome-shell", "/usr/bin/gnome-shell", "user@1000.service", 2051,
               Transport::kJournal, 1, 1000, rng);
    add_daemon(w, "dbus-daemon", "/usr/bin/dbus-daemon",
               "@dbus-daemon --system --address=systemd: --nofork --nopidfile --systemd-activation --syslog-only",
               "dbus.service", 884, Transport::kJournal, 3, 102, rng);
  } else {
    add_daemon(w, "multipathd", "/usr/sbin/multipathd", "/sbin/multipathd -d -s", "multipathd.service", 712,
               Transport::kJournal, 3, 0, rng);
    add_daemon(w, "systemd-networkd", "/usr/lib/systemd/systemd-networkd", "/lib/systemd/systemd-networkd",
               "systemd-networkd.service", 1002, Transport::kJournal, 3, 100, rng);
  }
}

GpuSpec laptop_gpu(Rng& rng) {
  GpuSpec g;
  g.index = 0;
  g.name = "NVIDIA GeForce RTX 4060 Laptop GPU";
  g.brand = "GeForce";
  g.architecture = "Ada Lovelace";
  g.pci = "0000:01:00";
  g.bus_id = "00000000:01:00.0";
  g.uuid = "GPU-" + random_uuid(rng);
  g.serial = "N/A";
  g.vbios = "95.07.3B.00.5C";
  g.board_part = "N/A";
  g.device_id = "0x28E010DE";
  g.subsystem_id = "0x3E8417AA";
  g.power_limit_w = 115;
  g.power_default_w = 80;
  g.power_min_w = 5;
  g.power_max_w = 115;
  g.battery_power_limit_w = 55;
  g.mem_total_mib = 8188;
  g.mem_reserved_mib = 157;
  g.bar1_total_mib = 8192;
  g.max_pclk = 3105;
  g.max_sm_clk = 3105;
  g.max_mclk = 8001;
  g.max_video_clk = 2415;
  g.busy_pclk = 2370;
  g.busy_mclk = 8001;
  g.idle_mclk = 405;
  g.idle_power_w = 9;
  g.train_fb_mib = 6920;
  g.has_mtemp = false;
  g.has_ecc = false;
  // AD107 has an x8 interface: laptops run it at x8, never x16 (the seed article's point).
  g.pcie_gen_max = 4;
  g.pcie_width_max = 8;
  g.pcie_width_cur = 8;
  g.shutdown_temp = 105;
  g.slowdown_temp = 102;
  g.max_operating_temp = 87;
  return g;
}

GpuSpec server_gpu(int i, Rng& rng) {
  static constexpr const char* kPci[] = {"0000:07:00", "0000:0f:00", "0000:47:00", "0000:4e:00"};
  static constexpr const char* kBus[] = {"00000000:07:00.0", "00000000:0F:00.0", "00000000:47:00.0", "00000000:4E:00.0"};
  GpuSpec g;
  g.index = i;
  g.minor = i;
  g.name = "NVIDIA A100-SXM4-80GB";
  g.brand = "NVIDIA";
  g.architecture = "Ampere";
  g.pci = kPci[i];
  g.bus_id = kBus[i];
  g.uuid = "GPU-" + random_uuid(rng);
  g.serial = std::to_string(1324521037400 + rng.range(0, 99));
  g.vbios = "92.00.45.00.06";
  g.board_part = "692-2G506-0212-002";
  g.device_id = "0x20B210DE";
  g.subsystem_id = "0x147F10DE";
  g.power_limit_w = 400;
  g.power_default_w = 400;
  g.power_min_w = 100;
  g.power_max_w = 400;
  g.mem_total_mib = 81920;
  g.mem_reserved_mib = 559;
  g.bar1_total_mib = 131072;
  g.max_pclk = 1410;
  g.max_sm_clk = 1410;
  g.max_mclk = 1593;
  g.max_video_clk = 1290;
  g.busy_pclk = 1410;
  g.busy_mclk = 1593;
  g.idle_mclk = 1593;
  g.idle_power_w = 62;
  g.train_fb_mib = 74210;
  g.has_mtemp = true;
  g.has_ecc = true;
  g.pcie_gen_max = 4;
  g.pcie_width_max = 16;
  g.pcie_width_cur = 16;
  g.shutdown_temp = 92;
  g.slowdown_temp = 89;
  g.max_operating_temp = 85;
  return g;
}

void setup_machine(World& w, Rng& rng) {
  w.laptop = w.kind != ScenarioKind::kServer && w.kind != ScenarioKind::kDatacenter;
  w.has_dmon = w.kind != ScenarioKind::kNoDmon;
  w.has_syslog = w.kind != ScenarioKind::kNoDmon;
  w.machine_id = random_hex(rng, 32);
  Boot b0, b1, b2;
  if (w.laptop) {
    w.hostname = "ml-laptop";
    w.zone_name = "Asia/Shanghai";
    w.os_pretty = "Ubuntu 22.04.5 LTS";
    w.kernel_release = "6.8.0-49-generic";
    w.kernel_version_line =
        "Linux version 6.8.0-49-generic (buildd@lcy02-amd64-103) (x86_64-linux-gnu-gcc-12 (Ubuntu "
        "12.3.0-1ubuntu1~22.04) 12.3.0, GNU ld (GNU Binutils for Ubuntu) 2.38) #49~22.04.1-Ubuntu SMP "
        "PREEMPT_DYNAMIC Wed Nov  6 17:42:15 UTC 2 (Ubuntu 6.8.0-49.49~22.04.1-generic 6.8.12)";
    w.driver_version = "550.120";
    w.cuda_version = "12.4";
    w.cpu_threads = 12;
    w.mem_total_kb = 16046212;
    b0.wall = utc(2026, 11, 20, 1, 0, 0, 412306);   // 09:00 in Shanghai
    b1.wall = utc(2026, 11, 17, 12, 14, 5, 118442);  // the evening before (kern.log.1)
    b1.end = b1.wall + minutes(185);
    b2.wall = utc(2026, 11, 6, 11, 41, 52, 700931);  // two weeks before (kern.log.2.gz)
    b2.end = b2.wall + minutes(132);
    w.gpus.push_back(laptop_gpu(rng));
  } else {
    w.hostname = "gpu-node-07";
    w.zone_name = "America/Chicago";
    w.os_pretty = "Ubuntu 22.04.5 LTS";
    w.kernel_release = "5.15.0-126-generic";
    w.kernel_version_line =
        "Linux version 5.15.0-126-generic (buildd@lcy02-amd64-026) (gcc (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0, GNU "
        "ld (GNU Binutils for Ubuntu) 2.38) #136-Ubuntu SMP Wed Nov 6 10:38:22 UTC 2024 (Ubuntu "
        "5.15.0-126.136-generic 5.15.167)";
    w.driver_version = "535.216.03";
    w.cuda_version = "12.2";
    w.cpu_threads = 32;
    w.mem_total_kb = 528196216;
    b0.wall = utc(2026, 11, 20, 14, 5, 0, 871153);   // 08:05 in Chicago
    b1.wall = utc(2026, 11, 13, 15, 22, 10, 250117);
    b1.end = b1.wall + minutes(60 * 24 * 2);
    b2.wall = utc(2026, 11, 2, 16, 3, 44, 903512);
    b2.end = b2.wall + minutes(60 * 24 * 3);
    for (int i = 0; i < 4; ++i) w.gpus.push_back(server_gpu(i, rng));
  }
  // Asia/Shanghai has kept +08:00 without DST since 1991: a fixed offset gives the same bytes
  // with or without the system's tzdata. Chicago's DST needs the zone database.
  std::string err;
  if (w.laptop) w.zone = Zone::fixed(8 * kNsPerHour);
  else if (!Zone::parse(w.zone_name, w.zone, err)) throw std::runtime_error(err);
  for (Boot* b : {&b0, &b1, &b2}) {
    b->id = random_hex(rng, 32);
    b->journald_start = seconds(rng.uniform(1.6, 2.4));
    b->rsyslog_start = seconds(rng.uniform(5.8, 7.2));
  }
  w.boots = {b0, b1, b2};
  common_daemons(w, rng);
}

/// Laptop Xid codes, one of each class first so that short runs still show every class.
std::vector<int> laptop_xid_order(Rng& rng) {
  const int app[] = {13, 31, 43};
  const int drv[] = {62, 119};
  const int mem[] = {48, 63};
  std::vector<int> first = {rng.pick(app), rng.pick(drv), rng.pick(mem)};
  std::vector<int> rest;
  for (int c : {13, 31, 43, 62, 119, 48, 63})
    if (std::find(first.begin(), first.end(), c) == first.end()) rest.push_back(c);
  for (std::size_t i = rest.size(); i > 1; --i) std::swap(rest[i - 1], rest[static_cast<std::size_t>(rng.range(0, static_cast<std::int64_t>(i) - 1))]);
  first.insert(first.end(), rest.begin(), rest.end());
  return first;
}

ContainerRun make_run(World& w, TimeNs create, Rng& rng) {
  static constexpr const char* kAdj[] = {"eager", "quirky", "vibrant", "sleepy", "focused", "brave", "nifty", "zealous"};
  static constexpr const char* kName[] = {"turing", "hopper", "lovelace", "noether", "shannon", "curie", "babbage", "ritchie"};
  ContainerRun r;
  r.id = random_hex(rng, 64);
  const std::string name = rng.pick(kName);  // drawn before the adjective, as the example was written
  r.name = std::string(rng.pick(kAdj)) + "_" + name;
  r.create = whole_us(create);
  r.start_api = r.create + seconds(rng.uniform(0.15, 0.6));
  r.running = r.start_api + (w.laptop ? seconds(rng.uniform(0.6, 2.4)) : seconds(rng.uniform(0.4, 1.5)));
  r.shim_pid = pid_at(w, r.running, 1);
  r.python_pid = pid_at(w, r.running + seconds(0.2), 2);
  return r;
}

}  // namespace

std::int32_t pid_at(const World& w, TimeNs t, int slot) {
  const TimeNs since = std::max<TimeNs>(0, t - w.boots.front().wall);
  const std::int64_t raw = 2400 + since / (2 * kNsPerSec) * 10 + slot;
  return static_cast<std::int32_t>(300 + (raw - 300) % (4194304 - 300));
}

TimeNs login_time(const World& w) {
  for (const auto& r : w.scheduled)
    if (r.daemon && r.daemon->ident == "systemd-logind" && r.message.rfind("New session ", 0) == 0) return r.ts;
  return w.collect_begin - seconds(40);
}

std::int32_t session_pid(const World& w, int k) { return pid_at(w, login_time(w) + 2 * kNsPerSec * k, 0); }

double default_hours(ScenarioKind kind, std::uint64_t seed) {
  if (kind == ScenarioKind::kServer || kind == ScenarioKind::kDatacenter) return 6.0;
  Rng rng(seed, 99);
  return 4.0 + static_cast<double>(rng.range(0, 20)) / 10.0;  // 4.0 .. 6.0 h
}

World build_world(const SimOptions& options) {
  World w;
  w.options = options;
  w.kind = options.scenario;
  Rng rng(options.seed, 1);
  setup_machine(w, rng);
  const double hours = std::max(0.25, options.hours > 0 ? options.hours : default_hours(w.kind, options.seed));
  Boot& boot = w.boots.front();
  w.span_end = whole_us(boot.wall + seconds(hours * 3600.0));
  boot.end = w.span_end;

  Plan plan;
  plan.login = boot.wall + seconds(rng.uniform(40, 65));
  w.collect_begin = whole_us(plan.login + seconds(rng.uniform(30, 50)));
  if (w.laptop)  // gnome-shell starts with the session (its pid follows the session's first ones)
    for (auto& d : w.daemons)
      if (d->ident == "gnome-shell") d->pid = pid_at(w, plan.login + 14 * kNsPerSec, 1);
  const TimeNs job_create = w.collect_begin + seconds(rng.uniform(35, 55));
  const int ngpu = static_cast<int>(w.gpus.size());

  Planner gpu_plan, ac_plan;
  gpu_plan.reserve(boot.wall, job_create + minutes(4));
  ac_plan.reserve(boot.wall, boot.wall + minutes(5));
  std::vector<std::pair<TimeNs, TimeNs>> idle_gaps;
  std::vector<std::pair<XidPlan, TimeNs>> xids;  // with the restart's create time (kNoTime: none)

  const TimeNs block_len = w.laptop ? minutes(300) : minutes(360);
  const int nblocks = std::max<int>(1, static_cast<int>(std::llround(static_cast<double>(w.span_end - boot.wall) /
                                                                     static_cast<double>(block_len))));
  for (int bi = 0; bi < nblocks; ++bi) {
    const TimeNs bs = boot.wall + (w.span_end - boot.wall) * bi / nblocks;
    const TimeNs be = boot.wall + (w.span_end - boot.wall) * (bi + 1) / nblocks;
    const double lh = static_cast<double>(be - bs) / static_cast<double>(kNsPerHour);
    const bool last = bi == nblocks - 1;
    // The healthy data-centre machine: the job runs from start to end with a short pause now and
    // then, and nothing goes wrong (no heat, no Xid, no lost GPU, no AER).
    const bool healthy = w.kind == ScenarioKind::kDatacenter;
    const TimeNs lo = std::max(bs, job_create + minutes(6));
    TimeNs hi = be - minutes(3);

    if (w.laptop && lh >= 1.5) {  // lid close and a ~30 min suspend in the middle of the block
      SuspendCycle s;
      s.lid_close = whole_us(std::max(lo + minutes(5), bs + (be - bs) / 2 + minutes(rng.uniform(-8, 8))));
      s.freeze = s.lid_close + seconds(rng.uniform(0.38, 0.46));
      s.sleep_begin = s.freeze + seconds(rng.uniform(0.30, 0.40));
      s.sleep_end = s.sleep_begin + static_cast<TimeNs>(rng.range(25 * 60, 35 * 60)) * kNsPerSec;
      s.thaw = s.sleep_end + seconds(rng.uniform(0.9, 1.6));
      // In a short last block the fall off the bus (6-10 min before its end, below) must not come
      // while the machine sleeps: end the cycle at least 13 min before the block's end.
      if (const TimeNs over = -whole_us(be - minutes(13) - s.thaw); last && over > 0)  // whole µs
        for (TimeNs* t : {&s.lid_close, &s.freeze, &s.sleep_begin, &s.sleep_end, &s.thaw}) *t -= over;
      gpu_plan.reserve(s.lid_close - minutes(3), s.thaw + minutes(3));
      ac_plan.reserve(s.lid_close - minutes(3), s.thaw + minutes(3));
      w.suspends.push_back(s);
    }
    if (last && lh >= 0.75 && !healthy) {  // the GPU falls off the bus near the end
      XidPlan x;
      x.t = whole_us(be - minutes(rng.uniform(6, 10)));
      x.code = 79;
      x.gpu = w.laptop ? 0 : ngpu - 1;
      x.lost = true;
      gpu_plan.reserve(x.t - minutes(3), be + minutes(1));
      hi = x.t - minutes(3);
      // On the server the job restarts on the remaining GPUs.
      xids.push_back({x, w.laptop ? kNoTime : x.t + minutes(rng.uniform(4, 6))});
    }
    const int nhot = healthy ? 0 : w.laptop ? std::max(1, static_cast<int>(std::lround(lh * 0.4))) : 1;
    for (int i = 0; i < nhot; ++i) {
      const TimeNs dur = minutes(w.laptop ? rng.uniform(8, 15) : rng.uniform(8, 12));
      const int g = w.laptop ? 0 : static_cast<int>(rng.range(0, ngpu - 1));
      if (auto s = gpu_plan.place(rng, lo, hi, dur, minutes(3))) plan.hot.push_back({*s, *s + dur, g});
    }
    const int nidle = std::max(1, static_cast<int>(std::lround(lh * 0.5)));
    for (int i = 0; i < nidle; ++i) {
      const TimeNs dur = minutes(w.laptop ? rng.uniform(3, 7) : rng.uniform(2, 5));
      if (auto s = gpu_plan.place(rng, lo, hi, dur, minutes(2))) idle_gaps.push_back({*s, *s + dur});
    }
    // Xids that end the job: the user (or the scheduler) restarts it after a gap.
    std::vector<int> codes;
    if (w.laptop) {
      codes = laptop_xid_order(rng);
      codes.resize(static_cast<std::size_t>(std::clamp<long>(std::lround(lh * 1.5), 1, 7)));
    } else if (!healthy) {
      codes = {13, 48, 109, 38};  // 109 and 38: a sample of NVIDIA's catalog beyond the classic codes
    }
    for (int code : codes) {
      XidPlan x;
      x.code = code;
      x.gpu = w.laptop ? 0 : static_cast<int>(rng.range(0, ngpu - 2));
      x.crash = code != 63;
      const TimeNs gap = x.crash ? minutes(w.laptop ? rng.uniform(3, 6) : rng.uniform(4, 8)) : 0;
      const TimeNs dur = gap + seconds(150);
      if (auto s = gpu_plan.place(rng, lo, hi, dur, minutes(2))) {
        x.t = *s + seconds(rng.uniform(0, 20));
        xids.push_back({x, x.crash ? x.t + gap : kNoTime});
      }
    }
    if (w.laptop) {
      const int npairs = std::max(1, static_cast<int>(std::lround(lh * 0.8)));
      for (int i = 0; i < npairs; ++i) {
        const TimeNs dur = minutes(rng.uniform(6, 25));
        if (auto s = ac_plan.place(rng, bs + minutes(3), be - minutes(3), dur, minutes(3))) {
          plan.ac.push_back({*s, false});
          plan.ac.push_back({*s + dur, true});
          w.battery.push_back({*s, *s + dur});
        }
      }
    } else if (!healthy) {
      const int naer = std::max(1, static_cast<int>(std::lround(lh * 0.5)));
      for (int i = 0; i < naer; ++i)
        plan.aer.push_back({whole_us(bs + static_cast<TimeNs>(rng.uniform() * static_cast<double>(be - bs))),
                            static_cast<int>(rng.range(0, ngpu - 1))});
    }
  }
  std::sort(xids.begin(), xids.end(), [](const auto& a, const auto& b) { return a.first.t < b.first.t; });
  std::sort(plan.ac.begin(), plan.ac.end(), [](const AcPlan& a, const AcPlan& b) { return a.t < b.t; });
  std::sort(w.battery.begin(), w.battery.end());
  std::sort(plan.aer.begin(), plan.aer.end(), [](const AerPlan& a, const AerPlan& b) { return a.t < b.t; });

  // Container runs: the first at job start, one more after each crash that is restarted.
  std::vector<TimeNs> load_end;
  auto add_run = [&](TimeNs create) {
    w.containers.push_back(make_run(w, create, rng));
    load_end.push_back(w.containers.back().running + seconds(rng.uniform(40, 90)));
  };
  add_run(job_create);
  w.dmon_end.assign(static_cast<std::size_t>(ngpu), w.span_end);
  w.base_mode.assign(static_cast<std::size_t>(ngpu), GpuMode::kTrain);
  w.segments.assign(static_cast<std::size_t>(ngpu), {});
  auto all_gpus = [&](TimeNs b, TimeNs e, GpuMode m) {
    for (auto& segs : w.segments)
      if (e > b) segs.push_back({b, e, m});
  };
  all_gpus(boot.wall, w.containers[0].running, GpuMode::kIdle);
  all_gpus(w.containers[0].running, load_end[0], GpuMode::kLoad);
  for (const auto& [x, restart] : xids) {
    plan.xids.push_back(x);
    if (x.lost) w.dmon_end[static_cast<std::size_t>(x.gpu)] = ceil_second(x.t);
    if (!x.crash) continue;
    w.containers.back().exit = whole_us(x.t + seconds(rng.uniform(1.0, 2.5)));
    if (restart == kNoTime) {
      all_gpus(x.t + kNsPerSec, w.span_end, GpuMode::kIdle);
      continue;
    }
    add_run(restart);
    all_gpus(x.t + kNsPerSec, w.containers.back().running, GpuMode::kIdle);
    all_gpus(w.containers.back().running, load_end.back(), GpuMode::kLoad);
  }
  for (const auto& [b, e] : idle_gaps) all_gpus(b, e, GpuMode::kStall);
  for (const auto& h : plan.hot) w.segments[static_cast<std::size_t>(h.gpu)].push_back({h.begin, h.end, GpuMode::kHot});
  for (auto& segs : w.segments) {
    std::sort(segs.begin(), segs.end(), [](const GpuSegment& a, const GpuSegment& b) { return a.begin < b.begin; });
    // The planner keeps spans apart; a crash idle span can still run into the span end.
    for (std::size_t i = 1; i < segs.size(); ++i) segs[i].begin = std::max(segs[i].begin, segs[i - 1].end);
  }

  for (int b = 0; b < 3; ++b) {
    Rng brng(options.seed, 10 + static_cast<std::uint64_t>(b));
    schedule_boot(w, b, brng);
  }
  Rng erng(options.seed, 20);
  schedule_events(w, plan, erng);
  std::stable_sort(w.scheduled.begin(), w.scheduled.end(),
                   [](const LogRecord& a, const LogRecord& b) { return a.ts < b.ts; });
  return w;
}

}  // namespace gpucost::sim
