// dmesg in all its layouts: raw `[ 1234.567890] msg` (with printk caller ids), -T/--ctime in
// any locale, --time-format iso, -x facility/level prefixes, -r raw `<3>` priorities, -d deltas,
// -e relative stamps; continuation lines; and pastes whose stamps were cut.
#include <fmt/format.h>

#include <memory>

#include "gpucost/text.hpp"
#include "ingest/formats/formats.hpp"
#include "ingest/formats/kernel_message.hpp"
#include "ingest/formats/stamps.hpp"
#include "ingest/formats/syslog_prefix.hpp"

namespace gpucost::formats {
namespace {

// `<6>` (dmesg -r). Returns what follows it, or s unchanged.
std::string_view strip_raw_priority(std::string_view s, bool& found) noexcept {
  found = false;
  if (s.size() < 3 || s[0] != '<') return s;
  std::size_t i = 1;
  while (i < s.size() && i < 5 && text::is_digit(s[i])) ++i;
  if (i == 1 || i >= s.size() || s[i] != '>') return s;
  found = true;
  return s.substr(i + 1);
}

// `kern  :err   : ` (dmesg -x). Returns what follows it, or s unchanged.
std::string_view strip_facility_level(std::string_view s, bool& found) noexcept {
  static constexpr std::string_view kFacilities[] = {
      "kern", "user", "mail", "daemon", "auth", "syslog", "lpr", "news", "uucp", "cron", "authpriv", "ftp",
      "res0", "res1", "res2", "res3", "local0", "local1", "local2", "local3", "local4", "local5", "local6",
      "local7"};
  static constexpr std::string_view kLevels[] = {"emerg", "alert", "crit", "err", "warn", "notice", "info", "debug"};
  found = false;
  auto word = [&](std::size_t& i) {
    const std::size_t start = i;
    while (i < s.size() && ((s[i] >= 'a' && s[i] <= 'z') || text::is_digit(s[i]))) ++i;
    std::string_view w = s.substr(start, i - start);
    while (i < s.size() && s[i] == ' ') ++i;
    if (i >= s.size() || s[i] != ':') return std::string_view{};
    ++i;
    return w;
  };
  std::size_t i = 0;
  const std::string_view fac = word(i);
  const std::string_view lvl = word(i);
  bool fac_ok = false, lvl_ok = false;
  for (auto f : kFacilities) fac_ok |= f == fac;
  for (auto l : kLevels) lvl_ok |= l == lvl;
  if (!fac_ok || !lvl_ok) return s;
  found = true;
  if (i < s.size() && s[i] == ' ') ++i;
  return s.substr(i);
}

enum class Form : std::uint8_t { kNone, kElision, kMono, kCtime, kIso, kRelBase, kRelDelta };

/// One dmesg line taken apart.
struct DmesgLine {
  Form form = Form::kNone;
  TimeNs mono_ns = kNoTime;
  ParsedStamp stamp;           // kCtime, kIso, kRelBase (civil), kRelDelta (civil.nanos unused)
  TimeNs delta_ns = 0;         // kRelDelta
  bool prefixed = false;       // -r or -x prefix seen
  bool iso_comma = false;      // `,` before the fraction: dmesg's own iso layout
  std::string_view text;       // the message (or the whole line when unstamped)
};

// `[Nov29 19:50]` (dmesg -e, first message of a minute); civil gets month, day, hour, minute.
bool parse_reltime_base(std::string_view inside, ParsedStamp& out) {
  out = ParsedStamp{};
  std::size_t i = 0;
  while (i < inside.size() && !text::is_digit(inside[i])) ++i;
  const int month = parse_month_name(text::trim(inside.substr(0, i)));
  std::size_t d = i;
  while (d < inside.size() && text::is_digit(inside[d])) ++d;
  if (month == 0 || d == i || d - i > 2 || d + 6 != inside.size() || inside[d] != ' ' || inside[d + 3] != ':')
    return false;
  unsigned day, h, m;
  if (!text::digits(inside, i, d - i, day) || !text::digits(inside, d + 1, 2, h) ||
      !text::digits(inside, d + 4, 2, m) || h > 23 || m > 59 || !valid_date(2000, month, day))
    return false;
  out.civil.month = static_cast<unsigned>(month);
  out.civil.day = day;
  out.civil.hour = h;
  out.civil.minute = m;
  return true;
}

// `[  +0.000123]` (dmesg -e, later messages of the minute); `[  +0,000123]` where the locale
// writes a decimal comma.
bool parse_reltime_delta(std::string_view inside, TimeNs& delta) {
  inside = text::trim(inside);
  if (inside.size() < 4 || inside[0] != '+') return false;
  const auto dot = inside.find_first_of(".,");
  if (dot == std::string_view::npos) return false;
  const auto secs = text::to_int(inside.substr(1, dot - 1));
  const std::string_view frac = inside.substr(dot + 1);
  const auto f = text::to_int(frac);
  if (!secs || !f || frac.empty() || frac.size() > 9) return false;
  TimeNs ns = *f;
  for (std::size_t k = frac.size(); k < 9; ++k) ns *= 10;
  delta = *secs * kNsPerSec + ns;
  return true;
}

DmesgLine take_apart(std::string_view line) {
  DmesgLine d;
  bool raw = false, fac = false;
  std::string_view s = strip_raw_priority(line, raw);
  s = strip_facility_level(s, fac);
  d.prefixed = raw || fac;
  d.text = s;
  if (is_elision(s)) {
    d.form = Form::kElision;
    return d;
  }
  if (s.empty()) return d;
  if (s[0] == '[') {
    std::size_t len;
    if (parse_mono_stamp(s, d.mono_ns, len)) {
      d.form = Form::kMono;
      d.text = after_kernel_stamp(s.substr(len));
      return d;
    }
    const auto close = s.find(']');
    if (close == std::string_view::npos || close > 64) return d;
    std::string_view inside = s.substr(1, close - 1);
    if (const auto lt = inside.find(" <"); lt != std::string_view::npos) inside = inside.substr(0, lt);  // -d
    if (parse_ctime(inside, d.stamp)) d.form = Form::kCtime;
    else if (parse_reltime_base(inside, d.stamp)) d.form = Form::kRelBase;
    else if (parse_reltime_delta(inside, d.delta_ns)) d.form = Form::kRelDelta;
    else return d;  // `[drm] ...` with its stamp cut: an unstamped message
    d.text = after_kernel_stamp(s.substr(close + 1));
    return d;
  }
  if (text::is_digit(s[0]) && parse_rfc3339(s, d.stamp)) {
    d.form = Form::kIso;
    d.iso_comma = d.stamp.fraction_sep == ',';
    d.text = after_kernel_stamp(s.substr(d.stamp.length));
  }
  return d;
}

/// Per-file state of the dmesg parse: what one chunk of a file hands to the next.
class DmesgParser final : public ChunkState {
 public:
  /// The sink the next lines go to.
  void attach(FileSink& sink) noexcept { sink_ = &sink; }

