// Raw wall stamps -> UTC: the zone (cached per offset period), the inferred year of stamps
// without one, the date of stamps without one, the start of relative stamps.
#include "align/internal.hpp"

#include "gpucost/text.hpp"

namespace gpucost::align_detail {

namespace {
std::int64_t floor_div(std::int64_t a, std::int64_t b) noexcept {
  const std::int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}
}  // namespace

TimeNs local_midnight(TimeNs local) noexcept { return floor_div(local, kNsPerDay) * kNsPerDay; }

std::int64_t rollovers_of(TimeNs raw) noexcept { return no_year_stamp(raw).rollovers; }

TimeNs with_year(TimeNs raw, std::int64_t year) noexcept {
  const NoYearStamp s = no_year_stamp(raw);
  // Feb 29 in a year that has none becomes Mar 1 (days_from_civil counts on).
  return days_from_civil(year + s.rollovers, s.month, s.day) * kNsPerDay + s.time_of_day;
}

TimeNs WallClock::to_utc(WallKind kind, TimeNs raw, std::uint32_t file) {
  if (raw == kNoTime) return kNoTime;
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

std::vector<FileStamps> collect_file_stamps(const IngestResult& in) {
  std::vector<FileStamps> out(in.files.size());
  auto add = [&](std::int64_t file, std::int64_t kind, bool raw_valid, TimeNs raw, TimeNs interval) {
    if (file < 0 || static_cast<std::size_t>(file) >= out.size() || kind < 0 || kind > 5 || !raw_valid) return;
    out[static_cast<std::size_t>(file)].kinds[kind].add(raw, interval);
  };
  auto add_table = [&](const Table& t, std::size_t c_kind, std::size_t c_raw, std::size_t c_file,
                       std::size_t c_interval) {
    const Column& kinds = t.column(c_kind);
    const Column& raws = t.column(c_raw);
    const Column& files = t.column(c_file);
    for (std::size_t r = 0; r < t.rows(); ++r) {
      TimeNs interval = kNoTime;
      if (c_interval != Table::npos && t.column(c_interval).is_valid(r)) interval = t.column(c_interval).get_int(r);
      add(files.get_int(r), kinds.get_int(r), raws.is_valid(r), raws.get_int(r), interval);
    }
  };
  add_table(in.samples, sample_col::wall_kind, sample_col::wall_raw_ns, sample_col::file, sample_col::interval_ns);
  add_table(in.events, event_col::wall_kind, event_col::wall_raw_ns, event_col::file, Table::npos);
  add_table(in.processes, process_col::wall_kind, process_col::wall_raw_ns, process_col::file, Table::npos);
  for (const auto& a : in.anchors)
    add(a.file, static_cast<std::int64_t>(a.wall_kind), a.wall_raw_ns != kNoTime, a.wall_raw_ns, kNoTime);
  return out;
}

}  // namespace gpucost::align_detail
