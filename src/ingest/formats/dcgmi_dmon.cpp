// `dcgmi dmon -e <field ids>` (NVIDIA DCGM): a `#Entity` line of DCGM short field names, an `ID`
// line of units, then one row per entity per interval (`GPU 0   86.2   41`, `GPU-I 3 ...`).
// GPU rows become GPU samples like nvidia-smi dmon's; the fields whose DCGM short name means
// what a sample metric means are read (POWER 155, TMPTR 150, MMTMP 140, GPUTL 203, MCUTL 204,
// SMCLK 100, MMCLK 101), the others are noted once. Rows carry no time: they are placed one
// interval (`-d N` ms of a pasted `dcgmi dmon` prompt, else --dmon-interval, default 1 s:
// dcgmi's default -d 1000 ms) after the previous round. Runs pasted one after the other (their
// prompts, the header again) go on from the rounds before them.
#include <array>
#include <limits>
#include <string>
#include <vector>

#include "gpucost/text.hpp"
#include "ingest/formats/formats.hpp"
#include "ingest/formats/nvidia_smi_common.hpp"

namespace gpucost::formats {
namespace {

constexpr int kUnread = -1;

// DCGM short field names (dcgmlib's field table) of the metrics a sample row holds.
constexpr struct {
  std::string_view name;
  GpuMetric metric;
} kFields[] = {
    {"POWER", GpuMetric::power_w},   {"TMPTR", GpuMetric::gpu_temp_c}, {"MMTMP", GpuMetric::mem_temp_c},
    {"GPUTL", GpuMetric::sm_pct},    {"MCUTL", GpuMetric::mem_pct},    {"SMCLK", GpuMetric::pclk_mhz},
    {"MMCLK", GpuMetric::mclk_mhz},
};

int role_of(std::string_view name) noexcept {
  for (const auto& f : kFields)
    if (f.name == name) return static_cast<int>(f.metric);
  return kUnread;
}

// `GPU 0`, `GPU-I 3`, `GPU-CI 1`, `Switch 12`, `CPU 0`: an entity type and a decimal id.
bool entity_at(std::string_view type, std::string_view id) noexcept {
  const bool known = type == "GPU" || type == "GPU-I" || type == "GPU-CI" || type == "Switch" || type == "CPU" ||
                     type == "Link" || type == "CX";
  return known && !id.empty() && text::to_int<int>(id).has_value();
}

// The first two blank-separated words of a line, and whether more follow.
std::size_t leading_words(std::string_view line, std::array<std::string_view, 3>& w) noexcept {
  return text::split_ws(line, w);
}

// Real lines of the format, with what the parser makes of them (tests/unit/format_samples_test.cpp).
constexpr FormatSample kSamples[] = {
    {"dcgmi-dmon.txt", "tests/data/gpu/dcgmi-dmon-155-150-203-204-1001-2gpu.txt",
     R"smp(#Entity         POWER             TMPTR        GPUTL             MCUTL             GRACT             
ID              W                 C                                                                  
GPU 0           71.482            38           0                 0                 N/A               
GPU 1           69.935            35           0                 0                 N/A               
GPU 0           243.117           51           88                34                0.812             
GPU 1           72.240            36           0                 0                 0.000             
GPU 0           297.604           57           100               41                0.967             
GPU 1           N/A               36           0                 0                 0.000             
)smp",
     6},
};

class DcgmiParser {
 public:
  explicit DcgmiParser(FileSink& sink) : sink_(sink) {}

  void line(const Line& line) {
    const std::string_view t = text::trim(line.text);
    if (t.empty()) return;
    if (t.substr(0, 7) == "#Entity") return header(t);
    std::array<std::string_view, 3> w{};
    const std::size_t n = leading_words(t, w);
    if (w[0] == "ID" && !roles_.empty()) return sink_.accept();  // the units line
    if (n >= 2 && entity_at(w[0], w[1])) return row(line, t, w[0]);
    if (t == "dmon was stopped due to receiving a signal") return sink_.accept();
    sink_.problem(line, Problem::unparsable_line, "no `#Entity` header, `ID` units line or entity row");
  }

