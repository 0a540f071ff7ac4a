#include "ingest/formats/syslog_prefix.hpp"

#include <fmt/format.h>

#include <cstring>
#include <string>

#include "gpucost/text.hpp"
#include "ingest/formats/kernel_message.hpp"

namespace gpucost::formats {

namespace {

using text::is_digit;

bool starts_with(std::string_view s, std::string_view p) noexcept { return s.substr(0, p.size()) == p; }

std::size_t token_end(std::string_view s) noexcept {
  std::size_t i = 0;
  while (i < s.size() && !text::is_space(s[i])) ++i;
  return i;
}

// `name[pid]:` or `name:` -> name and pid. Names are what syslog idents look like: no '=' or
// quotes (that is logfmt), not all digits, not ending in ']' without a pid.
bool parse_ident_token(std::string_view tok, std::string_view& name, std::int64_t& pid) noexcept {
  if (tok.size() < 2 || tok.back() != ':') return false;
  tok.remove_suffix(1);
  pid = INT64_MIN;
  if (tok.back() == ']') {
    const std::size_t open = tok.rfind('[');
    if (open == std::string_view::npos || open == 0) return false;
    const std::string_view digits = tok.substr(open + 1, tok.size() - open - 2);
    // Pids are a few plain digits, read without from_chars; anything else (`+12`, `-1`, ten
    // digits and more) as text::to_int reads it.
    if (unsigned u; !digits.empty() && digits.size() <= 9 && text::digits(digits, 0, digits.size(), u)) {
      pid = u;
    } else {
      const auto p = text::to_int(digits);
      if (!p) return false;
      pid = *p;
    }
    tok = tok.substr(0, open);
  }
  bool any_alpha = false;
  for (char c : tok) {
    if (c == '=' || c == '"' || c == '\'' || c == ':') return false;
    if (!is_digit(c) && c != '.' && c != '-') any_alpha = true;
  }
  if (!any_alpha) return false;
  name = tok;
  return true;
}

// Text after an ident token: one separating blank is dropped.
std::string_view after_ident(std::string_view rest) noexcept {
  if (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  return rest;
}

void take_kernel_stamp(SyslogLine& out, MonoStampCache* stamps = nullptr) noexcept;

// Host, ident and message after the stamp. The host is missing in `journalctl --no-hostname`
// output and in some pastes; the ident is missing in lines like `host -- MARK --`.
void split_host_ident(std::string_view rest, SyslogLine& out) noexcept {
  rest = text::ltrim(rest);
  const std::size_t a_end = token_end(rest);
  std::string_view name;
  std::int64_t pid;
  if (parse_ident_token(rest.substr(0, a_end), name, pid)) {
    out.ident = name;
    out.pid = pid;
    out.text = after_ident(rest.substr(a_end));
  } else {
    out.host = rest.substr(0, a_end);
    std::string_view r2 = rest.substr(a_end);
    if (!r2.empty() && r2.front() == ' ') r2.remove_prefix(1);
    const std::size_t b_end = token_end(r2);
    if (b_end > 0 && parse_ident_token(r2.substr(0, b_end), name, pid)) {
      out.ident = name;
      out.pid = pid;
      out.text = after_ident(r2.substr(b_end));
    } else {
      out.text = r2;
    }
  }
  take_kernel_stamp(out);
}

// kern.log keeps the kernel's own stamp: `kernel: [68183.615790] pcieport ...`. Read through
// `stamps` when given.
void take_kernel_stamp(SyslogLine& out, MonoStampCache* stamps) noexcept {
  if (out.ident == "kernel" && !out.text.empty() && out.text.front() == '[') {
    TimeNs mono;
    std::size_t len;
    if (stamps ? stamps->parse(out.text, mono, len) : parse_mono_stamp(out.text, mono, len)) {
      out.mono_ns = mono;
      out.kernel_mono = true;
      out.text = after_kernel_stamp(out.text.substr(len));
    }
  }
}

bool is_status_header(std::string_view t) noexcept {
  static constexpr std::string_view kGlyphs[] = {"\xE2\x97\x8F ", "\xC3\x97 ", "\xE2\x97\x8B ", "\xE2\x86\xBB "};
  for (std::string_view g : kGlyphs)
    if (starts_with(t, g)) {
      std::string_view rest = t.substr(g.size());
      const std::string_view unit = rest.substr(0, token_end(rest));
      return unit.find('.') != std::string_view::npos;
    }
  return false;
}

// `Loaded:`, `Main PID:` ... at the start of s (already trimmed).
bool is_status_key(std::string_view s) noexcept {
  static constexpr std::string_view kKeys[] = {
      "Loaded:", "Active:", "Docs:", "Process:", "Main PID:", "CPU:", "Drop-In:", "CGroup:", "Tasks:",
      "Memory:", "Status:", "TriggeredBy:", "Triggers:", "Trigger:", "Invocation:", "Mem peak:", "IP:",
      "IO:", "Condition:", "Until:", "Listen:", "Accepted:", "Connected:", "Device:", "What:", "Where:",
      "Follows:", "Swap peak:", "Notice:"};
  for (std::string_view k : kKeys)
    if (starts_with(s, k)) return true;
  return false;
}

// A status key line as systemctl prints it: keys right-aligned, so indented (except the widest).
bool is_status_key_line(std::string_view t) noexcept { return indentation(t) > 0 && is_status_key(text::ltrim(t)); }

// The first key lines of a status block whose header was cut; other keys (`Status:`, `Memory:`)
// could as well be an indented continuation line, so they count only inside a block.
bool opens_status_block(std::string_view t) noexcept {
  const std::string_view s = text::ltrim(t);
  return indentation(t) > 0 && (starts_with(s, "Loaded: ") || starts_with(s, "Active: "));
}

bool is_tree_line(std::string_view t) noexcept {
  const std::string_view s = text::ltrim(t);
  return starts_with(s, "\xE2\x94\x94\xE2\x94\x80") || starts_with(s, "\xE2\x94\x9C\xE2\x94\x80") ||
         starts_with(s, "\xE2\x94\x82");
}

bool is_known_marker(std::string_view t) noexcept {
  return starts_with(t, "-- Boot ") || starts_with(t, "-- Reboot --") || starts_with(t, "-- Logs begin at ") ||
         starts_with(t, "-- Journal begins at ") || starts_with(t, "-- No entries --");
}

}  // namespace

bool looks_like_host_and_ident(std::string_view rest) noexcept {
  rest = text::ltrim(rest);
  const std::size_t a = token_end(rest);
  if (a == 0 || rest[a - 1] == ':') return false;
  std::string_view r2 = rest.substr(a);
  if (r2.empty() || r2.front() != ' ') return false;
  r2.remove_prefix(1);
  const std::string_view tok = r2.substr(0, token_end(r2));
  std::string_view name;
  std::int64_t pid;
  if (!parse_ident_token(tok, name, pid)) return false;
  return name == "kernel" || pid != INT64_MIN;
}

bool parse_syslog_line(std::string_view line, SyslogLine& out) noexcept {
  out = SyslogLine{};
  if (line.empty()) return false;
  const char c = line[0];
  if (c == '[') {
    std::size_t len;
    if (!parse_mono_stamp(line, out.mono_ns, len)) return false;
    out.form = StampForm::kMonotonic;
    const std::string_view rest = line.substr(len);
    if (looks_like_host_and_ident(rest)) {
      split_host_ident(rest, out);
    } else {  // a dmesg line pasted into a journal: a kernel message with its stamp
      out.ident = "kernel";
      out.text = after_kernel_stamp(rest);
    }
    return true;
  }
  if (is_digit(c) && parse_rfc3339(line, out.stamp)) {
    out.form = StampForm::kRfc3339;
  } else if (is_digit(c) && parse_unix_stamp(line, out.unix_utc_ns, out.stamp)) {
    out.form = StampForm::kUnix;
  } else if (parse_bsd_stamp(line, out.stamp, out.padding)) {  // month names may start with a digit: `4月`
    out.form = out.stamp.fraction_digits > 0 ? StampForm::kBsdPrecise : StampForm::kBsd;
  } else if (parse_short_full(line, out.stamp, out.zone)) {
    out.form = StampForm::kFull;
  } else {
    return false;
  }
  split_host_ident(line.substr(out.stamp.length), out);
  return true;
}

const SyslogLine* SyslogPrefixCache::parse(std::string_view line) {
  const std::size_t n = prefix_.size();
  if (n != 0 && line.size() > n) {
    bool same = std::memcmp(line.data(), prefix_.data(), n) == 0;
    // The next second of the same host and ident: only the clock's bytes differ. The stamp is
    // read again as parse_syslog_line reads it (its first byte is no digit and no '[': it goes
    // straight to parse_bsd_stamp); what follows it is the same bytes, read the same way.
    const std::size_t c = clock_at_;
    if (!same && c != 0 && std::memcmp(line.data(), prefix_.data(), c) == 0 &&
        std::memcmp(line.data() + c + 8, prefix_.data() + c + 8, n - c - 8) == 0) {
      ParsedStamp stamp;
      DayPadding padding;
      // The same length, as the bytes around the clock are the same: checked, not assumed.
      if (parse_bsd_stamp(line, stamp, padding) && stamp.length == c + 8 && stamp.fraction_digits == 0) {
        parsed_.stamp = stamp;
        parsed_.padding = padding;
        std::memcpy(prefix_.data() + c, line.data() + c, 8);
        same = true;
      }
    }
    if (same) {
      // Host, ident and zone stay views into prefix_, whose bytes are the line's.
      parsed_.text = line.substr(n);
      parsed_.mono_ns = kNoTime;
      parsed_.kernel_mono = false;
      take_kernel_stamp(parsed_, &stamps_);
      return &parsed_;
    }
  }
  SyslogLine& out = fresh_;
  if (!parse_syslog_line(line, out)) return nullptr;
  // Cached only where everything before the text is a wall stamp, a host and an ident that ended
  // at a blank, so that what follows the prefix cannot change how it was read.
  prefix_.clear();
  clock_at_ = 0;
  const bool wall = out.form == StampForm::kBsd || out.form == StampForm::kBsdPrecise || out.form == StampForm::kRfc3339;
  if (wall && !out.ident.empty()) {
    // The ident's token (`ident[pid]:`) ends at the first blank after it, and the text began
    // (before a kernel stamp was taken off it) just after that blank, when it is a space.
    std::size_t blank = static_cast<std::size_t>(out.ident.data() - line.data()) + out.ident.size();
    while (blank < line.size() && !text::is_space(line[blank])) ++blank;
    if (blank + 1 < line.size() && line[blank] == ' ') {
      prefix_.assign(line.substr(0, blank + 1));
      parsed_ = out;
      const auto kept = [&](std::string_view v) {
        return v.empty() ? v : std::string_view(prefix_).substr(static_cast<std::size_t>(v.data() - line.data()), v.size());
      };
      parsed_.host = kept(out.host);
      parsed_.ident = kept(out.ident);
      parsed_.zone = kept(out.zone);
      // `Nov 20 09:00:46`: the clock is the stamp's last 8 bytes.
      if (out.form == StampForm::kBsd && out.stamp.length >= 9 && !is_digit(line[0]) && line[0] != '[')
        clock_at_ = out.stamp.length - 8;
    }
  }
  return &out;
}

int syslog_family_score(std::string_view line, Leaning& leaning) noexcept {
  leaning = Leaning::kNeither;
  SyslogLine l;
  if (!parse_syslog_line(line, l)) return 0;
  if (l.form == StampForm::kMonotonic) {
    if (l.host.empty()) return 0;  // dmesg's line, not journalctl's
    leaning = Leaning::kJournalOnly;
    return 70;
  }
  if (l.form == StampForm::kUnix || l.form == StampForm::kFull) {
    leaning = Leaning::kJournalOnly;
    return l.ident.empty() ? 45 : 70;
  }
  int journal = 0, syslog = 0;
  switch (l.form) {
    case StampForm::kBsd:
      if (l.padding == DayPadding::kZero) ++journal;
      if (l.padding == DayPadding::kSpace) ++syslog;
      break;
    case StampForm::kBsdPrecise: ++journal; break;
    case StampForm::kRfc3339:
      if (!l.stamp.offset_colon || l.stamp.fraction_digits == 0) ++journal;
      else ++syslog;
      break;
    default: break;
  }
  if (l.ident == "kernel") {
    if (l.kernel_mono) ++syslog;
    else ++journal;
  }
  if (journal > syslog) leaning = Leaning::kJournal;
  else if (syslog > journal) leaning = Leaning::kSyslog;
  return l.ident.empty() ? 45 : 70;
}

int journal_structure_score(std::string_view line) noexcept {
  if (is_known_marker(line)) return 90;
  if (starts_with(line, "-- ")) return 40;
  if (is_status_header(line)) return 90;
  if (is_status_key_line(line)) return 70;
  if (is_tree_line(line)) return 30;
  return 0;
}

namespace {

// A line with the shape of a stamp that is no valid one: `Nov 31 10:00:00`, `Nov 29 25:61:61`,
// `Foo 29 10:00:00`, `2026-13-45T10:00:00`. Such a line starts a record (its Xid must not vanish
// into the message before it as a continuation): it is rejected, and `why` says what is wrong.
bool impossible_stamp(std::string_view t, std::string& why) {
  if (t.empty() || text::is_space(t[0]) || t.size() < 15) return false;
  auto two = [&](std::size_t at, unsigned& v) { return at + 2 <= t.size() && text::digits(t, at, 2, v); };
  auto clock_bad = [&](std::size_t at) {  // `HH:MM:SS` at `at`; true when its shape holds a bad value
    unsigned h, m, sec;
    if (!two(at, h) || at + 8 > t.size() || t[at + 2] != ':' || t[at + 5] != ':' || !two(at + 3, m) ||
        !two(at + 6, sec))
      return false;
    if (h > 23 || m > 59 || sec > 60) {
      why = fmt::format("no such time of day `{}`", t.substr(at, 8));
      return true;
    }
    return false;
  };
  // RFC 3339 shape: `YYYY-MM-DDTHH:MM:SS`.
  unsigned y, mo, d;
  if (t.size() >= 19 && t[4] == '-' && t[7] == '-' && (t[10] == 'T' || t[10] == ' ') && text::digits(t, 0, 4, y) &&
      two(5, mo) && two(8, d)) {
    if (!valid_stamp_date(y, mo, d)) {
      why = fmt::format("no such date `{}`", t.substr(0, 10));
      return true;
    }
    if (clock_bad(11)) return true;
    return false;
  }
  // BSD shape: `Mmm dd HH:MM:SS` (the month a word of any script, the day padded or not).
  std::size_t i = 0;
  while (i < t.size() && !text::is_space(t[i])) ++i;
  if (i == 0 || i > 16 || i + 1 >= t.size()) return false;
  const std::string_view month = t.substr(0, i);
  if (month.find(':') != std::string_view::npos || month.find('[') != std::string_view::npos) return false;
  std::size_t j = i;
  while (j < t.size() && t[j] == ' ' && j - i < 2) ++j;
  const std::size_t day_start = j;
  while (j < t.size() && text::is_digit(t[j])) ++j;
  if (j == day_start || j - day_start > 2 || j >= t.size() || t[j] != ' ') return false;
  unsigned day = 0;
  text::digits(t, day_start, j - day_start, day);
  unsigned h, m, sec;
  if (!two(j + 1, h) || j + 9 > t.size() || t[j + 3] != ':' || t[j + 6] != ':' || !two(j + 4, m) || !two(j + 7, sec))
    return false;
  const int mon = parse_month_name(month);
  if (mon == 0) {
    why = fmt::format("stamp with an unknown month name `{}`", text::excerpt(month, 16));
    return true;
  }
  if (!valid_date(2000, static_cast<unsigned>(mon), day)) {
    why = fmt::format("no such day `{} {}`", month, day);
    return true;
  }
  return clock_bad(j + 1);
}

/// Per-file state of the syslog/journal parse: what one chunk of a file hands to the next
/// (continue_syslog_chunk).
class FamilyParser final : public ChunkState, public LineKeeper {
 public:
  explicit FamilyParser(bool journal) : journal_(journal) {}
  /// The sink the next lines go to.
  void attach(FileSink& sink) noexcept { sink_ = &sink; }
  /// Reads the lines of `src` (after attach()). The pending message borrows its first line from
  /// the source while the source tells before it moves its bytes; it owns its text again after
  /// the last line (the source dies before the state does, in a chunk's parse).
  void read(LineSource& src) {
    borrow_ = src.set_keeper(this);
    Line line;
    while (src.next(line)) this->line(line);
    src.set_keeper(nullptr);
    borrow_ = false;
    pending_.keep();
  }
  void keep_lines() override { pending_.keep(); }

