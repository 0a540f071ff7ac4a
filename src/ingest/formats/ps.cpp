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

#include <algorithm>
#include <array>
#include <memory>
#include <cmath>
#include <vector>

#include "gpucost/text.hpp"
#include "ingest/formats/blank_tokens.hpp"
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

bool header_char(char c) noexcept {
  return (c >= 'A' && c <= 'Z') || text::is_digit(c) || c == '%' || c == '_' || c == '+' || c == '-' || c == ':';
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
      if (!header_char(c)) return false;
    if (tok == "PID") pid = true;
    if (header_field(tok)) ++known;
  }
  return pid && known >= 2 && known * 2 >= tokens;
}

// A %CPU value: procps prints tenths (`99.9`) up to 99.9 and whole percents from 100 on (`100`,
// `350`: a process busy on several cores), so the busiest process has no decimal.
bool is_pcpu(std::string_view s) noexcept {
  if (is_one_decimal(s)) return true;
  return all_digits(s) && s.size() >= 3 && s.size() <= 6 && s[0] != '0';
}

// `USER PID %CPU %MEM VSZ RSS TTY STAT START TIME COMMAND` without the header.
bool looks_like_aux_row(std::string_view line) noexcept {
  std::array<std::string_view, 11> t{};
  if (text::split_ws(line, t) < 11) return false;
  return all_digits(t[1]) && is_pcpu(t[2]) && is_one_decimal(t[3]) && all_digits(t[4]) && all_digits(t[5]);
}

