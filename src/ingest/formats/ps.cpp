// ps snapshots: `ps aux`, `ps -ef`, `ps -eo <columns>` (bound by header names), rows pasted
// without a header when they have the `ps aux` layout, and `### gpucost-ps <RFC 3339>` markers
// (or a line that is only an RFC 3339 stamp, as `date -Is` prints) that start a snapshot.
//
// Rows are split on blanks, never by position: wide VSZ/RSS values push later columns out of
// line. One column, the command, may hold blanks; the columns before it are read from the left
// and the ones after it (`ps -eo pid,cmd,%mem` cuts the command to its header's width) from the
// right. A start-time column may print as two words (`Nov 29`, bsdstart) or five (lstart);
// left of the command those are recognized by their shape.
#include <fmt/format.h>

#include <array>
#include <cmath>
#include <vector>

#include "gpucost/text.hpp"
#include "ingest/formats/formats.hpp"
#include "ingest/formats/rfc3339_stamp.hpp"

namespace gpucost::formats {
namespace {

enum class PsField : std::uint8_t { kIgnore, kPid, kUser, kCpu, kMem, kVsz, kRss, kStat, kStart, kCommand };

struct HeaderName {
  std::string_view name;
  PsField field;
};

// procps-ng header names (ps(1) "STANDARD FORMAT SPECIFIERS"); BSD and BusyBox print the same.
constexpr HeaderName kHeaderNames[] = {
    {"PID", PsField::kPid},       {"USER", PsField::kUser},      {"RUSER", PsField::kUser},
    {"EUSER", PsField::kUser},    {"UID", PsField::kUser},       {"%CPU", PsField::kCpu},
    {"%MEM", PsField::kMem},      {"VSZ", PsField::kVsz},        {"RSS", PsField::kRss},
    {"RSZ", PsField::kRss},       {"STAT", PsField::kStat},      {"S", PsField::kStat},
    {"START", PsField::kStart},   {"STARTED", PsField::kStart},  {"STIME", PsField::kStart},
    {"COMMAND", PsField::kCommand}, {"CMD", PsField::kCommand},  {"ARGS", PsField::kCommand},
    {"COMM", PsField::kCommand},  {"UCMD", PsField::kCommand},   {"UCOMM", PsField::kCommand},
    {"PPID", PsField::kIgnore},   {"PGID", PsField::kIgnore},    {"SID", PsField::kIgnore},
    {"TGID", PsField::kIgnore},   {"TID", PsField::kIgnore},     {"LWP", PsField::kIgnore},
    {"SPID", PsField::kIgnore},   {"NLWP", PsField::kIgnore},    {"RUID", PsField::kIgnore},
    {"EUID", PsField::kIgnore},   {"GID", PsField::kIgnore},     {"GROUP", PsField::kIgnore},
    {"C", PsField::kIgnore},      {"SZ", PsField::kIgnore},      {"TTY", PsField::kIgnore},
    {"TT", PsField::kIgnore},     {"TIME", PsField::kIgnore},    {"ELAPSED", PsField::kIgnore},
    {"NI", PsField::kIgnore},     {"PRI", PsField::kIgnore},     {"PSR", PsField::kIgnore},
    {"F", PsField::kIgnore},      {"ADDR", PsField::kIgnore},    {"WCHAN", PsField::kIgnore},
    {"CLS", PsField::kIgnore},    {"RTPRIO", PsField::kIgnore},  {"LABEL", PsField::kIgnore},
    {"MAJFL", PsField::kIgnore},  {"MINFL", PsField::kIgnore},   {"CGROUP", PsField::kIgnore},
};

std::optional<PsField> header_field(std::string_view token) noexcept {
  for (const auto& h : kHeaderNames)
    if (h.name == token) return h.field;
  return std::nullopt;
}

constexpr std::string_view kMarkerPrefix = "### gpucost-ps";

// The columns of `ps aux`, for rows pasted without their header.
constexpr PsField kAuxLayout[] = {PsField::kUser, PsField::kPid,     PsField::kCpu,    PsField::kMem,
                                  PsField::kVsz,  PsField::kRss,     PsField::kIgnore, PsField::kStat,
                                  PsField::kStart, PsField::kIgnore, PsField::kCommand};

bool all_digits(std::string_view s) noexcept {
  if (s.empty()) return false;
  for (const char c : s)
    if (!text::is_digit(c)) return false;
  return true;
}

// `0.0`, `12.5`, `1,5` (a comma in some locales): ps prints one decimal.
bool is_one_decimal(std::string_view s) noexcept {
  const auto dot = s.find_first_of(".,");
  return dot != std::string_view::npos && dot > 0 && dot + 2 == s.size() && all_digits(s.substr(0, dot)) &&
         text::is_digit(s[dot + 1]);
}

// A header: the blank-separated names ps prints, PID among them and at least one other known one.
bool is_header(std::string_view line) noexcept {
  std::string_view rest = line;
  bool pid = false;
  int known = 0, tokens = 0;
  while (!rest.empty()) {
    const std::string_view tok = text::next_token(rest);
    ++tokens;
    for (const char c : tok)
      if (!((c >= 'A' && c <= 'Z') || text::is_digit(c) || c == '%' || c == '_' || c == '+' || c == '-' || c == ':'))
        return false;
    if (tok == "PID") pid = true;
    if (header_field(tok)) ++known;
  }
  return pid && known >= 2 && known * 2 >= tokens;
}

// `USER PID %CPU %MEM VSZ RSS TTY STAT START TIME COMMAND` without the header.
bool looks_like_aux_row(std::string_view line) noexcept {
  std::array<std::string_view, 11> t{};
  if (text::split_ws(line, t) < 11) return false;
  return all_digits(t[1]) && is_one_decimal(t[2]) && is_one_decimal(t[3]) && all_digits(t[4]) && all_digits(t[5]);
}

// A row of some other column choice: a number among the first two fields, and a %CPU-like
// value or a command path (`/usr/bin/...`, `[kthreadd]`).
bool looks_like_ps_row(std::string_view line) noexcept {
  std::array<std::string_view, 16> t{};
  const std::size_t n = text::split_ws(line, t);
  // The PID leads (`-eo pid,...`), or follows the user and precedes a number (PPID, %CPU).
  if (n < 3 || !(all_digits(t[0]) || (all_digits(t[1]) && (all_digits(t[2]) || is_one_decimal(t[2])))))
    return false;
  for (std::size_t i = 1; i < n; ++i)
    if (is_one_decimal(t[i]) || t[i].front() == '/' || t[i].front() == '[') return true;
  return false;
}

bool is_weekday(std::string_view s) noexcept {
  static constexpr std::string_view kDays[] = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
  for (const auto d : kDays)
    if (d == s) return true;
  return false;
}

// How many blank-separated words a start-time value spans, from its first word.
std::size_t start_width(const std::vector<std::string_view>& t, std::size_t i) noexcept {
  if (is_weekday(t[i]) && i + 4 < t.size()) return 5;  // lstart: `Sat Nov 29 19:50:45 2026`
  // The cheap tests first: most start times are one word with digits (`09:00`).
  if (i + 1 < t.size() && t[i + 1].size() <= 2 && t[i].find_first_of("0123456789") == std::string_view::npos &&
      all_digits(t[i + 1]) && parse_month_name(t[i]) != 0)
    return 2;  // bsdstart / start: `Nov 29`
  return 1;
}

// A size in KiB; BusyBox prints large ones with a suffix (`123m`).
std::optional<std::int64_t> parse_kib(std::string_view s) noexcept {
  std::int64_t mult = 1;
  if (!s.empty() && (s.back() == 'k' || s.back() == 'm' || s.back() == 'g')) {
    mult = s.back() == 'k' ? 1 : s.back() == 'm' ? 1024 : 1024 * 1024;
    s.remove_suffix(1);
  }
  const auto v = text::to_int<std::int64_t>(s);
  if (!v || *v < 0) return std::nullopt;
  return *v * mult;
}

std::optional<double> parse_pct(std::string_view s) noexcept {
  char buf[32];
  if (s.empty() || s.size() >= sizeof buf) return std::nullopt;
  for (std::size_t i = 0; i < s.size(); ++i) buf[i] = s[i] == ',' ? '.' : s[i];
  const auto v = text::to_double(std::string_view(buf, s.size()));
  if (!v || *v < 0 || !std::isfinite(*v)) return std::nullopt;
  return v;
}

struct Row {
  std::string_view user, stat, command;
  std::string_view pid, cpu, mem, vsz, rss;
};

class PsParser {
 public:
  explicit PsParser(FileSink& sink) : sink_(sink) {}

