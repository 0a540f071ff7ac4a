// truth.json agrees with the files: every injected kernel event sits in dmesg, kern.log and the
// journal with the stamps the true instant implies; the suspend leaves a gap in the dmon rows
// and does not advance the kernel clock; the GPU features recomputed from dmon.log equal the
// truth; and the project's event recognizer finds no event in the noise.
#include <gtest/gtest.h>

#include <cmath>

#include "gpucost/ingest/recognizer.hpp"
#include "unit/sim_test_util.hpp"

namespace gpucost::sim::testing {
namespace {

constexpr TimeNs kShanghai = 8 * kNsPerHour;

struct Suspend {
  TimeNs sleep_begin, sleep_end, last_row_before, first_row_after;
};

std::vector<Suspend> suspends(TruthDoc& t) {
  std::vector<Suspend> out;
  for (auto s : t.root["suspends"].get_array())
    out.push_back({s["kernel_sleep_begin_ns"].get_int64(), s["kernel_sleep_end_ns"].get_int64(),
                   s["dmon_last_row_before_ns"].get_int64(), s["dmon_first_row_after_ns"].get_int64()});
  return out;
}

TEST(SimTruthFiles, EveryXidIsInDmesgKernLogAndJournalWithTheTrueStamps) {
  TruthDoc t(laptop());
  const TimeNs boot = t.root["boot"]["boot_wall_ns"].get_int64();
  const auto sus = suspends(t);
  ASSERT_EQ(sus.size(), 1u);
  const auto dmesg = read_lines(laptop() / "dmesg.txt");
  const auto kern = read_lines(laptop() / "kern.log");
  const auto journal = read_lines(laptop() / "journal.json");
  int xids = 0;
  for (auto e : t.root["events"].get_array()) {
    if (std::string_view(e["kind"]) != "xid") continue;
    ++xids;
    const TimeNs ts = e["ts_ns"].get_int64();
    const std::string msg = str(e["message"]);
    // dmesg: boot + mono + time asleep before = the true instant.
    bool found = false;
    TimeNs mono = -1;
    for (const auto& l : dmesg) {
      std::size_t end = 0;
      if (l.find("] ") != std::string::npos && l.substr(l.find("] ") + 2) == msg) {
        mono = parse_mono_stamp(l, end);
        const TimeNs asleep = ts > sus[0].sleep_end ? sus[0].sleep_end - sus[0].sleep_begin : 0;
        EXPECT_EQ(boot + mono + asleep, ts) << msg;
        found = true;
      }
    }
    EXPECT_TRUE(found) << "not in dmesg: " << msg;
    // kern.log: the local time (+08:00) of the instant, floored to the second, and the same mono.
    found = false;
    const CivilTime local = ns_to_civil(ts + kShanghai);
    char stamp[32];
    static const char* kMon[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    std::snprintf(stamp, sizeof stamp, "%s %2u %02u:%02u:%02u", kMon[local.month - 1], local.day, local.hour, local.minute,
                  local.second);
    for (const auto& l : kern) {
      if (l.size() < msg.size() || l.compare(l.size() - msg.size(), msg.size(), msg) != 0) continue;
      found = true;
      EXPECT_EQ(l.substr(0, 15), stamp) << l;
      std::size_t end = 0;
      EXPECT_EQ(parse_mono_stamp(l.substr(l.find("kernel: ") + 8), end), mono) << l;
    }
    EXPECT_TRUE(found) << "not in kern.log: " << msg;
    // journal: a kernel entry with the printk time as _SOURCE_MONOTONIC_TIMESTAMP.
    found = false;
    simdjson::dom::parser p;
    for (const auto& l : journal) {
      if (l.find("\"_TRANSPORT\":\"kernel\"") == std::string::npos || l.find("Xid") == std::string::npos) continue;
      simdjson::dom::object o = p.parse(simdjson::padded_string(l)).get_object();
      if (std::string_view(o["MESSAGE"]) != msg) continue;
      found = true;
      EXPECT_EQ(std::stoll(str(o["_SOURCE_MONOTONIC_TIMESTAMP"])), mono / kNsPerUs);
      // Its realtime/monotonic pair is an anchor of the boot after the suspends so far.
      const TimeNs rt = std::stoll(str(o["__REALTIME_TIMESTAMP"])) * kNsPerUs;
      const TimeNs mt = std::stoll(str(o["__MONOTONIC_TIMESTAMP"])) * kNsPerUs;
      const TimeNs asleep = ts > sus[0].sleep_end ? sus[0].sleep_end - sus[0].sleep_begin : 0;
      EXPECT_NEAR(static_cast<double>(rt - mt), static_cast<double>(boot + asleep), 2000.0);
    }
    EXPECT_TRUE(found) << "not in journal.json: " << msg;
  }
  EXPECT_GE(xids, 4) << "one Xid of each class at least";
  EXPECT_EQ(t.root["features"]["host"]["xid_events"].get_int64().value(), xids);
}

TEST(SimTruthFiles, SuspendLeavesADmonGapAndStopsTheKernelClock) {
  TruthDoc t(laptop());
  const auto sus = suspends(t);
  ASSERT_EQ(sus.size(), 1u);
  const TimeNs asleep = sus[0].sleep_end - sus[0].sleep_begin;
  EXPECT_GE(asleep, 25 * kNsPerMin);
  EXPECT_LE(asleep, 35 * kNsPerMin);
  // dmon: consecutive rows except one jump over the suspend, from the row before to the row after.
  std::vector<TimeNs> rows;
  for (const auto& l : read_lines(laptop() / "dmon.log")) {
    if (l[0] == '#') continue;
    const CivilTime c{std::stoi(l.substr(1, 4)), static_cast<unsigned>(std::stoi(l.substr(5, 2))),
                      static_cast<unsigned>(std::stoi(l.substr(7, 2))), static_cast<unsigned>(std::stoi(l.substr(13, 2))),
                      static_cast<unsigned>(std::stoi(l.substr(16, 2))), static_cast<unsigned>(std::stoi(l.substr(19, 2))), 0};
    rows.push_back(civil_to_ns(c) - kShanghai);
  }
  int gaps = 0;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    if (rows[i] - rows[i - 1] == kNsPerSec) continue;
    ++gaps;
    EXPECT_EQ(rows[i - 1], sus[0].last_row_before);
    EXPECT_EQ(rows[i], sus[0].first_row_after);
    EXPECT_GE(rows[i] - rows[i - 1], asleep);
  }
  EXPECT_EQ(gaps, 1);
  // dmesg: between `PM: suspend entry` and `PM: suspend exit` the kernel clock moves seconds, not the sleep.
  TimeNs entry = -1, exit = -1;
  for (const auto& l : read_lines(laptop() / "dmesg.txt")) {
    std::size_t end = 0;
    if (l.find("PM: suspend entry") != std::string::npos) entry = parse_mono_stamp(l, end);
    if (l.find("PM: suspend exit") != std::string::npos) exit = parse_mono_stamp(l, end);
  }
  ASSERT_GT(entry, 0);
  ASSERT_GT(exit, entry);
  EXPECT_LT(exit - entry, 5 * kNsPerSec);
  // The truth's cycle runs from the first suspend message to the last resume message.
  const double suspended = t.root["features"]["host"]["suspended_s"].get_double();
  EXPECT_GT(suspended, static_cast<double>(asleep) / 1e9);
  EXPECT_LT(suspended, static_cast<double>(asleep) / 1e9 + 5);
}

TEST(SimTruthFiles, GpuFeaturesRecomputedFromDmonEqualTheTruth) {
  TruthDoc t(laptop());
  std::int64_t rows = 0, idle = 0, hot = 0, temp_max = -1000;
  double sm = 0, power = 0;
  for (const auto& l : read_lines(laptop() / "dmon.log")) {
    if (l[0] == '#') continue;
    std::istringstream in(l);
    std::string date, time;
    int gpu, pwr, gtemp, smv;
    std::string mtemp;
    in >> date >> time >> gpu >> pwr >> gtemp >> mtemp >> smv;
    ++rows;
    sm += smv;
    power += pwr;
    idle += smv <= 5;
    hot += gtemp > 78;
    temp_max = std::max<std::int64_t>(temp_max, gtemp);
  }
  auto host = t.root["features"]["host"];
  EXPECT_EQ(host["gpu_samples"].get_int64().value(), rows);
  EXPECT_DOUBLE_EQ(host["gpu_sampled_s"].get_double().value(), static_cast<double>(rows));
  EXPECT_NEAR(host["gpu_util_mean_pct"].get_double().value(), sm / static_cast<double>(rows), 1e-6);
  EXPECT_NEAR(host["gpu_idle_fraction"].get_double().value(), static_cast<double>(idle) / static_cast<double>(rows), 1e-9);
  EXPECT_NEAR(host["gpu_power_mean_w"].get_double().value(), power / static_cast<double>(rows), 1e-6);
  EXPECT_NEAR(host["gpu_energy_kwh"].get_double().value(), power / 3.6e6, 1e-9);
  EXPECT_EQ(host["gpu_temp_max_c"].get_int64().value(), temp_max);
  EXPECT_DOUBLE_EQ(host["gpu_time_above_temp_s"].get_double().value(), static_cast<double>(hot));
  EXPECT_GT(hot, 0) << "the hot phases pass 78 C";
  EXPECT_GT(idle, 0) << "idle gaps and crash restarts";
  EXPECT_NEAR(host["ac_switches_per_hour"].get_double().value(),
              static_cast<double>(host["ac_switches"].get_int64().value()) / (static_cast<double>(rows) / 3600.0), 1e-6);
}

TEST(SimTruthFiles, AcSwitchesMatchTheKernelAdapterLinesAfterBoot) {
  TruthDoc t(laptop());
  // Count state changes among the kernel's AC lines, leaving out the boot-time report.
  int changes = 0, state = -1;
  for (const auto& l : read_lines(laptop() / "dmesg.txt")) {
    if (l.find("ACPI: AC: AC Adapter [ADP1]") == std::string::npos) continue;
    std::size_t end = 0;
    const int s = l.find("(on-line)") != std::string::npos ? 1 : 0;
    if (parse_mono_stamp(l, end) >= 60 * kNsPerSec && state != -1 && s != state) ++changes;
    state = s;
  }
  EXPECT_GE(changes, 2);
  EXPECT_EQ(t.root["features"]["host"]["ac_switches"].get_int64().value(), changes);
  EXPECT_EQ(t.root["features"]["host"]["lid_closes"].get_int64().value(), 1);
  EXPECT_EQ(t.root["features"]["host"]["suspends"].get_int64().value(), 1);
}

/// `Nov 20 09:17:01 host ident[pid]: message` -> ident, message.
bool split_syslog(const std::string& l, std::string& ident, std::string& msg) {
  const auto host_end = l.find(' ', 16);
  const auto colon = l.find(": ", host_end);
  if (host_end == std::string::npos || colon == std::string::npos) return false;
  ident = l.substr(host_end + 1, colon - host_end - 1);
  if (auto b = ident.find('['); b != std::string::npos) ident.resize(b);
  msg = l.substr(colon + 2);
  return true;
}

TEST(SimTruthFiles, TheRecognizerFindsEventsOnlyWhereTheTruthHasThem) {
  TruthDoc t(laptop());
  std::set<std::pair<std::string, std::string>> truth;  // (kind, message)
  for (auto e : t.root["events"].get_array())
    truth.emplace(str(e["kind"]), str(e["message"]));
  EventRecognizer rec;
  int checked = 0;
  auto check = [&](const std::string& ident, const std::string& msg) {
    auto r = rec.classify(ident, msg);
    if (!r) return;
    const std::string kind(event_kind_name(r->kind));
    if (kind == "cron") return;  // the noise the article names: counted, not an event of the truth
    ++checked;
    EXPECT_TRUE(truth.count({kind, msg})) << "recognized as " << kind << " but not in truth.json: " << ident << ": " << msg;
  };
  for (const auto& l : read_lines(laptop() / "kern.log")) check("kernel", l.substr(l.find("] ") + 2));
  for (const auto& l : read_lines(laptop() / "syslog")) {
    std::string ident, msg;
    ASSERT_TRUE(split_syslog(l, ident, msg)) << l;
    check(ident, msg);
  }
  EXPECT_GT(checked, 20);
}

}  // namespace
}  // namespace gpucost::sim::testing
