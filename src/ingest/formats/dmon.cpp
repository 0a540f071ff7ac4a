// nvidia-smi dmon: one row per GPU per interval under `#` header lines that name the columns.
// Columns are bound by header name (any -s selection, any order, old single `temp`), every
// repeated header rebinds, and the binding is computed once per header, not per row.
#include <array>
#include <memory>
#include <limits>
#include <string>
#include <vector>

#include "gpucost/text.hpp"
#include "ingest/formats/formats.hpp"
#include "ingest/formats/nvidia_smi_common.hpp"

namespace gpucost::formats {
namespace {

using nvsmi::MonitorHeader;

// Role of a header column: a GpuMetric index (>= 0) or one of these.
constexpr int kGpuIndex = -1;
constexpr int kDate = -2;
constexpr int kTime = -3;
constexpr int kUnread = -4;

// True when a blank-separated row looks like dmon data: a GPU index, date or time first, and
// mostly numbers after it (pmon's idle rows are all dashes and must not count).
bool looks_like_dmon_row(std::string_view line) {
  std::array<std::string_view, 40> tok{};
  std::string_view rest;
  const std::size_t n = text::split_ws(line, tok, &rest);
  if (n < 3 || !rest.empty()) return false;
  std::size_t numbers = 0, values = 0;
  TimeNs tod;
  CivilTime c;
  bool gpu_seen = false;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string_view w = tok[i];
    double v;
    if (!gpu_seen && (nvsmi::parse_date8(w, c) || nvsmi::parse_hms(w, tod))) continue;
    if (!gpu_seen) {
      const auto g = text::to_int<int>(w);
      if (!g || *g < 0 || *g > 1024) return false;
      gpu_seen = true;
      continue;
    }
    ++values;
    if (nvsmi::parse_number(w, v)) ++numbers;
    else if (w != "-") return false;
  }
  return gpu_seen && values >= 2 && numbers * 2 >= values;
}

// Real lines of the format, with what the parser makes of them (tests/unit/format_samples_test.cpp).
constexpr FormatSample kSamples[] = {
    {"dmon.txt", "tests/data/real/dmon/default-single-gpu-dcgm-exporter-issue.txt",
     R"smp(# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk 
# Idx      W      C      C      %      %      %      %      %      %    MHz    MHz 
    0     86     33      -     30     27      0      0      0      0   6250   1710 
    0    267     39      -    100     95      0      0      0      0   6250   1710 
    0    280     41      -     85     80      0      0      0      0   6250   1710 
    0    284     42      -     98     93      0      0      0      0   6250   1710 
)smp",
     4},
};

class Format final : public LogFormat {
 public:
  FormatId id() const noexcept override { return FormatId::dmon; }
  std::span<const FormatSample> samples() const noexcept override { return kSamples; }

  int score(std::string_view line) const noexcept override {
    switch (nvsmi::classify_monitor_header(line)) {
      case MonitorHeader::kDmonNames: return 100;
      case MonitorHeader::kDmonUnits: return 90;
      case MonitorHeader::kNone: break;
      default: return 0;
    }
    return looks_like_dmon_row(line) ? 30 : 0;
  }

  void parse(LineSource& src, FileSink& sink) const override;
};

// Per-file state of a dmon parse; buffers are reused across rows.
class DmonParser {
 public:
  explicit DmonParser(FileSink& sink) : sink_(sink), first_row_(sink.samples().rows()) {}

  void line(const Line& line) {
    const std::string_view t = text::trim(line.text);
    if (t.empty()) return;
    if (t.front() == '#') return header(line, t);
    if (roles_.empty()) {
      sink_.problem(line, Problem::no_header, "dmon row before any `# gpu ...` header line");
      return;
    }
    row(line, t);
  }

  // The sampling interval: `-d N` of the pasted command line when there is one, else (timed rows)
  // what the stamps say, else --interval.
  void finish() {
    flush();
    const TimeNs pasted = sink_.shell_hints().interval_ns;
    const TimeNs fallback = pasted != kNoTime ? pasted : sink_.options().default_interval_ns;
    nvsmi::fill_intervals(sink_.samples(), first_row_, pasted != kNoTime ? pasted : clock_.interval(fallback),
                          fallback);
  }

