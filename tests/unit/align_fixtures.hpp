#pragma once
// Hand-built IngestResult tables for the align tests, filled exactly as the parsers fill them
// (records.hpp / ingest_result.hpp): ts_ns null, wall_kind + wall_raw_ns raw, mono/boot for
// kernel lines, anchors for lines stamped with both clocks.

#include <cstdint>
#include <string>
#include <vector>

#include "gpucost/align/align.hpp"
#include "gpucost/ingest/ingest_result.hpp"
#include "gpucost/records.hpp"

// The tests build rows with designated initializers that leave the other members at their
// defaults, which GCC 12 reports as missing initializers (GCC 13 no longer does).
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace gpucost::test {

/// UTC (or local-read-as-UTC) instant of a civil time.
inline TimeNs at(std::int64_t y, unsigned mo, unsigned d, unsigned h = 0, unsigned mi = 0, unsigned s = 0,
                 std::int64_t ns = 0) {
  return civil_to_ns(CivilTime{y, mo, d, h, mi, s, ns});
}
/// A kLocalNoYear raw stamp: provisional year 2000 + rollovers.
inline TimeNs no_year(unsigned mo, unsigned d, unsigned h, unsigned mi, unsigned s, int rollovers = 0) {
  return no_year_raw({rollovers, mo, d, ((h * 60 + mi) * 60 + s) * kNsPerSec});
}
/// A local time as a kLocalNoYear parser encodes it when the file's first year is `first_year`.
inline TimeNs as_no_year(TimeNs local, std::int64_t first_year) {
  const CivilTime c = ns_to_civil(local);
  return no_year_raw({c.year - first_year, c.month, c.day,
                      ((c.hour * 60 + c.minute) * 60 + c.second) * kNsPerSec + c.nanos});
}
/// A kLocalNoDate raw stamp: ns since local midnight of day 0.
inline TimeNs no_date(unsigned h, unsigned mi, unsigned s, int day = 0) {
  return (static_cast<TimeNs>(day) * 86400 + h * 3600 + mi * 60 + s) * kNsPerSec;
}
/// Seconds (with fraction) as ns: 1451.785035 -> 1451785035000.
inline TimeNs secs(double s) { return static_cast<TimeNs>(s * 1e9 + (s >= 0 ? 0.5 : -0.5)); }
/// Truncates t to a multiple of `unit` (what a stamp with that precision prints).
inline TimeNs floor_to(TimeNs t, TimeNs unit) {
  TimeNs q = t / unit;
  if (t % unit != 0 && t < 0) --q;
  return q * unit;
}

/// One event row as a parser hands it over.
struct Ev {
  std::uint32_t file = 0;
  std::uint64_t line = 1;
  EventKind kind = EventKind::xid;
  WallKind wall_kind = WallKind::kNone;
  TimeNs wall = kNoTime;
  TimeNs mono = kNoTime;
  std::string boot_id;
  std::int32_t boot_seq = 0;
  std::string text;
  std::int64_t flags = 0;
  std::int64_t code = INT64_MIN;
};

/// One anchor.
struct An {
  std::uint32_t file = 0;
  std::uint64_t line = 1;
  TimeNs mono = kNoTime;
  WallKind wall_kind = WallKind::kUtc;
  TimeNs wall = kNoTime;
  TimeNs precision = kNsPerSec;
  std::string boot_id;
  std::int32_t boot_seq = 0;
};

/// Builds an IngestResult row by row.
class Input {
 public:
  IngestResult in;

  std::uint32_t file(std::string path, FormatId format, TimeNs mtime = kNoTime) {
    InputFile f;
    f.path = path;
    f.abs_path = "/logs/" + path;
    f.mtime_ns = mtime;
    f.format = format;
    in.files.push_back(std::move(f));
    return static_cast<std::uint32_t>(in.files.size() - 1);
  }

  void event(const Ev& e) {
    Table& t = in.events;
    t.column(event_col::ts_ns).push_null();
    t.column(event_col::wall_kind).push_int(static_cast<std::int64_t>(e.wall_kind));
    t.column(event_col::wall_raw_ns).push_int_or_null(e.wall);
    t.column(event_col::mono_ns).push_int_or_null(e.mono);
    if (e.boot_id.empty()) t.column(event_col::boot_id).push_null();
    else t.column(event_col::boot_id).push_string(e.boot_id);
    t.column(event_col::boot_seq).push_int(e.boot_seq);
    t.column(event_col::kind).push_int(static_cast<std::int64_t>(e.kind));
    t.column(event_col::format).push_int(static_cast<std::int64_t>(in.files.at(e.file).format));
    t.column(event_col::file).push_int(e.file);
    t.column(event_col::line).push_int(static_cast<std::int64_t>(e.line));
    t.column(event_col::code).push_int_or_null(e.code);
    t.column(event_col::gpu).push_null();
    t.column(event_col::pid).push_null();
    t.column(event_col::process).push_null();
    t.column(event_col::ident).push_string("kernel");
    t.column(event_col::text).push_string(e.text);
    t.column(event_col::flags).push_int(e.flags);
    t.column(event_col::repeat).push_int(1);
  }

  void anchor(const An& a) {
    BootAnchor b;
    b.boot_id = a.boot_id;
    b.file = a.file;
    b.boot_seq = a.boot_seq;
    b.line = a.line;
    b.mono_ns = a.mono;
    b.wall_raw_ns = a.wall;
    b.wall_kind = a.wall_kind;
    b.precision_ns = a.precision;
    in.anchors.push_back(std::move(b));
  }

  /// A GPU sample row; sm_pct only.
  void sample(std::uint32_t file, std::uint64_t line, int gpu, WallKind wk, TimeNs raw, TimeNs interval = kNoTime,
              double sm = 50) {
    Table& t = in.samples;
    t.column(sample_col::ts_ns).push_null();
    t.column(sample_col::wall_kind).push_int(static_cast<std::int64_t>(wk));
    t.column(sample_col::wall_raw_ns).push_int_or_null(raw);
    t.column(sample_col::file).push_int(file);
    t.column(sample_col::line).push_int(static_cast<std::int64_t>(line));
    t.column(sample_col::gpu).push_int(gpu);
    t.column(sample_col::interval_ns).push_int_or_null(interval);
    for (std::size_t m = 0; m < kGpuMetricCount; ++m) {
      if (static_cast<GpuMetric>(m) == GpuMetric::sm_pct) t.column(sample_metric_col(GpuMetric::sm_pct)).push_float(sm);
      else t.column(sample_col::first_metric + m).push_null();
    }
  }

  /// A process row (ps snapshot).
  void process(std::uint32_t file, std::uint64_t line, std::int64_t snapshot, std::int64_t pid, WallKind wk, TimeNs raw) {
    Table& t = in.processes;
    for (std::size_t c = 0; c < t.column_count(); ++c) {
      switch (c) {
        case process_col::wall_kind: t.column(c).push_int(static_cast<std::int64_t>(wk)); break;
        case process_col::wall_raw_ns: t.column(c).push_int_or_null(raw); break;
        case process_col::file: t.column(c).push_int(file); break;
        case process_col::line: t.column(c).push_int(static_cast<std::int64_t>(line)); break;
        case process_col::snapshot: t.column(c).push_int(snapshot); break;
        case process_col::pid: t.column(c).push_int(pid); break;
        case process_col::command: t.column(c).push_string("python train.py"); break;
        default: t.column(c).push_null(); break;
      }
    }
  }

  void evidence(std::uint32_t file, TimeNs offset, std::uint64_t count = 1) {
    in.zone_evidence.push_back(ZoneEvidence{file, offset, count});
  }
};

/// Runs the align stage.
inline Timeline align(const IngestResult& in, AlignOptions o = {}, Diagnostics* diag = nullptr) {
  Timeline t;
  Diagnostics local;
  AlignStage(std::move(o)).run(in, t, diag ? *diag : local);
  return t;
}

/// Real kernel lines (tests/data/real/kern) used as message texts.
inline constexpr const char* kXid31 =
    "NVRM: Xid (PCI:0000:01:00): 31, pid=35097, name=SpaceEngine.exe, channel 0x0000005c, intr 00000000. MMU "
    "Fault: ENGINE GRAPHICS GPC2 GPCCLIENT_PROP_0 faulted @ 0x0_00000000. Fault is of type FAULT_PDE "
    "ACCESS_TYPE_VIRT_READ";
inline constexpr const char* kXid79 = "NVRM: Xid (PCI:0000:b3:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.";
inline constexpr const char* kAer =
    "pcieport 0000:00:03.1: AER: Correctable error message received from 0000:00:00.0";
inline constexpr const char* kAcOnline = "ACPI: AC: AC Adapter [ADP1] (on-line)";
inline constexpr const char* kSuspendEntry = "PM: suspend entry (deep)";
inline constexpr const char* kSuspendExit = "PM: suspend exit";

/// Event rows of a timeline with a given kind.
inline std::vector<std::size_t> rows_of(const Timeline& t, EventKind k) {
  std::vector<std::size_t> out;
  for (std::size_t r = 0; r < t.events.rows(); ++r)
    if (t.events.column(event_col::kind).get_int(r) == static_cast<std::int64_t>(k)) out.push_back(r);
  return out;
}

inline TimeNs ts_of(const Table& t, std::size_t r) { return t.ts().is_valid(r) ? t.ts().get_int(r) : kNoTime; }

}  // namespace gpucost::test
