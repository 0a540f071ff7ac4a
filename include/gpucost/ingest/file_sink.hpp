#pragma once
/// \file file_sink.hpp
/// What a parser fills for one file (FileSink) and the options it parses under. This is the
/// parser-facing half of ingest: a format reads lines (line_source.hpp) and appends records,
/// events, anchors and problems here. How the sinks of a large file's chunks are merged is
/// private to ingest (src/ingest/sink_merge.hpp).

#ifndef GPUCOST_LAYER_INGEST
#error "gpucost_ingest header: include it only in gpucost_ingest or a layer above it (docs/architecture.md, Layers)"
#endif

#include <array>
#include <cstdint>
#include <map>
#include <optional>
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
#include "gpucost/ingest/rows.hpp"
#include "gpucost/ingest/shell_prompt.hpp"
#include "gpucost/records.hpp"

namespace gpucost {

class SinkMerge;

/// Limits and defaults that parsers need.
struct ParseOptions {
  std::size_t max_line_length = kDefaultMaxLineLength;
  std::size_t max_events_per_kind = 1'000'000;  ///< event rows per kind per file; more are counted, not kept
  /// Repeats of one message within a second become one row with a `repeat` count
  /// (RepeatRuns); false keeps a row per line (`--keep-repeats`).
  bool aggregate_repeats = true;
  TimeNs default_interval_ns = kNsPerSec;  ///< dmon rows without time: the -d interval
};

/// What a parser knows about one message before recognition.
struct MessageRecord {
  std::uint64_t line = 0;
  WallKind wall_kind = WallKind::kNone;
  TimeNs wall_raw_ns = kNoTime;
  TimeNs mono_ns = kNoTime;
  std::string_view boot_id;
  std::int32_t boot_seq = 0;
  std::string_view ident;  ///< syslog ident (`kernel` for kernel lines)
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
  void event(EventKind kind, const MessageRecord& m, std::int64_t code = INT64_MIN, std::string_view gpu = {},
             std::int64_t pid = INT64_MIN, std::string_view process = {});
  /// Appends a GPU sample row (push_sample_row) and counts it as a record.
  void sample(const SampleFields& f);
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

  /// Rewrites every boot ordinal this sink holds (events, anchors, last stamps): ordinal b
  /// becomes to_file[b]. For the sink of a chunk whose parser numbered its boots from 0 (a
  /// chunkable format's LogFormat::continue_chunk).
  void renumber_boots(std::span<const std::int32_t> to_file);

 private:
  // Chunked parsing of one large file: what SinkMerge (src/ingest/sink_merge.hpp) calls.
  friend class SinkMerge;

  // Appends these event rows (a table of make_event_table()'s schema), in order, as if they had
  // been produced by event() now: repeats join the runs of this sink (RepeatRuns), the per-kind
  // cap of ParseOptions applies. Counts no record: the sink that made the rows did.
  void append_event_rows(const Table& events);
  // Appends what the sink of the file's next chunk holds, so that this sink holds what one pass
  // over both chunks would have given: the chunk's line numbers (from 1) moved past this
  // sink's lines, counts summed, the first problem samples kept in the
  // order one pass records them, tables appended (events through append_event_rows), the
  // chunk's first anchor thinned against this sink's last, the last stamps per boot and the
  // shell hints carried on. `chunk` was filled from its parser's state at the chunk start, with
  // its boot ordinals already those of the whole file (renumber_boots), without finish(), and
  // without a per-kind cap (max_events_per_kind at its largest); it is left empty.
  void append_chunk(FileSink& chunk);
  // Marks the sink as a chunk's after the first (before anything is appended): it keeps the
  // anchors whose thinning depends on the anchors before the chunk, for append_chunk().
  void start_chunk() noexcept { chunk_ = true; }

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
  bool offered_ = false;  // an anchor was offered; the last one's:
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

}  // namespace gpucost
