#pragma once
/// \file format.hpp
/// The interface every log format implements, and the sink a format fills for one file.
/// A format scores lines for detection (lnav-style: every format scores the file's first lines,
/// the best total wins and is locked), then parses the whole file by pulling lines.

#ifndef GPUCOST_LAYER_INGEST
#error "gpucost_ingest header: include it only in gpucost_ingest or a layer above it (docs/architecture.md, Layers)"
#endif

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpucost/diagnostics.hpp"
#include "gpucost/ingest/ingest_result.hpp"
#include "gpucost/ingest/line_source.hpp"
#include "gpucost/ingest/message_memo.hpp"
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
  ~FileSink();
  FileSink(const FileSink&) = delete;
  FileSink& operator=(const FileSink&) = delete;

  /// How many sinks exist now, and the most that existed at once since reset_peak_live(): the
  /// accounting that shows per-file state is freed as files finish (tests/unit/ingest_memory_test.cpp).
  static std::size_t live() noexcept;
  static std::size_t peak_live() noexcept;
  static void reset_peak_live() noexcept;

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
  BootAnchors& anchors() noexcept { return out_.anchors; }
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
  /// Appends an anchor; consecutive anchors that say the same offset are thinned (offer_anchor).
  void anchor(const BootAnchor& a);
  /// True when anchor() of an anchor with these values would keep nothing and change nothing that
  /// thinning reads (it is of the boot and the minute of monotonic time offered last, and its
  /// offset moved by no more than its resolution since the anchor kept last): most lines of a
  /// kernel log. A parser may then skip building and offering it, and the anchors kept are the
  /// same.
  bool anchor_changes_nothing(std::int32_t boot_seq, TimeNs mono_ns, TimeNs wall_raw_ns, WallKind wall_kind,
                              TimeNs precision_ns) const noexcept {
    if ((chunk_ && !synced_) || anchor_forced(boot_seq, mono_ns)) return false;
    if ((wall_kind == WallKind::kUtc || wall_kind == WallKind::kLocal) && wall_raw_ns < kPlausibleWallFloorNs)
      return false;  // anchor() records the clock never set
    return !anchor_moved(mono_ns, wall_raw_ns, precision_ns);
  }
  /// Notes a UTC offset the file printed (`+08:00` in an RFC 3339 stamp): evidence for the zone.
  void observe_utc_offset(TimeNs offset_ns);
  /// After the parse: tables without rows are let go (about 10 KB each of column schema), so a
  /// sink that waits to be merged holds only what its file gave. Their schema is gone: nothing
  /// may be appended to them afterwards.
  void release_empty_tables();

  // Chunked parsing of one large file (src/ingest/sink_merge.cpp).

  /// Appends these event rows (a table of make_event_table()'s schema), in order, as if they had
  /// been produced by event() now: repeats join the runs of this sink (RepeatRuns), the per-kind
  /// cap of ParseOptions applies. Counts no record: the sink that made the rows did.
  void append_event_rows(const Table& events);
  /// Appends what the sink of the file's next chunk holds, so that this sink holds what one pass
  /// over both chunks would have given: the chunk's line numbers (from 1) moved past this
  /// sink's lines, counts summed, the first problem samples kept in the
  /// order one pass records them, tables appended (events through append_event_rows), the
  /// chunk's first anchor thinned against this sink's last, the last stamps per boot and the
  /// shell hints carried on. `chunk` was filled from its parser's state at the chunk start, with
  /// its boot ordinals already those of the whole file (renumber_boots), without finish(), and
  /// without a per-kind cap (max_events_per_kind at its largest); it is left empty.
  void append_chunk(FileSink& chunk);
  /// Rewrites every boot ordinal this sink holds (events, anchors, last stamps): ordinal b
  /// becomes to_file[b]. For the sink of a chunk whose parser numbered its boots from 0.
  void renumber_boots(std::span<const std::int32_t> to_file);
  /// Marks the sink as a chunk's after the first (before anything is appended): it keeps the
  /// anchors whose thinning depends on the anchors before the chunk, for append_chunk().
  void start_chunk() noexcept { chunk_ = true; }

 private:
  // Thinning: an anchor is kept when it is the first of its boot or of a minute of monotonic time
  // after the anchor offered before it (forced: the same whichever anchors were kept before), or
  // when its offset moved by more than the stamp's resolution from the last anchor kept, or its
  // monotonic time went back (a resume, a clock step; drift at boot, when the syslog daemon
  // stamps the kernel's first messages late).
  bool anchor_forced(std::int32_t boot_seq, TimeNs mono_ns) const noexcept {
    return !offered_ || boot_seq != offered_seq_ || mono_ns / kNsPerMin != offered_mono_ / kNsPerMin;
  }
  bool anchor_moved(TimeNs mono_ns, TimeNs wall_raw_ns, TimeNs precision_ns) const noexcept {
    const TimeNs offset = wall_raw_ns - mono_ns;
    const TimeNs moved = offset > last_anchor_offset_ ? offset - last_anchor_offset_ : last_anchor_offset_ - offset;
    return moved > precision_ns || mono_ns < last_anchor_mono_;
  }
  void offer_anchor(const BootAnchor& a);

  std::uint32_t file_;
  FormatId format_ = FormatId::unknown;
  const ParseOptions& options_;
  const EventRecognizer& recognizer_;
  FileDiagnostics diag_;
  IngestResult out_;
  std::array<std::uint64_t, kEventKindCount> kind_counts_{};
  RepeatRuns runs_;
  MessageMemo memo_;
  // Appends one event (a run of `repeat`), joining the run of its message when it repeats one
  // and `may_join`; `key` is RepeatRuns::message_key(f) when f's kind aggregates.
  void add_event(const EventFields& f, std::uint64_t repeat, bool may_join, const RepeatRuns::Key& key);
  // An event's fields from a message (no GPU: the caller sets it).
  static EventFields fields_of(EventKind kind, const MessageRecord& m, std::int64_t code, std::int64_t pid,
                               std::string_view process) noexcept;
  // The last stamped message of each boot of the file, in the order the boots were met; finish()
  // orders them by `touched`, the serial of their last message's boot change (a boot met again
  // moves last), and boot_stamps_ finds a boot's in O(log boots).
  struct LastStamp {
    std::string boot_id;
    std::int32_t boot_seq = 0;
    std::uint64_t line = 0;
    WallKind wall_kind = WallKind::kNone;
    TimeNs wall_raw_ns = kNoTime;
    TimeNs mono_ns = kNoTime;
    std::uint64_t touched = 0;
  };
  struct BootLess {
    using is_transparent = void;
    template <class A, class B>
    bool operator()(const A& a, const B& b) const noexcept {
      return a.first != b.first ? a.first < b.first : std::string_view(a.second) < std::string_view(b.second);
    }
  };
  std::vector<LastStamp> last_stamps_;
  std::map<std::pair<std::int32_t, std::string>, std::size_t, BootLess> boot_stamps_;  // index in last_stamps_
  std::size_t current_stamp_ = SIZE_MAX;  // of the last stamped message's boot
  std::uint64_t touches_ = 0;
  // The entry of this boot (made when new), moved last.
  LastStamp& touch_stamp(std::int32_t boot_seq, std::string_view boot_id);
  ShellHints hints_;
  TimeNs last_anchor_offset_ = kNoTime;  // of the last anchor kept
  TimeNs last_anchor_mono_ = kNoTime;
  bool offered_ = false;                 // an anchor was offered; the last one's:
  TimeNs offered_mono_ = kNoTime;
  std::int32_t offered_seq_ = 0;
  // A chunk's sink (start_chunk): the anchors offered before the first forced one that had an
  // anchor offered before it in the chunk (from there on, what is kept no longer depends on the
  // anchors before the chunk), and the index in out_.anchors of that forced one.
  bool chunk_ = false;
  bool synced_ = false;
  std::vector<BootAnchor> unsynced_;
  std::size_t synced_at_ = 0;
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

