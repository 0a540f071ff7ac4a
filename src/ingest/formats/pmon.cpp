// nvidia-smi pmon: per-process GPU use, one row per process per GPU per interval, under `#`
// header lines (`# gpu pid type sm mem enc dec command`; `-s um` adds fb, newer drivers jpg/ofa,
// `-o DT` Date/Time). Rows go to the process table; idle GPUs print a row of dashes that carries
// no process and is accepted without a process row. Each GPU of each interval is also a GPU
// sample row: its processes' `sm` and `mem` summed (at most 100 %; 0 for a dash row, no process
// ran), with no power, temperature or clock. A directory of pmon alone then has GPU samples;
// where dmon, --query-gpu or dcgmi dmon sample the GPU too, align keeps theirs (the registered
// sample priority of pmon is the last).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <string>
#include <vector>

#include "gpucost/text.hpp"
#include "ingest/formats/formats.hpp"
#include "ingest/formats/nvidia_smi_common.hpp"

namespace gpucost::formats {
namespace {

using nvsmi::MonitorHeader;

enum class Role : std::uint8_t { kUnread, kGpu, kPid, kType, kSm, kMem, kCommand, kDate, kTime };

Role role_of(std::string_view name) {
  if (name == "gpu") return Role::kGpu;
  if (name == "pid") return Role::kPid;
  if (name == "type") return Role::kType;
  if (name == "sm") return Role::kSm;
  if (name == "mem") return Role::kMem;
  if (name == "command") return Role::kCommand;
  switch (nvsmi::time_column(name)) {
    case nvsmi::TimeColumn::kDate: return Role::kDate;
    case nvsmi::TimeColumn::kTime: return Role::kTime;
    default: return Role::kUnread;
  }
}

// Columns pmon prints that the process table has no place for (engine shares, per-process memory).
bool known_unstored(std::string_view name) {
  for (std::string_view k : {"type", "enc", "dec", "jpg", "ofa", "fb", "ccpm"})
    if (name == k) return true;
  return false;
}

bool is_process_type(std::string_view w) {
  return w == "C" || w == "G" || w == "C+G" || w == "M" || w == "M+C" || w == "M+G" || w == "-";
}

// A pmon data row: [date] [time] gpu pid|- type ... (the type column tells it from dmon rows).
bool looks_like_pmon_row(std::string_view line) {
  std::array<std::string_view, 8> tok{};
  const std::size_t n = text::split_ws(line, tok);
  if (n < 4) return false;
  std::size_t i = 0;
  CivilTime c;
  TimeNs tod;
  if (nvsmi::parse_date8(tok[i], c)) ++i;
  if (i < n && nvsmi::parse_hms(tok[i], tod)) ++i;
  if (i + 3 > n) return false;
  const auto gpu = text::to_int<int>(tok[i]);
  if (!gpu || *gpu < 0 || *gpu > 1024) return false;
  if (tok[i + 1] != "-" && !text::to_int(tok[i + 1])) return false;
  return is_process_type(tok[i + 2]);
}

// Real lines of the format, with what the parser makes of them (tests/unit/format_samples_test.cpp).
constexpr FormatSample kSamples[] = {
    {"pmon.txt", "tests/data/gpu/pmon-default-idle-2gpu.txt",
     R"smp(# gpu        pid  type    sm   mem   enc   dec   command
# Idx          #   C/G     %     %     %     %   name
    0      21433     C    97    54     -     -   python3        
    1          -     -     -     -     -     -   -              
    0      21433     C    98    55     -     -   python3        
    0       2101     G     1     0     -     -   Xorg           
    1          -     -     -     -     -     -   -              
    0      21433     C    96    53     -     -   python3        
    0       2101     G     -     -     -     -   Xorg           
    1       3377     G     2     1     -     -   Web Content    
)smp",
     12},  // 6 process rows, and 6 GPU sample rows (2 GPUs in each of 3 intervals)
};

class Format final : public LogFormat {
 public:
  FormatId id() const noexcept override { return FormatId::pmon; }
  std::span<const FormatSample> samples() const noexcept override { return kSamples; }

  int score(std::string_view line) const noexcept override {
    switch (nvsmi::classify_monitor_header(line)) {
      case MonitorHeader::kPmonNames: return 100;
      case MonitorHeader::kPmonUnits: return 90;
      case MonitorHeader::kNone: break;
      default: return 0;
    }
    return looks_like_pmon_row(line) ? 30 : 0;
  }

  void parse(LineSource& src, FileSink& sink) const override;
};

class PmonParser {
 public:
  explicit PmonParser(FileSink& sink) : sink_(sink), first_sample_(sink.samples().rows()) {}

