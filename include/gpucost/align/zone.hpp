#pragma once
/// \file zone.hpp
/// A time zone for local-time stamps: a fixed offset (`+08:00`) or an IANA zone (`Asia/Shanghai`)
/// from the system's tzdata through Howard Hinnant's date library.

#include <memory>
#include <string>
#include <string_view>

#include "gpucost/time.hpp"

namespace gpucost {

/// Converts local civil times (as ns read as if UTC) to UTC instants.
class Zone {
 public:
  /// UTC.
  Zone();
  /// A fixed offset east of UTC.
  static Zone fixed(TimeNs offset_ns);
  /// Parses `UTC`, `Z`, `±HH:MM`, `±HHMM` or an IANA name; nullopt-like: returns false on failure.
  static bool parse(std::string_view spec, Zone& out, std::string& error);
  /// The machine's zone ($TZ, else /etc/localtime), UTC when neither is usable.
  static Zone system();

  /// The UTC instant of a local civil time (ambiguous times take the earlier instant; times in
  /// a DST gap are shifted forward by the gap).
  TimeNs to_utc(TimeNs local_ns) const;
  /// The offset (local - UTC) in effect at a UTC instant.
  TimeNs offset_at(TimeNs utc_ns) const;
  /// `Asia/Shanghai`, `+08:00` or `UTC`.
  const std::string& name() const noexcept { return name_; }
  bool is_fixed() const noexcept { return !tz_; }

 private:
  std::string name_;
  TimeNs fixed_offset_ = 0;
  const void* tz_ = nullptr;  // const date::time_zone*, kept opaque to spare includers date/tz.h
};

/// Formats an offset as `+08:00`.
std::string format_utc_offset(TimeNs offset_ns);

}  // namespace gpucost