  void line(const Line& line) {
    FileSink& sink = *sink_;
    if (!any_line_ && line.truncated) leaned_on_before_ = true;  // its sample precedes the flush before it
    any_line_ = true;
    if (text::is_blank(line.text)) {
      pending.flush(sink);
      return;
    }
    const DmesgLine d = take_apart(line.text);
    if (d.form == Form::kElision) {
      pending.flush(sink);
      sink.accept();
      return;
    }
    MessageRecord m;
    m.line = line.number;
    m.ident = "kernel";
    // Before the chunk's first stamp, an unstamped line continues or borrows from the chunk before.
    if (d.form == Form::kNone && !seen_stamp) leaned_on_before_ = true;
    if (d.form == Form::kNone && text::looks_binary(d.text)) {  // garbage: no message, no continuation
      pending.flush(sink);
      sink.problem(line, Problem::binary_data, "binary bytes where a kernel message should be");
      return;
    }
    if (d.form == Form::kNone) {
      // Continuation lines are indented under the message (NVRM tables, multi-line printks).
      const std::size_t ind = text::is_space(d.text.empty() ? 'x' : d.text[0]) ? indentation(d.text) : 0;
      if (pending.active() && (pending.stamped() ? ind > 0 : ind > pending.indent())) {
        pending.append(d.text, sink);
        sink.continuation();
        return;
      }
      pending.flush(sink);
      m.text = text::ltrim(d.text);
      m.boot_seq = boot_seq;
      last.lend(m);
      ++untimed;
      pending.start(m, false, ind);
      sink.accept();
      return;
    }
    pending.flush(sink);
    m.text = d.text;
    const bool first_stamp = !seen_stamp;
    if (first_stamp) first_linux_ = is_linux_version(m.text);
    switch (d.form) {
      case Form::kMono: {
        const bool boot_start = !seen_stamp || is_linux_version(m.text);
        if (!mono_seen_) {
          first_mono_raw_ = d.mono_ns;
          first_mono_boot_start_ = boot_start;
          first_mono_linux_ = is_linux_version(m.text);
        }
        m.mono_ns = wrap.adjust(d.mono_ns, boot_start);
        if (!mono_seen_) first_mono_ = m.mono_ns;
        mono_seen_ = true;
        if (wrap.active() && !wrap_noted) {
          wrap_noted = true;
          sink.diagnostics().notes.push_back(fmt::format(
              "line {}: the kernel's clock starts at [{:.6f}], just below the 32-bit jiffies wrap: an old kernel's "
              "counter, read as time since boot (not 49.7 days of uptime)",
              line.number, static_cast<double>(wrap.base()) / kNsPerSec));
        }
        break;
      }
      case Form::kCtime:
        m.wall_kind = WallKind::kLocal;
        m.wall_raw_ns = civil_to_ns(d.stamp.civil);
        m.flags |= kFlagUnreliableWall;
        break;
      case Form::kIso:
        m.wall_kind = WallKind::kUtc;
        m.wall_raw_ns = utc_of(d.stamp);
        sink.observe_utc_offset(d.stamp.offset_ns);
        break;
      case Form::kRelBase:
        if (first_month_ == 0) first_month_ = d.stamp.civil.month;
        rel_wall = clock.place(d.stamp.civil);
        m.wall_kind = WallKind::kLocalNoYear;
        m.wall_raw_ns = rel_wall;
        m.flags |= kFlagUnreliableWall;
        break;
      case Form::kRelDelta:
        if (first_month_ == 0) leaned_on_before_ = true;  // a delta from the chunk before's base
        if (rel_wall != kNoTime) {
          rel_wall += d.delta_ns;
          m.wall_kind = WallKind::kLocalNoYear;
          m.wall_raw_ns = rel_wall;
        }
        m.flags |= kFlagUnreliableWall;
        break;
      default: break;
    }
    // A new boot inside the file: monotonic time restarts, or the kernel announces itself.
    bool restart = seen_stamp && is_linux_version(m.text);
    if (m.mono_ns != kNoTime) {
      if (prev_mono != kNoTime && m.mono_ns + kBootRestartNs < prev_mono) restart = true;
      prev_mono = m.mono_ns;
    }
    if (restart) ++boot_seq;
    seen_stamp = true;
    m.boot_seq = boot_seq;
    last.remember(m);
    pending.start(m, true, 0);
    sink.accept();
  }