/// A parser's state between two lines of a file, as one chunk of the file hands it to the next
/// (chunked parsing); each chunkable format defines its own.
class ChunkState {
 public:
  virtual ~ChunkState() = default;
};

/// A log format: one file under src/ingest/formats/ and one row of GPUCOST_FORMATS (records/formats.hpp),
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

  // Chunked parsing (src/ingest/chunked_parse.cpp): a large file cut at line ends into chunks
  // parsed in parallel, each from a fresh parser state, then merged in order. A format takes
  // part only when it can hand its state from one chunk to the next exactly.

  /// True when the format defines the three functions below.
  virtual bool chunkable() const noexcept { return false; }
  /// The parser's state at the start of a file.
  virtual std::unique_ptr<ChunkState> start_state() const { return nullptr; }
  /// Parses the lines of one chunk into sink, starting from `state` and leaving in it the state
  /// after the chunk's last line. Does no end-of-file work (end_chunks): parse() is
  /// parse_chunk() from start_state() over the whole file, then end_chunks().
  virtual void parse_chunk(LineSource& src, FileSink& sink, ChunkState& state) const {
    (void)state;
    parse(src, sink);
  }
  /// `chunk_state` and `chunk_sink` are what a chunk's parse from start_state() left; `before`
  /// the state at the chunk's start, `file_sink` what the chunks before it gave. When the chunk's
  /// output can be made what a parse from `before` would have given (boot ordinals renumbered,
  /// say), does so (what is left of the chunk before goes to `file_sink`, before the chunk is
  /// appended to it), sets `before` to the state after the chunk and returns true; false, with
  /// nothing changed, when the chunk must be parsed again from `before` (it relied on what the
  /// fresh state could not know).
  virtual bool continue_chunk(ChunkState& before, ChunkState& chunk_state, FileSink& file_sink,
                              FileSink& chunk_sink) const {
    (void)before, (void)chunk_state, (void)file_sink, (void)chunk_sink;
    return false;
  }
  /// The end-of-file work of a chunked parse, after the last chunk, from the state it ended in.
  virtual void end_chunks(FileSink& sink, ChunkState& state) const { (void)sink, (void)state; }
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
  /// No format reached the mean, but this many of the lines scored hold a kernel message
  /// (kStrongKernelScore as dmesg): the file is read as dmesg, a paste with text around its log
  /// lines (a forum quote), rather than not at all. 0: an ordinary detection.
  std::size_t kernel_lines_in_text = 0;
  /// No format reads the lines as they stand, but one does from where their log part starts
  /// (message_start in paste_prefix.hpp: a header cut at the left margin): parse them so.
  bool message_first = false;
};

/// A line scored at least this as dmesg holds a kernel message (`NVRM: ...`, a stamp).
inline constexpr int kStrongKernelScore = 40;

/// A line only this format writes; see LogFormat::score.
inline constexpr int kSignatureScore = 1000;

/// How many non-blank lines detection reads.
inline constexpr std::size_t kDetectLines = 64;

/// Scores the first kDetectLines non-blank lines of src against every format and picks the best.
/// A format wins only with a mean score of at least kMinMeanScore per scored line. Content
/// decides; shell prompt lines are not scored, but the format their command writes
/// (`$ journalctl -o json`), else the file name (`name_hint`), breaks a near tie between the two
/// best formats (journalctl short output and a classic syslog file can be byte-for-byte alike).
/// Lines are scored after their paste prefix (paste_prefix.hpp). Where no format wins, the lines
/// are scored again from where their log part starts (Detection::message_first), and then a file
/// with a kernel message among prose is dmesg (Detection::kernel_lines_in_text).
Detection detect_format(LineSource& src, std::string_view name_hint = {});
inline constexpr int kMinMeanScore = 20;

}  // namespace gpucost
