// nvidia-smi --query-gpu=... --format=csv[,noheader][,nounits]: one row per GPU per query. The
// header names the fields (`power.draw [W]`); values carry units unless nounits; `[N/A]` is no
// value. Also read when piped through `column -t` (fields aligned by runs of blanks, no commas),
// and without a header (`noheader`): bound to the pasted command line's --query-gpu list, else to
// the collection script's field list when the count matches, else by the values' shapes.
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "gpucost/text.hpp"
#include "ingest/formats/formats.hpp"
#include "ingest/formats/nvidia_smi_common.hpp"

namespace gpucost::formats {
namespace {

constexpr std::size_t kMaxFields = 128;
// GPUs kept per file: the cap of the nvidia-smi -q reader (nvidia_smi_q.cpp); the largest
// machines have 8 to 16, an NVL72 rack 72.
constexpr std::size_t kMaxGpus = 256;

enum class Role : std::uint8_t {
  kUnread, kTimestamp, kIndex, kName, kBusId, kDriver, kUuid, kGenCurrent, kGenMax, kWidthCurrent, kWidthMax,
  kMetric, kPstate, kSmClock, kDefaultLimit, kMaxLimit, kRecoveryAction
};

struct Field {
  Role role = Role::kUnread;
  int metric = -1;  // GpuMetric for Role::kMetric / pstate / sm_clock
};

// `power.draw [W]` -> `power.draw`.
std::string_view field_name(std::string_view f) {
  const auto b = f.find('[');
  return text::trim(b == std::string_view::npos ? f : f.substr(0, b));
}

Field classify(std::string_view name) {
  struct Named {
    std::string_view name;
    Role role;
  };
  static constexpr Named kNamed[] = {
      {"timestamp", Role::kTimestamp},   {"index", Role::kIndex},
      {"name", Role::kName},             {"gpu_name", Role::kName},
      {"pci.bus_id", Role::kBusId},     {"gpu_bus_id", Role::kBusId},
      {"driver_version", Role::kDriver}, {"uuid", Role::kUuid},
      {"gpu_uuid", Role::kUuid},         {"pcie.link.gen.current", Role::kGenCurrent},
      {"pcie.link.gen.max", Role::kGenMax}, {"pcie.link.width.current", Role::kWidthCurrent},
      {"pcie.link.width.max", Role::kWidthMax},
      {"power.default_limit", Role::kDefaultLimit}, {"power.max_limit", Role::kMaxLimit},
      {"gpu_recovery_action", Role::kRecoveryAction},
  };
  for (const auto& n : kNamed)
    if (n.name == name) return {n.role, -1};
  if (name == "pstate") return {Role::kPstate, static_cast<int>(GpuMetric::pstate)};
  // SM and graphics clocks are the same clock on every GPU since Kepler; the SM clock stands in
  // for pclk when the graphics clock was not queried (the collection list asks for clocks.sm).
  if (name == "clocks.sm" || name == "clocks.current.sm") return {Role::kSmClock, static_cast<int>(GpuMetric::pclk_mhz)};
  if (const auto m = gpu_metric_from_query(name)) return {Role::kMetric, static_cast<int>(*m)};
  return {};
}

bool identifier_like(std::string_view n) {
  if (n.empty() || !((n[0] >= 'a' && n[0] <= 'z') || n[0] == '_')) return false;
  for (char c : n)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.')) return false;
  return true;
}

// Splits a row into fields: on commas when it has any, else on tabs or runs of two or more
// blanks (`column -t` output, where names like `GeForce GTX 1080 Ti` keep single blanks).
// Returns the field count; kMaxFields + 1 when there are more.
std::size_t split_fields(std::string_view line, std::string_view* out) {
  std::size_t n = 0;
  line = text::trim(line);
  if (line.empty()) return 0;
  if (line.find(',') != std::string_view::npos) {
    for (;;) {
      const auto comma = line.find(',');
      if (n == kMaxFields) return kMaxFields + 1;
      out[n++] = text::trim(line.substr(0, comma));
      if (comma == std::string_view::npos) return n;
      line.remove_prefix(comma + 1);
    }
  }
  std::size_t start = 0, i = 0;
  while (i < line.size()) {
    const bool tab = line[i] == '\t';
    const bool gap = tab || (line[i] == ' ' && i + 1 < line.size() && text::is_space(line[i + 1]));
    if (!gap) {
      ++i;
      continue;
    }
    if (n == kMaxFields) return kMaxFields + 1;
    out[n++] = line.substr(start, i - start);
    while (i < line.size() && text::is_space(line[i])) ++i;
    start = i;
  }
  if (n == kMaxFields) return kMaxFields + 1;
  out[n++] = line.substr(start);
  return n;
}

// A header names fields: every field an identifier (with an optional ` [unit]`), one known.
bool is_header(const std::string_view* f, std::size_t n) {
  if (n == 0 || n > kMaxFields) return false;
  bool known = false;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string_view name = field_name(f[i]);
    if (!identifier_like(name)) return false;
    if (f[i].size() != name.size() && f[i].back() != ']') return false;
    if (classify(name).role != Role::kUnread) known = true;
  }
  return known;
}

// `2026/11/29 19:50:45.123` (local time) -> civil ns.
bool parse_timestamp(std::string_view s, TimeNs& raw) {
  unsigned y, mo, d, h, mi, se;
  if (s.size() < 19 || s[4] != '/' || s[7] != '/' || s[10] != ' ' || s[13] != ':' || s[16] != ':' ||
      !text::digits(s, 0, 4, y) || !text::digits(s, 5, 2, mo) || !text::digits(s, 8, 2, d) ||
      !text::digits(s, 11, 2, h) || !text::digits(s, 14, 2, mi) || !text::digits(s, 17, 2, se))
    return false;
  if (!valid_stamp_date(y, mo, d) || h > 23 || mi > 59 || se > 60) return false;
  std::int64_t nanos = 0;
  if (s.size() > 19) {
    if (s[19] != '.' || s.size() == 20 || s.size() > 29) return false;
    std::int64_t scale = kNsPerSec;
    for (std::size_t i = 20; i < s.size(); ++i) {
      if (!text::is_digit(s[i])) return false;
      scale /= 10;
      nanos += (s[i] - '0') * scale;
    }
  }
  raw = civil_to_ns(CivilTime{y, mo, d, h, mi, se, nanos});
  return true;
}

// `P0`..`P15` -> 0..15.
bool parse_pstate(std::string_view s, double& v) {
  if (s.size() < 2 || s.size() > 3 || s[0] != 'P') return false;
  const auto n = text::to_int<int>(s.substr(1));
  if (!n || *n < 0 || *n > 15) return false;
  v = *n;
  return true;
}

bool looks_like_bus_id(std::string_view s) {
  // 00000000:01:00.0 / 0000:01:00.0
  return (s.size() == 16 || s.size() == 12) && s[s.size() - 2] == '.' && s[s.size() - 5] == ':' &&
         s[s.size() - 8] == ':';
}

bool looks_like_gpu_name(std::string_view s) {
  for (std::string_view p : {"NVIDIA", "GeForce", "Tesla", "Quadro", "TITAN", "GRID"})
    if (s.substr(0, p.size()) == p) return true;
  return false;
}

// Real lines of the format, with what the parser makes of them (tests/unit/format_samples_test.cpp).
constexpr FormatSample kSamples[] = {
    {"query-gpu.csv", "tests/data/real/querygpu/2gpu-1080ti-1060-no-timestamp.txt",
     R"smp(name, fan.speed [%], memory.total [MiB], memory.used [MiB], utilization.gpu [%], temperature.gpu, power.draw [W], clocks.current.graphics [MHz], clocks.current.memory [MHz]
GeForce GTX 1080 Ti, 29 %, 11175 MiB, 2856 MiB, 36 %, 60, 106.56 W, 1936 MHz, 5508 MHz
GeForce GTX 1060 6GB, 29 %, 6078 MiB, 4 MiB, 0 %, 49, 5.68 W, 139 MHz, 405 MHz
)smp",
     2},
};