  void line(const Line& line) {
    sink_->line_read(line);
    if (!any_line_ && line.truncated) leaned_on_before_ = true;  // its sample precedes the flush before it
    any_line_ = true;
    const std::string_view t = line.text;
    if (text::is_blank(t)) {
      pending_.flush(*sink_);
      in_status_ = false;
      return;
    }
    if (journal_ && journal_structure(line)) return;
    if (const SyslogLine* l = prefixes_.parse(t)) {
      in_status_ = false;
      stamped(line, *l);
      sink_->accept();
      return;
    }
    if (is_elision(t)) {
      pending_.flush(*sink_);
      sink_->accept();
      return;
    }
    unstamped(line);
  }

  void finish() {
    pending_.flush(*sink_);
    if (marker_pending_) {
      MessageRecord b;
      b.flags = kFlagApproxTime;
      emit_boot(b);
    }
    if (untimed_ > 0)
      sink_->diagnostics().notes.push_back(
          fmt::format("{} messages had no stamp of their own (prefix cut in the paste); they carry the "
                      "previous line's time, or none, flagged approximate",
                      untimed_));
  }

 private:
  // Journal markers and `systemctl status` blocks; true when the line was one.
  bool journal_structure(const Line& line) {
    const std::string_view t = line.text;
    // Before the chunk's first entry, a marker or status line depends on the entries before it.
    if (!stamped_seen_ && (starts_with(t, "-- ") || in_status_ || is_status_header(t) || opens_status_block(t)))
      leaned_on_before_ = true;
    if (starts_with(t, "-- ")) {
      pending_.flush(*sink_);
      in_status_ = false;
      if (starts_with(t, "-- Boot ")) {
        std::string_view id = t.substr(8);
        id = id.substr(0, token_end(id));
        new_boot(line, id);
      } else if (starts_with(t, "-- Reboot --")) {
        new_boot(line, {});
      }
      sink_->accept();
      return true;
    }
    if (is_status_header(t) || opens_status_block(t) ||
        (in_status_ && (indentation(t) > 0 || is_tree_line(t) || is_status_key(t)))) {
      pending_.flush(*sink_);
      in_status_ = true;
      sink_->accept();
      return true;
    }
    // systemctl's footers, printed after the journal lines of a status block.
    if (starts_with(t, "Hint: Some lines were ellipsized") || (in_status_ && starts_with(t, "Warning: "))) {
      pending_.flush(*sink_);
      sink_->accept();
      return true;
    }
    return false;
  }