  void finish() {
    pending.flush(*sink_);
    if (untimed > 0)
      sink_->diagnostics().notes.push_back(
          fmt::format("{} messages had no timestamp (cut from the paste, or dmesg -t); they carry the previous "
                      "stamp, or none, flagged approximate",
                      untimed));
  }

 private:
  friend bool continue_dmesg_chunk(DmesgParser& before, DmesgParser& chunk, FileSink& file_sink,
                                   FileSink& chunk_sink);

  FileSink* sink_ = nullptr;
  PendingMessage pending;
  LastStamp last;
  NoYearClock clock;
  std::int32_t boot_seq = 0;
  bool seen_stamp = false;
  TimeNs prev_mono = kNoTime;
  TimeNs rel_wall = kNoTime;
  std::uint64_t untimed = 0;
  JiffiesWrap wrap;
  bool wrap_noted = false;
  // What a chunk parsed from a fresh state assumed about the state before it (checked by
  // continue_dmesg_chunk): no line leaned on it before the first stamp (an unstamped line, a
  // -e delta before the chunk's first -e base, a cut first line), whether the first stamp said
  // `Linux version`, the month of the first -e base (0: none), the first monotonic stamp as
  // printed and as placed, and how it was read.
  bool any_line_ = false;
  bool leaned_on_before_ = false;
  bool first_linux_ = false;
  unsigned first_month_ = 0;
  bool mono_seen_ = false;
  bool first_mono_boot_start_ = false;
  bool first_mono_linux_ = false;
  TimeNs first_mono_raw_ = kNoTime;
  TimeNs first_mono_ = kNoTime;
};

// Whether a chunk parsed from a fresh state gave what a parse from `before` gives, but for its
// boot ordinals (which move by the boots before it); if so, makes it so, flushes the message the
// chunk before left pending into the file's sink, and leaves in `before` the state after the
// chunk.
bool continue_dmesg_chunk(DmesgParser& before, DmesgParser& chunk, FileSink& file_sink, FileSink& chunk_sink) {
  if (chunk.leaned_on_before_) return false;
  // The first stamp began no boot that the fresh state could not see.
  if (before.seen_stamp && chunk.first_linux_) return false;
  // The year of -e bases: no rollover before the chunk, and none at its first base.
  if (!year_clock_continues(before.clock, chunk.first_month_)) return false;
  // The first monotonic stamp read the clock as one pass reads it, and did not go back.
  if (chunk.mono_seen_ &&
      (!wrap_continues(before.wrap, chunk.first_mono_raw_, chunk.first_mono_boot_start_,
                       !before.seen_stamp || chunk.first_mono_linux_) ||
       (before.prev_mono != kNoTime && chunk.first_mono_ + kBootRestartNs < before.prev_mono)))
    return false;
  take_chunk_over(before.pending, before.boot_seq, chunk.boot_seq, chunk.pending, file_sink, chunk_sink);
  // What the chunk did not touch stays as it was before it (a chunk without a stamp held only
  // blank and elided lines).
  if (!chunk.seen_stamp) chunk.last = before.last;
  chunk.seen_stamp = chunk.seen_stamp || before.seen_stamp;
  chunk.boot_seq += before.boot_seq;
  chunk.untimed += before.untimed;
  chunk.wrap_noted = chunk.wrap_noted || before.wrap_noted;
  if (chunk.first_month_ == 0) {
    chunk.clock = before.clock;
    chunk.rel_wall = before.rel_wall;
  }
  if (!chunk.mono_seen_) {
    chunk.wrap = before.wrap;
    chunk.prev_mono = before.prev_mono;
  }
  FileSink* sink = before.sink_;
  before = std::move(chunk);
  before.sink_ = sink;
  return true;
}

// Real lines of the format, with what the parser makes of them (tests/unit/format_samples_test.cpp).
constexpr FormatSample kSamples[] = {
    {"dmesg.txt", "tests/data/real/kern/xid31-mmu-fault-dmesg-proton.txt",
     R"smp([ 1451.785035] NVRM: Xid (PCI:0000:01:00): 31, pid=35097, name=SpaceEngine.exe, channel 0x0000005c, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC2 GPCCLIENT_PROP_0 faulted @ 0x0_00000000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ
[ 1454.883346] sysrq: Keyboard mode set to system default
[ 1455.114783] sysrq: Terminate All Tasks
)smp",
     1},
};

class Format final : public LogFormat {
 public:
  FormatId id() const noexcept override { return FormatId::dmesg; }
  std::span<const FormatSample> samples() const noexcept override { return kSamples; }

