// The year of `Mmm dd hh:mm:ss` stamps: --year, the dated sources of the directory, the mtime;
// and the Dec -> Jan rollover the parser encoded as provisional year 2001.
#include <gtest/gtest.h>

#include "align_fixtures.hpp"

namespace gpucost {
namespace {

using namespace test;

// A kern.log in UTC with lines without a year (no kernel stamps: placed by wall time).
std::uint32_t kern_log(Input& b, TimeNs mtime, std::vector<TimeNs> raws) {
  const auto k = b.file("kern.log", FormatId::syslog, mtime);
  std::uint64_t line = 1;
  for (TimeNs r : raws)
    b.event({.file = k, .line = line++, .kind = EventKind::pcie_aer, .wall_kind = WallKind::kLocalNoYear, .wall = r,
             .text = kAer + std::to_string(line)});
  return k;
}

AlignOptions utc() {
  AlignOptions o;
  o.tz = "UTC";
  return o;
}

TEST(AlignYear, FromDatedSourcesOfTheDirectory) {
  Input b;
  // The file was copied in 2027 (mtime misleading); the journal beside it is dated 2025.
  kern_log(b, at(2027, 3, 1), {no_year(11, 29, 19, 50, 45), no_year(12, 1, 8, 0, 0)});
  const auto j = b.file("journal.json", FormatId::journal_json, at(2027, 3, 1));
  b.event({.file = j, .line = 1, .kind = EventKind::ac_online, .wall_kind = WallKind::kUtc,
           .wall = at(2025, 11, 28, 0, 0, 0), .text = kAcOnline});
  b.event({.file = j, .line = 2, .kind = EventKind::ac_online, .wall_kind = WallKind::kUtc,
           .wall = at(2025, 12, 2, 0, 0, 0), .text = kAcOnline});
  Diagnostics diag;
  const Timeline t = align(b.in, utc(), &diag);
  const auto aer = rows_of(t, EventKind::pcie_aer);
  ASSERT_EQ(aer.size(), 2u);
  EXPECT_EQ(ts_of(t.events, aer[0]), at(2025, 11, 29, 19, 50, 45));
  EXPECT_EQ(ts_of(t.events, aer[1]), at(2025, 12, 1, 8, 0, 0));
  EXPECT_NE(t.year_reason.find("kern.log: 2025"), std::string::npos);
  bool noted = false;
  for (const auto& n : diag.files.at(0).notes) noted = noted || n.find("year 2025") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(AlignYear, DatedSourcesPickTheClosestYearNotTheLatest) {
  Input b;
  // Lines in late December; the dated sources are early January of 2026: the closest span is
  // December 2025 (a few days before), not December 2026.
  kern_log(b, kNoTime, {no_year(12, 30, 10, 0, 0), no_year(12, 31, 10, 0, 0)});
  const auto j = b.file("journal.json", FormatId::journal_json);
  b.event({.file = j, .line = 1, .kind = EventKind::ac_online, .wall_kind = WallKind::kUtc,
           .wall = at(2026, 1, 2, 0, 0, 0), .text = kAcOnline});
  const Timeline t = align(b.in, utc());
  const auto aer = rows_of(t, EventKind::pcie_aer);
  ASSERT_EQ(aer.size(), 2u);
  EXPECT_EQ(ts_of(t.events, aer[0]), at(2025, 12, 30, 10, 0, 0));
}

TEST(AlignYear, FromModificationTime) {
  Input b;
  kern_log(b, at(2026, 12, 2, 3, 0, 0), {no_year(11, 29, 19, 50, 45), no_year(12, 2, 2, 59, 0)});
  const Timeline t = align(b.in, utc());
  ASSERT_EQ(t.events.rows(), 2u);
  EXPECT_EQ(ts_of(t.events, 0), at(2026, 11, 29, 19, 50, 45));
  EXPECT_EQ(ts_of(t.events, 1), at(2026, 12, 2, 2, 59, 0));
  EXPECT_NE(t.year_reason.find("modification time"), std::string::npos);
}

TEST(AlignYear, ModificationTimeJustAfterNewYear) {
  Input b;
  // Last line Dec 31 23:00; the file was last written 30 minutes into 2027: the lines are 2026.
  kern_log(b, at(2027, 1, 1, 0, 30, 0), {no_year(12, 31, 22, 0, 0), no_year(12, 31, 23, 0, 0)});
  const Timeline t = align(b.in, utc());
  EXPECT_EQ(ts_of(t.events, 1), at(2026, 12, 31, 23, 0, 0));
}

TEST(AlignYear, DecemberToJanuaryRolloverInsideTheFile) {
  Input b;
  // `Dec 31 23:59:58` then `Jan  1 00:00:03`: the parser counted one rollover (2001).
  kern_log(b, at(2027, 1, 1, 0, 10, 0), {no_year(12, 31, 23, 59, 58), no_year(1, 1, 0, 0, 3, 1)});
  Diagnostics diag;
  const Timeline t = align(b.in, utc(), &diag);
  ASSERT_EQ(t.events.rows(), 2u);
  EXPECT_EQ(ts_of(t.events, 0), at(2026, 12, 31, 23, 59, 58));
  EXPECT_EQ(ts_of(t.events, 1), at(2027, 1, 1, 0, 0, 3));
  bool noted = false;
  for (const auto& n : diag.files.at(0).notes) noted = noted || n.find("2026..2027") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(AlignYear, YearOptionIsTheFirstLinesYear) {
  Input b;
  kern_log(b, at(2030, 1, 1), {no_year(12, 31, 23, 59, 58), no_year(1, 1, 0, 0, 3, 1)});
  AlignOptions o = utc();
  o.year = 2024;
  const Timeline t = align(b.in, o);
  EXPECT_EQ(ts_of(t.events, 0), at(2024, 12, 31, 23, 59, 58));
  EXPECT_EQ(ts_of(t.events, 1), at(2025, 1, 1, 0, 0, 3));
}

TEST(AlignYear, LeapDayFindsALeapYear) {
  Input b;
  // `Feb 29 12:00:00` near a 2028 mtime: 2028 is the leap year.
  kern_log(b, at(2028, 3, 1), {no_year(2, 29, 12, 0, 0)});
  const Timeline t = align(b.in, utc());
  EXPECT_EQ(ts_of(t.events, 0), at(2028, 2, 29, 12, 0, 0));
}

}  // namespace
}  // namespace gpucost
