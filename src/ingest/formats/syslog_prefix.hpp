#pragma once
// The `STAMP host ident[pid]: message` prefix that classic syslog files (kern.log, syslog,
// messages) and journalctl's short output modes share, and the parser both formats run: the
// two are byte-for-byte alike in their plainest form, so one grammar reads both and only the
// scoring (which layouts are evidence for which) and the journal's marker lines differ.

#ifndef GPUCOST_LAYER_INGEST
#error "gpucost_ingest header: include it only in gpucost_ingest or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "gpucost/ingest/format.hpp"
#include "ingest/formats/kernel_message.hpp"
#include "ingest/formats/stamps.hpp"

namespace gpucost::formats {

/// The stamp layouts of the family.
enum class StampForm : std::uint8_t {
  kBsd,        ///< `Nov 29 19:50:45` (syslog, journalctl short)
  kBsdPrecise, ///< `Nov 29 19:50:45.123456` (journalctl short-precise)
  kRfc3339,    ///< `2026-11-29T19:50:45.123456+01:00` (rsyslog, short-iso, short-iso-precise)
  kUnix,       ///< `1764445845.123456` (short-unix)
  kMonotonic,  ///< `[ 4909.922970]` (short-monotonic)
  kFull,       ///< `Sun 2026-11-29 19:50:45 CET` (short-full)
};

/// One stamped line split into its parts. Views point into the line.
struct SyslogLine {
  StampForm form = StampForm::kBsd;
  ParsedStamp stamp;
  DayPadding padding = DayPadding::kTwoDigits;  ///< kBsd/kBsdPrecise only
  TimeNs unix_utc_ns = kNoTime;                 ///< kUnix only
  TimeNs mono_ns = kNoTime;       ///< kMonotonic, or the kernel's `[mono]` after `kernel:`
  bool kernel_mono = false;       ///< a kernel line that carried its own `[mono]` stamp
  std::string_view zone;          ///< kFull: the zone abbreviation
  std::string_view host;          ///< empty when the line has none
  std::string_view ident;         ///< `kernel`, `systemd`, `/usr/bin/nvidia-powerd`; may be empty
  std::int64_t pid = INT64_MIN;   ///< from `ident[pid]`
  std::string_view text;          ///< the message (kernel stamp removed)
};

/// Splits a stamped line; false when the line does not start with a stamp of the family.
bool parse_syslog_line(std::string_view line, SyslogLine& out) noexcept;

/// parse_syslog_line for the lines of one file, faster: lines of the same second, host and ident
/// share their first bytes (`Nov 20 20:57:01 host kernel: `), which are compared with the last
/// line's instead of being read again; a line of the next second has only its clock read again.
class SyslogPrefixCache {
 public:
  /// What parse_syslog_line(line, out) gives as out, or nullptr where it gives false. Its views
  /// point into `line`, or into the cache's copy of the line's first bytes (the same bytes); it
  /// is valid until the next call.
  const SyslogLine* parse(std::string_view line);
  /// The same, copied into out (false where parse_syslog_line gives false).
  bool parse(std::string_view line, SyslogLine& out) {
    const SyslogLine* l = parse(line);
    if (l) out = *l;
    return l != nullptr;
  }

 private:
  std::string prefix_;  // the last line's bytes up to its text (before a kernel stamp); empty: none
  SyslogLine parsed_;   // what they said, with views into prefix_; and the text of the line met last
  SyslogLine fresh_;    // a line read afresh (reused)
  MonoStampCache stamps_;  // the kernel stamps after a prefix met again
  // Where the `HH:MM:SS` of a plain BSD stamp begins in prefix_ (0: the prefix has none that a
  // line of the next second may replace).
  std::size_t clock_at_ = 0;
};

/// True when `rest` starts like `host ident[pid]: ` or `host kernel: ` (used to tell journalctl
/// short-monotonic from dmesg, whose lines also start with `[ 4909.922970]`).
bool looks_like_host_and_ident(std::string_view rest) noexcept;

/// What a line says about which of the two formats wrote the file.
enum class Leaning : std::uint8_t {
  kNeither,      ///< plain `Mmm dd HH:MM:SS host ident: msg`: both formats score it the same
  kSyslog,       ///< space-padded day, kernel `[mono]`, rsyslog RFC 3339 with `+01:00` and fraction
  kJournal,      ///< zero-padded single-digit day, short-precise, `+0100`, kernel line without `[mono]`
  kJournalOnly,  ///< a layout only journalctl prints (short-unix, short-monotonic, short-full)
};

/// Base score of a stamped line of the family (0 when it is none) and the format it leans to.
int syslog_family_score(std::string_view line, Leaning& leaning) noexcept;

/// Score of a journal-only structure line: `-- Boot ... --` and the other markers, and the lines
/// of a `systemctl status` block pasted above journal lines (`● unit - ...`, `Loaded:`, `└─`).
int journal_structure_score(std::string_view line) noexcept;

/// Score bonus of a line that leans to a format.
inline constexpr int kLeaningBonus = 20;

/// The parse loop syslog and journal_short share. `journal` adds the journal's marker lines
/// (`-- Boot ... --`, `-- Logs begin at ... --`) and `systemctl status` blocks.
void parse_syslog_family(LineSource& src, FileSink& sink, bool journal);

/// A format that parse_syslog_family reads (`syslog`, `journal_short`), in one pass or in chunks
/// (format.hpp's LogFormat chunk functions). A chunk parsed from a fresh state is taken over
/// when it gave what a parse from the state before it gives but for its boot ordinals: it began
/// with a stamped (or blank) line, no journal marker named a boot or left one waiting for its
/// first entry before it, no year rollover came before it or at its first stamp, and its first
/// kernel line neither began a boot nor continued a clock that the fresh state could not know.
/// Its boot ordinals then move by the boots before it, and the message the chunk before left
/// pending goes to the file's sink first. Any other chunk is parsed again.
class SyslogFamilyFormat : public LogFormat {
 public:
  explicit SyslogFamilyFormat(bool journal) noexcept : journal_(journal) {}
  void parse(LineSource& src, FileSink& sink) const override { parse_syslog_family(src, sink, journal_); }
  bool chunkable() const noexcept override { return true; }
  std::unique_ptr<ChunkState> start_state() const override;
  void parse_chunk(LineSource& src, FileSink& sink, ChunkState& state) const override;
  bool continue_chunk(ChunkState& before, ChunkState& chunk_state, FileSink& file_sink,
                      FileSink& chunk_sink) const override;
  void end_chunks(FileSink& sink, ChunkState& state) const override;

 private:
  bool journal_;
};

}  // namespace gpucost::formats
