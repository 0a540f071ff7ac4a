#pragma once
/// \file timeline.hpp
/// What the align stage produces: every record on one UTC timeline, events deduplicated across
/// dmesg, kern.log and the journal, and the assumptions that placing them needed.

#ifndef GPUCOST_LAYER_ALIGN
#error "gpucost_align header: include it only in gpucost_align or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpucost/ingest/ingest_result.hpp"
#include "gpucost/records.hpp"
#include "gpucost/table.hpp"

namespace gpucost {

/// Where one copy of an event was read.
struct EventOrigin {
  std::uint32_t file = 0;
  std::uint64_t line = 0;
};

/// One boot seen in the logs.
struct BootSegment {
  std::string boot_id;             ///< as named by the journal, else `boot-N`
  TimeNs boot_wall_ns = kNoTime;   ///< UTC instant of monotonic 0 (before any suspend)
  std::size_t anchors = 0;         ///< anchors used
  std::size_t epochs = 1;          ///< offset segments (1 + resumes seen)
};

/// A suspend seen in the logs, with its duration when both ends are known.
struct SuspendInterval {
  TimeNs begin_ns = kNoTime;
  TimeNs end_ns = kNoTime;
};

/// The aligned, deduplicated data that features are computed from.
struct Timeline {
  std::vector<InputFile> files;
  /// GPU samples sorted by (ts, gpu, file, line); rows that could not be placed are dropped and
  /// counted in diagnostics. interval_ns is filled for every row.
  Table samples = make_sample_table();
  /// Distinct events sorted by (ts, file, line); ts null (unplaceable) rows come last.
  Table events = make_event_table();
  /// For event row i, its copies are origins[origin_begin[i] .. origin_begin[i+1]).
  std::vector<std::uint32_t> origin_begin;
  std::vector<EventOrigin> origins;
  /// Process rows sorted by (ts, snapshot, pid).
  Table processes = make_process_table();
  std::vector<GpuDevice> devices;
  std::vector<ProfilerSummary> profiles;
  /// Host power samples placed in UTC (ts_ns) inside --since/--until, sorted by (ts, file, line);
  /// samples that could not be placed are dropped.
  std::vector<HostPowerSample> host_power;
  std::optional<Manifest> manifest;
  std::vector<BootSegment> boots;
  std::vector<SuspendInterval> suspends;

  std::string zone_name;    ///< zone used for local-time stamps
  std::string zone_reason;  ///< why that zone (`--tz`, RFC 3339 offsets, matched messages, system)
  std::string year_reason;  ///< how missing years were chosen
  TimeNs window_begin = kNoTime, window_end = kNoTime;  ///< --since/--until applied (UTC)
  TimeNs first_ns = kNoTime, last_ns = kNoTime;         ///< time covered by placed records
  /// The time of the last stamped line of each file and boot, of any kind (recognized or not),
  /// sorted: how far the logs reach, where the last recognized event may be hours earlier.
  std::vector<TimeNs> log_ends;
};

}  // namespace gpucost