class Format final : public LogFormat {
 public:
  FormatId id() const noexcept override { return FormatId::query_gpu_csv; }
  std::span<const FormatSample> samples() const noexcept override { return kSamples; }

  int score(std::string_view line) const noexcept override {
    std::array<std::string_view, kMaxFields> f;
    const std::size_t n = split_fields(line, f.data());
    if (n == 0 || n > kMaxFields) return 0;
    if (is_header(f.data(), n)) return 100;
    if (n < 2) return 0;
    TimeNs raw;
    if (parse_timestamp(f[0], raw)) return 80;
    const bool commas = line.find(',') != std::string_view::npos;
    std::size_t valued = 0, telling = 0;
    for (std::size_t i = 0; i < n; ++i) {
      double v;
      const std::string_view w = f[i];
      if (w == "N/A" || (w.size() > 2 && w.front() == '[' && w.back() == ']')) ++valued, ++telling;
      else if (nvsmi::parse_number(w, v)) ++valued;
      else if (nvsmi::parse_number_with_unit(w, v) || parse_pstate(w, v)) ++valued, ++telling;
      else if (looks_like_bus_id(w) || looks_like_gpu_name(w)) ++valued, telling += 2;
    }
    if (valued * 2 < n) return 0;
    if (commas) return telling >= 2 ? 50 : 30;
    return telling > 0 ? 40 : 0;
  }

