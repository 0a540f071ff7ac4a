#include "gpucost/time.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include "gpucost/text.hpp"
#include "month_names_table.hpp"

namespace gpucost {

namespace {
constexpr std::int64_t kNoYearDay0 = days_from_civil(2000, 1, 1);
}  // namespace

TimeNs no_year_raw(const NoYearStamp& s) noexcept {
  // The day of the year in 2000, a leap year: Feb 29 is day 59 in every provisional year.
  const std::int64_t doy = days_from_civil(2000, s.month, s.day) - kNoYearDay0;
  return (kNoYearDay0 + s.rollovers * 366 + doy) * kNsPerDay + s.time_of_day;
}

NoYearStamp no_year_stamp(TimeNs raw) noexcept {
  NoYearStamp s;
  const std::int64_t days = floor_div(raw, kNsPerDay);
  s.time_of_day = raw - days * kNsPerDay;
  s.rollovers = floor_div(days - kNoYearDay0, 366);
  std::int64_t y;
  civil_from_days(kNoYearDay0 + (days - kNoYearDay0 - s.rollovers * 366), y, s.month, s.day);
  return s;
}

CivilTime ns_to_civil(TimeNs t) noexcept {
  std::int64_t secs = t / kNsPerSec;
  std::int64_t nanos = t % kNsPerSec;
  if (nanos < 0) {
    nanos += kNsPerSec;
    --secs;
  }
  std::int64_t days = secs / 86400;
  std::int64_t rem = secs % 86400;
  if (rem < 0) {
    rem += 86400;
    --days;
  }
  CivilTime c;
  civil_from_days(days, c.year, c.month, c.day);
  c.hour = static_cast<unsigned>(rem / 3600);
  c.minute = static_cast<unsigned>(rem % 3600 / 60);
  c.second = static_cast<unsigned>(rem % 60);
  c.nanos = nanos;
  return c;
}

bool valid_date(std::int64_t y, unsigned m, unsigned d) noexcept {
  if (m < 1 || m > 12 || d < 1) return false;
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  const unsigned max = (m == 2 && leap) ? 29 : kDays[m - 1];
  return d <= max;
}

namespace {
void put_digits(char* p, std::int64_t v, int n) {
  for (int i = n - 1; i >= 0; --i) {
    p[i] = static_cast<char>('0' + v % 10);
    v /= 10;
  }
}
}  // namespace

void append_rfc3339(std::string& out, TimeNs t, int digits) {
  const CivilTime c = ns_to_civil(t);
  char buf[40];
  char* p = buf;
  std::int64_t y = c.year;
  if (y < 0 || y > 9999) y = y < 0 ? 0 : 9999;  // outside RFC 3339's range: clamp, never overflow
  put_digits(p, y, 4);
  p[4] = '-';
  put_digits(p + 5, c.month, 2);
  p[7] = '-';
  put_digits(p + 8, c.day, 2);
  p[10] = 'T';
  put_digits(p + 11, c.hour, 2);
  p[13] = ':';
  put_digits(p + 14, c.minute, 2);
  p[16] = ':';
  put_digits(p + 17, c.second, 2);
  p += 19;
  if (digits > 0) {
    if (digits > 9) digits = 9;
    *p++ = '.';
    std::int64_t frac = c.nanos;
    for (int i = digits; i < 9; ++i) frac /= 10;
    put_digits(p, frac, digits);
    p += digits;
  }
  *p++ = 'Z';
  out.append(buf, static_cast<std::size_t>(p - buf));
}

std::string format_rfc3339(TimeNs t, int digits) {
  std::string s;
  append_rfc3339(s, t, digits);
  return s;
}

namespace {
struct MonthName {
  std::string_view name;
  int month;
};
// Lower-case names; a trailing '.' is stripped before lookup. English first; then the names
// journalctl/dmesg print under other locales (de, fr, es, it, pt, nl, nb/da/sv, pl, ru, uk, tr).
constexpr MonthName kMonthNames[] = {
    {"jan", 1}, {"feb", 2}, {"mar", 3}, {"apr", 4}, {"may", 5}, {"jun", 6}, {"jul", 7},
    {"aug", 8}, {"sep", 9}, {"sept", 9}, {"oct", 10}, {"nov", 11}, {"dec", 12},
    {"january", 1}, {"february", 2}, {"march", 3}, {"april", 4}, {"june", 6}, {"july", 7},
    {"august", 8}, {"september", 9}, {"october", 10}, {"november", 11}, {"december", 12},
    // German
    {"mär", 3}, {"mrz", 3}, {"mai", 5}, {"okt", 10}, {"dez", 12},
    // French
    {"janv", 1}, {"févr", 2}, {"fevr", 2}, {"mars", 3}, {"avr", 4}, {"juin", 6}, {"juil", 7},
    {"août", 8}, {"aout", 8}, {"déc", 12},
    // Spanish, Italian, Portuguese
    {"ene", 1}, {"abr", 4}, {"ago", 8}, {"dic", 12}, {"gen", 1}, {"mag", 5}, {"giu", 6},
    {"lug", 7}, {"set", 9}, {"ott", 10}, {"fev", 2}, {"out", 10}, {"dez", 12},
    // Dutch, Nordic
    {"mrt", 3}, {"mei", 5}, {"maj", 5}, {"des", 12}, {"okt", 10},
    // Polish
    {"sty", 1}, {"lut", 2}, {"kwi", 4}, {"cze", 6}, {"lip", 7}, {"sie", 8}, {"wrz", 9},
    {"paź", 10}, {"paz", 10}, {"lis", 11}, {"gru", 12},
    // Turkish
    {"oca", 1}, {"şub", 2}, {"nis", 4}, {"haz", 6}, {"tem", 7}, {"ağu", 8}, {"eyl", 9},
    {"eki", 10}, {"kas", 11}, {"ara", 12},
    // Russian, Ukrainian (UTF-8; lower case as printed)
    {"янв", 1}, {"фев", 2}, {"мар", 3}, {"апр", 4}, {"май", 5}, {"мая", 5}, {"июн", 6},
    {"июл", 7}, {"авг", 8}, {"сен", 9}, {"окт", 10}, {"ноя", 11}, {"дек", 12},
    {"січ", 1}, {"лют", 2}, {"бер", 3}, {"кві", 4}, {"тра", 5}, {"чер", 6}, {"лип", 7},
    {"сер", 8}, {"вер", 9}, {"жов", 10}, {"лис", 11}, {"гру", 12},
};

// Lower-cases ASCII and the Cyrillic capitals that month names start with (UTF-8, 2 bytes).
std::size_t fold(std::string_view in, char* out, std::size_t cap) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < in.size() && n < cap; ++i) {
    unsigned char c = static_cast<unsigned char>(in[i]);
    if (c >= 'A' && c <= 'Z') {
      out[n++] = static_cast<char>(c - 'A' + 'a');
    } else if ((c == 0xD0) && i + 1 < in.size() && n + 1 < cap) {
      unsigned char d = static_cast<unsigned char>(in[i + 1]);
      if (d >= 0x90 && d <= 0x9F) {  // А..П -> а..п
        out[n++] = static_cast<char>(0xD0);
        out[n++] = static_cast<char>(d + 0x20);
      } else if (d >= 0xA0 && d <= 0xAF) {  // Р..Я -> р..я (D1 80..8F)
        out[n++] = static_cast<char>(0xD1);
        out[n++] = static_cast<char>(d - 0x20);
      } else {
        out[n++] = static_cast<char>(c);
        out[n++] = static_cast<char>(d);
      }
      ++i;
    } else if (c == 0xC3 && i + 1 < in.size() && n + 1 < cap) {  // Ä Ö Ü É ... -> lower
      unsigned char d = static_cast<unsigned char>(in[i + 1]);
      out[n++] = static_cast<char>(c);
      out[n++] = static_cast<char>((d >= 0x80 && d <= 0x9E) ? d + 0x20 : d);
      ++i;
    } else {
      out[n++] = static_cast<char>(c);
    }
  }
  return n;
}