// A row of some other column choice: a number among the first two fields, and a %CPU-like
// value or a command path (`/usr/bin/...`, `[kthreadd]`).
bool looks_like_ps_row(std::string_view line) noexcept {
  std::array<std::string_view, 16> t{};
  const std::size_t n = text::split_ws(line, t);
  // The PID leads (`-eo pid,...`), or follows the user and precedes a number (PPID, %CPU).
  if (n < 3 || !(all_digits(t[0]) || (all_digits(t[1]) && (all_digits(t[2]) || is_pcpu(t[2])))))
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

// bsdstart / start `Nov 29`: a first word without digits (most start times have them: `09:00`)
// that names a month, and a day of one or two digits.
bool month_and_day(std::string_view first, std::string_view next) noexcept {
  if (next.size() > 2 || !all_digits(next)) return false;  // the cheap tests first
  for (const char c : first)
    if (text::is_digit(c)) return false;
  return parse_month_name(first) != 0;
}

// How many blank-separated words a start-time value spans, from its first word: five for
// lstart (`Sat Nov 29 19:50:45 2026`: a weekday and four words after it), two for a month and
// a day, else one. `more` is how many words follow the first (up to 4 counted), `next` the
// first of them.
std::size_t start_width(std::string_view first, std::size_t more, std::string_view next) noexcept {
  if (more >= 4 && is_weekday(first)) return 5;
  if (more >= 1 && month_and_day(first, next)) return 2;
  return 1;
}

// text::to_int<std::int64_t>, with plain runs of up to 18 digits read in line.
std::optional<std::int64_t> to_int64(std::string_view s) noexcept {
  if (!s.empty() && s.size() <= 18) {
    std::int64_t v = 0;
    std::size_t i = 0;
    for (; i < s.size() && text::is_digit(s[i]); ++i) v = v * 10 + (s[i] - '0');
    if (i == s.size()) return v;
  }
  return text::to_int<std::int64_t>(s);
}

// A size in KiB; BusyBox prints large ones with a suffix (`123m`).
std::optional<std::int64_t> parse_kib(std::string_view s) noexcept {
  std::int64_t mult = 1;
  if (!s.empty() && (s.back() == 'k' || s.back() == 'm' || s.back() == 'g')) {
    mult = s.back() == 'k' ? 1 : s.back() == 'm' ? 1024 : 1024 * 1024;
    s.remove_suffix(1);
  }
  const auto v = to_int64(s);
  if (!v || *v < 0) return std::nullopt;
  return *v * mult;
}

std::optional<double> parse_pct(std::string_view s) noexcept {
  // ps prints `12.3`: integer tenths divided by ten round exactly as from_chars rounds `12.3`
  // (both are the double nearest to the same decimal).
  if (s.size() >= 3 && s.size() <= 16 && (s[s.size() - 2] == '.' || s[s.size() - 2] == ',') &&
      text::is_digit(s.back())) {
    std::int64_t n = 0;
    bool ok = true;
    for (std::size_t i = 0; i + 2 < s.size(); ++i) {
      ok = ok && text::is_digit(s[i]);
      n = n * 10 + (s[i] - '0');
    }
    if (ok) return static_cast<double>(n * 10 + (s.back() - '0')) / 10.0;
  }
  char buf[32];
  if (s.empty() || s.size() >= sizeof buf) return std::nullopt;
  for (std::size_t i = 0; i < s.size(); ++i) buf[i] = s[i] == ',' ? '.' : s[i];
  const auto v = text::to_double(std::string_view(buf, s.size()));
  if (!v || *v < 0 || !std::isfinite(*v)) return std::nullopt;
  return v;
}

// A row's cells by field (PsField indexes it; kIgnore and kStart land in slots nobody reads).
struct Row {
  std::array<std::string_view, static_cast<std::size_t>(PsField::kCommand) + 1> cell;
  std::string_view& operator[](PsField f) noexcept { return cell[static_cast<std::size_t>(f)]; }
  std::string_view operator[](PsField f) const noexcept { return cell[static_cast<std::size_t>(f)]; }
};

// The code of the string interned last, kept for the next row: users and states repeat row
// after row, and comparing a few bytes costs less than hashing them.
struct LastCode {
  const StringDictionary* dict = nullptr;  // whose code it is
  std::string last;
  std::uint32_t code = 0;
};

// The command's code by PID: a process's command line is the same snapshot after snapshot, and
// comparing it with the string its PID had costs less than hashing it. Direct-mapped by the
// PID's low bits; a slot holds the last PID that landed there.
struct PidCodes {
  static constexpr std::size_t kSlots = 4096;
  const StringDictionary* dict = nullptr;  // whose codes they are
  std::array<std::int64_t, kSlots> pid;
  std::array<std::uint32_t, kSlots> code;
};

class PsParser {
 public:
  explicit PsParser(FileSink& sink) : sink_(sink) {}

  void line(const Line& line) {
    const std::string_view t = text::trim(line.text);
    if (t.empty()) return;
    if (sink_.prompts() != prompts_) new_run();
    if (t.substr(0, kMarkerPrefix.size()) == kMarkerPrefix) {
      marker(line, text::trim(t.substr(kMarkerPrefix.size())), true);
      return;
    }
    Rfc3339Stamp stamp;
    if (t.size() <= 40 && text::is_digit(t[0]) && parse_rfc3339(t, stamp)) {
      marker(line, t, false);
      return;
    }
    if (header_char(t[0]) && is_header(t)) {  // rows start with a user name or a number
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
      cut_words_ = 0;
      command_ = std::size(kAuxLayout) - 1;
      row_ = Row{};
    }
    row(line, t);
  }

 private:
  // A shell prompt came before this line: the output of another `ps` run begins, a snapshot of
  // its own (not merged with the previous one, whose processes would count twice), with its own
  // header or none.
  void new_run() {
    prompts_ = sink_.prompts();
    flush();
    if (rows_ > 0) ++snapshot_;
    rows_ = 0;
    marked_ = false;
    wall_kind_ = WallKind::kNone;
    wall_raw_ = kNoTime;
    binding_.clear();
    cut_words_ = 0;
    command_ = SIZE_MAX;
  }

  void marker(const Line& line, std::string_view stamp_text, bool explicit_marker) {
    flush();  // staged rows keep the wall kind they were read under
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
    row_ = Row{};
    binding_.clear();
    cut_words_ = 0;
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

  static void take(PsField f, std::string_view v, Row& r) noexcept { r[f] = v; }

  // The common layouts (`ps aux`, `-eo ...,args`): the command is the rest of the line, so only
  // the columns before it are cut (BlankTokens::cut_first), as many tokens as they can span
  // (five for a start time: lstart), and the command's words are not split; the same cells as
  // row()'s general path (tests/unit/format_ps_test.cpp compares them).
  void row_command_last(const Line& line, std::string_view t) {
    if (cut_words_ == 0) {  // the binding changed
      cut_words_ = command_ + 1;
      for (std::size_t c = 0; c < command_; ++c) cut_words_ += binding_[c] == PsField::kStart ? 4 : 0;
      aux_ = std::equal(binding_.begin(), binding_.end(), std::begin(kAuxLayout), std::end(kAuxLayout));
    }
    const std::size_t want = cut_words_;
    if (want > kMaxCut) {
      row_command_last_by_word(line, t);
      return;
    }
    std::string_view* const tok = words_.data();
    // n < want: the line has n tokens. n == want: it may have more, but the columns before the
    // command span at most want - 1 of them, so the command's first word is among those cut.
    const std::size_t n = BlankTokens::cut_first(t, false, tok, want);
    Row& r = row_;
    std::size_t i = 0;
    if (aux_) {
      // `ps aux`: what the loop below does for its binding (kAuxLayout), column by column.
      if (n < 9) {
        mismatch(line, n);
        return;
      }
      r[PsField::kUser] = tok[0];
      r[PsField::kPid] = tok[1];
      r[PsField::kCpu] = tok[2];
      r[PsField::kMem] = tok[3];
      r[PsField::kVsz] = tok[4];
      r[PsField::kRss] = tok[5];
      r[PsField::kStat] = tok[7];
      i = 8 + start_words(tok, n, 8);
      if (i >= n) {  // TIME
        mismatch(line, n);
        return;
      }
      ++i;
    } else {
      for (std::size_t c = 0; c < command_; ++c) {
        if (i >= n) {
          mismatch(line, n);
          return;
        }
        const PsField f = binding_[c];
        if (f == PsField::kStart) {
          i += start_words(tok, n, i);
        } else {
          take(f, tok[i], r);
          ++i;
        }
      }
    }
    if (i >= n) {
      mismatch(line, n);
      return;
    }
    r[PsField::kCommand] = t.substr(static_cast<std::size_t>(tok[i].data() - t.data()));
    emit(line, r);
  }

  // How many of the n words tok[i..] a start time spans, counted as skip_start_words counts the
  // words after the first: past the next one only after a weekday.
  static std::size_t start_words(const std::string_view* tok, std::size_t n, std::size_t i) noexcept {
    std::size_t more = i + 1 < n ? 1 : 0;
    if (more == 1 && is_weekday(tok[i])) more = std::min<std::size_t>(n - i - 1, 4);
    return start_width(tok[i], more, more > 0 ? tok[i + 1] : std::string_view());
  }

  // row_command_last for a header whose columns before the command may span more than kMaxCut
  // words: cut one word at a time.
  void row_command_last_by_word(const Line& line, std::string_view t) {
    BlankTokens cut(t);
    Row& r = row_;
    std::string_view tok;
    for (std::size_t c = 0; c < command_; ++c) {
      if (!cut.next(tok)) {
        mismatch(line, token_count(t));
        return;
      }
      const PsField f = binding_[c];
      if (f == PsField::kStart) skip_start_words(cut, tok);
      else take(f, tok, r);
    }
    const std::size_t start = cut.next_start();
    if (start >= t.size()) {
      mismatch(line, token_count(t));
      return;
    }
    r[PsField::kCommand] = t.substr(start);
    emit(line, r);
  }

  // After a start time's first word: consumes the words that belong to it (start_width).
  static void skip_start_words(BlankTokens& cut, std::string_view first) noexcept {
    BlankTokens probe = cut;
    std::string_view next, word;
    std::size_t more = probe.next(next) ? 1 : 0;
    // Words past the next one matter only after a weekday (lstart).
    if (more == 1 && is_weekday(first))
      while (more < 4 && probe.next(word)) ++more;
    for (std::size_t w = start_width(first, more, next); w > 1; --w) cut.next(word);
  }

  static std::size_t token_count(std::string_view t) noexcept {
    BlankTokens cut(t);
    std::string_view tok;
    std::size_t n = 0;
    while (cut.next(tok)) ++n;
    return n;
  }

  void row(const Line& line, std::string_view t) {
    if (command_ != SIZE_MAX && command_ + 1 == binding_.size()) {
      row_command_last(line, t);
      return;
    }
    // Tokens are cut on demand: when the command is the last column (`ps aux`, `-eo ...,args`)
    // it is the rest of the line, and its words need not be split at all.
    tokens_.clear();
    cutter_ = BlankTokens(t);
    const std::size_t cols = binding_.size();
    const std::size_t left_cols = command_ == SIZE_MAX ? cols : command_;
    const bool command_last = command_ != SIZE_MAX && command_ + 1 == cols;
    if (!command_last) have(SIZE_MAX - 1);  // columns right of the command count from the end
    Row& r = row_;  // every bound field is overwritten below; unbound ones stay empty (bind())
    std::size_t i = 0;
    for (std::size_t c = 0; c < left_cols; ++c) {
      if (!have(i)) {
        mismatch(line, count_all());
        return;
      }
      take(binding_[c], tokens_[i], r);
      if (binding_[c] == PsField::kStart) {
        have(i + 1);  // start_width looks one token ahead, four after a weekday (lstart)
        if (is_weekday(tokens_[i])) have(i + 4);
        i += start_width(tokens_[i], std::min<std::size_t>(tokens_.size() - i - 1, 4),
                         i + 1 < tokens_.size() ? tokens_[i + 1] : std::string_view());
      } else {
        ++i;
      }
    }
    if (command_ == SIZE_MAX) {
      if (i != count_all()) {
        mismatch(line, count_all());
        return;
      }
    } else if (command_last) {
      // The command is the rest of the line from its first word (t is trimmed): its words are
      // not cut.
      const std::size_t start = tokens_.size() > i ? static_cast<std::size_t>(tokens_[i].data() - t.data())
                                : tokens_.size() == i ? cutter_.next_start() : t.size();
      if (start >= t.size()) {
        mismatch(line, count_all());
        return;
      }
      r[PsField::kCommand] = t.substr(start);
    } else {
      const std::size_t n = tokens_.size();
      const std::size_t right = cols - command_ - 1;
      if (i > n || n - i < right + 1) {
        mismatch(line, n);
        return;
      }
      for (std::size_t c = command_ + 1; c < cols; ++c) take(binding_[c], tokens_[n - (cols - c)], r);
      const std::string_view first = tokens_[i], last = tokens_[n - right - 1];
      r[PsField::kCommand] = std::string_view(first.data(), static_cast<std::size_t>(last.data() + last.size() - first.data()));
    }
    emit(line, r);
  }

  // Cuts tokens until token k exists; false when the line has no token k.
  bool have(std::size_t k) { return tokens_.size() > k || cut_until(k); }
  bool cut_until(std::size_t k) {
    std::string_view tok;
    while (tokens_.size() <= k && cutter_.next(tok)) tokens_.push_back(tok);
    return tokens_.size() > k;
  }
  std::size_t count_all() {
    have(SIZE_MAX - 1);
    return tokens_.size();
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

  // The code of a row's command (PidCodes): the string its PID had, when it is the same; else
  // interned.
  void command_code(std::int64_t pid, std::string_view v, std::uint32_t& code, bool& ok) {
    ok = !v.empty();
    if (v.empty()) {
      code = 0;
      return;
    }
    Column& column = sink_.processes().column(process_col::command);
    const StringDictionary& dict = column.dictionary();
    PidCodes& pc = *pid_codes_;
    if (pc.dict != &dict) {
      pc.dict = &dict;
      pc.pid.fill(-1);
    }
    const std::size_t slot = static_cast<std::size_t>(pid) & (PidCodes::kSlots - 1);
    if (pc.pid[slot] == pid && pc.code[slot] < dict.size() && dict.at(pc.code[slot]) == v) {
      code = pc.code[slot];
      return;
    }
    code = column.intern(v);
    pc.pid[slot] = pid;
    pc.code[slot] = code;
  }

  void emit(const Line& line, const Row& r) {
    std::int64_t pid = INT64_MIN, vsz = INT64_MIN, rss = INT64_MIN;
    double cpu = NAN, mem = NAN;
    const auto parse_pid = [](std::string_view v) -> std::optional<std::int64_t> {
      const auto p = to_int64(v);
      return p && *p >= 0 ? p : std::nullopt;
    };
    if (!cell(line, "PID", r[PsField::kPid], parse_pid, pid) || !cell(line, "%CPU", r[PsField::kCpu], parse_pct, cpu) ||
        !cell(line, "%MEM", r[PsField::kMem], parse_pct, mem) || !cell(line, "VSZ", r[PsField::kVsz], parse_kib, vsz) ||
        !cell(line, "RSS", r[PsField::kRss], parse_kib, rss))
      return;
    if (pid == INT64_MIN) {  // every header binds PID; `-` in its place is no process
      sink_.problem(line, Problem::bad_number, "PID \"-\" is not a number");
      return;
    }
    sink_.accept();
    if (snapshot_ < 0) snapshot_ = 0;
    ++rows_;
    // Rows are staged and appended to the columns a batch at a time (Column::append_*).
    Table& p = sink_.processes();
    Batch& b = *batch_;
    const std::size_t i = b.n++;
    b.wall_raw_ok[i] = wall_raw_ != kNoTime;
    b.wall_raw[i] = wall_raw_;
    b.line[i] = static_cast<std::int64_t>(line.number);
    b.snapshot[i] = snapshot_;
    b.pid[i] = pid;
    b.cpu[i] = cpu;
    b.mem[i] = mem;
    b.vsz_ok[i] = vsz != INT64_MIN;
    b.vsz[i] = vsz;
    b.rss_ok[i] = rss != INT64_MIN;
    b.rss[i] = rss;
    auto code_cached = [&](std::size_t col, std::string_view v, LastCode& c, std::uint32_t* codes, bool* ok) {
      ok[i] = !v.empty();
      if (v.empty()) {
        codes[i] = 0;
        return;
      }
      Column& column = p.column(col);
      if (c.dict != &column.dictionary() || v != c.last) {
        c.code = column.intern(v);
        c.last.assign(v);
        c.dict = &column.dictionary();
      }
      codes[i] = c.code;
    };
    code_cached(process_col::user, r[PsField::kUser], last_user_, b.user, b.user_ok);
    code_cached(process_col::stat, r[PsField::kStat], last_stat_, b.stat, b.stat_ok);
    command_code(pid, r[PsField::kCommand], b.command[i], b.command_ok[i]);
    if (b.n == Batch::kRows) flush();
    sink_.record();
  }

 public:
  /// Appends the staged rows to the table (at the end of the file, and whenever the batch is full).
  void flush() {
    if (batch_->n != 0) flush_batch();
  }

 private:
  // Out of line: GCC 12 warns of a dangling pointer where this is inlined into marker().
  [[gnu::noinline]] void flush_batch() {
    Batch& b = *batch_;
    Table& p = sink_.processes();
    const std::size_t n = b.n;
    const std::int64_t kind = static_cast<std::int64_t>(wall_kind_), file = sink_.file_index();
    for (std::size_t i = 0; i < n; ++i) {
      b.kind[i] = kind;  // constant within a batch: wall_kind_ changes only at markers, which flush
      b.file[i] = file;
    }
    p.ts().append_nulls(n);
    p.column(process_col::wall_kind).append_ints(b.kind, nullptr, n);
    p.column(process_col::wall_raw_ns).append_ints(b.wall_raw, b.wall_raw_ok, n);
    p.column(process_col::file).append_ints(b.file, nullptr, n);
    p.column(process_col::line).append_ints(b.line, nullptr, n);
    p.column(process_col::snapshot).append_ints(b.snapshot, nullptr, n);
    p.column(process_col::user).append_codes(b.user, b.user_ok, n);
    p.column(process_col::pid).append_ints(b.pid, nullptr, n);
    p.column(process_col::cpu_pct).append_floats(b.cpu, n);
    p.column(process_col::mem_pct).append_floats(b.mem, n);
    p.column(process_col::vsz_kib).append_ints(b.vsz, b.vsz_ok, n);
    p.column(process_col::rss_kib).append_ints(b.rss, b.rss_ok, n);
    p.column(process_col::stat).append_codes(b.stat, b.stat_ok, n);
    p.column(process_col::command).append_codes(b.command, b.command_ok, n);
    p.column(process_col::gpu).append_nulls(n);
    p.column(process_col::gpu_sm_pct).append_nulls(n);
    p.column(process_col::gpu_mem_pct).append_nulls(n);
    b.n = 0;
  }

 private:
  struct Batch {
    static constexpr std::size_t kRows = 512;
    std::size_t n = 0;
    std::int64_t kind[kRows], file[kRows], wall_raw[kRows], line[kRows], snapshot[kRows], pid[kRows], vsz[kRows],
        rss[kRows];
    double cpu[kRows], mem[kRows];
    std::uint32_t user[kRows], stat[kRows], command[kRows];
    bool wall_raw_ok[kRows], vsz_ok[kRows], rss_ok[kRows], user_ok[kRows], stat_ok[kRows], command_ok[kRows];
  };

  FileSink& sink_;
  std::unique_ptr<Batch> batch_ = std::make_unique<Batch>();  // ~40 KB: not on the stack
  std::unique_ptr<PidCodes> pid_codes_ = std::make_unique<PidCodes>();
  static constexpr std::size_t kMaxCut = 32;  // row_command_last cuts at most this many words
  std::array<std::string_view, kMaxCut> words_;  // row_command_last's words (reused)
  // How many words row_command_last cuts for the binding: one per column before the command, four
  // more per start time, and the command's first; 0 when the binding changed since it was counted.
  std::size_t cut_words_ = 0;
  bool aux_ = false;  // the binding is kAuxLayout's (set with cut_words_)
  std::vector<PsField> binding_;
  std::size_t command_ = SIZE_MAX;  // index of the free-text command column, SIZE_MAX when none
  std::vector<std::string_view> tokens_;
  BlankTokens cutter_{std::string_view()};  // cuts the current row into tokens_
  Row row_;                // the current row's fields (kept: clearing 8 views per row shows)
  LastCode last_user_, last_stat_;
  std::int64_t snapshot_ = -1;
  std::uint64_t rows_ = 0;  // rows in the current snapshot
  bool marked_ = false;     // the current snapshot began at a marker
  std::uint64_t prompts_ = 0;  // shell prompt lines before the current run (FileSink::prompts)
  WallKind wall_kind_ = WallKind::kNone;
  TimeNs wall_raw_ = kNoTime;
};

// Real lines of the format, with what the parser makes of them (tests/unit/format_samples_test.cpp).
constexpr FormatSample kSamples[] = {
    {"ps.txt", "tests/data/structured/ps-eo-cmd-before-pct.txt",
     R"smp(    PID    PPID CMD                         %MEM %CPU
  11057    3627 /snap/firefox/7477/usr/lib/  7.0 16.9
   3440    2173 /snap/firefox/7477/usr/lib/  5.9 21.8
  12042    3627 /snap/firefox/7477/usr/lib/  4.4  2.6
   5396    3627 /snap/firefox/7477/usr/lib/  3.4  4.2
   4371    4250 /usr/share/code/code --type  3.3 12.7
)smp",
     5},
};

class Format final : public LogFormat {
 public:
  FormatId id() const noexcept override { return FormatId::ps; }
  std::span<const FormatSample> samples() const noexcept override { return kSamples; }

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
    parser.flush();
  }
};

}  // namespace

const LogFormat& ps_format() {
  static const Format f;
  return f;
}

}  // namespace gpucost::formats