  // The last interval's GPU samples, and the sampling interval as dmon infers it.
  void finish() {
    emit_round();
    if (sink_.samples().rows() == first_sample_) return;
    const TimeNs pasted = sink_.shell_hints().interval_ns;
    const TimeNs fallback = pasted != kNoTime ? pasted : sink_.options().default_interval_ns;
    nvsmi::fill_intervals(sink_.samples(), first_sample_, pasted != kNoTime ? pasted : clock_.interval(fallback),
                          fallback);
    sink_.diagnostics().notes.push_back(fmt::format(
        "pmon: {} GPU sample rows, one per GPU per interval: the sum of its processes' sm and mem (at most 100 %, 0 "
        "when no process ran); no power, temperature or clocks. dmon, --query-gpu or dcgmi dmon rows of the same GPU "
        "and time come first",
        sink_.samples().rows() - first_sample_));
  }

  void line(const Line& line) {
    const std::string_view t = text::trim(line.text);
    if (t.empty()) return;
    if (t.front() == '#') return header(line, t);
    if (roles_.empty()) {
      sink_.problem(line, Problem::no_header, "pmon row before any `# gpu pid ...` header line");
      return;
    }
    row(line, t);
  }

 private:
  void header(const Line& line, std::string_view t) {
    switch (nvsmi::classify_monitor_header(t)) {
      case MonitorHeader::kPmonUnits:
        sink_.accept();
        return;
      case MonitorHeader::kPmonNames:
        bind(t);
        sink_.accept();
        return;
      default:
        sink_.problem(line, Problem::unparsable_line, "`#` line that is no pmon header");
        return;
    }
  }

  void bind(std::string_view t) {
    nvsmi::header_tokens(t, fields_);
    roles_.clear();
    names_.clear();
    for (const std::string_view name : fields_) {
      names_.emplace_back(name);
      roles_.push_back(role_of(name));
      if (roles_.back() == Role::kUnread && !known_unstored(name)) notes_.note(sink_, "pmon", name);
    }
  }

  // The command is the last column and may hold blanks: it takes the rest of the line.
  bool split_row(std::string_view t) {
    fields_.clear();
    const bool command_last = !roles_.empty() && roles_.back() == Role::kCommand;
    std::string_view rest = t;
    while (!rest.empty()) {
      if (command_last && fields_.size() + 1 == roles_.size()) {
        fields_.push_back(text::trim(rest));
        return true;
      }
      fields_.push_back(text::next_token(rest));
    }
    return fields_.size() == roles_.size();
  }

  void row(const Line& line, std::string_view t) {
    if (!split_row(t)) {
      nvsmi::report(sink_, line, Problem::column_mismatch, "row has {} fields, header has {}", fields_.size(),
                    roles_.size());
      return;
    }
    std::int64_t gpu = INT64_MIN, pid = INT64_MIN;
    double sm = kNaN, mem = kNaN;
    std::string_view command;
    nvsmi::RowStamp stamp;
    for (std::size_t i = 0; i < fields_.size(); ++i) {
      const std::string_view f = fields_[i];
      switch (roles_[i]) {
        case Role::kGpu: {
          const auto g = text::to_int(f);
          if (!g || *g < 0 || *g > 0xffff)  // a round key holds it in 16 bits below the pid's 32
            return nvsmi::report(sink_, line, Problem::bad_number, "column `gpu` holds `{}`, not a GPU index", f);
          gpu = *g;
          break;
        }
        case Role::kPid: {
          if (f == "-") break;
          const auto p = text::to_int(f);
          if (!p || *p < 0 || *p >= 0xffffffffLL)  // pids are 32-bit; all ones marks "no process"
            return nvsmi::report(sink_, line, Problem::bad_number, "column `pid` holds `{}`, not a process id", f);
          pid = *p;
          break;
        }
        case Role::kSm:
        case Role::kMem: {
          double& v = roles_[i] == Role::kSm ? sm : mem;
          if (nvsmi::is_null_value(f)) break;
          if (!nvsmi::parse_number(f, v))
            return nvsmi::report(sink_, line, Problem::bad_number, "column `{}` holds `{}`, not a number", names_[i], f);
          break;
        }
        case Role::kCommand:
          command = f;
          break;
        case Role::kDate:
          if (!nvsmi::parse_date8(f, stamp.date))
            return nvsmi::report(sink_, line, Problem::bad_timestamp, "column `Date` holds `{}`, not YYYYMMDD", f);
          stamp.has_date = true;
          break;
        case Role::kTime:
          if (!nvsmi::parse_hms(f, stamp.tod))
            return nvsmi::report(sink_, line, Problem::bad_timestamp, "column `Time` holds `{}`, not HH:MM:SS", f);
          stamp.has_time = true;
          break;
        case Role::kType:
        case Role::kUnread:
          break;
      }
    }
    if (gpu == INT64_MIN) {
      sink_.problem(line, Problem::missing_field, "the header has no `gpu` column");
      return;
    }
    sink_.accept();
    // A snapshot (one interval) ends when a (gpu, pid) pair repeats, the GPU index goes back, or
    // the printed time changes; an idle GPU's dash row takes part as (gpu, no pid).
    const std::int64_t key = gpu * 4'294'967'296LL + (pid == INT64_MIN ? 0xffffffffLL : pid);
    const TimeNs stamp_key = stamp.has_time ? stamp.tod + (stamp.has_date ? civil_to_ns(stamp.date) : 0) : kNoTime;
    const bool new_round = rounds_.next(key, (last_gpu_ != INT64_MIN && gpu < last_gpu_) || stamp_key != last_stamp_);
    last_gpu_ = gpu;
    last_stamp_ = stamp_key;

    WallKind kind;
    TimeNs raw;
    const TimeNs pasted = sink_.shell_hints().interval_ns;  // `pmon -d N` on a pasted command line
    nvsmi::place_row(stamp, rounds_.round(), pasted != kNoTime ? pasted : sink_.options().default_interval_ns, days_,
                     kind, raw);
    if (new_round) emit_round();
    clock_.observe(new_round, kind, raw);
    add_to_round(line, gpu, pid == INT64_MIN, sm, mem, kind, raw);
    if (pid == INT64_MIN) return;  // an idle GPU: no process to record
    Table& p = sink_.processes();
    p.ts().push_null();
    p.column(process_col::wall_kind).push_int(static_cast<std::int64_t>(kind));
    p.column(process_col::wall_raw_ns).push_int(raw);
    p.column(process_col::file).push_int(sink_.file_index());
    p.column(process_col::line).push_int(static_cast<std::int64_t>(line.number));
    p.column(process_col::snapshot).push_int(rounds_.round());
    p.column(process_col::user).push_null();
    p.column(process_col::pid).push_int(pid);
    p.column(process_col::cpu_pct).push_null();
    p.column(process_col::mem_pct).push_null();
    p.column(process_col::vsz_kib).push_null();
    p.column(process_col::rss_kib).push_null();
    p.column(process_col::stat).push_null();
    if (command.empty() || command == "-") p.column(process_col::command).push_null();
    else p.column(process_col::command).push_string(command);
    p.column(process_col::gpu).push_int(gpu);
    p.column(process_col::gpu_sm_pct).push_float_or_null(sm);
    p.column(process_col::gpu_mem_pct).push_float_or_null(mem);
    sink_.record();
  }