  void new_boot(const Line& line, std::string_view id) {
    if (seen_entry_) {
      ++boot_seq_;
      marker_pending_ = true;
      marker_line_ = line.number;
      marker_text_.assign(text::trim(line.text));
    }
    boot_id_.assign(id);
  }

  void emit_boot(MessageRecord b) {
    b.line = marker_line_;
    b.text = marker_text_;
    b.boot_seq = boot_seq_;
    b.boot_id = boot_id_;
    b.ident = {};
    b.ident_pid = INT64_MIN;
    sink_->event(EventKind::boot, b);
    marker_pending_ = false;
  }

  void stamped(const Line& line, const SyslogLine& l) {
    pending_.flush(*sink_);
    MessageRecord& m = pending_.next_record();
    m.line = line.number;
    m.ident = l.ident;
    m.ident_pid = l.pid;
    m.text = l.text;
    m.boot_id = boot_id_;
    TimeNs precision = l.stamp.precision_ns();
    switch (l.form) {
      case StampForm::kBsd:
      case StampForm::kBsdPrecise:
        if (first_month_ == 0) first_month_ = l.stamp.civil.month;
        m.wall_kind = WallKind::kLocalNoYear;
        m.wall_raw_ns = clock_.place(l.stamp.civil);
        break;
      case StampForm::kRfc3339:
        m.wall_kind = WallKind::kUtc;
        m.wall_raw_ns = utc_of(l.stamp);
        sink_->observe_utc_offset(l.stamp.offset_ns);
        break;
      case StampForm::kUnix:
        m.wall_kind = WallKind::kUtc;
        m.wall_raw_ns = l.unix_utc_ns;
        break;
      case StampForm::kMonotonic: break;
      case StampForm::kFull: full_stamp(l, m); break;
    }
    const bool kernel = l.ident == "kernel";
    // Read once: the checks below all ask it of a kernel line.
    const bool linux_version = kernel && is_linux_version(l.text);
    if (kernel && !seen_kernel_) first_kernel_linux_ = linux_version;
    if (l.mono_ns != kNoTime) {
      m.mono_ns = l.mono_ns;
      if (kernel) {
        const bool boot_start = !wrap_started_ || linux_version;
        m.mono_ns = wrap_.adjust(l.mono_ns, boot_start);
        if (!wrap_started_) {
          first_mono_linux_ = linux_version;
          first_mono_raw_ = l.mono_ns;
          first_mono_ = m.mono_ns;
        }
        wrap_started_ = true;
      }
    }
    if (kernel && !journal_) {
      // kern.log has no boot markers: the kernel's first message, or monotonic time restarting,
      // says a new boot began.
      bool restart = seen_kernel_ && linux_version;
      if (m.mono_ns != kNoTime) {
        if (prev_kernel_mono_ != kNoTime && m.mono_ns + kBootRestartNs < prev_kernel_mono_) restart = true;
        prev_kernel_mono_ = m.mono_ns;
      }
      if (restart) ++boot_seq_;
      seen_kernel_ = true;
    }
    m.boot_seq = boot_seq_;
    if (kernel && m.mono_ns != kNoTime && m.wall_raw_ns != kNoTime &&
        !sink_->anchor_changes_nothing(boot_seq_, m.mono_ns, m.wall_raw_ns, m.wall_kind, precision)) {
      // One anchor, reused: a kernel line no longer builds and frees a boot id string.
      BootAnchor& a = anchor_;
      a.boot_id.assign(boot_id_);
      a.boot_seq = boot_seq_;
      a.line = line.number;
      a.mono_ns = m.mono_ns;
      a.wall_raw_ns = m.wall_raw_ns;
      a.wall_kind = m.wall_kind;
      a.precision_ns = precision;
      sink_->anchor(a);
    }
    if (marker_pending_) {
      // The marker's boot event takes this entry's time, unless the entry is the kernel's own
      // first message (it becomes a boot event itself).
      if (linux_version) marker_pending_ = false;
      else emit_boot(m);
    }
    seen_entry_ = true;
    stamped_seen_ = true;
    last_.remember(m);
    pending_.start(true, 0, borrow_);
  }

