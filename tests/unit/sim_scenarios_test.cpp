// Determinism, the three scenarios, --size, and the command line.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>

#include "unit/sim_test_util.hpp"

namespace gpucost::sim::testing {
namespace {

std::map<std::string, std::string> contents(const fs::path& dir) {
  std::map<std::string, std::string> m;
  for (const auto& e : fs::directory_iterator(dir)) m[e.path().filename().string()] = read_file(e.path());
  return m;
}

TEST(SimDeterminism, SameOptionsSameBytes) {
  SimOptions o;
  o.seed = 9;
  o.hours = 1.6;
  o.out_dir = temp_dir("det-a").string();
  simulate(o);
  const auto a = contents(o.out_dir);
  o.out_dir = temp_dir("det-b").string();
  simulate(o);
  const auto b = contents(o.out_dir);
  ASSERT_EQ(a.size(), 10u);
  ASSERT_EQ(a.size(), b.size());
  for (const auto& [name, bytes] : a) {
    ASSERT_TRUE(b.count(name)) << name;
    EXPECT_TRUE(bytes == b.at(name)) << name << " differs between two runs";
  }
  o.seed = 10;
  o.out_dir = temp_dir("det-c").string();
  simulate(o);
  EXPECT_NE(read_file(fs::path(o.out_dir) / "dmon.log"), a.at("dmon.log")) << "another seed, other data";
}

TEST(SimDeterminism, TheCommandLineWritesTheSameBytesAsTheLibrary) {
  const fs::path dir = temp_dir("cli");
  const std::string cmd = std::string(GPUCOST_BINARY) + " simulate --scenario server --seed 5 --hours 0.5 --out " +
                          dir.string() + " > /dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  SimOptions o;
  o.scenario = ScenarioKind::kServer;
  o.seed = 5;
  o.hours = 0.5;
  o.out_dir = temp_dir("lib").string();
  simulate(o);
  EXPECT_TRUE(contents(dir) == contents(o.out_dir));
  const std::string bad = std::string(GPUCOST_BINARY) + " simulate --scenario desktop --out " + dir.string() + " 2>/dev/null";
  EXPECT_NE(std::system(bad.c_str()), 0) << "an unknown scenario is a usage error";
}

TEST(SimScenarios, ServerHasFourGpusPerIntervalAndLosesOneOffTheBus) {
  const fs::path& dir = generated(ScenarioKind::kServer, 3, 6);
  TruthDoc t(dir);
  auto gpus = t.root["gpus"].get_array();
  ASSERT_EQ(gpus.size(), 4u);
  const std::int64_t lost = gpus.at(3)["dmon_end_ns"].get_int64();
  std::map<std::string, int> per_time;
  std::map<int, std::int64_t> rows;
  for (const auto& l : read_lines(dir / "dmon.log")) {
    if (l[0] == '#') continue;
    ++per_time[l.substr(0, 21)];
    ++rows[std::stoi(l.substr(21, 8))];
    EXPECT_NE(l.substr(29 + 2 * 7, 7), "      -") << "A100 reports its memory temperature";
  }
  int four = 0, three = 0;
  for (const auto& [time, n] : per_time) (n == 4 ? four : three) += (n == 4 || n == 3);
  EXPECT_GT(four, 1000);
  EXPECT_GT(three, 60) << "after Xid 79 GPU 3 prints no more rows";
  EXPECT_LT(rows[3], rows[0]);
  EXPECT_GT(lost, 0);
  auto host = t.root["features"]["host"];
  EXPECT_EQ(host["gpu_samples"].get_int64().value(), rows[0] + rows[1] + rows[2] + rows[3]);
  EXPECT_EQ(host["suspends"].get_int64().value(), 0);
  EXPECT_EQ(host["lid_closes"].get_int64().value(), 0);
  EXPECT_EQ(host["ac_switches"].get_int64().value(), 0);
  EXPECT_GT(host["gpu_util_mean_pct"].get_double().value(), 80.0) << "a server is busier than the laptop";
  const std::string kern = read_file(dir / "kern.log");
  EXPECT_EQ(kern.find("AC Adapter"), std::string::npos);
  EXPECT_EQ(kern.find("PM: suspend"), std::string::npos);
  for (auto code : {"): 13, ", "): 48, ", "): 79, "}) EXPECT_NE(kern.find(code), std::string::npos) << code;
  // America/Chicago in November: kern.log is six hours behind UTC.
  EXPECT_EQ(std::string_view(t.root["utc_offset"]), "-06:00");
}

TEST(SimScenarios, NoDmonWritesNoGpuFilesAndNullGpuFeatures) {
  const fs::path& dir = generated(ScenarioKind::kNoDmon, 4, 2);
  EXPECT_FALSE(fs::exists(dir / "dmon.log"));
  EXPECT_FALSE(fs::exists(dir / "nvidia-smi-q.txt"));
  EXPECT_FALSE(fs::exists(dir / "syslog"));
  for (auto f : {"dmesg.txt", "kern.log", "journal.json", "ps.txt", "truth.json"}) EXPECT_TRUE(fs::exists(dir / f)) << f;
  TruthDoc t(dir);
  auto host = t.root["features"]["host"];
  for (auto k : {"gpu_samples", "gpu_sampled_s", "gpu_util_mean_pct", "gpu_idle_fraction", "gpu_power_mean_w",
                 "gpu_energy_kwh", "gpu_temp_max_c", "gpu_time_above_temp_s", "ac_switches_per_hour"})
    EXPECT_TRUE(host[k].is_null()) << k;
  EXPECT_GT(host["xid_events"].get_int64().value(), 0);
  EXPECT_GT(host["ac_switches"].get_int64().value(), 0);
  // The acpid and logind lines that syslog would hold are in the journal.
  const std::string j = read_file(dir / "journal.json");
  EXPECT_NE(j.find("Lid closed."), std::string::npos);
  EXPECT_NE(j.find("ac_adapter ACPI0003:00"), std::string::npos);
}

// In a 1.5 h laptop run the suspend (middle of the span, 25-35 min) and the fall off the bus
// (6-10 min before the end) could overlap: seeds 14, 17, 19, 22 and 39 printed the Xid 79 while
// the kernel slept, between `CPU 11 is now offline` and `Low-level resume complete`.
TEST(SimScenarios, ShortLaptopRunsPrintNothingWhileTheKernelSleeps) {
  for (std::uint64_t seed : {14u, 22u}) {
    const fs::path& dir = generated(ScenarioKind::kLaptop, seed, 1.5);
    TruthDoc t(dir);
    auto suspends = t.root["suspends"].get_array();
    ASSERT_EQ(suspends.size(), 1u);
    const std::int64_t asleep = suspends.at(0)["kernel_sleep_begin_ns"];
    const std::int64_t thawed = suspends.at(0)["user_space_thawed_ns"];
    std::size_t xid79 = 0;
    for (auto e : t.root["events"].get_array()) {
      const std::int64_t ts = e["ts_ns"];
      const std::string kind = str(e["kind"]);
      if (kind != "resume") {
        EXPECT_FALSE(ts >= asleep && ts < thawed) << "seed " << seed << ": " << kind << " while asleep";
      }
      if (kind == "xid" && std::int64_t(e["code"]) == 79) {
        ++xid79;
        EXPECT_GT(ts, thawed) << "seed " << seed;
      }
    }
    EXPECT_EQ(xid79, 1u);
    // dmesg's monotonic stamps never go back (they did when the Xid 79 was printed mid-suspend).
    TimeNs prev = -1;
    for (const auto& l : read_lines(dir / "dmesg.txt")) {
      std::size_t end = 0;
      const TimeNs mono = parse_mono_stamp(l, end);
      EXPECT_GE(mono, prev) << "seed " << seed << ": " << l;
      prev = mono;
    }
  }
}

TEST(SimScenarios, RerunningIntoADirectoryRemovesFilesTheScenarioDoesNotWrite) {
  SimOptions o;
  o.hours = 0.5;
  o.out_dir = temp_dir("rerun").string();
  simulate(o);
  ASSERT_TRUE(fs::exists(fs::path(o.out_dir) / "dmon.log"));
  o.scenario = ScenarioKind::kNoDmon;
  simulate(o);
  EXPECT_FALSE(fs::exists(fs::path(o.out_dir) / "dmon.log"));
}

TEST(SimScenarios, LaptopDefaultSpanIsFourToSixHours) {
  for (std::uint64_t seed : {1u, 2u, 3u, 42u, 1000u}) {
    const double h = default_hours(ScenarioKind::kLaptop, seed);
    EXPECT_GE(h, 4.0);
    EXPECT_LE(h, 6.0);
  }
  EXPECT_EQ(default_hours(ScenarioKind::kServer, 1), 6.0);
}

TEST(SimSize, ParsesSizes) {
  EXPECT_EQ(parse_size("1G"), 1ull << 30);
  EXPECT_EQ(parse_size("100M"), 100ull << 20);
  EXPECT_EQ(parse_size("512k"), 512ull << 10);
  EXPECT_EQ(parse_size("1.5GiB"), 3ull << 29);
  EXPECT_EQ(parse_size("2MB"), 2ull << 20);
  EXPECT_EQ(parse_size("1000000"), 1000000ull);
  EXPECT_THROW(parse_size("big"), std::invalid_argument);
  EXPECT_THROW(parse_size("10Q"), std::invalid_argument);
  EXPECT_THROW(parse_size("0"), std::invalid_argument);
}

TEST(SimSize, HitsItsTargetWithinAFewPercent) {
  for (auto kind : {ScenarioKind::kLaptop, ScenarioKind::kServer}) {
    SimOptions o;
    o.scenario = kind;
    o.seed = 11;
    o.size_bytes = 48ull << 20;
    o.out_dir = temp_dir(std::string("size-") + std::string(scenario_name(kind))).string();
    const SimResult r = simulate(o);
    std::uint64_t on_disk = 0;
    for (const auto& e : fs::directory_iterator(o.out_dir)) on_disk += fs::file_size(e.path());
    EXPECT_EQ(on_disk, r.total_bytes);
    EXPECT_NEAR(static_cast<double>(on_disk), static_cast<double>(o.size_bytes), 0.03 * static_cast<double>(o.size_bytes))
        << scenario_name(kind);
    fs::remove_all(o.out_dir);
  }
}

// With --hours, --size fills the rest with noise: the job's files keep their bytes (the same
// samples, snapshots and events), the noise files grow, and the total hits the target.
TEST(SimSize, WithHoursTheNoiseGrowsAndTheJobStaysTheSame) {
  auto sizes = [](const SimResult& r) {
    std::map<std::string, std::uint64_t> m(r.files.begin(), r.files.end());
    return m;
  };
  SimOptions o;
  o.seed = 5;
  o.hours = 3;
  o.out_dir = temp_dir("noise-quiet").string();
  const SimResult quiet = simulate(o);
  EXPECT_EQ(quiet.noise, 1.0);
  o.size_bytes = 40ull << 20;
  o.out_dir = temp_dir("noise-loud").string();
  const SimResult loud = simulate(o);
  EXPECT_GT(loud.noise, 10.0);
  EXPECT_NEAR(loud.hours, 3.0, 1e-9);
  EXPECT_NEAR(static_cast<double>(loud.total_bytes), static_cast<double>(o.size_bytes), 0.05 * static_cast<double>(o.size_bytes));
  const auto q = sizes(quiet), l = sizes(loud);
  for (const char* same : {"dmon.log", "ps.txt", "nvidia-smi-q.txt"}) EXPECT_EQ(q.at(same), l.at(same)) << same;
  for (const char* more : {"syslog", "kern.log", "dmesg.txt", "journal.json"}) EXPECT_GT(l.at(more), 5 * q.at(more)) << more;
  o.noise = 0.5;
  o.size_bytes = 0;
  EXPECT_THROW(simulate(o), std::invalid_argument);
  fs::remove_all(temp_dir("noise-quiet"));
  fs::remove_all(temp_dir("noise-loud"));
}

}  // namespace
}  // namespace gpucost::sim::testing
