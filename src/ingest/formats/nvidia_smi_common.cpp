#include "ingest/formats/nvidia_smi_common.hpp"

#include <algorithm>
#include <array>
#include <charconv>

#include "gpucost/text.hpp"
#include "ingest/formats/blank_tokens.hpp"

namespace gpucost::formats::nvsmi {

void split_blanks(std::string_view s, std::vector<std::string_view>& out) {
  // The bit-mask cutter: the whole line in one pass, a token per two set bits.
  BlankTokens::cut_all(s, false, out);
}

bool parse_number_slow(std::string_view s, double& v) noexcept {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return false;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size();
}

bool parse_number_with_unit(std::string_view s, double& v) noexcept {
  s = text::trim(s);
  if (parse_number(s, v)) return true;
  // `45 %`, `71.23 W`, `11175 MiB`, `1936 MHz`; `16x` (link width)
  std::size_t n = 0;
  while (n < s.size() && (text::is_digit(s[n]) || s[n] == '.' || s[n] == '-' || s[n] == '+')) ++n;
  if (n == 0 || n == s.size()) return false;
  std::string_view unit = text::ltrim(s.substr(n));
  if (unit.empty() || unit.size() > 8) return false;
  for (char c : unit)
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '%' || c == '/')) return false;
  return parse_number(s.substr(0, n), v);
}

bool parse_date8(std::string_view s, CivilTime& c) noexcept {
  unsigned y = 0, m = 0, d = 0;
  if (s.size() != 8 || !text::digits(s, 0, 4, y) || !text::digits(s, 4, 2, m) || !text::digits(s, 6, 2, d))
    return false;
  if (!valid_stamp_date(y, m, d)) return false;
  c.year = y;
  c.month = m;
  c.day = d;
  return true;
}

bool parse_hms(std::string_view s, TimeNs& tod) noexcept {
  unsigned h = 0, m = 0, sec = 0;
  if (s.size() != 8 || s[2] != ':' || s[5] != ':' || !text::digits(s, 0, 2, h) || !text::digits(s, 3, 2, m) ||
      !text::digits(s, 6, 2, sec) || h > 23 || m > 59 || sec > 60)
    return false;
  tod = (static_cast<TimeNs>(h) * 3600 + m * 60 + sec) * kNsPerSec;
  return true;
}