  void parse(LineSource& src, FileSink& sink) const override;
};

// One GPU seen in the file, for sink.devices().
struct DeviceSlot {
  bool used = false;
  GpuDevice dev;
  std::string raw_bus;  // as printed, so that normalizing happens once per change
};

class QueryParser {
 public:
  explicit QueryParser(FileSink& sink) : sink_(sink), first_row_(sink.samples().rows()) {}

  void line(const Line& line) {
    if (text::is_blank(line.text)) return;
    if (sink_.prompts() != prompts_) {  // a new command's output: its own header, or none
      prompts_ = sink_.prompts();
      fields_.clear();
      implicit_ = false;
    }
    n_ = split_fields(line.text, f_.data());
    if (is_header(f_.data(), n_)) {
      bind_header();
      sink_.accept();
      return;
    }
    if (fields_.empty() && !bind_without_header(line)) return;
    if (n_ != fields_.size()) {
      if (implicit_)
        return nvsmi::report(sink_, line, Problem::no_header,
                             "no header line; the row's {} fields do not match the {} fields bound ({})",
                             n_ > kMaxFields ? kMaxFields : n_, fields_.size(), binding_source_);
      nvsmi::report(sink_, line, Problem::column_mismatch, "row has {} fields, header has {}",
                    n_ > kMaxFields ? kMaxFields : n_, fields_.size());
      return;
    }
    row(line);
  }

  void finish() {
    const TimeNs pasted = sink_.shell_hints().interval_ns;
    const TimeNs fallback = pasted != kNoTime ? pasted : sink_.options().default_interval_ns;
    nvsmi::fill_intervals(sink_.samples(), first_row_, pasted != kNoTime ? pasted : clock_.interval(fallback),
                          fallback);
    for (auto& s : slots_)
      if (s.used) sink_.devices().push_back(std::move(s.dev));
  }