  // short-full names the zone by abbreviation (`CET`, `IST`), which is ambiguous; UTC/GMT and
  // numeric abbreviations (`+03`) are exact.
  void full_stamp(const SyslogLine& l, MessageRecord& m) {
    TimeNs off = 0;
    bool exact = l.zone == "UTC" || l.zone == "GMT" || l.zone == "Z";
    if (!exact && (l.zone.front() == '+' || l.zone.front() == '-')) {
      const auto hours = l.zone.size() == 3 ? text::to_int(l.zone.substr(1)) : std::nullopt;
      if (hours && *hours <= 23) {
        off = *hours * kNsPerHour * (l.zone.front() == '-' ? -1 : 1);
        exact = true;
      } else {
        exact = parse_utc_offset(l.zone, off);
      }
      if (exact) sink_->observe_utc_offset(off);
    }
    if (exact) {
      m.wall_kind = WallKind::kUtc;
      m.wall_raw_ns = civil_to_ns(l.stamp.civil) - off;
      return;
    }
    m.wall_kind = WallKind::kLocal;
    m.wall_raw_ns = civil_to_ns(l.stamp.civil);
    if (!zone_noted_) {
      zone_noted_ = true;
      sink_->diagnostics().notes.push_back(fmt::format(
          "short-full stamps name the zone only by the abbreviation '{}', which is ambiguous; read as local time",
          l.zone));
    }
  }