// The abbreviation exactly as a glibc locale prints it (the generated table), also when the
// stamp's tokenizer took off the leading blank of a numeric month (` 3月` -> `3月`).
int locale_month(std::string_view word) noexcept {
  const auto* begin = detail::kLocaleMonths;
  const auto* end = begin + detail::kLocaleMonthCount;
  auto find = [&](std::string_view w) {
    const auto* it = std::lower_bound(begin, end, w, [](const detail::LocaleMonth& e, std::string_view k) { return e.bytes < k; });
    return it != end && it->bytes == w ? it->month : 0;
  };
  if (const int m = find(word)) return m;
  if (!word.empty() && word.size() < 15 && text::is_digit(word[0])) {
    char buf[16];
    buf[0] = ' ';
    std::memcpy(buf + 1, word.data(), word.size());
    return find(std::string_view(buf, word.size() + 1));
  }
  return 0;
}
}  // namespace

int parse_month_name(std::string_view word) noexcept {
  // The common case, once per syslog line: an English abbreviation as syslog prints it (what
  // the table below says too, English coming first).
  if (word.size() == 3) {
    static constexpr std::string_view kEnglish = "JanFebMarAprMayJunJulAugSepOctNovDec";
    for (std::size_t m = 0; m < 12; ++m)
      if (word[0] == kEnglish[3 * m] && word[1] == kEnglish[3 * m + 1] && word[2] == kEnglish[3 * m + 2])
        return static_cast<int>(m) + 1;
  }
  if (const int m = locale_month(word)) return m;
  while (!word.empty() && word.back() == '.') word.remove_suffix(1);
  if (word.empty() || word.size() > 24) return 0;
  // CJK: "4月", "12月" (digits then U+6708 = E6 9C 88).
  if (word.size() >= 4 && word.substr(word.size() - 3) == "\xE6\x9C\x88") {
    auto m = text::to_int<int>(word.substr(0, word.size() - 3));
    return (m && *m >= 1 && *m <= 12) ? *m : 0;
  }
  char buf[48];
  const std::size_t n = fold(word, buf, sizeof buf);
  const std::string_view w(buf, n);
  for (const auto& m : kMonthNames)
    if (m.name == w) return m.month;
  return 0;
}

bool parse_utc_offset(std::string_view s, TimeNs& offset_ns) noexcept {
  if (s == "Z" || s == "z") {
    offset_ns = 0;
    return true;
  }
  if (s.size() < 3 || (s[0] != '+' && s[0] != '-')) return false;
  const int sign = s[0] == '-' ? -1 : 1;
  unsigned h = 0, m = 0;
  if (!text::digits(s, 1, 2, h)) return false;
  std::size_t pos = 3;
  if (pos < s.size() && s[pos] == ':') ++pos;
  if (pos < s.size()) {
    if (!text::digits(s, pos, 2, m) || pos + 2 != s.size()) return false;
  } else if (pos != s.size()) {
    return false;
  }
  if (h > 23 || m > 59) return false;
  offset_ns = sign * (static_cast<TimeNs>(h) * kNsPerHour + static_cast<TimeNs>(m) * kNsPerMin);
  return true;
}

}  // namespace gpucost
