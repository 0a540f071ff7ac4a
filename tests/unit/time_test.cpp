#include "gpucost/time.hpp"

#include <gtest/gtest.h>

namespace gpucost {
namespace {

TEST(Time, DaysFromCivilRoundTrips) {
  EXPECT_EQ(days_from_civil(1970, 1, 1), 0);
  EXPECT_EQ(days_from_civil(2000, 3, 1), 11017);
  for (std::int64_t d = -800000; d < 800000; d += 997) {
    std::int64_t y;
    unsigned m, dd;
    civil_from_days(d, y, m, dd);
    EXPECT_EQ(days_from_civil(y, m, dd), d);
  }
}

TEST(Time, FormatsRfc3339) {
  // 2026-11-29T19:50:45.123456Z
  const TimeNs t = civil_to_ns(CivilTime{2026, 11, 29, 19, 50, 45, 123456789});
  EXPECT_EQ(format_rfc3339(t), "2026-11-29T19:50:45.123456Z");
  EXPECT_EQ(format_rfc3339(t, 0), "2026-11-29T19:50:45Z");
  EXPECT_EQ(format_rfc3339(t, 9), "2026-11-29T19:50:45.123456789Z");
  EXPECT_EQ(format_rfc3339(-1, 3), "1969-12-31T23:59:59.999Z");
}

TEST(Time, CivilRoundTrip) {
  const CivilTime c{2024, 2, 29, 23, 59, 60, 5};
  const CivilTime back = ns_to_civil(civil_to_ns(c));
  EXPECT_EQ(back.year, 2024);
  EXPECT_EQ(back.month, 3u);  // second 60 rolls into the next minute
  EXPECT_EQ(back.day, 1u);
  EXPECT_EQ(back.nanos, 5);
}

TEST(Time, ValidDate) {
  EXPECT_TRUE(valid_date(2024, 2, 29));
  EXPECT_FALSE(valid_date(2023, 2, 29));
  EXPECT_FALSE(valid_date(1900, 2, 29));
  EXPECT_TRUE(valid_date(2000, 2, 29));
  EXPECT_FALSE(valid_date(2026, 13, 1));
  EXPECT_FALSE(valid_date(2026, 4, 31));
}

TEST(Time, MonthNamesInSeveralLocales) {
  EXPECT_EQ(parse_month_name("Jan"), 1);
  EXPECT_EQ(parse_month_name("jan."), 1);  // Dutch/Norwegian journal output
  EXPECT_EQ(parse_month_name("Sep"), 9);
  EXPECT_EQ(parse_month_name("фев"), 2);
  EXPECT_EQ(parse_month_name("Фев"), 2);
  EXPECT_EQ(parse_month_name("4月"), 4);
  EXPECT_EQ(parse_month_name("12月"), 12);
  EXPECT_EQ(parse_month_name("Mär"), 3);
  EXPECT_EQ(parse_month_name("févr."), 2);
  EXPECT_EQ(parse_month_name("Okt"), 10);
  EXPECT_EQ(parse_month_name("kernel"), 0);
  EXPECT_EQ(parse_month_name("13月"), 0);
  EXPECT_EQ(parse_month_name(""), 0);
}

TEST(Time, UtcOffsets) {
  TimeNs off = 0;
  ASSERT_TRUE(parse_utc_offset("+08:00", off));
  EXPECT_EQ(off, 8 * kNsPerHour);
  ASSERT_TRUE(parse_utc_offset("-0530", off));
  EXPECT_EQ(off, -(5 * kNsPerHour + 30 * kNsPerMin));
  ASSERT_TRUE(parse_utc_offset("Z", off));
  EXPECT_EQ(off, 0);
  ASSERT_TRUE(parse_utc_offset("+01", off));
  EXPECT_EQ(off, kNsPerHour);
  EXPECT_FALSE(parse_utc_offset("08:00", off));
  EXPECT_FALSE(parse_utc_offset("+25:00", off));
  EXPECT_FALSE(parse_utc_offset("+08:0", off));
}

}  // namespace
}  // namespace gpucost