 private:
  void header(const Line& line, std::string_view t) {
    // dmon repeats its two header lines every 20 intervals: classify and bind each text once.
    for (const auto& h : seen_headers_)
      if (h.text == t) {
        if (h.kind == MonitorHeader::kDmonNames && bound_ != &h - seen_headers_.data()) {
          bind(t);
          bound_ = &h - seen_headers_.data();
        }
        sink_.accept();
        return;
      }
    const MonitorHeader kind = nvsmi::classify_monitor_header(t);
    if ((kind == MonitorHeader::kDmonUnits || kind == MonitorHeader::kDmonNames) && seen_headers_.size() < 8)
      seen_headers_.push_back({std::string(t), kind});
    switch (kind) {
      case MonitorHeader::kDmonUnits:
        sink_.accept();
        return;
      case MonitorHeader::kDmonNames:
        bind(t);
        bound_ = seen_headers_.back().text == t ? static_cast<std::ptrdiff_t>(seen_headers_.size()) - 1 : -1;
        sink_.accept();
        return;
      default:
        sink_.problem(line, Problem::unparsable_line, "`#` line that is no dmon header");
        return;
    }
  }

  void bind(std::string_view t) {
    flush();  // the staged rows were read under the header before (bound_metric_)
    nvsmi::header_tokens(t, fields_);
    roles_.clear();
    names_.clear();
    bound_metric_.fill(false);
    for (const std::string_view name : fields_) {
      names_.emplace_back(name);
      if (name == "gpu") roles_.push_back(kGpuIndex);
      else if (nvsmi::time_column(name) == nvsmi::TimeColumn::kDate) roles_.push_back(kDate);
      else if (nvsmi::time_column(name) == nvsmi::TimeColumn::kTime) roles_.push_back(kTime);
      else if (const auto m = gpu_metric_from_dmon(name)) {
        roles_.push_back(static_cast<int>(*m));
        bound_metric_[static_cast<std::size_t>(*m)] = true;
      }
      else {
        roles_.push_back(kUnread);
        notes_.note(sink_, "dmon", name);
      }
    }
  }

  void row(const Line& line, std::string_view t) {
    nvsmi::split_blanks(t, fields_);
    if (fields_.size() != roles_.size()) {
      nvsmi::report(sink_, line, Problem::column_mismatch, "row has {} fields, header has {}", fields_.size(),
                    roles_.size());
      return;
    }
    values_.fill(std::numeric_limits<double>::quiet_NaN());
    std::int64_t gpu = INT64_MIN;
    nvsmi::RowStamp stamp;
    for (std::size_t i = 0; i < fields_.size(); ++i) {
      const std::string_view f = fields_[i];
      const int role = roles_[i];
      if (role >= 0) {
        if (nvsmi::is_null_value(f)) continue;
        if (!nvsmi::parse_number(f, values_[static_cast<std::size_t>(role)]))
          return nvsmi::report(sink_, line, Problem::bad_number, "column `{}` holds `{}`, not a number",
                               names_[i], f);
      } else if (role == kGpuIndex) {
        const auto g = text::to_int(f);
        if (!g || *g < 0 || *g > 0xffff)
          return nvsmi::report(sink_, line, Problem::bad_number, "column `gpu` holds `{}`, not a GPU index", f);
        gpu = *g;
      } else if (role == kDate) {
        if (!nvsmi::parse_date8(f, stamp.date))
          return nvsmi::report(sink_, line, Problem::bad_timestamp, "column `Date` holds `{}`, not YYYYMMDD", f);
        stamp.has_date = true;
      } else if (role == kTime) {
        if (!nvsmi::parse_hms(f, stamp.tod))
          return nvsmi::report(sink_, line, Problem::bad_timestamp, "column `Time` holds `{}`, not HH:MM:SS", f);
        stamp.has_time = true;
      }
    }
    if (gpu == INT64_MIN) {
      sink_.problem(line, Problem::missing_field, "the header has no `gpu` column");
      return;
    }
    sink_.accept();
    const bool new_round = rounds_.next(gpu);
    WallKind kind;
    TimeNs raw;
    const TimeNs pasted = sink_.shell_hints().interval_ns;
    nvsmi::place_row(stamp, rounds_.round(), pasted != kNoTime ? pasted : sink_.options().default_interval_ns, days_,
                     kind, raw);
    clock_.observe(new_round, kind, raw);
    append(line, gpu, kind, raw);
  }