  void unstamped(const Line& line) {
    // Before the chunk's first stamped line, what an unstamped line becomes depends on the
    // message the chunk before left pending and on its stamp.
    if (!stamped_seen_) leaned_on_before_ = true;
    const std::string_view t = line.text;
    if (text::looks_binary(t)) {  // garbage ends the message before it; never joined to it
      pending_.flush(*sink_);
      sink_->problem(line, Problem::binary_data, "binary bytes where a syslog line should be");
      return;
    }
    if (impossible_stamp(t, why_)) {
      pending_.flush(*sink_);
      sink_->problem(line, Problem::bad_timestamp, why_ + "; the line is rejected, not joined to the message before it");
      return;
    }
    const std::size_t ind = indentation(t);
    const std::string_view s = text::ltrim(t);
    SyslogLine parts;
    std::string_view ident, body;
    std::int64_t pid = INT64_MIN;
    if (looks_like_host_and_ident(s)) {  // the stamp was cut: `fedora kernel: NVRM: ...`
      split_host_ident(s, parts);
      ident = parts.ident;
      pid = parts.pid;
      body = parts.text;
    } else if (starts_with(s, "kernel:")) {  // stamp and host cut: ` kernel: NVRM: ...`
      ident = "kernel";
      body = after_ident(s.substr(7));
    } else if (pending_.active() && pending_.stamped() && ind > 0) {
      // Multi-line messages are printed with their continuation lines indented.
      pending_.append(t, *sink_);
      sink_->continuation();
      return;
    } else if (const int k = kernel_likeness(s); k >= 40 || (k > 0 && !pending_.active())) {
      // Only the message is left (`NVRM: ...`). With a message pending, only unmistakable kernel
      // lines start a new one: a wrapped tail may begin with an ordinary word.
      ident = "kernel";
      body = s;
    } else if (pending_.active() && !line.truncated) {  // hard-wrapped by a terminal (never this long)
      pending_.append(t, *sink_);
      sink_->continuation();
      return;
    } else {
      sink_->problem(line, Problem::unparsable_line,
                    line.truncated ? "no syslog/journal stamp, and too long to be a wrapped continuation"
                                   : "no syslog/journal stamp, and nothing to continue");
      return;
    }
    pending_.flush(*sink_);
    MessageRecord m;
    m.line = line.number;
    m.ident = ident;
    m.ident_pid = pid;
    m.text = body;
    m.boot_id = boot_id_;
    m.boot_seq = boot_seq_;
    last_.lend(m);
    ++untimed_;
    pending_.start(m, false, ind, borrow_);
    sink_->accept();
  }