  // One GPU of the current interval: what its rows said so far.
  struct GpuRound {
    std::int64_t gpu = 0;
    std::uint64_t line = 0;  // its first row
    WallKind kind = WallKind::kNone;
    TimeNs raw = kNoTime;
    double sm = kNaN, mem = kNaN;  // sums; NaN while no row gave a number
  };

  static void add_share(double& sum, double v) {
    if (v != v) return;  // `-`: this process was not sampled
    sum = sum != sum ? v : sum + v;
  }

  void add_to_round(const Line& line, std::int64_t gpu, bool idle, double sm, double mem, WallKind kind, TimeNs raw) {
    auto it = std::find_if(round_.begin(), round_.end(), [&](const GpuRound& g) { return g.gpu == gpu; });
    if (it == round_.end()) {
      round_.push_back({gpu, line.number, kind, raw});
      it = round_.end() - 1;
    }
    if (idle) {  // a row of dashes: no process ran on the GPU, so none of its SMs did
      add_share(it->sm, 0);
      add_share(it->mem, 0);
      return;
    }
    add_share(it->sm, sm);
    add_share(it->mem, mem);
  }

  void emit_round() {
    std::array<double, kGpuMetricCount> values;
    for (const GpuRound& g : round_) {
      values.fill(kNaN);
      // Two processes busy in one interval can add up past the whole GPU.
      auto share = [](double v) { return v == v ? std::min(v, 100.0) : v; };
      values[static_cast<std::size_t>(GpuMetric::sm_pct)] = share(g.sm);
      values[static_cast<std::size_t>(GpuMetric::mem_pct)] = share(g.mem);
      // The interval is set in finish(), once it is known.
      sink_.sample({.wall_kind = g.kind, .wall_raw_ns = g.raw, .line = g.line, .gpu = g.gpu, .metrics = values});
    }
    round_.clear();
  }

  static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

  FileSink& sink_;
  const std::size_t first_sample_;
  std::vector<GpuRound> round_;
  nvsmi::SampleClock clock_;
  std::vector<Role> roles_;
  std::vector<std::string> names_;
  std::vector<std::string_view> fields_;
  nvsmi::RoundCounter rounds_;
  nvsmi::DayCounter days_;
  nvsmi::ColumnNotes notes_;
  std::int64_t last_gpu_ = INT64_MIN;
  TimeNs last_stamp_ = kNoTime;
};

void Format::parse(LineSource& src, FileSink& sink) const {
  PmonParser p(sink);
  feed_lines(src, sink, p);
}

}  // namespace

const LogFormat& pmon_format() {
  static const Format f;
  return f;
}

}  // namespace gpucost::formats