  void line(const Line& line) {
    const std::string_view t = text::trim(line.text);
    if (t.empty()) return;
    if (t.substr(0, kMarkerPrefix.size()) == kMarkerPrefix) {
      marker(line, text::trim(t.substr(kMarkerPrefix.size())), true);
      return;
    }
    Rfc3339Stamp stamp;
    if (t.size() <= 40 && text::is_digit(t[0]) && parse_rfc3339(t, stamp)) {
      marker(line, t, false);
      return;
    }
    if (is_header(t)) {
      bind(t);
      sink_.accept();
      return;
    }
    if (binding_.empty()) {
      if (!looks_like_aux_row(t)) {
        sink_.problem(line, Problem::no_header,
                      "not a ps row: no header names the columns and it is not in the `ps aux` layout");
        return;
      }
      binding_.assign(std::begin(kAuxLayout), std::end(kAuxLayout));
      command_ = std::size(kAuxLayout) - 1;
    }
    row(line, t);
  }

 private:
  void marker(const Line& line, std::string_view stamp_text, bool explicit_marker) {
    Rfc3339Stamp stamp;
    if (snapshot_ < 0 || rows_ > 0 || marked_) ++snapshot_;
    marked_ = true;
    rows_ = 0;
    if (!parse_rfc3339(stamp_text, stamp)) {
      // The snapshot still starts here; its rows just have no time of their own.
      wall_kind_ = WallKind::kNone;
      wall_raw_ = kNoTime;
      sink_.problem(line, Problem::bad_timestamp,
                    explicit_marker ? fmt::format("snapshot marker time \"{}\" is not RFC 3339", text::excerpt(stamp_text, 40))
                                    : "snapshot time is not RFC 3339");
      return;
    }
    if (stamp.has_offset) {
      wall_kind_ = WallKind::kUtc;
      wall_raw_ = stamp.utc_ns();
      // `+08:00` is the machine's zone speaking (`date -Is`); `Z` is only UTC by choice.
      if (!stamp.zulu) sink_.observe_utc_offset(stamp.offset_ns);
    } else {
      wall_kind_ = WallKind::kLocal;
      wall_raw_ = stamp.local_ns;
    }
    sink_.accept();
  }