  friend bool continue_family_chunk(FamilyParser& before, FamilyParser& chunk, FileSink& file_sink,
                                    FileSink& chunk_sink);

  FileSink* sink_ = nullptr;
  bool journal_;
  PendingMessage pending_;
  bool borrow_ = false;  // the source tells before it moves the lines' bytes (read())
  SyslogPrefixCache prefixes_;
  LastStamp last_;
  NoYearClock clock_;
  std::int32_t boot_seq_ = 0;
  std::string boot_id_;
  bool seen_entry_ = false;
  bool seen_kernel_ = false;
  TimeNs prev_kernel_mono_ = kNoTime;
  BootAnchor anchor_;  // what stamped() hands to sink_->anchor() (reused)
  JiffiesWrap wrap_;  // an old kernel's clock that starts near the 32-bit wrap
  bool wrap_started_ = false;  // a kernel [mono] stamp was seen
  bool in_status_ = false;
  bool marker_pending_ = false;
  std::uint64_t marker_line_ = 0;
  std::string marker_text_;
  std::string why_;  // reason of an impossible stamp (reused)
  bool zone_noted_ = false;
  std::uint64_t untimed_ = 0;
  // What a chunk parsed from a fresh state assumed about the state before it (checked by
  // continue_family_chunk): no line leaned on it before the first stamped one, the month of the
  // first BSD stamp (0: none), whether the first kernel line said `Linux version`, the first
  // kernel monotonic stamp as printed and as placed, and whether its line said `Linux version`.
  bool any_line_ = false;
  bool stamped_seen_ = false;
  bool leaned_on_before_ = false;
  unsigned first_month_ = 0;
  bool first_kernel_linux_ = false;
  bool first_mono_linux_ = false;
  TimeNs first_mono_raw_ = kNoTime;
  TimeNs first_mono_ = kNoTime;
};

// Whether a chunk parsed from a fresh state gave what a parse from `before` gives, but for its
// boot ordinals (which move by the boots before it); if so, makes it so, flushes the message the
// chunk before left pending into the file's sink, and leaves in `before` the state after the
// chunk.
bool continue_family_chunk(FamilyParser& before, FamilyParser& chunk, FileSink& file_sink, FileSink& chunk_sink) {
  if (chunk.leaned_on_before_) return false;
  // journalctl's markers: a boot named or awaiting its first entry, a status block open.
  if (!before.boot_id_.empty() || before.marker_pending_ || before.in_status_) return false;
  // The year: no rollover before the chunk, and none at its first stamp (Dec -> Jan).
  if (!year_clock_continues(before.clock_, chunk.first_month_)) return false;
  if (chunk.seen_kernel_) {
    // The first kernel line began no boot that the fresh state could not see.
    if (before.seen_kernel_ && chunk.first_kernel_linux_) return false;
    // Its clock continues the wrap state before it, and did not restart.
    if (chunk.wrap_started_ &&
        (!wrap_continues(before.wrap_, chunk.first_mono_raw_, true, !before.wrap_started_ || chunk.first_mono_linux_) ||
         (before.prev_kernel_mono_ != kNoTime && chunk.first_mono_ + kBootRestartNs < before.prev_kernel_mono_)))
      return false;
  }
  take_chunk_over(before.pending_, before.boot_seq_, chunk.boot_seq_, chunk.pending_, file_sink, chunk_sink);
  // What the chunk did not touch stays as it was before it.
  chunk.boot_seq_ += before.boot_seq_;
  chunk.untimed_ += before.untimed_;
  chunk.zone_noted_ = chunk.zone_noted_ || before.zone_noted_;
  chunk.seen_entry_ = chunk.seen_entry_ || before.seen_entry_;
  if (chunk.first_month_ == 0) chunk.clock_ = before.clock_;
  if (!chunk.seen_kernel_) {
    chunk.seen_kernel_ = before.seen_kernel_;
    chunk.prev_kernel_mono_ = before.prev_kernel_mono_;
  }
  if (!chunk.wrap_started_) {
    chunk.wrap_started_ = before.wrap_started_;
    chunk.wrap_ = before.wrap_;
    if (chunk.prev_kernel_mono_ == kNoTime) chunk.prev_kernel_mono_ = before.prev_kernel_mono_;
  }
  if (!chunk.stamped_seen_) chunk.last_ = before.last_;
  FileSink* sink = before.sink_;
  before = std::move(chunk);
  before.sink_ = sink;
  return true;
}


}  // namespace

void parse_syslog_family(LineSource& src, FileSink& sink, bool journal) {
  FamilyParser p(journal);
  p.attach(sink);
  p.read(src);
  p.finish();
}

std::unique_ptr<ChunkState> SyslogFamilyFormat::start_state() const { return std::make_unique<FamilyParser>(journal_); }

void SyslogFamilyFormat::parse_chunk(LineSource& src, FileSink& sink, ChunkState& state) const {
  auto& p = static_cast<FamilyParser&>(state);
  p.attach(sink);
  p.read(src);
}

void SyslogFamilyFormat::end_chunks(FileSink& sink, ChunkState& state) const {
  auto& p = static_cast<FamilyParser&>(state);
  p.attach(sink);
  p.finish();
}

bool SyslogFamilyFormat::continue_chunk(ChunkState& before, ChunkState& chunk_state, FileSink& file_sink,
                                        FileSink& chunk_sink) const {
  return continue_family_chunk(static_cast<FamilyParser&>(before), static_cast<FamilyParser&>(chunk_state), file_sink,
                               chunk_sink);
}

}  // namespace gpucost::formats