 private:
  // Rows without a header (`--format=csv,noheader`): the fields are those of the pasted command
  // line's --query-gpu list when there is one, else the collection script's list when the count
  // matches, else what the first row's values look like. False, with the row rejected and the
  // reason said, when none of these names its columns.
  bool bind_without_header(const Line& line) {
    const std::size_t n = n_ > kMaxFields ? kMaxFields : n_;
    const ShellHints& h = sink_.shell_hints();
    if (!h.query_fields.empty()) {
      if (list_size(h.query_fields) == n) {
        bind_list(h.query_fields, "the --query-gpu list of the pasted command line (line " + std::to_string(h.line) + ")");
        return true;
      }
      nvsmi::report(sink_, line, Problem::no_header,
                    "no header line, and the row's {} fields do not match the {} fields of the pasted command's "
                    "--query-gpu list ({})",
                    n, list_size(h.query_fields), h.query_fields);
      return false;
    }
    if (n == list_size(nvsmi::kCollectQueryFields)) {
      bind_list(nvsmi::kCollectQueryFields, "the collection list");
      return true;
    }
    std::string inferred;
    if (infer_fields(inferred)) {
      bind_list(inferred, "the shapes of the first row's values (`?`: not told by its shape, not read)");
      return true;
    }
    nvsmi::report(sink_, line, Problem::no_header,
                  "no header line, no pasted `nvidia-smi --query-gpu=...` command line, the row's {} fields are not "
                  "the {} of the collection list ({}), and no value's shape tells a measurement (a `%`, a `W`, a "
                  "P-state)",
                  n, list_size(nvsmi::kCollectQueryFields), nvsmi::kCollectQueryFields);
    return false;
  }

  static std::size_t list_size(std::string_view list) {
    std::size_t n = 1;
    for (char c : list) n += c == ',';
    return n;
  }

  // Names the fields of the current row by what their values look like: a timestamp, a bus id,
  // a product name, a UUID, a driver version, a P-state, the index in front (or after the
  // timestamp), and the units of nvidia-smi's usual order (the first `%` is utilization.gpu,
  // the second utilization.memory; the first `W` power.draw, the second power.limit). True when
  // a measurement was named.
  bool infer_fields(std::string& out) const {
    int percents = 0, watts = 0;
    bool named = false;
    for (std::size_t i = 0; i < n_ && i < kMaxFields; ++i) {
      const std::string_view v = f_[i];
      std::string_view name = "?";
      TimeNs t;
      double num;
      if (parse_timestamp(v, t)) name = "timestamp";
      else if (looks_like_bus_id(v)) name = "pci.bus_id";
      else if (looks_like_gpu_name(v)) name = "name";
      else if (v.size() == 40 && v.substr(0, 4) == "GPU-") name = "uuid";
      else if (parse_pstate(v, num)) name = "pstate";
      // The index leads the row, or follows its timestamp (`timestamp,index,...`: the order of
      // the collection list and of most scripts).
      else if ((i == 0 || (i == 1 && out == "timestamp")) && v.size() <= 2 && text::to_int<int>(v)) name = "index";
      else if (is_driver_version(v)) name = "driver_version";
      else if (unit_of(v) == "%") name = percents++ == 0 ? "utilization.gpu" : percents == 2 ? "utilization.memory" : "?";
      else if (unit_of(v) == "W") name = watts++ == 0 ? "power.draw" : watts == 2 ? "power.limit" : "?";
      // Only a measurement makes the rows worth reading: a timestamp, a name or a bus id alone
      // would give samples without a value.
      named |= name == "pstate" || name.substr(0, 12) == "utilization." || name.substr(0, 6) == "power.";
      if (i) out += ',';
      out += name;
    }
    return named;
  }

  // `535.104.05`: three dotted numbers.
  static bool is_driver_version(std::string_view v) {
    int dots = 0;
    for (char c : v) {
      if (c == '.') ++dots;
      else if (!text::is_digit(c)) return false;
    }
    return dots == 2 && v.front() != '.' && v.back() != '.';
  }

  // The unit after a number (`45 %` -> `%`), or empty.
  static std::string_view unit_of(std::string_view v) {
    double num;
    const auto blank = v.rfind(' ');
    if (blank == std::string_view::npos || !nvsmi::parse_number(v.substr(0, blank), num)) return {};
    return v.substr(blank + 1);
  }

