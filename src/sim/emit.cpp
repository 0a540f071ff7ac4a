#include "sim/emit.hpp"

#include <algorithm>

namespace gpucost::sim {

const char* const kMonthAbbrev[12] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
const char* const kWeekdayAbbrev[7] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};

LogRecord& Emitter::kernel(TimeNs ts, std::string message, int priority, int boot) {
  LogRecord r;
  r.ts = whole_us(ts);
  r.mono = w_.mono_at(r.ts, boot);
  r.message = std::move(message);
  r.priority = static_cast<std::uint8_t>(priority);
  r.boot = static_cast<std::uint8_t>(boot);
  r.dest = boot == 0 ? kKernelDest : static_cast<std::uint8_t>(kToKernLog);
  out_.push_back(std::move(r));
  return out_.back();
}

LogRecord& Emitter::user(TimeNs ts, const Daemon* d, std::string message, int priority) {
  LogRecord r;
  r.ts = whole_us(ts);
  r.message = std::move(message);
  r.daemon = d;
  r.priority = static_cast<std::uint8_t>(priority);
  r.dest = w_.has_syslog ? kUserDest : static_cast<std::uint8_t>(kToJournal);
  out_.push_back(std::move(r));
  return out_.back();
}

std::string random_hex(Rng& rng, int n) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s(static_cast<std::size_t>(n), '0');
  std::uint64_t bits = 0;
  for (int i = 0; i < n; ++i) {
    if (i % 16 == 0) bits = rng.next();
    s[static_cast<std::size_t>(i)] = kHex[bits & 15];
    bits >>= 4;
  }
  return s;
}

std::string random_uuid(Rng& rng) {
  std::string h = random_hex(rng, 32);
  return h.substr(0, 8) + '-' + h.substr(8, 4) + '-' + h.substr(12, 4) + '-' + h.substr(16, 4) + '-' + h.substr(20);
}

void append_int(std::string& out, std::int64_t v, int width) {
  char buf[24];
  char* end = buf + sizeof buf;
  char* p = end;
  const bool neg = v < 0;
  std::uint64_t u = neg ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
  do {
    *--p = static_cast<char>('0' + u % 10);
    u /= 10;
  } while (u);
  if (neg) *--p = '-';
  const int len = static_cast<int>(end - p);
  if (width > len) out.append(static_cast<std::size_t>(width - len), ' ');
  out.append(p, static_cast<std::size_t>(len));
}

void append_zero_padded(std::string& out, std::int64_t v, int digits) {
  char buf[24];
  for (int i = digits - 1; i >= 0; --i) {
    buf[i] = static_cast<char>('0' + v % 10);
    v /= 10;
  }
  out.append(buf, static_cast<std::size_t>(digits));
}

void append_right(std::string& out, std::string_view s, int width) {
  if (width > static_cast<int>(s.size())) out.append(static_cast<std::size_t>(width) - s.size(), ' ');
  out.append(s);
}

void append_left(std::string& out, std::string_view s, int width) {
  out.append(s);
  if (width > static_cast<int>(s.size())) out.append(static_cast<std::size_t>(width) - s.size(), ' ');
}

void append_tenths(std::string& out, std::int64_t tenths, int width) {
  char buf[32];
  int n = 0;
  std::int64_t whole = tenths / 10;
  char tmp[24];
  int k = 0;
  do {
    tmp[k++] = static_cast<char>('0' + whole % 10);
    whole /= 10;
  } while (whole);
  while (k) buf[n++] = tmp[--k];
  buf[n++] = '.';
  buf[n++] = static_cast<char>('0' + tenths % 10);
  append_right(out, std::string_view(buf, static_cast<std::size_t>(n)), width);
}

void append_dmesg_stamp(std::string& out, TimeNs mono) {
  const TimeNs us = mono / kNsPerUs;
  out += '[';
  append_int(out, us / 1'000'000, 5);
  out += '.';
  append_zero_padded(out, us % 1'000'000, 6);
  out += ']';
}

void append_syslog_stamp(std::string& out, TimeNs local_ns) {
  const CivilTime c = ns_to_civil(local_ns);
  out += kMonthAbbrev[c.month - 1];
  out += ' ';
  append_int(out, c.day, 2);
  out += ' ';
  append_zero_padded(out, c.hour, 2);
  out += ':';
  append_zero_padded(out, c.minute, 2);
  out += ':';
  append_zero_padded(out, c.second, 2);
}

void append_rfc3339_local(std::string& out, TimeNs t, TimeNs offset, int digits) {
  std::string s;
  append_rfc3339(s, t + offset, digits);
  s.pop_back();  // the `Z`: the civil time is local
  out += s;
  const TimeNs a = offset < 0 ? -offset : offset;
  out += offset < 0 ? '-' : '+';
  append_zero_padded(out, a / kNsPerHour, 2);
  out += ':';
  append_zero_padded(out, a % kNsPerHour / kNsPerMin, 2);
}

std::string logfmt_time(const World& w, TimeNs ts, Rng& rng) {
  const TimeNs t = ts - rng.range(5'000, 40'000);
  std::string s = "time=\"";
  append_rfc3339_local(s, t, w.offset_at(t), 9);
  s += '"';
  return s;
}

}  // namespace gpucost::sim
