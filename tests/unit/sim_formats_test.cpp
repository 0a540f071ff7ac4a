// Every generated file is in the real format of its tool (layouts from the real samples in
// tests/data/real and the captures cited in docs/simulate.md).
#include <gtest/gtest.h>

#include <regex>

#include "unit/sim_test_util.hpp"

namespace gpucost::sim::testing {
namespace {

std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> f;
  std::istringstream in(line);
  std::string t;
  while (in >> t) f.push_back(t);
  return f;
}

TEST(SimFormats, DmonHasBothHeaderRowsRepeatedAndRowsOfTheRealLayout) {
  const auto lines = read_lines(laptop() / "dmon.log");
  ASSERT_GT(lines.size(), 100u);
  // The exact header nvidia-smi dmon --select=pucvmet --options=DT prints (driver 535+).
  EXPECT_EQ(lines[0],
            "#Date        Time         gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk"
            "  pviol  tviol     fb   bar1   ccpm  sbecc  dbecc    pci  rxpci  txpci ");
  EXPECT_EQ(lines[1],
            "#YYYYMMDD    HH:MM:SS     Idx      W      C      C      %      %      %      %      %      %    MHz    MHz"
            "      %   bool     MB     MB     MB   errs   errs   errs   MB/s   MB/s ");
  const std::regex row(R"( (\d{8})    (\d\d):(\d\d):(\d\d) +0( +(-|\d+)){21} )");
  std::size_t headers = 0, rows = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i][0] == '#') {
      ++headers;
      continue;
    }
    ASSERT_TRUE(std::regex_match(lines[i], row)) << "line " << i + 1 << ": " << lines[i];
    const auto f = fields(lines[i]);
    EXPECT_EQ(f[5], "-") << "mtemp is not supported on GeForce";
    EXPECT_EQ(f[19], "-") << "no ECC on GeForce (sbecc)";
    EXPECT_EQ(f[20], "-") << "no ECC on GeForce (dbecc)";
    ++rows;
  }
  EXPECT_EQ(headers % 2, 0u);
  EXPECT_GT(headers, 10u) << "headers repeat every screenful";
  EXPECT_EQ(lines[0].size(), lines[2].size()) << "columns line up with the header";
  EXPECT_GT(rows, 3000u);
}

TEST(SimFormats, DmesgLinesCarryMonotonicStampsInOrder) {
  const auto lines = read_lines(laptop() / "dmesg.txt");
  ASSERT_GT(lines.size(), 50u);
  EXPECT_EQ(lines[0].rfind("[    0.000000] Linux version ", 0), 0u);
  TimeNs prev = -1;
  for (const auto& l : lines) {
    std::size_t end = 0;
    const TimeNs mono = parse_mono_stamp(l, end);
    ASSERT_GE(mono, 0) << l;
    ASSERT_EQ(l[end], ' ') << l;
    EXPECT_GE(mono, prev) << l;
    prev = mono;
  }
}

void expect_kern_log(const fs::path& p, const std::string& host) {
  const auto lines = read_lines(p);
  ASSERT_GT(lines.size(), 20u) << p;
  for (const auto& l : lines) {
    int month, day, sec;
    ASSERT_TRUE(parse_syslog_stamp(l, month, day, sec)) << p << ": " << l;
    const std::string rest = l.substr(16);
    const std::string prefix = host + " kernel: ";
    ASSERT_EQ(rest.rfind(prefix, 0), 0u) << l;
    std::size_t end = 0;
    ASSERT_GE(parse_mono_stamp(rest.substr(prefix.size()), end), 0) << l;
  }
}

TEST(SimFormats, KernLogAndItsRotationsAreClassicRsyslog) {
  expect_kern_log(laptop() / "kern.log", "ml-laptop");
  expect_kern_log(laptop() / "kern.log.1", "ml-laptop");
  expect_kern_log(laptop() / "kern.log.2.gz", "ml-laptop");
  // The oldest file is from November 6th: the day is padded with a space.
  EXPECT_EQ(read_lines(laptop() / "kern.log.2.gz").front().rfind("Nov  6 ", 0), 0u);
}

TEST(SimFormats, SyslogLinesHaveIdentAndPid) {
  const std::regex tail(R"(ml-laptop [A-Za-z_.\-]+\[\d+\]: .*)");
  const auto lines = read_lines(laptop() / "syslog");
  ASSERT_GT(lines.size(), 100u);
  std::size_t cron = 0;
  for (const auto& l : lines) {
    int month, day, sec;
    ASSERT_TRUE(parse_syslog_stamp(l, month, day, sec)) << l;
    ASSERT_TRUE(std::regex_match(l.substr(16), tail)) << l;
    EXPECT_EQ(l.find(" kernel: "), std::string::npos) << "kernel lines go to kern.log";
    if (l.find(" CRON[") != std::string::npos) ++cron;
  }
  EXPECT_GE(cron, 110u) << "cron runs every minute the laptop is awake (2.5 h less a ~30 min suspend)";
}

