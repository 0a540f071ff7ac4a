#pragma once
/// \file format.hpp
/// The interface every log format implements, and the sink a format fills for one file.
/// A format scores lines for detection (lnav-style: every format scores the file's first lines,
/// the best total wins and is locked), then parses the whole file by pulling lines.

#include <array>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpucost/diagnostics.hpp"
#include "gpucost/ingest/ingest_result.hpp"
#include "gpucost/ingest/line_source.hpp"
#include "gpucost/ingest/recognizer.hpp"
#include "gpucost/ingest/repeat_runs.hpp"
#include "gpucost/ingest/shell_prompt.hpp"
#include "gpucost/records.hpp"

namespace gpucost {

/// Limits and defaults that parsers need.
struct ParseOptions {
  std::size_t max_line_length = kDefaultMaxLineLength;
  std::size_t max_events_per_kind = 1'000'000;  ///< event rows per kind per file; more are counted, not kept
  /// Repeats of one message within a second become one row with a `repeat` count
  /// (RepeatRuns); false keeps a row per line (`--keep-repeats`).
  bool aggregate_repeats = true;
  TimeNs default_interval_ns = kNsPerSec;       ///< dmon rows without time: the -d interval
};

/// What a parser knows about one message before recognition.
struct MessageRecord {
  std::uint64_t line = 0;
  WallKind wall_kind = WallKind::kNone;
  TimeNs wall_raw_ns = kNoTime;
  TimeNs mono_ns = kNoTime;
  std::string_view boot_id;
  std::int32_t boot_seq = 0;
  std::string_view ident;       ///< syslog ident (`kernel` for kernel lines)
  std::int64_t ident_pid = INT64_MIN;  ///< pid in `ident[pid]`
  std::string_view text;
  std::int64_t flags = 0;
};

/// The output of one file's parse: records plus the file's diagnostics. Parsers append here;
/// ingest merges sinks in file order afterwards.
class FileSink {
 public:
  FileSink(std::uint32_t file_index, std::string path, TimeNs mtime_ns, const ParseOptions& options,
           const EventRecognizer& recognizer);

  std::uint32_t file_index() const noexcept { return file_; }
  const std::string& path() const noexcept { return diag_.path; }
  TimeNs mtime_ns() const noexcept { return diag_.mtime_ns; }
  const ParseOptions& options() const noexcept { return options_; }
  /// The format the file was detected as (stamped on every event).
  FormatId format() const noexcept { return format_; }
  void set_format(FormatId f) noexcept { format_ = f; }
  FileDiagnostics& diagnostics() noexcept { return diag_; }

  Table& samples() noexcept { return out_.samples; }
  Table& processes() noexcept { return out_.processes; }
  Table& events() noexcept { return out_.events; }
  std::vector<BootAnchor>& anchors() noexcept { return out_.anchors; }
  std::vector<GpuDevice>& devices() noexcept { return out_.devices; }
  std::vector<ProfilerSummary>& profiles() noexcept { return out_.profiles; }
  std::optional<Manifest>& manifest() noexcept { return out_.manifest; }
  IngestResult& output() noexcept { return out_; }

  /// Counts a line as read. Parsers call it for every line they pull (blank ones too).
  void line_read(const Line& line);
  /// The line was understood (a record, a header, a marker, structure of the format).
  void accept() noexcept { ++diag_.accepted; }
  /// The line was joined to the previous message.
  void continuation() noexcept { ++diag_.continuations; }
  /// The line is a pasted shell prompt (`user@host:~$ nvidia-smi dmon -d 15`): counted as a
  /// prompt, not as data; what its command says becomes shell_hints(). Call after line_read().
  void prompt(const Line& line);
  /// What the last prompt line of the file said (empty hints before the first).
  const ShellHints& shell_hints() const noexcept { return hints_; }
  /// Prompt lines read so far: a parser that sees this change knows a new command's output
  /// began (two `ps` runs pasted one after the other are two snapshots).
  std::uint64_t prompts() const noexcept { return diag_.prompts; }
  /// A record (row or event) was produced.
  void record() noexcept { ++diag_.records; }
  /// The line was rejected (or noted) for a reason; formats the sample only when it is kept.
  void problem(const Line& line, Problem p, std::string_view reason);
  /// A whole-file problem (line 0).
  void file_problem(Problem p, std::string_view reason);

