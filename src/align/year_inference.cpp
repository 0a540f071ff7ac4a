// What a file's stamps do not say, filled in per file: the year of `Mmm dd hh:mm:ss` stamps,
// the date of time-only stamps (dmon -o T), the start of relative stamps (dmon without time).
// Evidence, in order: the options, the manifest, the span of the directory's dated stamps, the
// kernel's build date in a `Linux version` line (its log comes after it), the file's
// modification time (its last line was written at or before it).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>

#include "align/internal.hpp"
#include "gpucost/text.hpp"

namespace gpucost::align_detail {

namespace {

struct Span {
  TimeNs lo = kNoTime, hi = kNoTime;
  bool empty() const { return lo == kNoTime; }
  void add(TimeNs t) {
    if (t == kNoTime) return;
    if (lo == kNoTime || t < lo) lo = t;
    if (hi == kNoTime || t > hi) hi = t;
  }
  void add(const Span& s) {
    add(s.lo);
    add(s.hi);
  }
};

// How well a candidate span [lo, hi] fits the dated span d: gap first (0 when they overlap),
// then overlap; larger is better.
struct Fit {
  TimeNs gap = 0, overlap = 0;
  bool better_or_equal(const Fit& o) const { return gap != o.gap ? gap < o.gap : overlap >= o.overlap; }
  bool equal(const Fit& o) const { return gap == o.gap && overlap == o.overlap; }
};
Fit fit(TimeNs lo, TimeNs hi, const Span& d) {
  Fit f;
  f.gap = std::max<TimeNs>({0, lo - d.hi, d.lo - hi});
  f.overlap = std::min(hi, d.hi) - std::max(lo, d.lo);
  return f;
}

std::string day_text(TimeNs t) { return format_rfc3339(t, 0).substr(0, 10); }
std::string instant_text(TimeNs t) { return format_rfc3339(t, 0); }

std::int64_t current_year() {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  return ns_to_civil(std::chrono::duration_cast<std::chrono::nanoseconds>(now).count()).year;
}

// The kernel's build date in its `Linux version` line: Debian's `(2025-01-02)` at the end, or
// the build stamp `#1 SMP PREEMPT_DYNAMIC Fri Jan 10 12:34:56 UTC 2025`. kNoTime when neither.
TimeNs kernel_build_date(std::string_view text) {
  if (text.substr(0, 14) != "Linux version ") return kNoTime;
  // `(YYYY-MM-DD)`, the last one in the line.
  for (std::size_t p = text.rfind('('); p != std::string_view::npos && p > 0; p = text.rfind('(', p - 1)) {
    const std::string_view d = text.substr(p + 1);
    unsigned y, m, day;
    if (d.size() >= 11 && d[4] == '-' && d[7] == '-' && d[10] == ')' && text::digits(d, 0, 4, y) &&
        text::digits(d, 5, 2, m) && text::digits(d, 8, 2, day) && valid_stamp_date(y, m, day))
      return civil_to_ns(CivilTime{y, m, day, 0, 0, 0, 0});
  }
  // `Mmm dd HH:MM:SS [ZONE] YYYY`, or (Arch) `dd Mmm YYYY HH:MM:SS +0000`.
  std::array<std::string_view, 48> tok{};
  const std::size_t n = text::split_ws(text, tok);
  for (std::size_t i = 2; i < n; ++i) {
    const std::string_view t = tok[i];
    unsigned h, mi, se, day = 0, y = 0;
    if (t.size() != 8 || t[2] != ':' || t[5] != ':' || !text::digits(t, 0, 2, h) || !text::digits(t, 3, 2, mi) ||
        !text::digits(t, 6, 2, se))
      continue;
    const int month = parse_month_name(tok[i - 2]);
    if (month == 0) continue;
    const std::string_view before = tok[i - 1];
    if (before.size() <= 2 && text::digits(before, 0, before.size(), day)) {  // `Jan 10 12:34:56 UTC 2025`
      for (std::size_t k = i + 1; k < n && k <= i + 2 && y == 0; ++k)
        if (tok[k].size() != 4 || !text::digits(tok[k], 0, 4, y)) y = 0;
    } else if (before.size() == 4 && text::digits(before, 0, 4, y) && i >= 3) {  // `10 Jan 2025 00:39:41`
      const std::string_view d = tok[i - 3];
      if (d.size() > 2 || !text::digits(d, 0, d.size(), day)) y = 0;
    }
    if (y && valid_stamp_date(y, static_cast<unsigned>(month), day))
      return civil_to_ns(CivilTime{y, static_cast<unsigned>(month), day, h, mi, se, 0});
  }
  return kNoTime;
}

class Dater {
 public:
  Dater(const IngestResult& in, const AlignOptions& options, const Zone& zone, const std::vector<FileStamps>& stamps,
        std::vector<FileDating>& dating)
      : in_(in), options_(options), zone_(zone), stamps_(stamps), dating_(dating), conv_(zone) {}