TEST(SimFormats, JournalJsonEntriesHaveTheJournalFields) {
  TruthDoc truth(laptop());
  const std::string boot_id = str(truth.root["boot"]["boot_id"]);
  simdjson::dom::parser p;
  std::size_t kernel = 0, n = 0;
  for (const auto& line : read_lines(laptop() / "journal.json")) {
    ++n;
    simdjson::dom::object o;
    ASSERT_EQ(p.parse(simdjson::padded_string(line)).get(o), simdjson::SUCCESS) << line;
    for (auto key : {"__CURSOR", "__REALTIME_TIMESTAMP", "__MONOTONIC_TIMESTAMP", "_BOOT_ID", "_TRANSPORT", "PRIORITY",
                     "MESSAGE", "SYSLOG_IDENTIFIER"}) {
      std::string_view v;
      ASSERT_EQ(o[key].get(v), simdjson::SUCCESS) << key << " in " << line;
    }
    for (auto [k, v] : o) ASSERT_TRUE(v.is_string()) << "journald exports every value as a string: " << k;
    EXPECT_EQ(std::string_view(o["_BOOT_ID"]), boot_id);
    const std::string_view cursor = o["__CURSOR"];
    EXPECT_NE(cursor.find(";b=" + boot_id + ";"), std::string_view::npos);
    if (std::string_view(o["_TRANSPORT"]) == "kernel") {
      ++kernel;
      std::string_view src;
      ASSERT_EQ(o["_SOURCE_MONOTONIC_TIMESTAMP"].get(src), simdjson::SUCCESS) << line;
      EXPECT_EQ(std::string_view(o["SYSLOG_IDENTIFIER"]), "kernel");
      // Read by journald after it was printed.
      EXPECT_LE(std::stoll(std::string(src)), std::stoll(str(o["__MONOTONIC_TIMESTAMP"])));
    } else {
      std::string_view pid;
      ASSERT_EQ(o["_PID"].get(pid), simdjson::SUCCESS) << line;
    }
  }
  EXPECT_GT(kernel, 50u);
  EXPECT_GT(n, kernel + 100);
}

TEST(SimFormats, PsSnapshotsFollowTheirMarkerEverySixtySecondsAwake) {
  const auto lines = read_lines(laptop() / "ps.txt");
  const std::regex marker(R"(### gpucost-ps (\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)\+08:00)");
  std::vector<TimeNs> times;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::smatch m;
    if (lines[i].rfind("###", 0) != 0) continue;
    ASSERT_TRUE(std::regex_match(lines[i], m, marker)) << lines[i];
    ASSERT_LT(i + 1, lines.size());
    EXPECT_EQ(lines[i + 1], "USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND");
    times.push_back(civil_to_ns(CivilTime{std::stoi(m[1]), static_cast<unsigned>(std::stoi(m[2])),
                                          static_cast<unsigned>(std::stoi(m[3])), static_cast<unsigned>(std::stoi(m[4])),
                                          static_cast<unsigned>(std::stoi(m[5])), static_cast<unsigned>(std::stoi(m[6])), 0}));
  }
  ASSERT_GT(times.size(), 100u);
  int long_gaps = 0;
  for (std::size_t i = 1; i < times.size(); ++i) {
    const TimeNs gap = times[i] - times[i - 1];
    if (gap > 61 * kNsPerSec) ++long_gaps;  // the suspend
    else EXPECT_GE(gap, 59 * kNsPerSec);
  }
  EXPECT_EQ(long_gaps, 1);
  // The competing processes the seed article names.
  const std::string all = read_file(laptop() / "ps.txt");
  for (auto what : {"/opt/google/chrome/chrome", "/usr/share/code/code", "/usr/lib/xorg/Xorg", "ipykernel_launcher",
                    "python train.py", "nvidia-smi dmon -s pucvmet -o DT"})
    EXPECT_NE(all.find(what), std::string::npos) << what;
}

TEST(SimFormats, NvidiaSmiQNamesTheGpuLinkAndPowerLimit) {
  const std::string q = read_file(laptop() / "nvidia-smi-q.txt");
  auto has = [&](const std::string& key, const std::string& value) {
    const std::regex re("\\n *" + key + " *: " + value + "\\n");
    return std::regex_search(q, re);
  };
  EXPECT_TRUE(has("Product Name", "NVIDIA GeForce RTX 4060 Laptop GPU"));
  EXPECT_TRUE(has("Driver Version", "550\\.120"));
  EXPECT_TRUE(has("Max", "8x"));
  EXPECT_TRUE(has("Current", "8x"));
  EXPECT_TRUE(has("Current Power Limit", "115\\.00 W"));
  EXPECT_TRUE(has("Bus Id", "00000000:01:00\\.0"));
  EXPECT_NE(q.find("        GPU Link Info\n            PCIe Generation\n                Max"), std::string::npos);
}

}  // namespace
}  // namespace gpucost::sim::testing
