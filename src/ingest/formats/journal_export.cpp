// journalctl -o export: entries as `KEY=value` lines, separated by a blank line. A field whose
// value is not printable UTF-8 (any multi-line MESSAGE) is serialized as its name alone on a
// line, a little-endian uint64 length, the raw bytes and a '\n'; LineSource::read_raw() reads
// those bytes. Field meaning is shared with the JSON form (journal_fields.hpp).
//
// Line accounting: the lines of an entry are decided when the entry ends. A usable entry
// accepts all its lines; a rejected one reports one problem with a sample on the line that
// broke it (or its first line, for a missing stamp) and counts its other lines under the same
// problem without samples, so the error rate says how many lines were lost.
#include <fmt/format.h>

#include <array>
#include <cstring>

#include "gpucost/text.hpp"
#include "ingest/formats/formats.hpp"
#include "ingest/formats/journal_fields.hpp"

namespace gpucost::formats {
namespace {

// A binary field longer than this is taken as a damaged length, not data (journald's own
// limit on one field is 64 MiB by default).
constexpr std::uint64_t kMaxBinaryField = 64ull << 20;

// Field names: upper-case letters, digits and '_', not starting with a digit (sd-journal's
// rule; the double-underscore metadata fields follow it too).
bool valid_field_name(std::string_view s) noexcept {
  if (s.empty() || s.size() > 64 || text::is_digit(s[0])) return false;
  for (const char c : s)
    if (!((c >= 'A' && c <= 'Z') || text::is_digit(c) || c == '_')) return false;
  return true;
}

// Fields that say "journal export" when a line starts with them.
bool is_signature_field(std::string_view key) noexcept {
  return key == "__CURSOR" || key == "__REALTIME_TIMESTAMP" || key == "__MONOTONIC_TIMESTAMP" ||
         key == "_BOOT_ID" || key == "MESSAGE";
}

// Well-known fields that applications set (systemd.journal-fields(7)); trusted fields start with '_'.
bool is_known_user_field(std::string_view key) noexcept {
  static constexpr std::string_view kFields[] = {
      "PRIORITY", "SYSLOG_FACILITY", "SYSLOG_IDENTIFIER", "SYSLOG_PID", "SYSLOG_TIMESTAMP", "SYSLOG_RAW",
      "CODE_FILE", "CODE_LINE", "CODE_FUNC", "MESSAGE_ID", "ERRNO", "INVOCATION_ID", "USER_INVOCATION_ID",
      "UNIT", "USER_UNIT", "TID", "DOCUMENTATION", "JOB_ID", "JOB_TYPE", "JOB_RESULT", "CONTAINER_ID",
      "CONTAINER_NAME", "CONTAINER_TAG", "IMAGE_NAME", "__SEQNUM", "__SEQNUM_ID"};
  for (const auto f : kFields)
    if (f == key) return true;
  return false;
}

// The fields gpucost reads, copied out of the lines (a line's view dies with the next line).
class EntryBuffer {
 public:
  void clear() {
    for (auto& f : fields_) f.present = false;
    used_ = 0;
    message_cut = false;
  }
  void set(std::optional<std::string_view> JournalEntry::*member, std::string_view value) {
    Field* f = nullptr;
    for (std::size_t i = 0; i < used_; ++i)
      if (fields_[i].member == member) f = &fields_[i];
    if (!f) {
      if (used_ == fields_.size()) return;  // cannot happen: one slot per member
      f = &fields_[used_++];
      f->member = member;
    }
    if (f->present) return;  // a field set twice: the first value stands, as in JSON
    f->value.assign(value.data(), value.size());
    f->present = true;
  }
  void fill(JournalEntry& e) const {
    e = JournalEntry{};
    for (std::size_t i = 0; i < used_; ++i)
      if (fields_[i].present) e.*(fields_[i].member) = std::string_view(fields_[i].value);
  }
  bool message_cut = false;  ///< MESSAGE came from a line cut at --max-line-length

 private:
  struct Field {
    std::optional<std::string_view> JournalEntry::*member = nullptr;
    std::string value;
    bool present = false;
  };
  std::array<Field, 16> fields_{};
  std::size_t used_ = 0;
};

class ExportParser {
 public:
  ExportParser(LineSource& src, FileSink& sink) : src_(src), sink_(sink), out_(sink) {}