  // Rows are staged and appended to the columns a batch at a time (Column::append_*): one tight
  // loop per column instead of 32 pushes per row.
  void append(const Line& line, std::int64_t gpu, WallKind kind, TimeNs raw) {
    Batch& b = *batch_;
    const std::size_t i = b.n++;
    b.kind[i] = static_cast<std::int64_t>(kind);
    b.raw[i] = raw;
    b.line[i] = static_cast<std::int64_t>(line.number);
    b.gpu[i] = gpu;
    for (std::size_t m = 0; m < kGpuMetricCount; ++m)
      if (bound_metric_[m]) b.metric[m][i] = values_[m];
    if (b.n == Batch::kRows) flush();
    sink_.record();
  }

  void flush() {
    Batch& b = *batch_;
    if (b.n == 0) return;
    const std::size_t n = b.n;
    Table& s = sink_.samples();
    for (std::size_t i = 0; i < n; ++i) b.file[i] = sink_.file_index();
    s.ts().append_nulls(n);
    s.column(sample_col::wall_kind).append_ints(b.kind, nullptr, n);
    s.column(sample_col::wall_raw_ns).append_ints(b.raw, nullptr, n);
    s.column(sample_col::file).append_ints(b.file, nullptr, n);
    s.column(sample_col::line).append_ints(b.line, nullptr, n);
    s.column(sample_col::gpu).append_ints(b.gpu, nullptr, n);
    s.column(sample_col::interval_ns).append_nulls(n);  // set in finish(), once the interval is known
    // A metric the header has no column for is null in every row (about a third of them).
    for (std::size_t m = 0; m < kGpuMetricCount; ++m) {
      Column& c = s.column(sample_col::first_metric + m);
      if (bound_metric_[m]) c.append_floats(b.metric[m], n);
      else c.append_nulls(n);
    }
    b.n = 0;
  }

  struct Batch {
    static constexpr std::size_t kRows = 256;
    std::size_t n = 0;
    std::int64_t kind[kRows], raw[kRows], file[kRows], line[kRows], gpu[kRows];
    double metric[kGpuMetricCount][kRows];
  };

  struct SeenHeader {
    std::string text;
    MonitorHeader kind;
  };

  FileSink& sink_;
  const std::size_t first_row_;
  std::unique_ptr<Batch> batch_ = std::make_unique<Batch>();  // ~70 KB: not on the stack
  std::vector<SeenHeader> seen_headers_;  // header lines met so far (a few), with their kind
  std::ptrdiff_t bound_ = -1;              // the one in seen_headers_ that roles_ was bound from
  std::vector<int> roles_;                 // per header column
  std::vector<std::string> names_;         // header names, for reasons
  std::vector<std::string_view> fields_;   // the current row's fields
  std::array<double, kGpuMetricCount> values_{};
  std::array<bool, kGpuMetricCount> bound_metric_{};  // the header has a column for it
  nvsmi::RoundCounter rounds_;
  nvsmi::DayCounter days_;
  nvsmi::SampleClock clock_;
  nvsmi::ColumnNotes notes_;
};

void Format::parse(LineSource& src, FileSink& sink) const {
  DmonParser p(sink);
  feed_lines(src, sink, p);
}

}  // namespace

const LogFormat& dmon_format() {
  static const Format f;
  return f;
}

}  // namespace gpucost::formats
