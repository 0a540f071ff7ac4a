#pragma once
// Timestamp layouts shared by the kernel and syslog-style formats, parsed by hand (no strptime):
// RFC 3339 (rsyslog, journalctl short-iso, dmesg --time-format iso), BSD `Mmm dd HH:MM:SS`
// with month names in any locale, dmesg -T ctime, journalctl short-unix and short-full.

#ifndef GPUCOST_LAYER_INGEST
#error "gpucost_ingest header: include it only in gpucost_ingest or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstddef>
#include <string_view>

#include "gpucost/records/stamps.hpp"
#include "gpucost/time.hpp"

namespace gpucost::formats {

/// A stamp read off the front of a text; `length` is the bytes it took.
struct ParsedStamp {
  CivilTime civil;                ///< as printed (local or UTC per the layout)
  TimeNs offset_ns = 0;           ///< printed UTC offset, when has_offset
  bool has_offset = false;
  bool offset_colon = false;      ///< `+01:00` rather than `+0100`
  char fraction_sep = 0;          ///< '.' or ',' when a fraction was printed
  int fraction_digits = 0;
  std::size_t length = 0;
  /// Resolution of the printed stamp (1 s without a fraction, 1 us with six digits).
  TimeNs precision_ns() const noexcept;
};

/// `2026-11-29T19:50:45[.,]123456(Z|+01:00|+0100|+01)`, ending at a blank or the end.
bool parse_rfc3339(std::string_view s, ParsedStamp& out) noexcept;
/// UTC nanoseconds of a stamp that carries an offset (civil - offset).
TimeNs utc_of(const ParsedStamp& p) noexcept;

/// How the day of a BSD stamp was padded: `Sep  9`, `May 02` or two digits.
enum class DayPadding : std::uint8_t { kTwoDigits, kSpace, kZero };

/// `Nov 29 19:50:45` or `Nov 29 19:50:45.123456` (journalctl short-precise); the month in any
/// locale parse_month_name knows (`jan.`, `фев`, `4月`). civil.year is 2000, a leap year that
/// stands in for the unknown one (so that `Feb 29` is a valid civil date): the caller places the
/// stamp in its year (see NoYearClock).
bool parse_bsd_stamp(std::string_view s, ParsedStamp& out, DayPadding& padding) noexcept;

/// The inside of a dmesg -T bracket: `Sun Nov 29 19:50:45 2026` (weekday and month localized,
/// e.g. `三 9月  6 11:00:27 2017`); the weekday may be missing.
bool parse_ctime(std::string_view inside, ParsedStamp& out) noexcept;

/// journalctl short-unix: `1764445845.123456` (seconds since the epoch, UTC) before a blank.
bool parse_unix_stamp(std::string_view s, TimeNs& utc_ns, ParsedStamp& out) noexcept;

/// journalctl short-full: `Sun 2026-11-29 19:50:45 CET` (the zone is an abbreviation or an
/// offset like `+03`); zone receives it.
bool parse_short_full(std::string_view s, ParsedStamp& out, std::string_view& zone) noexcept;

/// Places BSD stamps (no year) in provisional year k, the number of year rollovers seen so far
/// in the file (no_year_raw(): every provisional year has a Feb 29). A rollover is the month going back
/// by more than six months (Dec -> Jan); smaller steps back are out-of-order lines, not a new
/// year. A line that jumps forward by more than six months to within a day of the previous
/// line (`Dec 31 23:59:58` after `Jan  1 00:00:01`) is a straggler of the previous year.
class NoYearClock {
 public:
  /// Raw ns (WallKind::kLocalNoYear) of a stamp whose year is unknown.
  TimeNs place(CivilTime c) noexcept;
  int rollovers() const noexcept { return rollovers_; }
  /// The month of the last stamp placed (0 before the first).
  unsigned prev_month() const noexcept { return prev_month_; }
  /// More year rollovers than this are damage (lines alternating Dec/Jan), not twenty years of
  /// log; the count stops there so that the year, once inferred, stays in range (time.hpp).
  static constexpr int kMaxRollovers = 20;

 private:
  unsigned prev_month_ = 0;
  TimeNs prev_raw_ = 0;
  int rollovers_ = 0;
  // The stamp placed last at prev_raw_: the lines of one second repeat it, and it places the
  // same again without a calendar computation.
  CivilTime last_{};
  bool last_placed_ = false;
};

}  // namespace gpucost::formats
