#pragma once
// Internal helpers of the simulator: adding records to a list, formatting numbers and stamps
// without allocating, and random identifiers.

#ifndef GPUCOST_LAYER_SIM
#error "gpucost_sim header: include it only in gpucost_sim or a layer above it (docs/architecture.md, Layers)"
#endif

#include <string>
#include <string_view>
#include <vector>

#include "gpucost/sim/rng.hpp"
#include "gpucost/sim/world.hpp"

namespace gpucost::sim {

/// Rounds an instant down to whole microseconds (every stamp the logs print is µs or coarser).
constexpr TimeNs whole_us(TimeNs t) noexcept { return t - ((t % kNsPerUs) + kNsPerUs) % kNsPerUs; }
/// Seconds as ns, rounded to whole µs.
constexpr TimeNs seconds(double s) noexcept { return static_cast<TimeNs>(s * 1e6) * kNsPerUs; }
constexpr TimeNs minutes(double m) noexcept { return seconds(m * 60.0); }
/// The next whole second at or after t.
constexpr TimeNs ceil_second(TimeNs t) noexcept { return (t + kNsPerSec - 1) / kNsPerSec * kNsPerSec; }

/// Appends records to a list, filling in the kernel monotonic stamp and the destinations.
class Emitter {
 public:
  Emitter(const World& w, std::vector<LogRecord>& out) : w_(w), out_(out) {}

  /// A kernel message printed at ts (boot 0: dmesg, kern.log and journal; else kern.log only).
  LogRecord& kernel(TimeNs ts, std::string message, int priority = 6, int boot = 0);
  /// A user-space message written at ts by daemon d (syslog and journal; journal only when the
  /// scenario has no syslog).
  LogRecord& user(TimeNs ts, const Daemon* d, std::string message, int priority = 6);

 private:
  const World& w_;
  std::vector<LogRecord>& out_;
};

/// Marks a record as an injected event of the truth.
inline LogRecord& annotate(LogRecord& r, EventKind k, int code = -1, int gpu = -1) {
  r.kind = static_cast<std::int8_t>(k);
  r.code = code;
  r.gpu = static_cast<std::int8_t>(gpu);
  return r;
}

/// n lower-case hex digits.
std::string random_hex(Rng& rng, int n);
/// A canonical UUID with lower-case hex digits (no prefix).
std::string random_uuid(Rng& rng);

/// Appends v right-aligned in `width` (no padding when wider).
void append_int(std::string& out, std::int64_t v, int width = 0);
/// Appends v with exactly `digits` digits, zero-padded.
void append_zero_padded(std::string& out, std::int64_t v, int digits);
/// Appends s right-aligned in width.
void append_right(std::string& out, std::string_view s, int width);
/// Appends s left-aligned in width.
void append_left(std::string& out, std::string_view s, int width);
/// Appends v with one decimal (v >= 0), right-aligned in width.
void append_tenths(std::string& out, std::int64_t tenths, int width);
/// Appends `[%5lu.%06lu]`, dmesg's stamp of a monotonic time.
void append_dmesg_stamp(std::string& out, TimeNs mono);
/// Appends the classic syslog stamp `Nov  6 09:17:01` of a local civil time (ns read as UTC).
void append_syslog_stamp(std::string& out, TimeNs local_ns);
/// Appends `2026-11-20T09:01:36+08:00` (whole seconds) of instant t at offset.
void append_rfc3339_local(std::string& out, TimeNs t, TimeNs offset, int digits = 0);
/// The `time="..."` stamp of dockerd/containerd logfmt lines: local RFC 3339 with ns, a few µs
/// before the journal received the line at ts.
std::string logfmt_time(const World& w, TimeNs ts, Rng& rng);
/// Three-letter English month abbreviations and weekday names.
extern const char* const kMonthAbbrev[12];
extern const char* const kWeekdayAbbrev[7];
/// Day of week (0 = Sunday) of a day count since 1970-01-01.
constexpr int weekday(std::int64_t days) noexcept { return static_cast<int>(((days % 7) + 11) % 7); }

}  // namespace gpucost::sim
