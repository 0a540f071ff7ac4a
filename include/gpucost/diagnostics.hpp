#pragma once
/// \file diagnostics.hpp
/// Per-line problems are counted per file and kind, with the first few samples kept (file, line,
/// byte offset, excerpt, reason). Nothing here throws: the run goes on with everything else.

#ifndef GPUCOST_LAYER_BASE
#error "gpucost_base header: include it only in gpucost_base or a layer above it (docs/architecture.md, Layers)"
#endif

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gpucost/records/formats.hpp"
#include "gpucost/time.hpp"

namespace gpucost {

// X(name, description). Laid out by hand: clang-format leaves the table alone.
// clang-format off
#define GPUCOST_PROBLEMS(X)                                                                      \
  X(unparsable_line, "line matches no layout of the file's format")                              \
  X(bad_timestamp, "timestamp present but not a valid date/time")                                \
  X(bad_number, "a numeric field is not a number")                                               \
  X(column_mismatch, "row has more or fewer fields than its header")                             \
  X(no_header, "data row before any header that names its columns")                              \
  X(truncated_line, "line longer than --max-line-length; the rest was dropped")                   \
  X(binary_data, "line holds NUL or other binary bytes")                                          \
  X(bad_json, "JSON document is malformed or truncated")                                          \
  X(missing_field, "a required field is absent")                                                  \
  X(time_backwards, "timestamp earlier than the previous row's (kept, flagged)")                   \
  X(events_dropped, "more events of one kind than --max-events-per-kind (counted, not kept)")      \
  X(truncated_gzip, "the .gz stream ends early or is corrupt; lines before the damage are kept")   \
  X(unreadable_file, "file could not be opened or read")                                          \
  X(not_regular_file, "FIFO, socket, device or broken link: skipped without reading")             \
  X(unknown_format, "no known format matched the file's first lines; skipped")                    \
  X(untimed_line, "line has no time; placed at the file's mtime (approximate) or kept with ts null") \
  X(spoofed_kernel_ident, "journal entry that calls itself kernel but did not come from the kernel (_TRANSPORT is not kernel): kept out of kernel events") \
  X(implausible_time, "wall-clock stamp before 2000 (a clock never set: zero, or 1970 + uptime), or more than a day after the file's modification time and the collection's end (a clock set ahead, a forged entry): not used for time or boot anchors") \
  X(too_many_devices, "more GPUs in one nvidia-smi -q file than a machine has (256): the rest are counted, not kept") \
  X(truncated_zstd, "the .zst stream ends early or is corrupt; lines before the damage are kept")   \
  X(truncated_xz, "the .xz stream ends early or is corrupt; lines before the damage are kept")     \
  X(decompression_limit, "the archive needs more memory to decompress than gpucost allows (xz dictionary, zstd window) or inflates past its cap: read up to the limit") \
  X(counter_reset, "an energy counter went back by more than its wrap explains (a reset: a reboot, the driver reloaded), or its stamp did not move: no power sample from that step")
// clang-format on

/// The kind of a problem.
enum class Problem : std::uint8_t {
#define GPUCOST_X(name, desc) name,
  GPUCOST_PROBLEMS(GPUCOST_X)
#undef GPUCOST_X
      count_
};
inline constexpr std::size_t kProblemCount = static_cast<std::size_t>(Problem::count_);
std::string_view problem_name(Problem p) noexcept;
std::string_view problem_description(Problem p) noexcept;
/// True for problems that count against --max-error-rate (rejected or damaged input), false for
/// notes that lose nothing (untimed lines that were kept, time going backwards).
bool problem_is_error(Problem p) noexcept;

/// One sampled problem.
struct ProblemSample {
  Problem problem = Problem::unparsable_line;
  std::uint64_t line = 0;     ///< 1-based; 0 for whole-file problems
  std::uint64_t offset = 0;   ///< byte offset of the line in the (decompressed) file
  std::string excerpt;        ///< printable start of the line
  std::string reason;         ///< why, in words
};

/// Everything known about one input file after ingest (and align).
struct FileDiagnostics {
  std::string path;              ///< relative to the input directory
  std::uint64_t bytes = 0;       ///< bytes read (decompressed)
  TimeNs mtime_ns = kNoTime;
  bool gzip = false;
  FormatId format = FormatId::unknown;
  int score = 0;                 ///< detection score of the winner
  int runner_up_score = 0;       ///< best score of the other formats
  FormatId runner_up = FormatId::unknown;
  std::uint64_t lines = 0;          ///< lines read
  std::uint64_t blank = 0;          ///< blank lines
  std::uint64_t accepted = 0;       ///< lines parsed into a record or recognized as structure
  std::uint64_t continuations = 0;  ///< lines attached to the previous message
  std::uint64_t prompts = 0;        ///< pasted shell prompt lines (neither data nor rejected)
  std::uint64_t paste_prefixed = 0;  ///< lines read after a paste prefix (paste_prefix.hpp)
  std::uint64_t records = 0;        ///< rows or events produced
  std::array<std::uint64_t, kProblemCount> problems{};
  std::vector<ProblemSample> samples;  ///< first few per problem kind
  TimeNs first_ts = kNoTime, last_ts = kNoTime;  ///< (align) time range covered, UTC
  std::vector<std::string> notes;   ///< assumptions: zone, year, anchors, placement

  /// Rejected lines (problems that are errors, line-level).
  std::uint64_t rejected() const noexcept;
};

/// Problems of a whole run: one FileDiagnostics per input file plus run-level notes.
class Diagnostics {
 public:
  /// How many samples are kept per file and problem kind.
  static constexpr std::size_t kSamplesPerKind = 3;

  std::vector<FileDiagnostics> files;
  std::vector<std::string> notes;   ///< run-level assumptions (zone used and why, year ...)

  /// Counts a problem in f; keeps a sample while fewer than kSamplesPerKind exist.
  static void record(FileDiagnostics& f, Problem p, std::uint64_t line, std::uint64_t offset,
                     std::string_view line_text, std::string_view reason);
  /// True when record() would keep a sample (so callers can skip formatting a reason).
  static bool wants_sample(const FileDiagnostics& f, Problem p) noexcept {
    return f.problems[static_cast<std::size_t>(p)] < kSamplesPerKind;
  }

  std::uint64_t total_lines() const noexcept;
  std::uint64_t total_rejected() const noexcept;
  std::uint64_t total(Problem p) const noexcept;
  /// Rejected ÷ non-blank lines read, prompt lines not counted (0 when nothing was read).
  double error_rate() const noexcept;
  /// Files whose format was recognized and that had at least one line understood (a journal of
  /// nothing but unremarkable messages is still usable input: it says nothing happened).
  std::size_t usable_files() const noexcept;
};

}  // namespace gpucost
