// The host power formats (issue 34): the CPUs' RAPL energy counters as collect-logs.sh writes
// them, differenced into power per domain (a wrap undone, a reset counted), and the BMC's
// `ipmitool dcmi power reading`, one sample per activated reading, stamped by collect-logs.sh's
// marker or else by a dated IPMI timestamp.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "gpucost/ingest/ingest.hpp"

namespace gpucost {
namespace {

std::string read_data(const std::string& rel) {
  std::ifstream in(std::string(GPUCOST_TEST_DATA) + "/" + rel, std::ios::binary);
  EXPECT_TRUE(in.good()) << rel;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Parsed {
  IngestResult out;
  Diagnostics diag;
  const FileDiagnostics& file() const { return diag.files.at(0); }
  std::uint64_t nonblank() const { return file().lines - file().blank; }
  std::uint64_t problems(Problem p) const { return file().problems[static_cast<std::size_t>(p)]; }
};

Parsed parse_text(const std::string& text, const std::string& name) {
  Parsed p;
  IngestStage(IngestOptions{}).run_buffer(text, name, FormatId::unknown, p.out, p.diag);
  return p;
}

TimeNs utc(int y, unsigned mo, unsigned d, unsigned h, unsigned mi, unsigned s, std::int64_t nanos = 0) {
  return civil_to_ns(CivilTime{y, mo, d, h, mi, s, nanos});
}

constexpr std::string_view kRaplHeader =
    "# gpucost-rapl-energy 1: <stamp> <zone> <name> <energy_uj> <max_energy_range_uj>\n";

TEST(RaplEnergyFormat, TwoReadingsOfEachDomainAreOnePowerSampleEach) {
  const Parsed p = parse_text(read_data("host_power/rapl-energy-2-packages.txt"), "rapl-energy.txt");
  EXPECT_EQ(format_name(p.file().format), "rapl_energy");
  EXPECT_EQ(p.file().rejected(), 0u);
  EXPECT_EQ(p.file().accepted, p.nonblank());
  ASSERT_EQ(p.out.host_power.size(), 4u);
  // Rows 6-9 close the intervals that rows 2-5 opened: 1.005721 s.
  const double dt = 1.005721;
  const HostPowerSample& pkg0 = p.out.host_power[0];
  EXPECT_EQ(pkg0.domain, "intel-rapl:0");
  EXPECT_EQ(pkg0.source, HostPowerSource::kCpuPackage);
  EXPECT_EQ(pkg0.line, 6u);
  EXPECT_EQ(pkg0.wall_kind, WallKind::kUtc);
  EXPECT_EQ(pkg0.wall_raw_ns, utc(2026, 12, 7, 16, 20, 2, 9'938'000));
  EXPECT_EQ(pkg0.interval_ns, 1'005'721'000);
  EXPECT_NEAR(pkg0.watts, (220089401175.0 - 219903124418.0) / 1e6 / dt, 1e-9);
  const HostPowerSample& dram1 = p.out.host_power[3];
  EXPECT_EQ(dram1.domain, "intel-rapl:1:0");
  EXPECT_EQ(dram1.source, HostPowerSource::kCpuDram);
  EXPECT_NEAR(dram1.watts, (40944862415.0 - 40923313377.0) / 1e6 / dt, 1e-9);
}

TEST(RaplEnergyFormat, ACounterThatWrapsAtItsRangeKeepsCounting) {
  // 262143328850 uJ is the range: 262143328850 - 262000000000 + 56671150 uJ = 200 J in 2 s.
  const std::string text = std::string(kRaplHeader) +
                           "2026-12-07T16:20:00Z intel-rapl:0 package-0 262000000000 262143328850\n"
                           "2026-12-07T16:20:02Z intel-rapl:0 package-0 56671150 262143328850\n";
  const Parsed p = parse_text(text, "rapl-energy.txt");
  EXPECT_EQ(p.file().rejected(), 0u);
  EXPECT_EQ(p.problems(Problem::counter_reset), 0u);
  ASSERT_EQ(p.out.host_power.size(), 1u);
  EXPECT_NEAR(p.out.host_power[0].watts, 100.0, 1e-9);
}

TEST(RaplEnergyFormat, AResetIsAProblemCountedNotASample) {
  // Back from 200 GJ-ish to 1 J: a wrap would mean 31 kW for 2 s. The step after the reset counts.
  const std::string text = std::string(kRaplHeader) +
                           "2026-12-07T16:20:00Z intel-rapl:0 package-0 200000000000 262143328850\n"
                           "2026-12-07T16:20:02Z intel-rapl:0 package-0 1000000 262143328850\n"
                           "2026-12-07T16:20:04Z intel-rapl:0 package-0 201000000 262143328850\n"
                           "2026-12-07T16:20:04Z intel-rapl:0 package-0 202000000 262143328850\n";
  const Parsed p = parse_text(text, "rapl-energy.txt");
  EXPECT_EQ(p.problems(Problem::counter_reset), 2u) << "the reset, and a reading not later than the one before";
  EXPECT_FALSE(problem_is_error(Problem::counter_reset));
  ASSERT_EQ(p.out.host_power.size(), 1u);
  EXPECT_NEAR(p.out.host_power[0].watts, 100.0, 1e-9);
  EXPECT_EQ(p.out.host_power[0].line, 4u);
}

TEST(RaplEnergyFormat, CoreUncoreAndPsysAreReadButGiveNoSample) {
  // core and uncore are parts of package-0, psys (the platform) includes it: counting them too
  // would count the package twice.
  const std::string text = std::string(kRaplHeader) +
                           "2026-12-07T16:20:00Z intel-rapl:0:1 core 1000000 262143328850\n"
                           "2026-12-07T16:20:00Z intel-rapl:1 psys 1000000 262143328850\n"
                           "2026-12-07T16:20:01Z intel-rapl:0:1 core 9000000 262143328850\n"
                           "2026-12-07T16:20:01Z intel-rapl:1 psys 9000000 262143328850\n";
  const Parsed p = parse_text(text, "rapl-energy.txt");
  EXPECT_EQ(format_name(p.file().format), "rapl_energy");
  EXPECT_EQ(p.file().accepted, p.nonblank());
  EXPECT_TRUE(p.out.host_power.empty());
}

TEST(RaplEnergyFormat, ABrokenRowIsRejected) {
  const std::string text = std::string(kRaplHeader) +
                           "2026-12-07T16:20:00Z intel-rapl:0 package-0 12x4 262143328850\n" +
                           "2026-12-07T16:20:00Z intel-rapl:0 package-0 1000000\n";
  const Parsed p = parse_text(text, "rapl-energy.txt");
  EXPECT_EQ(p.problems(Problem::bad_number), 1u);
  EXPECT_EQ(p.problems(Problem::unparsable_line), 1u);
  EXPECT_TRUE(p.out.host_power.empty());
}

TEST(IpmiDcmiPowerFormat, OneActivatedReadingIsOneSampleAtItsIpmiTimestamp) {
  const Parsed p = parse_text(read_data("host_power/ipmitool-dcmi-power-reading-ceems.txt"), "power.txt");
  EXPECT_EQ(format_name(p.file().format), "ipmi_dcmi_power");
  EXPECT_EQ(p.file().rejected(), 0u);
  EXPECT_EQ(p.file().accepted, p.nonblank());
  ASSERT_EQ(p.out.host_power.size(), 1u);
  const HostPowerSample& s = p.out.host_power[0];
  EXPECT_EQ(s.source, HostPowerSource::kSystemWall);
  EXPECT_EQ(s.watts, 50.0) << "the instantaneous reading, not the average over the BMC's period";
  EXPECT_EQ(s.wall_kind, WallKind::kLocal) << "ipmitool prints the BMC's seconds in the host's zone";
  EXPECT_EQ(s.wall_raw_ns, utc(2024, 2, 15, 8, 36, 1));
  EXPECT_EQ(s.line, 2u);
}

TEST(IpmiDcmiPowerFormat, ADeactivatedReadingMeasuredNothing) {
  const Parsed p = parse_text(read_data("host_power/ipmitool-dcmi-power-reading-openbmc-deactivated.txt"), "power.txt");
  EXPECT_EQ(format_name(p.file().format), "ipmi_dcmi_power");
  EXPECT_EQ(p.file().rejected(), 0u);
  EXPECT_TRUE(p.out.host_power.empty());
  bool noted = false;
  for (const auto& n : p.file().notes) noted = noted || n.find("deactivated") != std::string::npos;
  EXPECT_TRUE(noted);
}

// What collect-logs.sh writes: a marker with the host's UTC time before each reading, the IPMI
// timestamp in newer ipmitool's `%x %X %Z` (which the marker makes unnecessary).
constexpr std::string_view kCollected = R"(### gpucost-ipmi 2026-12-07T16:20:00.120000Z

    Instantaneous power reading:                  1180 Watts
    Minimum during sampling period:                590 Watts
    Maximum during sampling period:               1480 Watts
    Average power reading over sample period:     1180 Watts
    IPMI timestamp:                           12/07/26 16:20:00 UTC
    Sampling period:                          00000001 Seconds.
    Power reading state is:                   activated

### gpucost-ipmi 2026-12-07T16:20:10.118000Z

    Instantaneous power reading:                  1220 Watts
    Minimum during sampling period:                610 Watts
    Maximum during sampling period:               1520 Watts
    Average power reading over sample period:     1220 Watts
    IPMI timestamp:                           12/07/26 16:20:10 UTC
    Sampling period:                          00000001 Seconds.
    Power reading state is:                   activated

)";

TEST(IpmiDcmiPowerFormat, CollectedReadingsAreStampedByTheirMarkers) {
  const Parsed p = parse_text(std::string(kCollected), "ipmi-dcmi-power.txt");
  EXPECT_EQ(format_name(p.file().format), "ipmi_dcmi_power");
  EXPECT_EQ(p.file().rejected(), 0u);
  EXPECT_EQ(p.file().accepted, p.nonblank());
  ASSERT_EQ(p.out.host_power.size(), 2u);
  EXPECT_EQ(p.out.host_power[0].watts, 1180.0);
  EXPECT_EQ(p.out.host_power[0].wall_kind, WallKind::kUtc);
  EXPECT_EQ(p.out.host_power[0].wall_raw_ns, utc(2026, 12, 7, 16, 20, 0, 120'000'000));
  EXPECT_EQ(p.out.host_power[1].watts, 1220.0);
  EXPECT_EQ(p.out.host_power[1].wall_raw_ns, utc(2026, 12, 7, 16, 20, 10, 118'000'000));
}

TEST(IpmiDcmiPowerFormat, AReadingWithNoTimeIsLeftOutAndSaysSo) {
  // No marker, and the BMC keeps no time (1970): the reading cannot be placed.
  const std::string text = R"(    Instantaneous power reading:                   235 Watts
    Minimum during sampling period:                235 Watts
    Maximum during sampling period:                235 Watts
    Average power reading over sample period:      235 Watts
    IPMI timestamp:                                Thu Jan  1 00:00:00 1970
    Sampling period:                               00000000 Seconds.
    Power reading state is:                        activated
)";
  const Parsed p = parse_text(text, "power.txt");
  EXPECT_TRUE(p.out.host_power.empty());
  EXPECT_EQ(p.problems(Problem::untimed_line), 1u);
}

TEST(IpmiDcmiPowerFormat, IpmiutilsOtherLayoutIsNotTakenForIt) {
  // ipmiutil's `dcmi power` says `Current Power:` (another tool, another layout): not this format.
  const std::string text = R"(ipmiutil dcmi ver 3.17
-- BMC version 6.10, IPMI version 2.0
DCMI Version:                   1.5
  Current Power:                   49 Watts
  Min Power over sample duration:  6 Watts
  Max Power over sample duration:  304 Watts
  Avg Power over sample duration:  49 Watts
)";
  const Parsed p = parse_text(text, "power.txt");
  EXPECT_NE(format_name(p.file().format), "ipmi_dcmi_power");
  EXPECT_TRUE(p.out.host_power.empty());
}

}  // namespace
}  // namespace gpucost