  void bind(std::string_view header) {
    binding_.clear();
    command_ = SIZE_MAX;
    bool have_user = false;
    std::string_view rest = header;
    while (!rest.empty()) {
      PsField f = header_field(text::next_token(rest)).value_or(PsField::kIgnore);
      if (f == PsField::kUser) {  // `-o user,uid`: the first one names the user
        if (have_user) f = PsField::kIgnore;
        have_user = true;
      }
      binding_.push_back(f);
    }
    // The last command column holds the free text; an earlier one (`-o comm,args`) is one word.
    for (std::size_t i = binding_.size(); i-- > 0;)
      if (binding_[i] == PsField::kCommand) {
        command_ = i;
        break;
      }
    for (std::size_t i = 0; i < binding_.size(); ++i)
      if (binding_[i] == PsField::kCommand && i != command_) binding_[i] = PsField::kIgnore;
  }

  void take(PsField f, std::string_view v, Row& r) {
    switch (f) {
      case PsField::kPid: r.pid = v; break;
      case PsField::kUser: r.user = v; break;
      case PsField::kCpu: r.cpu = v; break;
      case PsField::kMem: r.mem = v; break;
      case PsField::kVsz: r.vsz = v; break;
      case PsField::kRss: r.rss = v; break;
      case PsField::kStat: r.stat = v; break;
      case PsField::kCommand: r.command = v; break;
      case PsField::kStart: case PsField::kIgnore: break;
    }
  }

  void row(const Line& line, std::string_view t) {
    tokens_.clear();
    for (std::string_view rest = t; !rest.empty();) tokens_.push_back(text::next_token(rest));
    const std::size_t n = tokens_.size(), cols = binding_.size();
    const std::size_t left_cols = command_ == SIZE_MAX ? cols : command_;
    Row r;
    std::size_t i = 0;
    for (std::size_t c = 0; c < left_cols; ++c) {
      if (i >= n) {
        mismatch(line, n);
        return;
      }
      take(binding_[c], tokens_[i], r);
      i += binding_[c] == PsField::kStart ? start_width(tokens_, i) : 1;
    }
    if (command_ == SIZE_MAX) {
      if (i != n) {
        mismatch(line, n);
        return;
      }
    } else {
      const std::size_t right = cols - command_ - 1;
      if (i > n || n - i < right + 1) {
        mismatch(line, n);
        return;
      }
      for (std::size_t c = command_ + 1; c < cols; ++c) take(binding_[c], tokens_[n - (cols - c)], r);
      const std::string_view first = tokens_[i], last = tokens_[n - right - 1];
      r.command = std::string_view(first.data(), static_cast<std::size_t>(last.data() + last.size() - first.data()));
    }
    emit(line, r);
  }

