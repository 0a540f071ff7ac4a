#include "gpucost/align/align.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "gpucost/align/zone.hpp"

namespace gpucost {

AlignStage::AlignStage(AlignOptions options) : options_(std::move(options)) {
  if (!options_.tz.empty()) {
    Zone z;
    std::string err;
    if (!Zone::parse(options_.tz, z, err)) throw std::invalid_argument(err);
  }
}

namespace {

TimeNs with_year(TimeNs provisional, std::int64_t year) {
  CivilTime c = ns_to_civil(provisional);
  c.year = year + (c.year - 2000);
  if (!valid_date(c.year, c.month, c.day)) c.day = 28;
  return civil_to_ns(c);
}

TimeNs place_wall(WallKind kind, TimeNs raw, const Zone& zone, TimeNs mtime, std::optional<int> year) {
  switch (kind) {
    case WallKind::kNone: return kNoTime;
    case WallKind::kUtc: return raw;
    case WallKind::kLocal: return zone.to_utc(raw);
    case WallKind::kLocalNoYear: {
      const std::int64_t y = year ? *year : (mtime != kNoTime ? ns_to_civil(mtime).year : 1970);
      return zone.to_utc(with_year(raw, y));
    }
    case WallKind::kLocalNoDate: {
      if (mtime == kNoTime) return kNoTime;
      const TimeNs local_mtime = mtime + zone.offset_at(mtime);
      const TimeNs midnight = local_mtime - ((local_mtime % kNsPerDay) + kNsPerDay) % kNsPerDay;
      return zone.to_utc(midnight + raw);
    }
    case WallKind::kRelative: return mtime == kNoTime ? kNoTime : mtime + raw;
  }
  return kNoTime;
}

template <typename Less>
void sort_table(Table& t, Less less) {
  std::vector<std::uint32_t> order(t.rows());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), less);
  t.permute(order);
}

}  // namespace

void AlignStage::run(const IngestResult& in, Timeline& out, Diagnostics& diag) const {
  Zone zone;
  std::string err;
  if (!options_.tz.empty()) {
    Zone::parse(options_.tz, zone, err);
    out.zone_reason = "--tz";
  } else {
    zone = Zone::system();
    out.zone_reason = "the machine's zone (no --tz given)";
  }
  out.zone_name = zone.name();
  out.year_reason = options_.year ? "--year" : "each file's modification time";
  diag.notes.push_back("zone " + out.zone_name + ": " + out.zone_reason);

  out.files = in.files;
  out.devices = in.devices;
  out.profiles = in.profiles;
  out.manifest = in.manifest;

  auto mtime_of = [&](std::int64_t file) { return file >= 0 && static_cast<std::size_t>(file) < in.files.size()
                                                        ? in.files[file].mtime_ns : kNoTime; };

  out.samples = in.samples;
  Table& s = out.samples;
  for (std::size_t r = 0; r < s.rows(); ++r) {
    const auto kind = static_cast<WallKind>(s.column(sample_col::wall_kind).get_int(r));
    const TimeNs raw = s.column(sample_col::wall_raw_ns).is_valid(r) ? s.column(sample_col::wall_raw_ns).get_int(r) : kNoTime;
    const TimeNs ts = place_wall(kind, raw, zone, mtime_of(s.column(sample_col::file).get_int(r)), options_.year);
    if (ts == kNoTime) s.ts().set_null(r); else s.ts().set_int(r, ts);
    if (!s.column(sample_col::interval_ns).is_valid(r)) s.column(sample_col::interval_ns).set_int(r, kNsPerSec);
  }

  out.events = in.events;
  Table& e = out.events;
  for (std::size_t r = 0; r < e.rows(); ++r) {
    const auto kind = static_cast<WallKind>(e.column(event_col::wall_kind).get_int(r));
    const TimeNs raw = e.column(event_col::wall_raw_ns).is_valid(r) ? e.column(event_col::wall_raw_ns).get_int(r) : kNoTime;
    TimeNs ts = place_wall(kind, raw, zone, mtime_of(e.column(event_col::file).get_int(r)), options_.year);
    if (ts == kNoTime && e.column(event_col::mono_ns).is_valid(r)) {
      const TimeNs mono = e.column(event_col::mono_ns).get_int(r);
      const BootAnchor* best = nullptr;
      for (const auto& a : in.anchors)
        if (!best || std::llabs(a.mono_ns - mono) < std::llabs(best->mono_ns - mono)) best = &a;
      if (best) {
        const TimeNs wall = place_wall(best->wall_kind, best->wall_raw_ns, zone,
                                       mtime_of(best->file), options_.year);
        if (wall != kNoTime) ts = wall - best->mono_ns + mono;
      }
    }
    if (ts == kNoTime) e.ts().set_null(r); else e.ts().set_int(r, ts);
  }
  sort_table(e, [&](std::uint32_t a, std::uint32_t b) {
    const bool va = e.ts().is_valid(a), vb = e.ts().is_valid(b);
    if (va != vb) return va;
    if (va && e.ts().get_int(a) != e.ts().get_int(b)) return e.ts().get_int(a) < e.ts().get_int(b);
    return false;
  });
  out.origin_begin.clear();
  out.origins.clear();
  for (std::size_t r = 0; r < e.rows(); ++r) {
    out.origin_begin.push_back(static_cast<std::uint32_t>(out.origins.size()));
    out.origins.push_back({static_cast<std::uint32_t>(e.column(event_col::file).get_int(r)),
                           static_cast<std::uint64_t>(e.column(event_col::line).get_int(r))});
  }
  out.origin_begin.push_back(static_cast<std::uint32_t>(out.origins.size()));

  out.processes = in.processes;
  sort_table(s, [&](std::uint32_t a, std::uint32_t b) {
    if (s.ts().get_int(a) != s.ts().get_int(b)) return s.ts().get_int(a) < s.ts().get_int(b);
    return s.column(sample_col::gpu).get_int(a) < s.column(sample_col::gpu).get_int(b);
  });
  for (std::size_t r = 0; r < s.rows(); ++r) {
    if (!s.ts().is_valid(r)) continue;
    const TimeNs t = s.ts().get_int(r);
    if (out.first_ns == kNoTime || t < out.first_ns) out.first_ns = t;
    if (out.last_ns == kNoTime || t > out.last_ns) out.last_ns = t;
  }
}

}  // namespace gpucost