  std::string run() {
    const std::size_t n = in_.files.size();
    dating_.assign(n, {});
    spans_.assign(n, {});
    for (std::size_t f = 0; f < n; ++f) {
      const auto& s = stamps_[f];
      for (WallKind k : {WallKind::kUtc, WallKind::kLocal}) {
        const RawRange& r = s.of(k);
        if (!r.rows) continue;
        spans_[f].add(k == WallKind::kUtc ? r.min : conv_(r.min));
        spans_[f].add(k == WallKind::kUtc ? r.max : conv_(r.max));
      }
    }
    kernel_built_.assign(n, kNoTime);
    {
      const Table& e = in_.events;
      const Column& kind = e.column(event_col::kind);
      const Column& file = e.column(event_col::file);
      const Column& text = e.column(event_col::text);
      for (std::size_t r = 0; r < e.rows(); ++r) {
        if (static_cast<EventKind>(kind.get_int(r)) != EventKind::boot || !text.is_valid(r)) continue;
        const auto f = static_cast<std::size_t>(file.get_int(r));
        const TimeNs built = kernel_build_date(text.get_string(r));
        if (f >= n || built == kNoTime) continue;
        // The latest kernel of a file bounds its later lines; the earliest of the directory bounds all.
        if (kernel_built_[f] == kNoTime || built > kernel_built_[f]) kernel_built_[f] = built;
        if (dir_built_ == kNoTime || built < dir_built_) dir_built_ = built;
      }
    }
    if (in_.manifest) {
      if (in_.manifest->start_ns) manifest_span_.add(*in_.manifest->start_ns);
      if (in_.manifest->end_ns) manifest_span_.add(*in_.manifest->end_ns);
    }
    std::string reasons;
    for (std::size_t f = 0; f < n; ++f)
      if (stamps_[f].of(WallKind::kLocalNoYear).rows) {
        const std::string why = year_of(static_cast<std::uint32_t>(f));
        if (!options_.year) reasons += fmt::format("{}{}: {} ({})", reasons.empty() ? "" : "; ", in_.files[f].path, *dating_[f].year, why);
      }
    for (std::size_t f = 0; f < n; ++f) {
      if (stamps_[f].of(WallKind::kLocalNoDate).rows) day_of(static_cast<std::uint32_t>(f));
      if (stamps_[f].of(WallKind::kRelative).rows) start_of(static_cast<std::uint32_t>(f));
    }
    if (options_.year) return fmt::format("--year {}", *options_.year);
    return reasons.empty() ? "no stamps without a year" : reasons;
  }

 private:
  // The dated span of every file but `self` (and the manifest's collection window).
  Span others(std::uint32_t self) const {
    Span d = manifest_span_;
    for (std::size_t f = 0; f < spans_.size(); ++f)
      if (f != self) d.add(spans_[f]);
    return d;
  }

