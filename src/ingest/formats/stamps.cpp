#include "ingest/formats/stamps.hpp"

#include <array>

#include "gpucost/text.hpp"

namespace gpucost::formats {

namespace {

using text::digits;
using text::is_digit;

// 2200-12-31T23:59:59Z in seconds since the epoch.
constexpr std::int64_t kMaxUnixSeconds = (days_from_civil(kMaxStampYear, 12, 31) + 1) * 86400 - 1;

bool at_end_or_blank(std::string_view s, std::size_t pos) noexcept {
  return pos == s.size() || text::is_space(s[pos]);
}

// `HH:MM:SS` at pos; hours 0..23, seconds up to 60 (leap second).
bool parse_hms(std::string_view s, std::size_t pos, CivilTime& c) noexcept {
  unsigned h, m, sec;
  if (!digits(s, pos, 2, h) || pos + 2 >= s.size() || s[pos + 2] != ':' || !digits(s, pos + 3, 2, m) ||
      pos + 5 >= s.size() || s[pos + 5] != ':' || !digits(s, pos + 6, 2, sec))
    return false;
  if (h > 23 || m > 59 || sec > 60) return false;
  c.hour = h;
  c.minute = m;
  c.second = sec;
  return true;
}

// `.123456` / `,123456` at pos: up to nine digits count, more are read and dropped.
std::size_t parse_fraction(std::string_view s, std::size_t pos, ParsedStamp& out) noexcept {
  if (pos >= s.size() || (s[pos] != '.' && s[pos] != ',')) return pos;
  std::size_t i = pos + 1;
  std::int64_t ns = 0;
  int n = 0;
  while (i < s.size() && is_digit(s[i])) {
    if (n < 9) {
      ns = ns * 10 + (s[i] - '0');
      ++n;
    }
    ++i;
  }
  if (i == pos + 1) return pos;  // a lone '.' is no fraction
  for (int k = n; k < 9; ++k) ns *= 10;
  out.civil.nanos = ns;
  out.fraction_sep = s[pos];
  out.fraction_digits = static_cast<int>(i - pos - 1);
  return i;
}

// `Z`, `+01:00`, `+0100`, `+01` at pos; returns the position after it, or npos.
std::size_t parse_offset(std::string_view s, std::size_t pos, ParsedStamp& out) noexcept {
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    out.has_offset = true;
    out.offset_ns = 0;
    return pos + 1;
  }
  if (pos >= s.size() || (s[pos] != '+' && s[pos] != '-')) return std::string_view::npos;
  std::size_t end = pos + 1;
  while (end < s.size() && (is_digit(s[end]) || s[end] == ':')) ++end;
  TimeNs off = 0;
  const std::string_view tok = s.substr(pos, end - pos);
  if (tok.size() == 3) {  // `+01`
    unsigned h;
    if (!digits(tok, 1, 2, h) || h > 23) return std::string_view::npos;
    off = static_cast<TimeNs>(h) * kNsPerHour * (tok[0] == '-' ? -1 : 1);
  } else if (!parse_utc_offset(tok, off)) {
    return std::string_view::npos;
  }
  out.has_offset = true;
  out.offset_colon = tok.find(':') != std::string_view::npos;
  out.offset_ns = off;
  return end;
}

}  // namespace

TimeNs ParsedStamp::precision_ns() const noexcept {
  TimeNs p = kNsPerSec;
  for (int i = 0; i < fraction_digits && i < 9; ++i) p /= 10;
  return p;
}