  void run() {
    Line line;
    while (src_.next(line)) {
      sink_.line_read(line);
      if (text::is_blank(line.text)) {
        finish();
        continue;
      }
      if (!in_entry_) start(line);
      if (skipping_) {
        ++pending_;
        continue;
      }
      // A cut line already has its problem; its value (cut) still serves the entry.
      counted_ = !line.truncated;
      if (counted_) ++pending_;
      field_line(line);
    }
    finish();
  }

 private:
  void start(const Line& line) {
    in_entry_ = true;
    first_text_.assign(line.text.data(), line.text.size());
    first_ = line;
    first_.text = first_text_;
    entry_.clear();
    pending_ = 0;
    broken_.reset();
    skipping_ = false;
  }

  void field_line(const Line& line) {
    const std::string_view t = line.text;
    const auto eq = t.find('=');
    const std::string_view key = t.substr(0, eq);
    if (!valid_field_name(key)) {
      reject_line(line, eq == std::string_view::npos ? "neither KEY=value nor a binary field name"
                                                     : "the text before '=' is not a journal field name");
      return;
    }
    const auto member = journal_field_slot(key);
    if (eq != std::string_view::npos) {
      if (member) {
        entry_.set(member, t.substr(eq + 1));
        if (line.truncated && member == &JournalEntry::message) entry_.message_cut = true;
      }
      return;
    }
    binary_field(line, key, member);
  }

  // A line that is no field is rejected alone; the entry around it stays usable.
  void reject_line(const Line& line, std::string_view reason) {
    if (!counted_) return;
    --pending_;
    sink_.problem(line, Problem::unparsable_line, reason);
  }

  void binary_field(const Line& line, std::string_view key, std::optional<std::string_view> JournalEntry::*member) {
    const std::string name(key);  // the line's view dies at the next read
    raw_.clear();
    if (src_.read_raw(8, raw_) != 8) {
      break_entry(line, fmt::format("binary field {}: the file ends inside its 8-byte length", name));
      return;
    }
    std::uint64_t len = 0;
    for (int i = 7; i >= 0; --i) len = (len << 8) | static_cast<unsigned char>(raw_[static_cast<std::size_t>(i)]);
    if (len > kMaxBinaryField) {
      break_entry(line, fmt::format("binary field {} claims {} bytes; skipped to the next blank line", name, len));
      skipping_ = true;
      return;
    }
    raw_.clear();
    const std::size_t got = src_.read_raw(static_cast<std::size_t>(len), raw_);
    if (got != len) {
      break_entry(line, fmt::format("binary field {}: the file ends after {} of its {} bytes", name, got, len));
      return;
    }
    if (member) entry_.set(member, raw_);
    std::string nl;
    if (src_.read_raw(1, nl) == 1 && nl[0] != '\n') {
      break_entry(line, fmt::format("binary field {}: its {} bytes are not followed by a newline; "
                                    "skipped to the next blank line", name, len));
      skipping_ = true;
    }
  }

  // The entry cannot be trusted any more: its lines are lost, reported against this line.
  void break_entry(const Line& line, std::string_view reason) {
    if (broken_ || !counted_) return;
    --pending_;
    sink_.problem(line, Problem::unparsable_line, reason);
    broken_ = Problem::unparsable_line;
  }

  void count_lost(Problem p, std::uint64_t n) {
    sink_.diagnostics().problems[static_cast<std::size_t>(p)] += n;
  }

  void finish() {
    if (!in_entry_) return;
    in_entry_ = false;
    if (broken_) {
      count_lost(*broken_, pending_);
      return;
    }
    if (pending_ == 0) return;  // nothing but rejected or cut lines
    entry_.fill(entry_view_);
    if (entry_.message_cut) entry_view_.message_omitted = true;
    if (const auto p = out_.emit(entry_view_, first_)) {
      count_lost(*p, pending_ - 1);
      return;
    }
    for (std::uint64_t i = 1; i < pending_; ++i) sink_.accept();
  }

