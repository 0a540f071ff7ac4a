// The definitions the truth uses (DEFINITIONS.md), on hand-built event sequences.
#include <gtest/gtest.h>

#include "gpucost/sim/rng.hpp"
#include "gpucost/sim/truth.hpp"

namespace gpucost::sim {
namespace {

constexpr TimeNs kBoot = 1'795'136'400'000'000'000;

TruthEvent ev(EventKind k, double at_s) {
  TruthEvent e;
  e.kind = k;
  e.ts = kBoot + static_cast<TimeNs>(at_s * 1e9);
  e.mono = static_cast<TimeNs>(at_s * 1e9);
  return e;
}

TEST(SimTruthDefinitions, BootTimeAcReportSetsStateWithoutCounting) {
  const std::vector<TruthEvent> e = {ev(EventKind::boot, 0), ev(EventKind::ac_online, 0.8)};
  EXPECT_EQ(count_ac_switches(e), 0);
}

TEST(SimTruthDefinitions, KernelAndAcpidReportsOfOneChangeCountOnce) {
  // Kernel line, then acpid `received` and `completed` a few ms later: one report, one switch.
  const std::vector<TruthEvent> e = {ev(EventKind::boot, 0),          ev(EventKind::ac_online, 0.8),
                                     ev(EventKind::ac_offline, 600),  ev(EventKind::ac_offline, 600.01),
                                     ev(EventKind::ac_offline, 600.011), ev(EventKind::ac_online, 1200),
                                     ev(EventKind::ac_online, 1200.02)};
  EXPECT_EQ(count_ac_switches(e), 2);
}

TEST(SimTruthDefinitions, RepeatedSameStateIsNoSwitch) {
  const std::vector<TruthEvent> e = {ev(EventKind::boot, 0), ev(EventKind::ac_online, 0.8),
                                     ev(EventKind::ac_online, 900), ev(EventKind::ac_offline, 1800)};
  EXPECT_EQ(count_ac_switches(e), 1);
}

TEST(SimTruthDefinitions, FirstReportWithoutKnownStateCounts) {
  // No boot-time report (the log starts later): the first report counts.
  const std::vector<TruthEvent> e = {ev(EventKind::ac_offline, 5000), ev(EventKind::ac_online, 6000)};
  EXPECT_EQ(count_ac_switches(e), 2);
}

TEST(SimTruthDefinitions, LidClosesWithinTenSecondsCountOnce) {
  const std::vector<TruthEvent> e = {ev(EventKind::lid_close, 100), ev(EventKind::lid_close, 100.001),
                                     ev(EventKind::lid_close, 100.004), ev(EventKind::lid_open, 2000),
                                     ev(EventKind::lid_close, 3000)};
  EXPECT_EQ(count_lid_closes(e), 2);
}

TEST(SimTruthDefinitions, SuspendCycleSpansEarliestSuspendToLatestResume) {
  const std::vector<TruthEvent> e = {ev(EventKind::suspend, 100.0), ev(EventKind::suspend, 100.001),
                                     ev(EventKind::resume, 1900.0), ev(EventKind::resume, 1900.04),
                                     ev(EventKind::resume, 2100.0),  // more than 60 s later: not this cycle
                                     ev(EventKind::suspend, 5000.0)};
  const auto c = suspend_cycles(e);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].begin, e[0].ts);
  EXPECT_EQ(c[0].end, e[3].ts);
  EXPECT_EQ(c[1].begin, e[5].ts);
  EXPECT_EQ(c[1].end, kNoTime);
}

TEST(SimTruthDefinitions, ResumeWithoutSuspendIsIgnored) {
  const std::vector<TruthEvent> e = {ev(EventKind::resume, 50), ev(EventKind::suspend, 100), ev(EventKind::resume, 200)};
  const auto c = suspend_cycles(e);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].begin, e[1].ts);
  EXPECT_EQ(c[0].end, e[2].ts);
}

TEST(SimRng, SameSeedSameSequenceOtherStreamOtherSequence) {
  Rng a(42, 1), b(42, 1), c(42, 2);
  bool differs = false;
  for (int i = 0; i < 1000; ++i) {
    const auto x = a.next();
    EXPECT_EQ(x, b.next());
    differs |= x != c.next();
  }
  EXPECT_TRUE(differs);
}

TEST(SimRng, DistributionsStayInRangeAndCentered) {
  Rng r(7);
  double sum = 0, sq = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    const double u = r.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    const auto k = r.range(3, 5);
    ASSERT_GE(k, 3);
    ASSERT_LE(k, 5);
    const double g = r.normal(10, 2);
    sum += g;
    sq += g * g;
  }
  const double mean = sum / n, var = sq / n - mean * mean;
  EXPECT_NEAR(mean, 10.0, 0.05);
  EXPECT_NEAR(var, 4.0, 0.1);
}

}  // namespace
}  // namespace gpucost::sim