bool parse_rfc3339(std::string_view s, ParsedStamp& out) noexcept {
  out = ParsedStamp{};
  if (s.size() < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T') return false;
  unsigned y, mo, d;
  if (!digits(s, 0, 4, y) || !digits(s, 5, 2, mo) || !digits(s, 8, 2, d)) return false;
  if (!valid_stamp_date(y, mo, d)) return false;
  out.civil.year = y;
  out.civil.month = mo;
  out.civil.day = d;
  if (!parse_hms(s, 11, out.civil)) return false;
  std::size_t pos = parse_fraction(s, 19, out);
  pos = parse_offset(s, pos, out);
  if (pos == std::string_view::npos || !at_end_or_blank(s, pos)) return false;
  out.length = pos;
  return true;
}

TimeNs utc_of(const ParsedStamp& p) noexcept { return civil_to_ns(p.civil) - p.offset_ns; }

bool parse_bsd_stamp(std::string_view s, ParsedStamp& out, DayPadding& padding) noexcept {
  out = ParsedStamp{};
  // The month is the first word; it may be multi-byte (`фев`, `4月`) or end in a dot (`jan.`).
  // ja_JP and ko_KR pad their numeric months to two columns: ` 3月 13 18:33:21`.
  std::size_t i = s.size() > 2 && s[0] == ' ' && is_digit(s[1]) ? 1 : 0;
  while (i < s.size() && !text::is_space(s[i])) ++i;
  if (i == 0 || i > 16) return false;
  int month = parse_month_name(s.substr(0, i));
  if (month == 0 && i + 2 < s.size() && s[i] == ' ' && is_digit(s[i + 1])) {
    // vi_VN writes the month in two words: `Thg 3 13 18:33:21`.
    std::size_t j = i + 1;
    while (j < s.size() && is_digit(s[j])) ++j;
    if (j - i <= 3 && (month = parse_month_name(s.substr(0, j))) != 0) i = j;
  }
  if (month == 0) return false;
  std::size_t spaces = 0;
  while (i < s.size() && s[i] == ' ') ++i, ++spaces;
  if (spaces == 0 || spaces > 2) return false;
  const std::size_t day_start = i;
  while (i < s.size() && is_digit(s[i])) ++i;
  const std::size_t day_len = i - day_start;
  if (day_len == 0 || day_len > 2 || i >= s.size() || s[i] != ' ') return false;
  unsigned day = 0;
  digits(s, day_start, day_len, day);
  if (!valid_date(2000, static_cast<unsigned>(month), day)) return false;
  if (day_len == 1 && spaces == 2) padding = DayPadding::kSpace;
  else if (day_len == 2 && s[day_start] == '0') padding = DayPadding::kZero;
  else padding = DayPadding::kTwoDigits;
  out.civil.year = 2000;  // stands in for the unknown year; a leap year, so Feb 29 is a date
  out.civil.month = static_cast<unsigned>(month);
  out.civil.day = day;
  if (!parse_hms(s, i + 1, out.civil)) return false;
  const std::size_t pos = parse_fraction(s, i + 9, out);
  if (!at_end_or_blank(s, pos)) return false;
  out.length = pos;
  return true;
}

bool parse_ctime(std::string_view inside, ParsedStamp& out) noexcept {
  out = ParsedStamp{};
  std::array<std::string_view, 6> tok{};
  std::string_view rest;
  const std::size_t n = text::split_ws(inside, tok, &rest);
  if (!rest.empty() || n < 4 || n > 5) return false;
  std::size_t k = n == 5 ? 1 : 0;  // skip the weekday, whatever its language
  const int month = parse_month_name(tok[k]);
  const auto day = text::to_int<unsigned>(tok[k + 1]);
  const auto year = text::to_int<unsigned>(tok[k + 3]);
  if (month == 0 || !day || !year || *year < 1970 || !valid_stamp_year(*year) || tok[k + 2].size() != 8) return false;
  if (!valid_date(*year, static_cast<unsigned>(month), *day)) return false;
  out.civil.year = *year;
  out.civil.month = static_cast<unsigned>(month);
  out.civil.day = *day;
  return parse_hms(tok[k + 2], 0, out.civil);
}

bool parse_unix_stamp(std::string_view s, TimeNs& utc_ns, ParsedStamp& out) noexcept {
  out = ParsedStamp{};
  std::size_t i = 0;
  while (i < s.size() && is_digit(s[i])) ++i;
  if (i < 9 || i > 11 || i >= s.size() || s[i] != '.') return false;
  const auto secs = text::to_int(s.substr(0, i));
  const std::size_t pos = parse_fraction(s, i, out);
  if (!secs || pos == i || !at_end_or_blank(s, pos)) return false;
  if (*secs > kMaxUnixSeconds) return false;  // after 2200: damage, and ns would overflow
  utc_ns = *secs * kNsPerSec + out.civil.nanos;
  out.length = pos;
  return true;
}

bool parse_short_full(std::string_view s, ParsedStamp& out, std::string_view& zone) noexcept {
  out = ParsedStamp{};
  const std::size_t sp = s.find(' ');
  if (sp == std::string_view::npos || sp == 0 || sp > 16 || is_digit(s[0])) return false;
  const std::string_view d = s.substr(sp + 1);
  if (d.size() < 20 || d[4] != '-' || d[7] != '-' || d[10] != ' ') return false;
  unsigned y, mo, day;
  if (!digits(d, 0, 4, y) || !digits(d, 5, 2, mo) || !digits(d, 8, 2, day) || !valid_stamp_date(y, mo, day))
    return false;
  out.civil.year = y;
  out.civil.month = mo;
  out.civil.day = day;
  if (!parse_hms(d, 11, out.civil)) return false;
  std::size_t pos = parse_fraction(d, 19, out);
  if (pos >= d.size() || d[pos] != ' ') return false;
  const std::size_t zstart = pos + 1;
  std::size_t zend = zstart;
  while (zend < d.size() && !text::is_space(d[zend])) ++zend;
  if (zend == zstart || zend - zstart > 8) return false;
  zone = d.substr(zstart, zend - zstart);
  out.length = sp + 1 + zend;
  return true;
}

TimeNs NoYearClock::place(CivilTime c) noexcept {
  if (last_placed_ && c.month == last_.month && c.day == last_.day && c.hour == last_.hour &&
      c.minute == last_.minute && c.second == last_.second && c.nanos == last_.nanos)
    return prev_raw_;  // what the code below gives: the same month, so no rollover
  last_placed_ = false;
  NoYearStamp s{rollovers_, c.month, c.day,
                ((c.hour * 60 + c.minute) * 60 + c.second) * kNsPerSec + c.nanos};
  if (prev_month_ != 0) {
    if (c.month + 6 < prev_month_ && rollovers_ < kMaxRollovers) {
      ++rollovers_;
      ++s.rollovers;
    } else if (c.month > prev_month_ + 6 && rollovers_ > 0) {
      // `Dec 31 23:59:58` just after `Jan  1 00:00:01`: a straggler from the year before.
      NoYearStamp before = s;
      --before.rollovers;
      const TimeNs raw = no_year_raw(before);
      if (prev_raw_ - raw <= kNsPerDay) return raw;
    }
  }
  prev_month_ = c.month;
  prev_raw_ = no_year_raw(s);
  last_ = c;
  last_placed_ = true;
  return prev_raw_;
}

}  // namespace gpucost::formats
