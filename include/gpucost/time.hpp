#pragma once
/// \file time.hpp
/// Instants as int64 nanoseconds since the Unix epoch (UTC), civil-date arithmetic done by hand
/// (Howard Hinnant's days-from-civil), so that the parsers' hot loops never call mktime or strptime.

#ifndef GPUCOST_LAYER_BASE
#error "gpucost_base header: include it only in gpucost_base or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace gpucost {

/// Nanoseconds since 1970-01-01T00:00:00Z (or, for monotonic stamps, since boot).
using TimeNs = std::int64_t;

/// "No time": the null value of every timestamp column.
inline constexpr TimeNs kNoTime = std::numeric_limits<TimeNs>::min();
inline constexpr TimeNs kNsPerUs = 1'000;
inline constexpr TimeNs kNsPerMs = 1'000'000;
inline constexpr TimeNs kNsPerSec = 1'000'000'000;
inline constexpr TimeNs kNsPerMin = 60 * kNsPerSec;
inline constexpr TimeNs kNsPerHour = 3600 * kNsPerSec;
inline constexpr TimeNs kNsPerDay = 86400 * kNsPerSec;

/// a / b rounded toward negative infinity (b != 0): the day, minute ... that holds a negative
/// instant, where `/` would round toward zero.
constexpr std::int64_t floor_div(std::int64_t a, std::int64_t b) noexcept {
  const std::int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/// Days since 1970-01-01 of the proleptic Gregorian date y-m-d (m 1..12, d 1..31).
constexpr std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) noexcept {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

/// A broken-down civil time (no zone attached).
struct CivilTime {
  std::int64_t year = 1970;
  unsigned month = 1;   ///< 1..12
  unsigned day = 1;     ///< 1..31
  unsigned hour = 0;    ///< 0..23
  unsigned minute = 0;  ///< 0..59
  unsigned second = 0;  ///< 0..60
  std::int64_t nanos = 0;
};

/// The civil date of a day count since 1970-01-01.
constexpr void civil_from_days(std::int64_t z, std::int64_t& y, unsigned& m, unsigned& d) noexcept {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y = static_cast<std::int64_t>(yoe) + era * 400 + (m <= 2);
}

/// Nanoseconds since the epoch of a civil time read as UTC (or as "local" before a zone is applied).
constexpr TimeNs civil_to_ns(const CivilTime& c) noexcept {
  return (days_from_civil(c.year, c.month, c.day) * 86400 + c.hour * 3600 + c.minute * 60 + c.second) *
             kNsPerSec + c.nanos;
}

/// Inverse of civil_to_ns.
CivilTime ns_to_civil(TimeNs t) noexcept;

/// True when y-m-d is a real date.
bool valid_date(std::int64_t y, unsigned m, unsigned d) noexcept;

/// Years a log stamp may carry; a stamp outside 1970..2200 is damage, not a date, and parsers
/// reject it (bad_timestamp). int64 nanoseconds since 1970 reach from 1677 to 2262, and any two
/// instants must differ by less than they can hold (292 years): with at most 20 years added to
/// the last stamp year (year rollovers, midnights of time-only rows) and 31 years of monotonic
/// time to a boot, every instant, sum and difference of instants the stages form stays inside.
inline constexpr std::int64_t kMinStampYear = 1970;
inline constexpr std::int64_t kMaxStampYear = 2200;
/// Longest uptime a monotonic stamp may say (about 31 years): more is damage, and boot time plus
/// monotonic time must stay inside int64 nanoseconds.
inline constexpr TimeNs kMaxMonotonicNs = 1'000'000'000 * kNsPerSec;
/// The first instant after the last day of kMaxStampYear, in ns since the epoch.
inline constexpr TimeNs kEndOfStampYearsNs = days_from_civil(kMaxStampYear + 1, 1, 1) * kNsPerDay;
/// valid_date() and kMinStampYear <= y <= kMaxStampYear.
constexpr bool valid_stamp_year(std::int64_t y) noexcept { return y >= kMinStampYear && y <= kMaxStampYear; }
inline bool valid_stamp_date(std::int64_t y, unsigned m, unsigned d) noexcept {
  return valid_stamp_year(y) && valid_date(y, m, d);
}

/// A stamp without a year (BSD syslog `Nov 29 19:50:45`), as raw nanoseconds (WallKind::
/// kLocalNoYear): provisional year `k` (the year rollovers seen in the file before it) in a
/// calendar whose every year has 366 days, counted from 2000-01-01. Feb 29 exists in every
/// provisional year, so it survives until the real year is known (a leap year keeps it; in
/// another it is Mar 1), and Dec 31 is still one day before Jan 1 of the next provisional year.
/// For k = 0 the raw value is civil_to_ns() of the same stamp in 2000.
struct NoYearStamp {
  std::int64_t rollovers = 0;  ///< k
  unsigned month = 1, day = 1;
  TimeNs time_of_day = 0;
};
/// The raw value of a stamp without a year.
TimeNs no_year_raw(const NoYearStamp& s) noexcept;
/// Inverse of no_year_raw.
NoYearStamp no_year_stamp(TimeNs raw) noexcept;

/// RFC 3339 in UTC with `digits` fractional digits (0, 3, 6 or 9) and a `Z`:
/// `2026-11-29T19:50:45.123456Z`.
std::string format_rfc3339(TimeNs t, int digits = 6);

/// Appends format_rfc3339 to out without allocating when out has capacity.
void append_rfc3339(std::string& out, TimeNs t, int digits = 6);

/// Month number 1..12 of a month name: English abbreviations and full names, and the names that
/// other locales print (`jan.`, `Mär`, `févr.`, `фев`, `4月` ...); 0 when the word is no month.
int parse_month_name(std::string_view word) noexcept;

/// Parses an offset like `+08:00`, `-0530`, `Z`; returns false when it is none.
bool parse_utc_offset(std::string_view s, TimeNs& offset_ns) noexcept;

}  // namespace gpucost