  std::string year_of(std::uint32_t f) {
    const RawRange& r = stamps_[f].of(WallKind::kLocalNoYear);
    FileDating& fd = dating_[f];
    auto span_for = [&](std::int64_t y) { return Span{conv_(with_year(r.min, y)), conv_(with_year(r.max, y))}; };
    const std::int64_t k_max = rollovers_of(r.max);
    std::string why;
    if (options_.year) {
      fd.year = *options_.year;
      why = "--year";
    } else if (const Span d = others(f); !d.empty()) {
      std::int64_t best = 0;
      Fit best_fit;
      bool have = false;
      for (std::int64_t y = ns_to_civil(d.lo).year - k_max - 1; y <= ns_to_civil(d.hi).year + 1; ++y) {
        const Span s = span_for(y);
        const Fit ft = fit(s.lo, s.hi, d);
        if (!have || ft.better_or_equal(best_fit)) {  // ties go to the later year
          best = y;
          best_fit = ft;
          have = true;
        }
      }
      fd.year = best;
      why = fmt::format("closest to the dated stamps of the directory{}, {} .. {}",
                        manifest_span_.empty() ? "" : " and the manifest's collection window", day_text(d.lo), day_text(d.hi));
    } else if (const TimeNs built = kernel_built_[f] != kNoTime ? kernel_built_[f] : dir_built_; built != kNoTime) {
      // A kernel logs after it was built: the first year whose lines all come after the build
      // date (a day of slack for the zone). A pasted or copied file's modification time says
      // less than this.
      std::int64_t y = ns_to_civil(built).year - 1;
      while (span_for(y).lo + kNsPerDay < built && y < kMaxStampYear) ++y;
      fd.year = y;
      why = fmt::format("after the kernel's build date {} in its `Linux version` line{}", day_text(built),
                        kernel_built_[f] != kNoTime ? "" : " (of another file)");
    } else if (const TimeNs mtime = in_.files[f].mtime_ns; mtime != kNoTime) {
      // The latest year whose last line is not after the modification time (a day of slack
      // for a wrong zone).
      const std::int64_t y_m = ns_to_civil(mtime).year;
      fd.year = y_m - k_max;
      for (std::int64_t y = y_m + 1; y >= y_m - k_max - 1; --y)
        if (span_for(y).hi <= mtime + kNsPerDay) {
          fd.year = y;
          break;
        }
      why = fmt::format("last line at or before the file's modification time {}", instant_text(mtime));
    } else {
      fd.year = current_year() - k_max;
      why = "no dated stamps and no modification time: the current year";
    }
    const Span s = span_for(*fd.year);
    spans_[f].add(s);
    const std::int64_t last = *fd.year + k_max;
    fd.notes.push_back(fmt::format("year {} for stamps without one{} ({})",
                                   last == *fd.year ? fmt::format("{}", *fd.year) : fmt::format("{}..{}", *fd.year, last),
                                   k_max ? ", with a year change inside the file" : "", why));
    return why.substr(0, why.find(','));
  }