  /// Classifies a message and, when it is a known kind, appends an event; true when appended.
  /// Every message, recognized or not, moves its boot's last stamp (see finish()).
  bool message(const MessageRecord& m);
  /// After the parse: one `log_end` event per boot the file's messages were in, stamped like the
  /// last stamped message of that boot (recognized or not), so that align can tell how far the
  /// logs reach (Timeline::log_ends) without a row per line.
  void finish();
  /// Appends an event of a known kind without classifying (markers, structured sources).
  void event(EventKind kind, const MessageRecord& m, std::int64_t code = INT64_MIN,
             std::string_view gpu = {}, std::int64_t pid = INT64_MIN, std::string_view process = {});
  /// Appends event rows of another sink of this file (the next chunk of it), in order, as if
  /// event() had made them now: repeats join the runs of this sink, the per-kind caps apply.
  void append_event_rows(const Table& events);
  /// Appends an anchor; consecutive anchors that say the same offset are thinned.
  void anchor(const BootAnchor& a);
  /// Notes a UTC offset the file printed (`+08:00` in an RFC 3339 stamp): evidence for the zone.
  void observe_utc_offset(TimeNs offset_ns);
  /// After the parse: tables without rows are let go (about 10 KB each of column schema), so a
  /// sink that waits to be merged holds only what its file gave. Their schema is gone: nothing
  /// may be appended to them afterwards.
  void release_empty_tables();

 private:
  std::uint32_t file_;
  FormatId format_ = FormatId::unknown;
  const ParseOptions& options_;
  const EventRecognizer& recognizer_;
  FileDiagnostics diag_;
  IngestResult out_;
  std::array<std::uint64_t, kEventKindCount> kind_counts_{};
  RepeatRuns runs_;
  // Appends one event (a run of `repeat`), joining the run of its message when it repeats one.
  void add_event(const EventFields& f, std::uint64_t repeat);
  // The last stamped message of each boot of the file, in the order the boots were met.
  struct LastStamp {
    std::string boot_id;
    std::int32_t boot_seq = 0;
    std::uint64_t line = 0;
    WallKind wall_kind = WallKind::kNone;
    TimeNs wall_raw_ns = kNoTime;
    TimeNs mono_ns = kNoTime;
  };
  std::vector<LastStamp> last_stamps_;
  ShellHints hints_;
  TimeNs last_anchor_offset_ = kNoTime;
  TimeNs last_anchor_mono_ = kNoTime;
  std::int32_t last_anchor_seq_ = -1;
};

/// A few real lines of a format, kept beside its parser (lnav's idea): the unit tests run every
/// format's samples through detection and the parser (tests/unit/format_samples_test.cpp).
struct FormatSample {
  std::string_view file_name;  ///< the name the file had (detection reads it only to break a near tie)
  std::string_view source;     ///< where the lines come from (a fixture under tests/data, see its SOURCES.md)
  std::string_view text;       ///< the lines, verbatim
  std::uint64_t records = 0;   ///< rows and events the parser makes of them
};

/// The read loop of a parser that takes one line at a time: the sink sees every line first
/// (pasted prompts, last stamps per boot), then `parser.line(line)`; `parser.finish()` at the
/// end when the parser has one.
template <class Parser>
void feed_lines(LineSource& src, FileSink& sink, Parser& parser) {
  Line line;
  while (src.next(line)) {
    sink.line_read(line);
    parser.line(line);
  }
  if constexpr (requires { parser.finish(); }) parser.finish();
}

/// A log format: one file under src/ingest/formats/ and one row of GPUCOST_FORMATS (records.hpp),
/// which holds its traits. Implementations are stateless; parse() keeps per-file state on its stack.
class LogFormat {
 public:
  virtual ~LogFormat() = default;
  virtual FormatId id() const noexcept = 0;
  /// How strongly one line says "this file is mine": 0 = not mine, up to 100 = typical.
  /// Blank lines should score 0; detection ignores them. kSignatureScore means the line is a
  /// signature no other file has (`"generator": "gpucost simulate ...`): the format wins outright.
  virtual int score(std::string_view line) const noexcept = 0;
  /// Parses the whole source into the sink. Never throws for bad input: problems go to the sink.
  virtual void parse(LineSource& src, FileSink& sink) const = 0;
  /// Real lines of the format, with what the parser must make of them (at least one sample).
  virtual std::span<const FormatSample> samples() const noexcept = 0;
};

/// Every built-in format, in GPUCOST_FORMATS order (ties in detection go to the earlier one):
/// all_formats()[i]->id() is FormatId(i).
std::span<const LogFormat* const> all_formats();
/// The format with this id, or nullptr.
const LogFormat* find_format(FormatId id);

/// Outcome of scoring a file's first lines against every format.
struct Detection {
  FormatId format = FormatId::unknown;
  int score = 0;               ///< winner's total
  FormatId runner_up = FormatId::unknown;
  int runner_up_score = 0;
  std::size_t lines_scored = 0;
};

/// A line only this format writes; see LogFormat::score.
inline constexpr int kSignatureScore = 1000;

/// How many non-blank lines detection reads.
inline constexpr std::size_t kDetectLines = 64;

/// Scores the first kDetectLines non-blank lines of src against every format and picks the best.
/// A format wins only with a mean score of at least kMinMeanScore per scored line. Content
/// decides; shell prompt lines are not scored, but the format their command writes
/// (`$ journalctl -o json`), else the file name (`name_hint`), breaks a near tie between the two
/// best formats (journalctl short output and a classic syslog file can be byte-for-byte alike).
Detection detect_format(LineSource& src, std::string_view name_hint = {});
inline constexpr int kMinMeanScore = 20;

}  // namespace gpucost
