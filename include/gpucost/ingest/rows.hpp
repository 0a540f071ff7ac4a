#pragma once
/// \file rows.hpp
/// A record as a parser builds it and the row it becomes: events (EventFields, push_event_row)
/// and GPU samples (SampleFields, push_sample_row), in the column order of the records headers
/// (records/events.hpp, records/samples.hpp). FileSink::event and FileSink::sample append
/// through them; a parser that holds a sink need not name a column.

#ifndef GPUCOST_LAYER_INGEST
#error "gpucost_ingest header: include it only in gpucost_ingest or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstdint>
#include <span>
#include <string_view>

#include "gpucost/records/events.hpp"
#include "gpucost/records/formats.hpp"
#include "gpucost/records/samples.hpp"
#include "gpucost/records/stamps.hpp"
#include "gpucost/table.hpp"
#include "gpucost/time.hpp"

namespace gpucost {

/// One event before it becomes a row (what FileSink::event appends), or read back from a row.
struct EventFields {
  EventKind kind = EventKind::user;
  WallKind wall_kind = WallKind::kNone;
  TimeNs wall_raw_ns = kNoTime;
  TimeNs mono_ns = kNoTime;
  std::string_view boot_id;
  std::int32_t boot_seq = 0;
  std::uint64_t line = 0;
  std::int64_t code = INT64_MIN;  ///< INT64_MIN: none
  std::string_view gpu;  ///< normalized PCI address or GPU index; empty: none
  std::int64_t pid = INT64_MIN;  ///< INT64_MIN: none
  std::string_view process;
  std::string_view ident;
  std::string_view text;
  std::int64_t flags = 0;
};

/// Reads row r of an event table back into fields (views into the table's dictionaries).
EventFields event_fields(const Table& events, std::size_t row);

/// Appends fields as a new row of an event table (ts null) that stands for `repeat` events.
void push_event_row(Table& events, const EventFields& f, FormatId format, std::uint32_t file, std::uint64_t repeat);

/// One GPU sample before it becomes a row of a samples table (make_sample_table()'s schema).
struct SampleFields {
  WallKind wall_kind = WallKind::kNone;
  TimeNs wall_raw_ns = kNoTime;  ///< kNoTime: null
  std::uint64_t line = 0;
  std::int64_t gpu = 0;  ///< GPU index as printed by nvidia-smi
  TimeNs interval_ns = kNoTime;  ///< kNoTime: not known yet (set once the file's interval is)
  /// kGpuMetricCount values in GpuMetric order; NaN: not sampled.
  std::span<const double> metrics;
};

/// Appends fields as a new row of a samples table (ts null: align places it) from file `file`.
void push_sample_row(Table& samples, const SampleFields& f, std::uint32_t file);

}  // namespace gpucost
