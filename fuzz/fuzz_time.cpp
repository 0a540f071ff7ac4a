// Fuzz target: the timestamp, zone and year logic on its own. The input is split at its first
// newline: the head is a zone spec / offset / month name, the tail a line whose start is read by
// every stamp layout (RFC 3339 in both readers, BSD, ctime, short-unix, short-full, the kernel's
// `[mono]`, the syslog prefix); lines of the tail also drive the year-less clock. Whatever parses
// must be in range and round-trip; the zone must agree with itself.
#include <algorithm>
#include <string>

#include "fuzz_common.hpp"
#include "gpucost/align/zone.hpp"
#include "gpucost/text.hpp"
#include "gpucost/time.hpp"
#include "ingest/formats/kernel_message.hpp"
#include "ingest/formats/rfc3339_stamp.hpp"
#include "ingest/formats/stamps.hpp"
#include "ingest/formats/syslog_prefix.hpp"

namespace {
using namespace gpucost;

// The range of instants the parsers produce (years 1970..2200) with a day to spare.
const TimeNs kMinNs = civil_to_ns(CivilTime{1969, 12, 31, 0, 0, 0, 0});
const TimeNs kMaxNs = civil_to_ns(CivilTime{2201, 1, 2, 0, 0, 0, 0});
constexpr TimeNs kMaxOffsetNs = 26 * kNsPerHour;
// Monotonic stamps: up to 31 years of uptime, so that boot wall time + mono still fits in int64.
constexpr TimeNs kMaxMonoNs = 1'000'000'000 * kNsPerSec;

void check_civil(const CivilTime& c) {
  FUZZ_CHECK(c.month >= 1 && c.month <= 12);
  FUZZ_CHECK(c.day >= 1 && c.day <= 31);
  FUZZ_CHECK(c.hour <= 23 && c.minute <= 59 && c.second <= 60);
  FUZZ_CHECK(c.nanos >= 0 && c.nanos < kNsPerSec);
  FUZZ_CHECK(valid_date(c.year, c.month, c.day));
}

void check_stamp(const formats::ParsedStamp& p, std::string_view s) {
  check_civil(p.civil);
  FUZZ_CHECK(p.length <= s.size());
  FUZZ_CHECK(!p.has_offset || (p.offset_ns > -kMaxOffsetNs && p.offset_ns < kMaxOffsetNs));
  FUZZ_CHECK(p.precision_ns() >= 1 && p.precision_ns() <= kNsPerSec);
}

// A stamp that parsed is an instant int64 nanoseconds can hold, and prints back to itself.
void check_instant(TimeNs t) {
  FUZZ_CHECK(t >= kMinNs && t <= kMaxNs);
  const CivilTime c = ns_to_civil(t);
  check_civil(c);
  FUZZ_CHECK(civil_to_ns(c) == t);
  formats::Rfc3339Stamp back;
  const std::string s = format_rfc3339(t, 9);
  FUZZ_CHECK(formats::parse_rfc3339(s, back));
  FUZZ_CHECK(back.utc_ns() == t);
}

void stamps(std::string_view s) {
  formats::ParsedStamp p;
  if (formats::parse_rfc3339(s, p)) {
    check_stamp(p, s);
    check_instant(formats::utc_of(p));
  }
  formats::Rfc3339Stamp r;
  if (formats::parse_rfc3339(s, r)) {
    check_instant(r.local_ns);
    if (r.has_offset) check_instant(r.utc_ns());
  }
  formats::DayPadding pad;
  if (formats::parse_bsd_stamp(s, p, pad)) {
    check_stamp(p, s);
    FUZZ_CHECK(!p.has_offset);
  }
  if (formats::parse_ctime(s, p)) {
    check_stamp(p, s);
    check_instant(civil_to_ns(p.civil));
  }
  TimeNs unix_ns = 0;
  if (formats::parse_unix_stamp(s, unix_ns, p)) {
    check_stamp(p, s);
    check_instant(unix_ns);
  }
  std::string_view zone;
  if (formats::parse_short_full(s, p, zone)) {
    check_stamp(p, s);
    check_instant(civil_to_ns(p.civil));
    FUZZ_CHECK(!zone.empty() && zone.size() <= 8);
  }
  TimeNs mono = 0;
  std::size_t len = 0;
  if (formats::parse_mono_stamp(s, mono, len)) {
    FUZZ_CHECK(mono >= 0 && len <= s.size());
    FUZZ_CHECK(mono < kMaxMonoNs);
  }
  formats::SyslogLine sl;
  if (formats::parse_syslog_line(s, sl)) {
    check_stamp(sl.stamp, s);
    FUZZ_CHECK(sl.text.data() >= s.data() && sl.text.data() + sl.text.size() <= s.data() + s.size());
    if (sl.form == formats::StampForm::kUnix) check_instant(sl.unix_utc_ns);
    if (sl.form == formats::StampForm::kRfc3339) check_instant(formats::utc_of(sl.stamp));
    if (sl.mono_ns != kNoTime) FUZZ_CHECK(sl.mono_ns >= 0 && sl.mono_ns < kMaxMonoNs);
  }
}

// A year-less file: every line that starts with a BSD stamp goes through one clock.
void no_year_clock(std::string_view tail) {
  formats::NoYearClock clock;
  TimeNs prev = kNoTime;
  while (!tail.empty()) {
    const std::size_t nl = tail.find('\n');
    const std::string_view line = tail.substr(0, nl);
    tail = nl == std::string_view::npos ? std::string_view{} : tail.substr(nl + 1);
    formats::ParsedStamp p;
    formats::DayPadding pad;
    if (!formats::parse_bsd_stamp(line, p, pad)) continue;
    const TimeNs raw = clock.place(p.civil);
    check_instant(raw);
    const NoYearStamp c = no_year_stamp(raw);
    FUZZ_CHECK(c.month == p.civil.month && c.day == p.civil.day &&
               c.time_of_day / kNsPerHour == static_cast<TimeNs>(p.civil.hour));
    FUZZ_CHECK(c.rollovers >= 0 && c.rollovers <= clock.rollovers());
    (void)prev;
    prev = raw;
  }
}

void zone(std::string_view spec, std::string_view tail) {
  TimeNs off = 0;
  if (parse_utc_offset(spec, off)) {
    FUZZ_CHECK(off > -24 * kNsPerHour && off < 24 * kNsPerHour);
    Zone fixed;
    std::string err;
    FUZZ_CHECK(Zone::parse(format_utc_offset(off), fixed, err));
    FUZZ_CHECK(fixed.offset_at(0) == off);
  }
  const int m = parse_month_name(spec);
  FUZZ_CHECK(m >= 0 && m <= 12);

  Zone z;
  std::string err;
  if (!Zone::parse(spec.substr(0, 64), z, err)) {
    FUZZ_CHECK(!err.empty());
    return;
  }
  // Instants from the tail's bytes, folded into the range the parsers produce.
  LocalToUtc fast(z);
  for (std::size_t i = 0; i + 8 <= tail.size() && i < 8 * 16; i += 8) {
    std::uint64_t u = 0;
    for (std::size_t k = 0; k < 8; ++k) u = u << 8 | static_cast<unsigned char>(tail[i + k]);
    const std::uint64_t span = static_cast<std::uint64_t>(kMaxNs) - static_cast<std::uint64_t>(kMinNs);
    const TimeNs local = static_cast<TimeNs>(static_cast<std::uint64_t>(kMinNs) + u % span);
    const TimeNs utc = z.to_utc(local);
    FUZZ_CHECK(local - utc > -kMaxOffsetNs && local - utc < kMaxOffsetNs);
    FUZZ_CHECK(fast(local) == utc);
    const Zone::LocalPeriod p = z.local_period(local);
    FUZZ_CHECK(p.begin_ns <= local && local < p.end_ns);
    FUZZ_CHECK(local - p.offset_ns == utc);
    const TimeNs o = z.offset_at(utc);
    FUZZ_CHECK(o > -kMaxOffsetNs && o < kMaxOffsetNs);
    const auto offsets = z.offsets_between(utc, std::min(utc + 400 * kNsPerDay, kMaxNs));
    FUZZ_CHECK(!offsets.empty());
    FUZZ_CHECK(std::find(offsets.begin(), offsets.end(), o) != offsets.end());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view all = gpucost::fuzz::as_text(data, size);
  const std::size_t nl = all.find('\n');
  const std::string_view head = all.substr(0, nl);
  const std::string_view tail = nl == std::string_view::npos ? std::string_view{} : all.substr(nl + 1);
  zone(head, tail);
  stamps(head);
  stamps(tail);
  no_year_clock(tail);
  return 0;
}