  void bind_header() {
    implicit_ = false;
    fields_.clear();
    names_.clear();
    for (std::size_t i = 0; i < n_; ++i) {
      const std::string_view name = field_name(f_[i]);
      names_.emplace_back(name);
      fields_.push_back(classify(name));
      if (fields_.back().role == Role::kUnread) notes_.note(sink_, "query-gpu", name);
    }
    finish_binding();
  }

  void bind_list(std::string_view list, std::string source) {
    implicit_ = true;
    fields_.clear();
    names_.clear();
    const std::string note = "query-gpu: no header line; fields bound to " + source + ": " + std::string(list);
    binding_source_ = std::move(source);
    for (;;) {
      const auto comma = list.find(',');
      const std::string_view name = text::trim(list.substr(0, comma));
      names_.emplace_back(name);
      fields_.push_back(classify(name));
      if (comma == std::string_view::npos) break;
      list.remove_prefix(comma + 1);
    }
    finish_binding();
    sink_.diagnostics().notes.push_back(note);
  }

  void finish_binding() {
    has_index_ = has_bus_ = has_uuid_ = has_name_ = has_device_ = false;
    bool graphics_clock = false;
    for (const Field& f : fields_) {
      has_index_ |= f.role == Role::kIndex;
      has_bus_ |= f.role == Role::kBusId;
      has_uuid_ |= f.role == Role::kUuid;
      has_name_ |= f.role == Role::kName;
      has_device_ |= f.role != Role::kUnread && f.role != Role::kTimestamp && f.role != Role::kIndex &&
                     f.role != Role::kSmClock && f.role != Role::kPstate &&
                     !(f.role == Role::kMetric && f.metric != static_cast<int>(GpuMetric::mem_total_mb) &&
                       f.metric != static_cast<int>(GpuMetric::power_limit_w));
      graphics_clock |= f.role == Role::kMetric && f.metric == static_cast<int>(GpuMetric::pclk_mhz);
    }
    for (Field& f : fields_)
      if (f.role == Role::kSmClock && graphics_clock) f.role = Role::kUnread;
  }