 private:
  // `-d N` (ms) of the pasted `dcgmi dmon` command line, else --dmon-interval (dcgmi's own
  // default is 1000 ms).
  TimeNs interval() const {
    const TimeNs pasted = sink_.shell_hints().interval_ns;
    return pasted != kNoTime ? pasted : sink_.options().default_interval_ns;
  }

  // `#Entity  POWER  TMPTR ...`: one role per field column; dcgmi repeats it every 20 rounds.
  void header(std::string_view t) {
    nvsmi::split_blanks(t.substr(7), fields_);
    roles_.clear();
    names_.clear();
    for (const std::string_view name : fields_) {
      names_.emplace_back(name);
      roles_.push_back(role_of(name));
      if (roles_.back() == kUnread) notes_.note(sink_, "dcgmi dmon", name);
    }
    sink_.accept();
  }

  void row(const Line& line, std::string_view t, std::string_view type) {
    if (roles_.empty()) return sink_.problem(line, Problem::no_header, "dcgmi dmon row before any `#Entity` header");
    nvsmi::split_blanks(t, fields_);
    if (fields_.size() != roles_.size() + 2)
      return nvsmi::report(sink_, line, Problem::column_mismatch, "row has {} values, the header names {}",
                           fields_.size() - 2, roles_.size());
    // MIG instances, NVSwitches and CPUs are entities of their own, not GPU samples.
    if (type != "GPU") return sink_.accept();
    values_.fill(std::numeric_limits<double>::quiet_NaN());
    for (std::size_t i = 0; i < roles_.size(); ++i) {
      const std::string_view f = fields_[i + 2];
      if (roles_[i] == kUnread || nvsmi::is_null_value(f)) continue;
      if (!nvsmi::parse_number(f, values_[static_cast<std::size_t>(roles_[i])]))
        return nvsmi::report(sink_, line, Problem::bad_number, "column `{}` holds `{}`, not a number", names_[i], f);
    }
    const std::int64_t gpu = *text::to_int<int>(fields_[1]);
    sink_.accept();
    if (rounds_.next(gpu)) {
      // A run pasted with another `-d` goes on from where the rounds before it ended.
      const std::int64_t round = rounds_.round();
      if (const TimeNs now = interval(); now != step_) {
        if (step_ != kNoTime) base_raw_ += (round - base_round_) * step_;
        base_round_ = round;
        step_ = now;
      }
    }
    append(line, gpu, WallKind::kRelative, base_raw_ + (rounds_.round() - base_round_) * step_);
  }

  void append(const Line& line, std::int64_t gpu, WallKind kind, TimeNs raw) {
    sink_.sample({.wall_kind = kind,
                  .wall_raw_ns = raw,
                  .line = line.number,
                  .gpu = gpu,
                  .interval_ns = step_,
                  .metrics = values_});
  }

  FileSink& sink_;
  std::vector<int> roles_;                // per field column: a GpuMetric index or kUnread
  std::vector<std::string> names_;        // DCGM short names, for reasons
  std::vector<std::string_view> fields_;  // the current line's words
  std::array<double, kGpuMetricCount> values_{};
  nvsmi::RoundCounter rounds_;
  TimeNs step_ = kNoTime;      // the interval of the current run's rounds
  TimeNs base_raw_ = 0;        // where its first round lies (ns from the file's start)
  std::int64_t base_round_ = 0;
  nvsmi::ColumnNotes notes_;
};

class Format final : public LogFormat {
 public:
  FormatId id() const noexcept override { return FormatId::dcgmi_dmon; }
  std::span<const FormatSample> samples() const noexcept override { return kSamples; }
  int score(std::string_view line) const noexcept override {
    const std::string_view t = text::trim(line);
    if (t.substr(0, 7) == "#Entity" && (t.size() == 7 || text::is_space(t[7]))) return 100;
    std::array<std::string_view, 3> w{};
    const std::size_t n = leading_words(t, w);
    if (n == 1 && w[0] == "ID") return 60;
    if (n >= 3 && entity_at(w[0], w[1])) return 60;
    return 0;
  }
  void parse(LineSource& src, FileSink& sink) const override {
    DcgmiParser p(sink);
    feed_lines(src, sink, p);
  }
};

}  // namespace

const LogFormat& dcgmi_dmon_format() {
  static const Format f;
  return f;
}

}  // namespace gpucost::formats
