#pragma once
/// \file zone.hpp
/// A time zone for local-time stamps: a fixed offset (`+08:00`) or an IANA zone (`Asia/Shanghai`)
/// from the system's tzdata through Howard Hinnant's date library.

#ifndef GPUCOST_LAYER_ALIGN
#error "gpucost_align header: include it only in gpucost_align or a layer above it (docs/architecture.md, Layers)"
#endif

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gpucost/time.hpp"

namespace gpucost {

/// Converts local civil times (as ns read as if UTC) to UTC instants.
class Zone {
 public:
  /// UTC.
  Zone();
  /// A fixed offset east of UTC.
  static Zone fixed(TimeNs offset_ns);
  /// Parses `UTC`, `Z`, `±HH:MM`, `±HHMM` or an IANA name; returns false (and says why in
  /// `error`) when it is none of them.
  static bool parse(std::string_view spec, Zone& out, std::string& error);
  /// The machine's zone ($TZ, else /etc/localtime), UTC when neither is usable.
  static Zone system();

  /// A stretch of local time over which to_utc() subtracts one offset: [begin_ns, end_ns) in
  /// local ns. Whole-range for fixed zones.
  struct LocalPeriod {
    TimeNs begin_ns = 0;
    TimeNs end_ns = 0;
    TimeNs offset_ns = 0;
  };

  /// The UTC instant of a local civil time (ambiguous times take the earlier instant; times in
  /// a DST gap are shifted forward by the gap).
  TimeNs to_utc(TimeNs local_ns) const;
  /// The offset period that contains a local time; to_utc(t) == t - offset for every t in it.
  LocalPeriod local_period(TimeNs local_ns) const;
  /// The offset (local - UTC) in effect at a UTC instant.
  TimeNs offset_at(TimeNs utc_ns) const;
  /// The distinct offsets in effect at some instant of [begin_utc, end_utc], in time order.
  std::vector<TimeNs> offsets_between(TimeNs begin_utc, TimeNs end_utc) const;
  /// `Asia/Shanghai`, `+08:00` or `UTC`.
  const std::string& name() const noexcept { return name_; }
  bool is_fixed() const noexcept { return !tz_; }

 private:
  std::string name_;
  TimeNs fixed_offset_ = 0;
  const void* tz_ = nullptr;  // const date::time_zone*, kept opaque to spare includers date/tz.h
};

/// Converts many local times of one zone to UTC: consults the zone database only when a time
/// falls outside the offset period of the previous one (millions of dmon rows cost a handful of
/// lookups). Same results as Zone::to_utc.
class LocalToUtc {
 public:
  explicit LocalToUtc(const Zone& zone) : zone_(&zone) {}
  TimeNs operator()(TimeNs local_ns) {
    if (local_ns < period_.begin_ns || local_ns >= period_.end_ns) period_ = zone_->local_period(local_ns);
    return local_ns - period_.offset_ns;
  }

 private:
  const Zone* zone_;
  Zone::LocalPeriod period_{};  // empty: the first call looks up
};

/// Formats an offset as `+08:00`.
std::string format_utc_offset(TimeNs offset_ns);

}  // namespace gpucost