  void day_of(std::uint32_t f) {
    const RawRange& r = stamps_[f].of(WallKind::kLocalNoDate);
    FileDating& fd = dating_[f];
    const TimeNs mtime = in_.files[f].mtime_ns;
    auto lo_for = [&](TimeNs d) { return conv_(d + r.min); };
    auto hi_for = [&](TimeNs d) { return conv_(d + r.max); };
    auto local_day = [&](TimeNs utc) { return local_midnight(utc + zone_.offset_at(utc)); };
    std::string why;
    if (in_.manifest && in_.manifest->start_ns) {
      // The first row comes right after the collection started.
      const TimeNs s = *in_.manifest->start_ns;
      const TimeNs d0 = local_day(s);
      TimeNs best = d0;
      for (TimeNs d : {d0 - kNsPerDay, d0, d0 + kNsPerDay})
        if (std::llabs(lo_for(d) - s) < std::llabs(lo_for(best) - s)) best = d;
      fd.day0_local = best;
      why = fmt::format("manifest start {}", instant_text(s));
    } else if (const Span d = others(f); !d.empty()) {
      TimeNs first = local_day(d.lo) - kNsPerDay, last = local_day(d.hi) + kNsPerDay;
      if ((last - first) / kNsPerDay > 4000) first = last - 4000 * kNsPerDay;
      TimeNs best = first;
      Fit best_fit;
      bool best_before_mtime = false, have = false;
      for (TimeNs day = first; day <= last; day += kNsPerDay) {
        const Fit ft = fit(lo_for(day), hi_for(day), d);
        const bool before_mtime = mtime == kNoTime || hi_for(day) <= mtime + kNsPerSec;
        // Best fit; among equal fits (a short file inside a long span) the latest day that
        // ends before the modification time.
        const bool take = !have || (ft.equal(best_fit) ? (before_mtime || !best_before_mtime) : ft.better_or_equal(best_fit));
        if (take) {
          best = day;
          best_fit = ft;
          best_before_mtime = before_mtime;
          have = true;
        }
      }
      fd.day0_local = best;
      why = fmt::format("overlapping the dated stamps of the directory, {} .. {}", day_text(d.lo), day_text(d.hi));
    } else if (mtime != kNoTime) {
      // The latest day whose last row is not after the modification time.
      const TimeNs dc = local_day(mtime) - local_midnight(r.max);
      fd.day0_local = hi_for(dc) <= mtime + kNsPerSec ? dc : dc - kNsPerDay;
      why = fmt::format("last row at or before the file's modification time {}", instant_text(mtime));
    } else {
      fd.notes.push_back("time-only stamps cannot be dated (no manifest, no dated stamps, no modification time)");
      return;
    }
    spans_[f].add(Span{lo_for(fd.day0_local), hi_for(fd.day0_local)});
    fd.notes.push_back(fmt::format("date {} for the first time-only stamp ({})", day_text(fd.day0_local), why));
  }

  void start_of(std::uint32_t f) {
    const RawRange& r = stamps_[f].of(WallKind::kRelative);
    FileDating& fd = dating_[f];
    const TimeNs mtime = in_.files[f].mtime_ns;
    if (in_.manifest && in_.manifest->start_ns) {
      fd.relative_start = *in_.manifest->start_ns;
      fd.notes.push_back(fmt::format("rows without time placed from the manifest start {}", instant_text(fd.relative_start)));
    } else if (mtime != kNoTime) {
      const TimeNs interval = r.interval_at_max != kNoTime ? r.interval_at_max : kNsPerSec;
      fd.relative_start = mtime - (r.max + interval);
      fd.relative_approximate = true;
      fd.notes.push_back(fmt::format("approximate: rows without time placed so that the last one ends at the file's "
                                     "modification time {}",
                                     instant_text(mtime)));
    } else {
      fd.notes.push_back("rows without time cannot be placed (no manifest start, no modification time)");
    }
  }

  const IngestResult& in_;
  const AlignOptions& options_;
  const Zone& zone_;
  const std::vector<FileStamps>& stamps_;
  std::vector<FileDating>& dating_;
  LocalToUtc conv_;
  std::vector<Span> spans_;
  Span manifest_span_;
  std::vector<TimeNs> kernel_built_;  // per file: the build date of its latest `Linux version` line
  TimeNs dir_built_ = kNoTime;        // the earliest build date in the directory
};

}  // namespace

std::string infer_dating(const IngestResult& in, const AlignOptions& options, const Zone& zone,
                         const std::vector<FileStamps>& stamps, std::vector<FileDating>& dating) {
  return Dater(in, options, zone, stamps, dating).run();
}

}  // namespace gpucost::align_detail