  void mismatch(const Line& line, std::size_t n) {
    sink_.problem(line, Problem::column_mismatch,
                  fmt::format("{} {} not fill the {} columns of the header", n, n == 1 ? "field does" : "fields do",
                              binding_.size()));
  }

  // An optional numeric cell: true when it is absent, `-` (ps's "no value") or a number; false,
  // with the row rejected, when it is something else.
  template <typename T, typename Parse>
  bool cell(const Line& line, std::string_view column, std::string_view v, Parse parse, T& out) {
    if (v.empty() || v == "-") return true;
    const auto x = parse(v);
    if (!x) {
      sink_.problem(line, Problem::bad_number, fmt::format("{} \"{}\" is not a number", column, text::excerpt(v, 24)));
      return false;
    }
    out = *x;
    return true;
  }

  void emit(const Line& line, const Row& r) {
    std::int64_t pid = INT64_MIN, vsz = INT64_MIN, rss = INT64_MIN;
    double cpu = NAN, mem = NAN;
    const auto parse_pid = [](std::string_view v) -> std::optional<std::int64_t> {
      const auto p = text::to_int<std::int64_t>(v);
      return p && *p >= 0 ? p : std::nullopt;
    };
    if (!cell(line, "PID", r.pid, parse_pid, pid) || !cell(line, "%CPU", r.cpu, parse_pct, cpu) ||
        !cell(line, "%MEM", r.mem, parse_pct, mem) || !cell(line, "VSZ", r.vsz, parse_kib, vsz) ||
        !cell(line, "RSS", r.rss, parse_kib, rss))
      return;
    if (pid == INT64_MIN) {  // every header binds PID; `-` in its place is no process
      sink_.problem(line, Problem::bad_number, "PID \"-\" is not a number");
      return;
    }
    sink_.accept();
    if (snapshot_ < 0) snapshot_ = 0;
    ++rows_;
    Table& p = sink_.processes();
    p.ts().push_null();
    p.column(process_col::wall_kind).push_int(static_cast<std::int64_t>(wall_kind_));
    p.column(process_col::wall_raw_ns).push_int_or_null(wall_raw_);
    p.column(process_col::file).push_int(sink_.file_index());
    p.column(process_col::line).push_int(static_cast<std::int64_t>(line.number));
    p.column(process_col::snapshot).push_int(snapshot_);
    push_text(p.column(process_col::user), r.user);
    p.column(process_col::pid).push_int(pid);
    p.column(process_col::cpu_pct).push_float_or_null(cpu);
    p.column(process_col::mem_pct).push_float_or_null(mem);
    p.column(process_col::vsz_kib).push_int_or_null(vsz);
    p.column(process_col::rss_kib).push_int_or_null(rss);
    push_text(p.column(process_col::stat), r.stat);
    push_text(p.column(process_col::command), r.command);
    p.column(process_col::gpu).push_null();
    p.column(process_col::gpu_sm_pct).push_null();
    p.column(process_col::gpu_mem_pct).push_null();
    sink_.record();
  }

  static void push_text(Column& c, std::string_view v) {
    if (v.empty()) c.push_null();
    else c.push_string(v);
  }

  FileSink& sink_;
  std::vector<PsField> binding_;
  std::size_t command_ = SIZE_MAX;  // index of the free-text command column, SIZE_MAX when none
  std::vector<std::string_view> tokens_;
  std::int64_t snapshot_ = -1;
  std::uint64_t rows_ = 0;  // rows in the current snapshot
  bool marked_ = false;     // the current snapshot began at a marker
  WallKind wall_kind_ = WallKind::kNone;
  TimeNs wall_raw_ = kNoTime;
};

class Format final : public LogFormat {
 public:
  FormatId id() const noexcept override { return FormatId::ps; }

  int score(std::string_view line) const noexcept override {
    const std::string_view t = text::trim(line);
    if (t.empty()) return 0;
    if (t.substr(0, kMarkerPrefix.size()) == kMarkerPrefix) return 100;
    Rfc3339Stamp stamp;
    if (t.size() <= 40 && text::is_digit(t[0]) && parse_rfc3339(t, stamp)) return 50;
    if (is_header(t)) return 100;
    if (looks_like_aux_row(t)) return 40;
    if (looks_like_ps_row(t)) return 25;
    return 0;
  }

  void parse(LineSource& src, FileSink& sink) const override {
    PsParser parser(sink);
    Line line;
    while (src.next(line)) {
      sink.line_read(line);
      if (line.truncated) continue;  // already reported; a cut command is not worth a guess
      parser.line(line);
    }
  }
};

}  // namespace

const LogFormat& ps_format() {
  static const Format f;
  return f;
}

}  // namespace gpucost::formats