  void row(const Line& line) {
    values_.fill(std::numeric_limits<double>::quiet_NaN());
    TimeNs stamp = kNoTime;
    std::int64_t index = INT64_MIN;
    std::string_view name, bus, driver, uuid, recovery;
    int gen_cur = -1, gen_max = -1, width_cur = -1, width_max = -1;
    double default_limit = 0, max_limit = 0;
    for (std::size_t i = 0; i < n_; ++i) {
      const std::string_view v = f_[i];
      const Field& fd = fields_[i];
      if (fd.role == Role::kUnread) continue;
      if (nvsmi::is_null_value(v)) continue;
      double num = 0;
      switch (fd.role) {
        case Role::kTimestamp:
          if (!parse_timestamp(v, stamp))
            return nvsmi::report(sink_, line, Problem::bad_timestamp,
                                 "column `timestamp` holds `{}`, not YYYY/MM/DD HH:MM:SS.mmm", v);
          break;
        case Role::kIndex: {
          const auto g = text::to_int(v);
          if (!g || *g < 0 || *g > 0xffff)
            return nvsmi::report(sink_, line, Problem::bad_number, "column `index` holds `{}`, not a GPU index", v);
          index = *g;
          break;
        }
        case Role::kName: name = v; break;
        case Role::kBusId: bus = v; break;
        case Role::kDriver: driver = v; break;
        case Role::kUuid: uuid = v; break;
        case Role::kRecoveryAction: recovery = v; break;
        case Role::kDefaultLimit:
        case Role::kMaxLimit:
          if (!nvsmi::parse_number_with_unit(v, num) || !(num > 0))
            return nvsmi::report(sink_, line, Problem::bad_number, "column `{}` holds `{}`, not a number", names_[i], v);
          (fd.role == Role::kDefaultLimit ? default_limit : max_limit) = num;
          break;
        case Role::kGenCurrent:
        case Role::kGenMax:
        case Role::kWidthCurrent:
        case Role::kWidthMax: {
          // A PCIe generation or lane count; beyond 1024 it is no such thing (and no int).
          if (!nvsmi::parse_number_with_unit(v, num) || !(num >= 0 && num <= 1024))
            return nvsmi::report(sink_, line, Problem::bad_number, "column `{}` holds `{}`, not a number", names_[i], v);
          int& out = fd.role == Role::kGenCurrent ? gen_cur : fd.role == Role::kGenMax ? gen_max
                     : fd.role == Role::kWidthCurrent ? width_cur : width_max;
          out = static_cast<int>(num);
          // The link trains down at idle: each row's current link is a sample too (F073).
          if (fd.role == Role::kGenCurrent) values_[static_cast<std::size_t>(GpuMetric::pcie_gen)] = num;
          if (fd.role == Role::kWidthCurrent) values_[static_cast<std::size_t>(GpuMetric::pcie_width)] = num;
          break;
        }
        case Role::kPstate:
          if (!parse_pstate(v, num) && !nvsmi::parse_number(v, num))
            return nvsmi::report(sink_, line, Problem::bad_number, "column `pstate` holds `{}`, not P0..P15", v);
          values_[static_cast<std::size_t>(fd.metric)] = num;
          break;
        case Role::kMetric:
        case Role::kSmClock:
          // Clock-event (throttle) reasons print `Active` / `Not Active`.
          if (v == "Active" || v == "Not Active") {
            values_[static_cast<std::size_t>(fd.metric)] = v == "Active" ? 1.0 : 0.0;
            break;
          }
          if (!nvsmi::parse_number_with_unit(v, num))
            return nvsmi::report(sink_, line, Problem::bad_number, "column `{}` holds `{}`, not a number", names_[i], v);
          values_[static_cast<std::size_t>(fd.metric)] = num;
          break;
        case Role::kUnread: break;
      }
    }
    sink_.accept();

    // Which GPU: the index when queried; else a stable number per bus id (or uuid) in order of
    // first appearance; else the row's position within its round by name; else GPU 0.
    std::int64_t gpu = 0;
    bool new_round;
    if (has_index_ && index != INT64_MIN) {
      gpu = index;
      new_round = rounds_.next(gpu);
    } else if ((has_bus_ && !bus.empty()) || (has_uuid_ && !uuid.empty())) {
      gpu = stable_id(!bus.empty() ? bus : uuid);
      new_round = rounds_.next(gpu);
    } else if (has_name_ && !name.empty()) {
      new_round = rounds_.next(static_cast<std::int64_t>(std::hash<std::string_view>{}(name)));
      gpu = static_cast<std::int64_t>(rounds_.position());
    } else {
      new_round = rounds_.next(0);
    }
    // As many GPUs as a machine can have (the -q reader's cap): features grow faster than the GPU
    // count, and 65 536 GPU indices in 15 MB made a run of 22 GiB. The rows of further GPUs are
    // counted, not kept.
    const auto known = std::lower_bound(gpus_.begin(), gpus_.end(), gpu);
    if (known == gpus_.end() || *known != gpu) {
      if (gpus_.size() >= kMaxGpus) {
        if (Diagnostics::wants_sample(sink_.diagnostics(), Problem::too_many_devices))
          Diagnostics::record(sink_.diagnostics(), Problem::too_many_devices, line.number, line.offset, line.text,
                              fmt::format("GPU {} is one more than the {} GPUs a machine can have; its rows are "
                                          "counted, not read",
                                          gpu, kMaxGpus));
        else
          ++sink_.diagnostics().problems[static_cast<std::size_t>(Problem::too_many_devices)];
        return;
      }
      gpus_.insert(known, gpu);
    }
    const WallKind kind = stamp != kNoTime ? WallKind::kLocal : WallKind::kRelative;
    const TimeNs pasted = sink_.shell_hints().interval_ns;
    const TimeNs raw =
        stamp != kNoTime ? stamp : rounds_.round() * (pasted != kNoTime ? pasted : sink_.options().default_interval_ns);
    clock_.observe(new_round, kind, raw);

    // The interval is set in finish(), once it is known.
    sink_.sample({.wall_kind = kind, .wall_raw_ns = raw, .line = line.number, .gpu = gpu, .metrics = values_});

    if (!has_device_ || gpu < 0 || gpu >= 4096) return;
    if (slots_.size() <= static_cast<std::size_t>(gpu)) slots_.resize(static_cast<std::size_t>(gpu) + 1);
    DeviceSlot& slot = slots_[static_cast<std::size_t>(gpu)];
    GpuDevice& d = slot.dev;
    if (!slot.used) {
      slot.used = true;
      d.file = sink_.file_index();
      d.line = line.number;
    }
    if (index != INT64_MIN) d.index = static_cast<int>(index);
    if (!name.empty() && d.name != name) d.name.assign(name);
    if (!uuid.empty() && d.uuid != uuid) d.uuid.assign(uuid);
    if (!driver.empty() && d.driver_version != driver) d.driver_version.assign(driver);
    if (!bus.empty() && slot.raw_bus != bus) {
      slot.raw_bus.assign(bus);
      d.pci_bus = normalize_pci_bus(bus);
    }
    if (gen_cur >= 0) d.pcie_gen_current = gen_cur;
    if (gen_max >= 0) d.pcie_gen_max = gen_max;
    if (width_cur >= 0) d.pcie_width_current = width_cur;
    if (width_max >= 0) d.pcie_width_max = width_max;
    const double mem = values_[static_cast<std::size_t>(GpuMetric::mem_total_mb)];
    const double limit = values_[static_cast<std::size_t>(GpuMetric::power_limit_w)];
    if (!std::isnan(mem)) d.memory_total_mib = mem;
    if (!std::isnan(limit)) d.power_limit_w = limit;
    if (default_limit > 0) d.power_default_limit_w = default_limit;
    if (max_limit > 0) d.power_max_limit_w = max_limit;
    if (!recovery.empty() && d.recovery_action != recovery) d.recovery_action.assign(recovery);
  }

