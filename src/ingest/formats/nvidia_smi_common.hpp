#pragma once
// Helpers shared by the nvidia-smi parsers (dmon, pmon, --query-gpu, -q): field splitting, null
// values, numbers, the Date/Time columns of dmon and pmon, sampling rounds and the inference of
// the sampling interval. Everything here is allocation-free per row once buffers have grown.

#ifndef GPUCOST_LAYER_INGEST
#error "gpucost_ingest header: include it only in gpucost_ingest or a layer above it (docs/architecture.md, Layers)"
#endif

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "gpucost/ingest/format.hpp"

namespace gpucost::formats::nvsmi {

/// The --query-gpu fields scripts/collect-logs.sh asks for (`--format=csv,noheader`): a
/// --query-gpu file without a header line binds to this list when its rows have as many fields.
inline constexpr std::string_view kCollectQueryFields =
    "timestamp,index,name,pci.bus_id,driver_version,pstate,temperature.gpu,utilization.gpu,"
    "utilization.memory,memory.used,memory.total,power.draw,power.limit,clocks.sm,clocks.mem,fan.speed";

/// Splits s on blanks into out (cleared first; its capacity is reused between rows).
void split_blanks(std::string_view s, std::vector<std::string_view>& out);

/// True for what nvidia-smi prints instead of a value: `-`, `N/A`, and anything in brackets
/// (`[N/A]`, `[Not Supported]`, `[Unknown Error]`, ...).
inline bool is_null_value(std::string_view v) noexcept {
  if (v.size() == 1) return v[0] == '-';
  if (v == "N/A") return true;
  return v.size() >= 2 && v.front() == '[' && v.back() == ']';
}

/// parse_number for what is not a plain run of digits (signs, decimals, exponents).
bool parse_number_slow(std::string_view s, double& v) noexcept;

/// Parses a whole field as a number; false when it is not one. Most dmon values are small
/// integers, which skip from_chars.
inline bool parse_number(std::string_view s, double& v) noexcept {
  if (s.empty() || s.size() > 15) return parse_number_slow(s, v);
  std::int64_t n = 0;
  for (const char c : s) {
    if (c < '0' || c > '9') return parse_number_slow(s, v);
    n = n * 10 + (c - '0');
  }
  v = static_cast<double>(n);
  return true;
}

/// Parses a number that may carry a unit after one space (`45 %`, `71.23 W`, `11175 MiB`, `16x`).
bool parse_number_with_unit(std::string_view s, double& v) noexcept;

/// `YYYYMMDD` (dmon/pmon `-o D`) into the date fields of c; false unless a real date.
bool parse_date8(std::string_view s, CivilTime& c) noexcept;

/// `HH:MM:SS` (dmon/pmon `-o T`) into ns since midnight; false when malformed.
bool parse_hms(std::string_view s, TimeNs& tod) noexcept;

/// Local days for time-of-day stamps (`-o T` without a date): a jump back by more than 12 h is a
/// midnight rollover, so the day advances.
class DayCounter {
 public:
  /// The stamp as ns since local midnight of day 0.
  TimeNs place(TimeNs tod) noexcept;

 private:
  TimeNs prev_ = kNoTime;
  std::int64_t days_ = 0;
};

/// Sampling rounds: nvidia-smi prints one row per GPU per interval, so a round ends when a GPU
/// key repeats (rows for GPUs 0,1,2,0: the second 0 starts round 1).
class RoundCounter {
 public:
  /// Registers a row's key; returns true when the row starts a new round (the key repeats, or
  /// `force` says the caller saw a boundary of its own).
  bool next(std::int64_t key, bool force = false);
  /// Index of the current round (0 for the first row's round).
  std::int64_t round() const noexcept { return round_ < 0 ? 0 : round_; }
  /// Position of the last key within its round (0-based).
  std::size_t position() const noexcept { return seen_.empty() ? 0 : seen_.size() - 1; }

 private:
  // A round's keys: searched in place while few (a round is one row per GPU), and through a hash
  // set once a round holds more (pmon: a row per process, 100 000 in a hostile interval), so
  // that a round costs what it holds, not its square.
  static constexpr std::size_t kLinearKeys = 32;
  std::vector<std::int64_t> seen_;
  std::unordered_set<std::int64_t> index_;  // seen_'s keys, once it holds more than kLinearKeys
  std::int64_t round_ = -1;
};

/// Median of positive steps, kept as a histogram at millisecond resolution (bounded memory even
/// for files with millions of rounds).
class StepMedian {
 public:
  void add(TimeNs step);
  /// The median step, or kNoTime when no step was added.
  TimeNs median() const;

