#pragma once
// RFC 3339 instants as the structured sources print them (`date -Is`, the ps snapshot marker,
// manifest.json): shared by the ps and manifest parsers.

#ifndef GPUCOST_LAYER_INGEST
#error "gpucost_ingest header: include it only in gpucost_ingest or a layer above it (docs/architecture.md, Layers)"
#endif

#include <string_view>

#include "gpucost/time.hpp"

namespace gpucost::formats {

/// A parsed `2026-11-29T19:50:45.123+08:00`.
struct Rfc3339Stamp {
  TimeNs local_ns = kNoTime;  ///< the civil time as printed, read as if UTC
  TimeNs offset_ns = 0;       ///< the printed UTC offset (0 for `Z`)
  bool has_offset = false;    ///< false when the stamp ends without `Z` or `±hh:mm`
  bool zulu = false;          ///< the offset was written `Z`: UTC by choice, no sign of a local zone
  /// The instant in UTC; only meaningful when has_offset.
  TimeNs utc_ns() const noexcept { return local_ns - offset_ns; }
};

/// Parses a whole view as `YYYY-MM-DD[T| ]hh:mm:ss[.fraction][Z|±hh:mm|±hhmm]` (the date and the
/// time separated by `T`, `t` or one space as `date --rfc-3339` prints). False when it is none or
/// the date is not real (or outside kMinStampYear..kMaxStampYear, 1970..2200: see time.hpp).
bool parse_rfc3339(std::string_view s, Rfc3339Stamp& out) noexcept;

}  // namespace gpucost::formats