  std::int64_t stable_id(std::string_view key) {
    for (std::size_t i = 0; i < order_.size(); ++i)
      if (order_[i] == key) return static_cast<std::int64_t>(i);
    order_.emplace_back(key);
    return static_cast<std::int64_t>(order_.size() - 1);
  }

  FileSink& sink_;
  const std::size_t first_row_;
  std::array<std::string_view, kMaxFields> f_{};
  std::size_t n_ = 0;
  std::vector<Field> fields_;
  std::vector<std::string> names_;
  bool implicit_ = false;             // bound without a header line
  std::string binding_source_;        // what the implicit binding came from
  std::uint64_t prompts_ = 0;         // shell prompt lines before the current output
  bool has_index_ = false, has_bus_ = false, has_uuid_ = false, has_name_ = false, has_device_ = false;
  std::array<double, kGpuMetricCount> values_{};
  std::vector<std::string> order_;  // bus ids (or uuids) in order of first appearance
  std::vector<DeviceSlot> slots_;   // by GPU number
  std::vector<std::int64_t> gpus_;  // the GPUs kept, sorted (at most kMaxGpus)
  nvsmi::RoundCounter rounds_;
  nvsmi::SampleClock clock_;
  nvsmi::ColumnNotes notes_;
};

void Format::parse(LineSource& src, FileSink& sink) const {
  QueryParser p(sink);
  feed_lines(src, sink, p);
}

}  // namespace

const LogFormat& query_gpu_csv_format() {
  static const Format f;
  return f;
}

}  // namespace gpucost::formats
