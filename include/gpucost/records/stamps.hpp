#pragma once
/// \file stamps.hpp
/// How a row's time stamps are to be read: WallKind (the raw wall-clock stamp's kind), the
/// RowFlags on an event or sample, the floor of a plausible wall stamp, and BootAnchor (a line
/// with both a monotonic and a wall stamp, from which align places kernel time).

#ifndef GPUCOST_LAYER_BASE
#error "gpucost_base header: include it only in gpucost_base or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstdint>
#include <string>

#include "gpucost/time.hpp"

namespace gpucost {

/// How a row's raw wall-clock stamp is to be read; align turns it into UTC.
enum class WallKind : std::uint8_t {
  kNone = 0,  ///< no wall-clock stamp (monotonic only, or nothing)
  kUtc,  ///< raw is UTC ns already
  kLocal,  ///< raw is a local civil time read as if UTC; needs the zone
  kLocalNoYear,  ///< like kLocal, but the year is provisional: see no_year_raw() (time.hpp)
  kLocalNoDate,  ///< raw is ns since local midnight of day 0 (+1 day per midnight rollover)
  kRelative,  ///< raw is ns since the start of the file (rows placed by sampling interval)
};

/// Flags on an event or sample (bit mask).
enum RowFlags : std::int64_t {
  kFlagApproxTime = 1 << 0,  ///< no stamp of its own: placed at the file's mtime or by context
  kFlagUnreliableWall = 1 << 1,  ///< dmesg -T ctime: boot time + monotonic, wrong after suspend
  kFlagContinued = 1 << 2,  ///< the message had continuation lines joined to it
  kFlagTruncated = 1 << 3,  ///< the line was longer than --max-line-length and was cut
  kFlagFromMonotonic = 1 << 4,  ///< (align) ts_ns came from monotonic time and an anchor
  kFlagFromWall = 1 << 5,  ///< (align) ts_ns came from the wall-clock stamp
};

/// Wall stamps before 2000-01-01 UTC are a clock that was never set, not a date: journald's
/// `__REALTIME_TIMESTAMP` 0, or 1970 + uptime on a board without a real-time clock until NTP
/// steps it. Such a stamp places nothing and anchors no boot (Problem::implausible_time).
inline constexpr TimeNs kPlausibleWallFloorNs = days_from_civil(2000, 1, 1) * kNsPerDay;

/// A line that carries both a monotonic and a wall-clock stamp: `boot_wall = wall - mono`.
/// Align maps monotonic kernel time to UTC from these, piecewise (the offset jumps at each resume).
struct BootAnchor {
  std::string boot_id;  ///< known boot id, empty when the source does not name it
  std::uint32_t file = 0;  ///< index into IngestResult::files
  std::int32_t boot_seq = 0;  ///< boot ordinal within the file
  std::uint64_t line = 0;
  TimeNs mono_ns = kNoTime;  ///< monotonic stamp
  TimeNs wall_raw_ns = kNoTime;  ///< wall stamp, read per wall_kind
  WallKind wall_kind = WallKind::kNone;
  TimeNs precision_ns = kNsPerSec;  ///< resolution of the wall stamp (1 s for BSD syslog)
};

}  // namespace gpucost
