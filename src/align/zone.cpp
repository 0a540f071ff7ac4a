#include "gpucost/align/zone.hpp"

#include <date/tz.h>

#include <cstdlib>
#include <fstream>

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

TimeNs Zone::to_utc(TimeNs local_ns) const {
  if (!tz_) return local_ns - fixed_offset_;
  using namespace std::chrono;
  const auto secs = local_ns >= 0 ? local_ns / kNsPerSec : -((-local_ns + kNsPerSec - 1) / kNsPerSec);
  const TimeNs frac = local_ns - secs * kNsPerSec;
  const date::local_seconds ls{seconds{secs}};
  const auto info = as_tz(tz_)->get_info(ls);
  TimeNs offset = 0;
  switch (info.result) {
    case date::local_info::unique:
    case date::local_info::ambiguous:
      offset = duration_cast<seconds>(info.first.offset).count() * kNsPerSec;
      break;
    case date::local_info::nonexistent:
      // In a DST gap: the local time never existed; read it with the offset before the gap.
      offset = duration_cast<seconds>(info.first.offset).count() * kNsPerSec;
      break;
  }
  return secs * kNsPerSec + frac - offset;
}

TimeNs Zone::offset_at(TimeNs utc_ns) const {
  if (!tz_) return fixed_offset_;
  using namespace std::chrono;
  const auto secs = utc_ns / kNsPerSec;
  const date::sys_seconds ss{seconds{secs}};
  return duration_cast<seconds>(as_tz(tz_)->get_info(ss).offset).count() * kNsPerSec;
}

}  // namespace gpucost
