#include "gpucost/align/zone.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

#include "align_fixtures.hpp"

namespace gpucost {
namespace {

using test::at;

TEST(Zone, ParsesOffsetsAndNames) {
  Zone z;
  std::string err;
  ASSERT_TRUE(Zone::parse("+08:00", z, err));
  EXPECT_TRUE(z.is_fixed());
  EXPECT_EQ(z.name(), "+08:00");
  EXPECT_EQ(z.to_utc(at(2026, 11, 29, 19, 50, 45)), at(2026, 11, 29, 11, 50, 45));
  ASSERT_TRUE(Zone::parse("-0530", z, err));
  EXPECT_EQ(z.name(), "-05:30");
  EXPECT_EQ(z.to_utc(at(2026, 1, 1, 0, 0, 0)), at(2026, 1, 1, 5, 30, 0));
  ASSERT_TRUE(Zone::parse("UTC", z, err));
  EXPECT_EQ(z.name(), "UTC");
  ASSERT_TRUE(Zone::parse("Asia/Shanghai", z, err));
  EXPECT_FALSE(z.is_fixed());
  EXPECT_EQ(z.name(), "Asia/Shanghai");
  EXPECT_EQ(z.to_utc(at(2026, 11, 29, 19, 50, 45, 123)), at(2026, 11, 29, 11, 50, 45, 123));
  EXPECT_FALSE(Zone::parse("Mars/Olympus_Mons", z, err));
  EXPECT_NE(err.find("Mars/Olympus_Mons"), std::string::npos);
}

TEST(Zone, DaylightSavingGapAndOverlap) {
  Zone ny;
  std::string err;
  ASSERT_TRUE(Zone::parse("America/New_York", ny, err));
  // 2026-03-08 02:30 does not exist (clocks jump 02:00 EST -> 03:00 EDT): read with EST, it is
  // 07:30Z, which the clock showed as 03:30 EDT: shifted forward by the gap.
  EXPECT_EQ(ny.to_utc(at(2026, 3, 8, 2, 30)), at(2026, 3, 8, 7, 30));
  // 2026-11-01 01:30 happens twice (EDT, then EST): the earlier instant, 05:30Z.
  EXPECT_EQ(ny.to_utc(at(2026, 11, 1, 1, 30)), at(2026, 11, 1, 5, 30));
  EXPECT_EQ(ny.to_utc(at(2026, 7, 1, 12, 0)), at(2026, 7, 1, 16, 0));
  EXPECT_EQ(ny.offset_at(at(2026, 7, 1)), -4 * kNsPerHour);
  EXPECT_EQ(ny.offset_at(at(2026, 1, 1)), -5 * kNsPerHour);
}

// The cached converter must answer exactly as the zone database does, through every kind of
// transition: spring forward, fall back, 30-minute DST (Lord Howe), no DST (Shanghai).
TEST(Zone, CachedConversionMatchesDatabaseAcrossTransitions) {
  for (const char* name : {"America/New_York", "Europe/Berlin", "Australia/Lord_Howe", "Asia/Shanghai"}) {
    Zone z;
    std::string err;
    ASSERT_TRUE(Zone::parse(name, z, err)) << err;
    LocalToUtc conv(z);
    std::size_t checked = 0;
    for (TimeNs t = at(2026, 1, 1); t < at(2027, 1, 1); t += 7 * kNsPerMin + 13 * kNsPerSec + 17) {
      ASSERT_EQ(conv(t), z.to_utc(t)) << name << " at local " << format_rfc3339(t);
      ++checked;
    }
    EXPECT_GT(checked, 70000u);
    // Going backwards in time too (the cache must not assume order).
    for (TimeNs t = at(2026, 11, 3); t > at(2026, 10, 20); t -= 11 * kNsPerMin)
      ASSERT_EQ(conv(t), z.to_utc(t)) << name;
  }
}

TEST(Zone, OffsetsBetween) {
  Zone z;
  std::string err;
  ASSERT_TRUE(Zone::parse("Europe/Berlin", z, err));
  const auto offs = z.offsets_between(at(2026, 1, 1), at(2026, 12, 31));
  ASSERT_EQ(offs.size(), 2u);
  EXPECT_EQ(offs[0], 1 * kNsPerHour);
  EXPECT_EQ(offs[1], 2 * kNsPerHour);
  EXPECT_EQ(z.offsets_between(at(2026, 1, 1), at(2026, 2, 1)).size(), 1u);
  ASSERT_TRUE(Zone::parse("Asia/Shanghai", z, err));
  EXPECT_EQ(z.offsets_between(at(2026, 1, 1), at(2026, 12, 31)), std::vector<TimeNs>{8 * kNsPerHour});
}

TEST(Zone, SystemZoneFollowsTz) {
  const char* old = std::getenv("TZ");
  const std::string saved = old ? old : "";
  ::setenv("TZ", "Asia/Tokyo", 1);
  EXPECT_EQ(Zone::system().name(), "Asia/Tokyo");
  ::setenv("TZ", ":Europe/Paris", 1);
  EXPECT_EQ(Zone::system().name(), "Europe/Paris");
  if (old) ::setenv("TZ", saved.c_str(), 1);
  else ::unsetenv("TZ");
}

TEST(Zone, FormatsOffsets) {
  EXPECT_EQ(format_utc_offset(8 * kNsPerHour), "+08:00");
  EXPECT_EQ(format_utc_offset(-(5 * kNsPerHour + 30 * kNsPerMin)), "-05:30");
  EXPECT_EQ(format_utc_offset(0), "+00:00");
}

}  // namespace
}  // namespace gpucost