  int score(std::string_view line) const noexcept override {
    const DmesgLine d = take_apart(line);
    const int bonus = d.prefixed ? 10 : 0;
    switch (d.form) {
      case Form::kMono:
        // `[ 4909.922970] host kernel: msg` is journalctl short-monotonic, not dmesg.
        return looks_like_host_and_ident(d.text) ? 30 : 80 + bonus;
      case Form::kCtime:
      case Form::kRelBase:
      case Form::kRelDelta: return 80 + bonus;
      case Form::kIso: return d.iso_comma ? 85 : 25;  // rsyslog writes '.', dmesg ','
      case Form::kElision: return 0;
      case Form::kNone: return d.prefixed ? 60 : kernel_likeness(line);
    }
    return 0;
  }

  void parse(LineSource& src, FileSink& sink) const override {
    DmesgParser p;
    p.attach(sink);
    feed_lines(src, sink, p);
  }

  // Chunked parsing: the parser's state handed from one chunk to the next (continue_dmesg_chunk).
  bool chunkable() const noexcept override { return true; }
  std::unique_ptr<ChunkState> start_state() const override { return std::make_unique<DmesgParser>(); }
  void parse_chunk(LineSource& src, FileSink& sink, ChunkState& state) const override {
    auto& p = static_cast<DmesgParser&>(state);
    p.attach(sink);
    Line line;
    while (src.next(line)) {
      sink.line_read(line);
      p.line(line);
    }
  }
  bool continue_chunk(ChunkState& before, ChunkState& chunk_state, FileSink& file_sink,
                      FileSink& chunk_sink) const override {
    return continue_dmesg_chunk(static_cast<DmesgParser&>(before), static_cast<DmesgParser&>(chunk_state), file_sink,
                                chunk_sink);
  }
  void end_chunks(FileSink& sink, ChunkState& state) const override {
    auto& p = static_cast<DmesgParser&>(state);
    p.attach(sink);
    p.finish();
  }
};

}  // namespace

const LogFormat& dmesg_format() {
  static const Format f;
  return f;
}

}  // namespace gpucost::formats