TimeNs DayCounter::place(TimeNs tod) noexcept {
  // Twenty years of midnights are damage (rows alternating 23:59 and 00:00); stop counting there
  // so that day 0 plus the days stays in range (time.hpp).
  if (prev_ != kNoTime && tod + 12 * kNsPerHour < prev_ && days_ < 7'300) ++days_;
  prev_ = tod;
  return days_ * kNsPerDay + tod;
}

bool RoundCounter::next(std::int64_t key, bool force) {
  const bool seen =
      seen_.size() <= kLinearKeys ? std::find(seen_.begin(), seen_.end(), key) != seen_.end() : index_.count(key) != 0;
  const bool fresh = round_ < 0 || force || seen;
  if (fresh) {
    ++round_;
    seen_.clear();
    if (!index_.empty()) index_.clear();
  }
  seen_.push_back(key);
  if (seen_.size() > kLinearKeys) {
    if (index_.empty()) index_.insert(seen_.begin(), seen_.end());
    else index_.insert(key);
  }
  return fresh;
}

void StepMedian::add(TimeNs step) {
  if (step <= 0) return;
  const TimeNs ms = (step + kNsPerMs / 2) / kNsPerMs * kNsPerMs;
  auto it = std::lower_bound(counts_.begin(), counts_.end(), ms,
                             [](const auto& e, TimeNs v) { return e.first < v; });
  if (it != counts_.end() && it->first == ms) {
    ++it->second;
  } else {
    // Distinct steps are few (1 s, 2 s, and jitter of a few ms); past 4096 of them a new one is
    // dropped rather than letting memory grow with the file.
    if (counts_.size() >= 4096) return;
    counts_.insert(it, {ms, 1});
  }
  ++total_;
}

TimeNs StepMedian::median() const {
  if (total_ == 0) return kNoTime;
  const std::uint64_t half = (total_ + 1) / 2;  // lower median
  std::uint64_t seen = 0;
  for (const auto& [step, n] : counts_) {
    seen += n;
    if (seen >= half) return step;
  }
  return counts_.back().first;
}

void SampleClock::observe(bool new_round, WallKind kind, TimeNs raw) {
  if (!new_round) return;
  if (kind == WallKind::kRelative || kind == WallKind::kNone || raw == kNoTime) {
    last_kind_ = kind;
    last_round_raw_ = kNoTime;
    return;
  }
  if (kind == last_kind_ && last_round_raw_ != kNoTime) steps_.add(raw - last_round_raw_);
  last_kind_ = kind;
  last_round_raw_ = raw;
}

TimeNs SampleClock::interval(TimeNs fallback) const {
  const TimeNs m = steps_.median();
  return m == kNoTime ? fallback : m;
}

void fill_intervals(Table& samples, std::size_t first, TimeNs timed, TimeNs relative) {
  Column& kind = samples.column(sample_col::wall_kind);
  Column& interval = samples.column(sample_col::interval_ns);
  for (std::size_t r = first; r < samples.rows(); ++r)
    interval.set_int(r, static_cast<WallKind>(kind.get_int(r)) == WallKind::kRelative ? relative : timed);
}

void ColumnNotes::note(FileSink& sink, std::string_view format, std::string_view name) {
  for (const auto& s : seen_)
    if (s == name) return;
  seen_.emplace_back(name);
  sink.diagnostics().notes.push_back(fmt::format("{}: column `{}` is not read", format, name));
}

void header_tokens(std::string_view line, std::vector<std::string_view>& out) {
  std::string_view t = text::ltrim(line);
  if (!t.empty() && t.front() == '#') t.remove_prefix(1);
  split_blanks(t, out);
}

TimeColumn time_column(std::string_view h) noexcept {
  if (h == "Date") return TimeColumn::kDate;
  if (h == "Time") return TimeColumn::kTime;
  return TimeColumn::kNone;
}

MonitorHeader classify_monitor_header(std::string_view line) noexcept {
  std::string_view t = text::ltrim(line);
  if (t.empty() || t.front() != '#') return MonitorHeader::kNone;
  t.remove_prefix(1);
  std::array<std::string_view, 48> tok{};
  const std::size_t n = text::split_ws(t, tok);
  if (n < 2) return MonitorHeader::kNone;
  bool has_idx = false, has_cg = false, has_gpu = false, has_pid = false, has_metric = false, has_time = false;
  bool first_is_unit_row = tok[0] == "Idx" || tok[0] == "YYYYMMDD" || tok[0] == "HH:MM:SS";
  for (std::size_t i = 0; i < n; ++i) {
    const std::string_view w = tok[i];
    if (w == "Idx") has_idx = true;
    else if (w == "C/G") has_cg = true;
    else if (w == "gpu") has_gpu = true;
    else if (w == "pid" || w == "command") has_pid = true;
    else if (w == "Date" || w == "Time") has_time = true;
    else if (gpu_metric_from_dmon(w)) has_metric = true;
  }
  if (first_is_unit_row && has_idx) return has_cg ? MonitorHeader::kPmonUnits : MonitorHeader::kDmonUnits;
  if (!has_gpu) return MonitorHeader::kNone;
  if (has_pid) return MonitorHeader::kPmonNames;
  if (has_metric || has_time) return MonitorHeader::kDmonNames;
  return MonitorHeader::kNone;
}

void place_row(const RowStamp& s, std::int64_t round, TimeNs interval, DayCounter& days, WallKind& kind,
               TimeNs& raw) noexcept {
  if (s.has_date && s.has_time) {
    CivilTime c = s.date;
    kind = WallKind::kLocal;
    raw = civil_to_ns(c) + s.tod;
  } else if (s.has_time) {
    kind = WallKind::kLocalNoDate;
    raw = days.place(s.tod);
  } else {
    kind = WallKind::kRelative;
    constexpr TimeNs kMaxRelative = 7'300 * kNsPerDay;  // twenty years of rows: saturate (time.hpp)
    raw = interval > 0 && round > kMaxRelative / interval ? kMaxRelative : round * interval;
  }
}

}  // namespace gpucost::formats::nvsmi