  LineSource& src_;
  FileSink& sink_;
  JournalEntrySink out_;
  EntryBuffer entry_;
  JournalEntry entry_view_;
  std::string first_text_, raw_;
  Line first_;
  std::uint64_t pending_ = 0;  // lines of the entry not yet accounted for
  std::optional<Problem> broken_;
  bool in_entry_ = false, skipping_ = false;
  bool counted_ = false;  // the current line is in pending_ (not already reported as cut)
};

// Real lines of the format, with what the parser makes of them (tests/unit/format_samples_test.cpp).
constexpr FormatSample kSamples[] = {
    {"journal.export", "tests/data/structured/journal-export-systemd-doc.export (the two text entries)",
     R"smp(__CURSOR=s=739ad463348b4ceca5a9e69c95a3c93f;i=4ece7;b=6c7c6013a26343b29e964691ff25d04c;m=4fc72436e;t=4c508a72423d9;x=d3e5610681098c10;p=system.journal
__REALTIME_TIMESTAMP=1342540861416409
__MONOTONIC_TIMESTAMP=21415215982
_BOOT_ID=6c7c6013a26343b29e964691ff25d04c
_TRANSPORT=syslog
PRIORITY=4
SYSLOG_FACILITY=3
SYSLOG_IDENTIFIER=gdm-password]
SYSLOG_PID=587
MESSAGE=AccountsService-DEBUG(+): ActUserManager: ignoring unspecified session '8' since it's not graphical: Success
_PID=587
_UID=0
_GID=500
_COMM=gdm-session-wor
_EXE=/usr/libexec/gdm-session-worker
_CMDLINE=gdm-session-worker [pam/gdm-password]
_AUDIT_SESSION=2
_AUDIT_LOGINUID=500
_SYSTEMD_CGROUP=/user/lennart/2
_SYSTEMD_SESSION=2
_SELINUX_CONTEXT=system_u:system_r:xdm_t:s0-s0:c0.c1023
_SOURCE_REALTIME_TIMESTAMP=1342540861413961
_MACHINE_ID=a91663387a90b89f185d4e860000001a
_HOSTNAME=epsilon

__CURSOR=s=739ad463348b4ceca5a9e69c95a3c93f;i=4ece8;b=6c7c6013a26343b29e964691ff25d04c;m=4fc72572f;t=4c508a7243799;x=68597058a89b7246;p=system.journal
__REALTIME_TIMESTAMP=1342540861421465
__MONOTONIC_TIMESTAMP=21415221039
_BOOT_ID=6c7c6013a26343b29e964691ff25d04c
_TRANSPORT=syslog
PRIORITY=6
SYSLOG_FACILITY=9
SYSLOG_IDENTIFIER=/USR/SBIN/CROND
SYSLOG_PID=8278
MESSAGE=(root) CMD (run-parts /etc/cron.hourly)
_PID=8278
_UID=0
_GID=0
_COMM=run-parts
_EXE=/usr/bin/bash
_CMDLINE=/bin/bash /bin/run-parts /etc/cron.hourly
_AUDIT_SESSION=8
_AUDIT_LOGINUID=0
_SYSTEMD_CGROUP=/user/root/8
_SYSTEMD_SESSION=8
_SELINUX_CONTEXT=system_u:system_r:crond_t:s0-s0:c0.c1023
_SOURCE_REALTIME_TIMESTAMP=1342540861416351
_MACHINE_ID=a91663387a90b89f185d4e860000001a
_HOSTNAME=epsilon

)smp",
     1},
};

class Format final : public LogFormat {
 public:
  FormatId id() const noexcept override { return FormatId::journal_export; }
  std::span<const FormatSample> samples() const noexcept override { return kSamples; }

  int score(std::string_view line) const noexcept override {
    const auto eq = line.find('=');
    const std::string_view key = line.substr(0, eq);
    if (!valid_field_name(key)) return 0;
    if (eq == std::string_view::npos) return is_signature_field(key) ? 60 : 0;  // a binary field's name
    if (is_signature_field(key)) return 100;
    if (key[0] == '_' || is_known_user_field(key)) return 40;
    return 0;
  }

  void parse(LineSource& src, FileSink& sink) const override { ExportParser(src, sink).run(); }
};

}  // namespace

const LogFormat& journal_export_format() {
  static const Format f;
  return f;
}

}  // namespace gpucost::formats
