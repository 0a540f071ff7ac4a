#pragma once
/// \file align.hpp
/// The align stage: places every record on one UTC timeline. Monotonic kernel time maps to wall
/// time through boot anchors, piecewise across suspends and boots; local times take a zone
/// (`--tz`, else evident from the directory, else the machine's); missing years are inferred;
/// the same kernel message read from several sources becomes one event.

#ifndef GPUCOST_LAYER_ALIGN
#error "gpucost_align header: include it only in gpucost_align or a layer above it (docs/architecture.md, Layers)"
#endif

#include <optional>
#include <string>

#include "gpucost/align/timeline.hpp"
#include "gpucost/diagnostics.hpp"
#include "gpucost/ingest/ingest_result.hpp"

namespace gpucost {

/// Options of the align stage.
struct AlignOptions {
  std::string tz;                 ///< --tz: IANA name or ±HH:MM; empty = infer
  std::optional<int> year;        ///< --year for stamps without one
  TimeNs since = kNoTime;         ///< --since (UTC), inclusive
  TimeNs until = kNoTime;         ///< --until (UTC), exclusive
  TimeNs dedup_window_ns = 2 * kNsPerSec;  ///< wall-time window for matching copies of a message
  unsigned threads = 0;           ///< 1: one thread; else process rows are placed beside the samples (0: all cores)
};

/// Places ingest's records on one UTC timeline.
class AlignStage {
 public:
  /// Throws std::invalid_argument for an unusable --tz (a usage error).
  explicit AlignStage(AlignOptions options);
  /// Reads `in`, fills `out` (which the caller owns); notes assumptions in diag.
  void run(const IngestResult& in, Timeline& out, Diagnostics& diag) const;
  /// Like run(), but moves in's samples, events and processes into `out` instead of copying them
  /// (in's tables are left empty): the tables are held once, not twice.
  void run_consuming(IngestResult& in, Timeline& out, Diagnostics& diag) const;

 private:
  void run_impl(const IngestResult& in, IngestResult* take, Timeline& out, Diagnostics& diag) const;
  AlignOptions options_;
};

}  // namespace gpucost
