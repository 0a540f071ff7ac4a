#include "ingest/formats/rfc3339_stamp.hpp"

#include "gpucost/text.hpp"

namespace gpucost::formats {

bool parse_rfc3339(std::string_view s, Rfc3339Stamp& out) noexcept {
  unsigned y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
  if (s.size() < 19 || !text::digits(s, 0, 4, y) || s[4] != '-' || !text::digits(s, 5, 2, mo) ||
      s[7] != '-' || !text::digits(s, 8, 2, d) || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') ||
      !text::digits(s, 11, 2, h) || s[13] != ':' || !text::digits(s, 14, 2, mi) || s[16] != ':' ||
      !text::digits(s, 17, 2, sec))
    return false;
  // int64 nanoseconds reach from 1677 to 2262; log stamps live well inside that (time.hpp).
  if (!valid_stamp_date(y, mo, d) || h > 23 || mi > 59 || sec > 60) return false;
  std::size_t pos = 19;
  std::int64_t nanos = 0;
  if (pos < s.size() && (s[pos] == '.' || s[pos] == ',')) {
    ++pos;
    std::size_t digits = 0;
    while (pos < s.size() && text::is_digit(s[pos])) {
      if (digits < 9) nanos = nanos * 10 + (s[pos] - '0');
      ++digits;
      ++pos;
    }
    if (digits == 0) return false;
    for (std::size_t i = digits; i < 9; ++i) nanos *= 10;
  }
  TimeNs offset = 0;
  bool has_offset = false;
  if (pos < s.size()) {
    if (!parse_utc_offset(s.substr(pos), offset)) return false;
    has_offset = true;
  }
  out.local_ns = civil_to_ns(CivilTime{y, mo, d, h, mi, sec, nanos});
  out.offset_ns = offset;
  out.has_offset = has_offset;
  out.zulu = has_offset && (s[pos] == 'Z' || s[pos] == 'z');
  return true;
}

}  // namespace gpucost::formats
