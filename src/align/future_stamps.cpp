// Dated stamps beyond what the directory can hold: a clock set a year ahead, or one entry forged
// with a future stamp (`logger` cannot, but a journal file written elsewhere can), must not date
// the files without a year nor anchor a boot (docs/robustness.md "Limits").
#include <algorithm>
#include <limits>

#include "align/internal.hpp"

namespace gpucost::align_detail {

namespace {

// The lines of one table's rows beyond their file's ceiling, per file.
void add_future_rows(std::vector<std::vector<std::uint64_t>>& lines, std::vector<FutureStamps>& out,
                     std::span<const TimeNs> ceilings, const Table& t, std::size_t c_kind, std::size_t c_raw,
                     std::size_t c_file, std::size_t c_line) {
  const ColumnReader kinds(t.column(c_kind)), raws(t.column(c_raw)), files(t.column(c_file)), at(t.column(c_line));
  for (std::size_t r = 0; r < t.rows(); ++r) {
    if (!raws.is_valid(r)) continue;
    const std::int64_t file = files.get_int(r), kind = kinds.get_int(r);
    const TimeNs raw = raws.get_int(r);
    if (!beyond_ceiling(ceilings, kind, raw, file)) continue;
    const auto f = static_cast<std::size_t>(file);
    const auto line = static_cast<std::uint64_t>(at.get_int(r));
    lines[f].push_back(line);
    if (out[f].first_kind == WallKind::kNone || line < out[f].first_line) {
      out[f].first_line = line;
      out[f].first_raw = raw;
      out[f].first_kind = static_cast<WallKind>(kind);
    }
  }
}

}  // namespace

std::vector<TimeNs> wall_ceilings(const IngestResult& in) {
  TimeNs collection_end = kNoTime;
  if (in.manifest && in.manifest->end_ns && *in.manifest->end_ns >= kPlausibleWallFloorNs)
    collection_end = *in.manifest->end_ns;
  std::vector<TimeNs> out(in.files.size(), kNoTime);
  for (std::size_t f = 0; f < in.files.size(); ++f) {
    TimeNs latest = collection_end;
    // An mtime before 2000 says nothing (an archive that zeroed it).
    const TimeNs m = in.files[f].mtime_ns;
    if (m != kNoTime && m >= kPlausibleWallFloorNs && (latest == kNoTime || m > latest)) latest = m;
    if (latest != kNoTime && latest <= std::numeric_limits<TimeNs>::max() - kFutureSlackNs) out[f] = latest + kFutureSlackNs;
  }
  return out;
}

std::vector<FutureStamps> find_future_stamps(const IngestResult& in, std::span<const TimeNs> ceilings) {
  std::vector<FutureStamps> out(in.files.size());
  if (std::all_of(ceilings.begin(), ceilings.end(), [](TimeNs c) { return c == kNoTime; })) return out;
  std::vector<std::vector<std::uint64_t>> lines(in.files.size());
  add_future_rows(lines, out, ceilings, in.samples, sample_col::wall_kind, sample_col::wall_raw_ns, sample_col::file,
                  sample_col::line);
  add_future_rows(lines, out, ceilings, in.events, event_col::wall_kind, event_col::wall_raw_ns, event_col::file,
                  event_col::line);
  add_future_rows(lines, out, ceilings, in.processes, process_col::wall_kind, process_col::wall_raw_ns,
                  process_col::file, process_col::line);
  for (const auto& a : in.anchors)
    if (a.wall_raw_ns != kNoTime && beyond_ceiling(ceilings, static_cast<std::int64_t>(a.wall_kind), a.wall_raw_ns, a.file)) {
      lines[a.file].push_back(a.line);
      if (out[a.file].first_kind == WallKind::kNone || a.line < out[a.file].first_line) {
        out[a.file].first_line = a.line;
        out[a.file].first_raw = a.wall_raw_ns;
        out[a.file].first_kind = a.wall_kind;
      }
    }
  for (std::size_t f = 0; f < lines.size(); ++f) {
    auto& v = lines[f];
    if (v.empty()) continue;
    std::sort(v.begin(), v.end());
    out[f].lines = static_cast<std::uint64_t>(std::unique(v.begin(), v.end()) - v.begin());
  }
  return out;
}

}  // namespace gpucost::align_detail
