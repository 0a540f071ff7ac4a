#include "gpucost/align/zone.hpp"

#include <date/tz.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <cstdio>

#include "gpucost/text.hpp"

namespace gpucost {

namespace {
const date::time_zone* as_tz(const void* p) { return static_cast<const date::time_zone*>(p); }
}  // namespace

std::string format_utc_offset(TimeNs offset_ns) {
  const char sign = offset_ns < 0 ? '-' : '+';
  const TimeNs a = offset_ns < 0 ? -offset_ns : offset_ns;
  const auto h = a / kNsPerHour, m = a % kNsPerHour / kNsPerMin;
  char buf[16];
  std::snprintf(buf, sizeof buf, "%c%02d:%02d", sign, static_cast<int>(h), static_cast<int>(m));
  return buf;
}

Zone::Zone() : name_("UTC") {}

Zone Zone::fixed(TimeNs offset_ns) {
  Zone z;
  z.fixed_offset_ = offset_ns;
  z.name_ = offset_ns == 0 ? "UTC" : format_utc_offset(offset_ns);
  return z;
}

bool Zone::parse(std::string_view spec, Zone& out, std::string& error) {
  spec = text::trim(spec);
  if (spec.empty()) {
    error = "empty time zone";
    return false;
  }
  if (spec == "UTC" || spec == "utc" || spec == "Z" || spec == "GMT" || spec == "Etc/UTC") {
    out = Zone();
    return true;
  }
  TimeNs off = 0;
  if (parse_utc_offset(spec, off)) {
    out = fixed(off);
    return true;
  }
  try {
    const date::time_zone* tz = date::locate_zone(std::string(spec));
    Zone z;
    z.tz_ = tz;
    z.name_ = std::string(tz->name());
    out = z;
    return true;
  } catch (const std::exception& e) {
    error = "unknown time zone '" + std::string(spec) + "' (use an IANA name like Asia/Shanghai or an offset like +08:00)";
    return false;
  }
}

Zone Zone::system() {
  std::string err;
  Zone z;
  if (const char* tz = std::getenv("TZ"); tz && *tz) {
    std::string_view s = tz;
    if (s.front() == ':') s.remove_prefix(1);
    if (parse(s, z, err)) return z;
  }
  try {
    const date::time_zone* tz = date::current_zone();
    if (tz) {
      z = Zone();
      z.tz_ = tz;
      z.name_ = std::string(tz->name());
      return z;
    }
  } catch (const std::exception&) {
  }
  return Zone();
}

namespace {
// sys_info bounds can be the far past/future (date uses +-32767 years); keep them inside what
// int64 nanoseconds can hold, with a day to spare for offsets.
constexpr std::int64_t kMaxSeconds = 9'000'000'000;
std::int64_t clamp_seconds(std::int64_t s) { return s < -kMaxSeconds ? -kMaxSeconds : s > kMaxSeconds ? kMaxSeconds : s; }

std::int64_t floor_seconds(TimeNs ns) { return ns >= 0 ? ns / kNsPerSec : -((-ns + kNsPerSec - 1) / kNsPerSec); }

TimeNs offset_ns_of(const date::sys_info& i) {
  return std::chrono::duration_cast<std::chrono::seconds>(i.offset).count() * kNsPerSec;
}
}  // namespace

TimeNs Zone::to_utc(TimeNs local_ns) const {
  if (!tz_) return local_ns - fixed_offset_;
  using namespace std::chrono;
  const date::local_seconds ls{seconds{floor_seconds(local_ns)}};
  // Unique: the one period. Ambiguous: `first` is the earlier instant. Nonexistent (DST gap):
  // `first` is the period before the gap, so the time moves forward by the gap.
  return local_ns - offset_ns_of(as_tz(tz_)->get_info(ls).first);
}

Zone::LocalPeriod Zone::local_period(TimeNs local_ns) const {
  if (!tz_) return {std::numeric_limits<TimeNs>::min(), std::numeric_limits<TimeNs>::max(), fixed_offset_};
  using namespace std::chrono;
  const auto* tz = as_tz(tz_);
  const date::local_seconds ls{seconds{floor_seconds(local_ns)}};
  const date::sys_info p = tz->get_info(ls).first;
  const TimeNs o = offset_ns_of(p);
  const std::int64_t b = clamp_seconds(p.begin.time_since_epoch().count());
  const std::int64_t e = clamp_seconds(p.end.time_since_epoch().count());
  // to_utc uses p for local times from B + max(o, o_prev) (before that, the previous period
  // owns the overlap or p's own gap) up to E + max(o, o_next) (p owns the next overlap and gap).
  TimeNs o_prev = o, o_next = o;
  if (b > -kMaxSeconds) o_prev = offset_ns_of(tz->get_info(date::sys_seconds{seconds{b - 1}}));
  if (e < kMaxSeconds) o_next = offset_ns_of(tz->get_info(date::sys_seconds{seconds{e}}));
  LocalPeriod r;
  r.begin_ns = b * kNsPerSec + std::max(o, o_prev);
  r.end_ns = e * kNsPerSec + std::max(o, o_next);
  r.offset_ns = o;
  if (local_ns < r.begin_ns || local_ns >= r.end_ns)  // not expected; answer without caching
    return {local_ns, local_ns + 1, local_ns - to_utc(local_ns)};
  return r;
}

TimeNs Zone::offset_at(TimeNs utc_ns) const {
  if (!tz_) return fixed_offset_;
  using namespace std::chrono;
  const date::sys_seconds ss{seconds{floor_seconds(utc_ns)}};
  return offset_ns_of(as_tz(tz_)->get_info(ss));
}

std::vector<TimeNs> Zone::offsets_between(TimeNs begin_utc, TimeNs end_utc) const {
  std::vector<TimeNs> out;
  if (!tz_) {
    out.push_back(fixed_offset_);
    return out;
  }
  using namespace std::chrono;
  std::int64_t t = floor_seconds(begin_utc);
  const std::int64_t end = floor_seconds(end_utc);
  for (int guard = 0; guard < 100000; ++guard) {
    const date::sys_info i = as_tz(tz_)->get_info(date::sys_seconds{seconds{t}});
    const TimeNs o = offset_ns_of(i);
    if (std::find(out.begin(), out.end(), o) == out.end()) out.push_back(o);
    const std::int64_t next = i.end.time_since_epoch().count();
    if (next > end || next >= kMaxSeconds || next <= t) break;
    t = next;
  }
  return out;
}

}  // namespace gpucost