 private:
  std::vector<std::pair<TimeNs, std::uint64_t>> counts_;  // sorted by step
  std::uint64_t total_ = 0;
};

/// Places rows in time and learns the sampling interval of a file from its timed rounds.
class SampleClock {
 public:
  /// Records the stamp of a row (after the row's round was decided). Only the first row of each
  /// round gives a step: the difference to the previous round's first stamp of the same kind.
  void observe(bool new_round, WallKind kind, TimeNs raw);
  /// The inferred interval of timed rows, or `fallback` when the file gave no positive step.
  TimeNs interval(TimeNs fallback) const;

 private:
  StepMedian steps_;
  WallKind last_kind_ = WallKind::kNone;
  TimeNs last_round_raw_ = kNoTime;
};

/// Fills the interval_ns column of the sample rows [first, end): rows with a wall stamp get
/// `timed`, kRelative rows get `relative`.
void fill_intervals(Table& samples, std::size_t first, TimeNs timed, TimeNs relative);

/// Remembers which unread column names were already noted, so each is noted once per file.
class ColumnNotes {
 public:
  /// Adds "<format>: column `name` is not read" to the file's notes, once per name.
  void note(FileSink& sink, std::string_view format, std::string_view name);

 private:
  std::vector<std::string> seen_;
};

/// Reports a problem, formatting the reason only when the diagnostics keep a sample of it.
template <typename... Args>
void report(FileSink& sink, const Line& line, Problem p, fmt::format_string<Args...> f, Args&&... args) {
  if (Diagnostics::wants_sample(sink.diagnostics(), p))
    sink.problem(line, p, fmt::format(f, std::forward<Args>(args)...));
  else
    sink.problem(line, p, {});
}

/// What a `#` line of nvidia-smi dmon or pmon is.
enum class MonitorHeader : std::uint8_t {
  kNone,        ///< not a dmon/pmon header
  kDmonNames,  ///< `# gpu pwr gtemp ...`, `#Date Time gpu ...`
  kDmonUnits,  ///< `# Idx W C ...`, `#YYYYMMDD HH:MM:SS Idx ...`
  kPmonNames,  ///< `# gpu pid type sm mem ... command`
  kPmonUnits,  ///< `# Idx # C/G % ... name`
};

/// Classifies a line that starts with `#` (leading blanks allowed).
MonitorHeader classify_monitor_header(std::string_view line) noexcept;

/// The tokens of a `#` header line after the `#` (`#Date Time gpu` and `# gpu` alike).
void header_tokens(std::string_view line, std::vector<std::string_view>& out);

/// Role of a Date/Time column in a dmon or pmon header.
enum class TimeColumn : std::uint8_t { kNone, kDate, kTime };
TimeColumn time_column(std::string_view header_name) noexcept;

/// The wall-clock stamp of one dmon/pmon row, from its Date and Time fields.
struct RowStamp {
  bool has_date = false, has_time = false;
  CivilTime date;     ///< date part (when has_date)
  TimeNs tod = 0;     ///< ns since midnight (when has_time)
};

/// Turns a row's stamp into (kind, raw): Date+Time -> kLocal, Time only -> kLocalNoDate (days
/// counted by `days`), otherwise kRelative at round * interval (a date alone cannot place a row
/// within its day).
void place_row(const RowStamp& s, std::int64_t round, TimeNs interval, DayCounter& days, WallKind& kind,
               TimeNs& raw) noexcept;

/// Numbers the GPUs of a report that printed no minor number (`nvidia-smi -q -d ...`, an old
/// driver, a `-q -x` without `<minor_number>`) by their place in the report, which lists GPUs in
/// nvidia-smi's order (by PCI bus id), unless another GPU of the file already holds that number.
/// `Entry` is any type with a `GpuDevice dev`; returns how many were numbered so.
template <typename Entry>
std::size_t number_by_report_order(std::vector<Entry>& devices) {
  std::size_t unnumbered = 0;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    GpuDevice& d = devices[i].dev;
    if (d.index) continue;
    bool taken = false;
    for (const auto& o : devices) taken |= o.dev.index && *o.dev.index == static_cast<int>(i);
    if (taken) continue;
    d.index = static_cast<int>(i);
    ++unnumbered;
  }
  return unnumbered;
}

}  // namespace gpucost::formats::nvsmi
