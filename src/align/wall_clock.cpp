// Raw wall stamps -> UTC: the zone (cached per offset period), the inferred year of stamps
// without one, the date of stamps without one, the start of relative stamps.
#include "align/internal.hpp"

#include "gpucost/parallel.hpp"
#include "gpucost/text.hpp"

namespace gpucost::align_detail {

TimeNs local_midnight(TimeNs local) noexcept { return floor_div(local, kNsPerDay) * kNsPerDay; }

std::int64_t rollovers_of(TimeNs raw) noexcept { return no_year_stamp(raw).rollovers; }

TimeNs with_year(TimeNs raw, std::int64_t year) noexcept {
  const NoYearStamp s = no_year_stamp(raw);
  // Feb 29 in a year that has none becomes Mar 1 (days_from_civil counts on).
  return days_from_civil(year + s.rollovers, s.month, s.day) * kNsPerDay + s.time_of_day;
}

TimeNs WallClock::to_utc(WallKind kind, TimeNs raw, std::uint32_t file) {
  if (raw == kNoTime) return kNoTime;
  if (beyond_ceiling(ceilings_, static_cast<std::int64_t>(kind), raw, file)) return kNoTime;
  const FileDating* fd = file < dating_->size() ? &(*dating_)[file] : nullptr;
  switch (kind) {
    case WallKind::kNone: return kNoTime;
    case WallKind::kUtc: return raw;
    case WallKind::kLocal: return local_(raw);
    case WallKind::kLocalNoYear:
      if (!fd || !fd->year) return kNoTime;
      return local_(with_year(raw, *fd->year));
    case WallKind::kLocalNoDate:
      if (!fd || fd->day0_local == kNoTime) return kNoTime;
      return local_(fd->day0_local + raw);
    case WallKind::kRelative:
      if (!fd || fd->relative_start == kNoTime) return kNoTime;
      return fd->relative_start + raw;
  }
  return kNoTime;
}

TimeNs WallClock::later_reading(TimeNs local, TimeNs earlier, TimeNs not_before) const {
  TimeNs best = earlier;
  for (const TimeNs o : zone_->offsets_between(earlier, earlier + kNsPerDay)) {
    const TimeNs u = local - o;
    if (u > earlier && u >= not_before && zone_->offset_at(u) == o && (best == earlier || u < best)) best = u;
  }
  return best;
}

Placement WallClock::placement_of(WallKind kind, bool unreliable) noexcept {
  if (unreliable) return Placement::kApproximate;
  switch (kind) {
    case WallKind::kUtc: return Placement::kUtcWall;
    case WallKind::kLocal:
    case WallKind::kLocalNoYear:
    case WallKind::kLocalNoDate: return Placement::kLocalWall;
    case WallKind::kRelative: return Placement::kApproximate;
    case WallKind::kNone: break;
  }
  return Placement::kNone;
}

MessageKey message_key(const Table& events, std::size_t row) {
  std::string_view text = events.column(event_col::text).get_string(row);
  if (const auto nl = text.find('\n'); nl != std::string_view::npos) text = text.substr(0, nl);
  return {events.column(event_col::kind).get_int(row), text::trim(text)};
}

namespace {

// The stamps of one table's rows, added to `out` (per file, per kind).
void add_table_stamps(std::vector<FileStamps>& out, std::span<const TimeNs> ceilings, const Table& t,
                      std::size_t c_kind, std::size_t c_raw, std::size_t c_file, std::size_t c_interval) {
  const ColumnReader kinds(t.column(c_kind)), raws(t.column(c_raw)), files(t.column(c_file));
  const bool has_interval = c_interval != Table::npos;
  const ColumnReader intervals(t.column(has_interval ? c_interval : c_kind));
  // The rows of one ps snapshot or sampling round share file, kind, stamp and interval: adding
  // such a row again to the range it was just added to only counts it (its stamp is the range's
  // maximum or below it already, with that interval).
  RawRange* last = nullptr;
  std::int64_t last_file = 0, last_kind = 0;
  TimeNs last_raw = 0, last_interval = 0;
  for (std::size_t r = 0; r < t.rows(); ++r) {
    if (!raws.is_valid(r)) continue;
    const std::int64_t file = files.get_int(r), kind = kinds.get_int(r);
    const TimeNs raw = raws.get_int(r), interval = has_interval && intervals.is_valid(r) ? intervals.get_int(r) : kNoTime;
    if (last && file == last_file && kind == last_kind && raw == last_raw && interval == last_interval) {
      ++last->rows;
      continue;
    }
    if (beyond_ceiling(ceilings, kind, raw, file)) continue;
    last = range_of(out, file, kind);
    if (!last) continue;
    last->add(raw, interval);
    last_file = file;
    last_kind = kind;
    last_raw = raw;
    last_interval = interval;
  }
}

}  // namespace

RawRange* range_of(std::vector<FileStamps>& stamps, std::int64_t file, std::int64_t kind) noexcept {
  if (file < 0 || static_cast<std::size_t>(file) >= stamps.size() || kind < 0 || kind > 5) return nullptr;
  return &stamps[static_cast<std::size_t>(file)].kinds[kind];
}

std::vector<FileStamps> collect_file_stamps(const IngestResult& in, std::span<const TimeNs> ceilings,
                                            unsigned threads) {
  std::vector<FileStamps> out(in.files.size()), of_processes(in.files.size());
  // Millions of process rows are read on a thread of their own beside the samples and events;
  // their ranges are added after those, as one pass over the tables in turn would add them.
  auto processes = [&] {
    add_table_stamps(of_processes, ceilings, in.processes, process_col::wall_kind, process_col::wall_raw_ns, process_col::file,
                     Table::npos);
  };
  Beside beside(threads, in.processes.rows() >= 100'000, processes);
  add_table_stamps(out, ceilings, in.samples, sample_col::wall_kind, sample_col::wall_raw_ns, sample_col::file,
                   sample_col::interval_ns);
  add_table_stamps(out, ceilings, in.events, event_col::wall_kind, event_col::wall_raw_ns, event_col::file, Table::npos);
  beside.finish();
  for (std::size_t f = 0; f < out.size(); ++f)
    for (std::size_t k = 0; k < 6; ++k) out[f].kinds[k].add(of_processes[f].kinds[k]);
  for (const auto& a : in.anchors)
    if (a.wall_raw_ns != kNoTime && !beyond_ceiling(ceilings, static_cast<std::int64_t>(a.wall_kind), a.wall_raw_ns, a.file))
      if (RawRange* range = range_of(out, a.file, static_cast<std::int64_t>(a.wall_kind))) range->add(a.wall_raw_ns, kNoTime);
  return out;
}

}  // namespace gpucost::align_detail
