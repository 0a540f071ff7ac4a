#pragma once
/// \file format.hpp
/// The interface every log format implements (LogFormat) and the table of built-in formats.
/// A format scores lines for detection (detect.hpp), then parses a whole file by pulling lines
/// into its FileSink (file_sink.hpp). docs/architecture.md, "Adding a log format", lists all a
/// new format touches.

#ifndef GPUCOST_LAYER_INGEST
#error "gpucost_ingest header: include it only in gpucost_ingest or a layer above it (docs/architecture.md, Layers)"
#endif

#include <memory>
#include <span>
#include <string_view>

#include "gpucost/ingest/file_sink.hpp"
#include "gpucost/ingest/line_source.hpp"
#include "gpucost/records/formats.hpp"

namespace gpucost {

/// A few real lines of a format, kept beside its parser (lnav's idea): the unit tests run every
/// format's samples through detection and the parser (tests/unit/format_samples_test.cpp).
struct FormatSample {
  std::string_view file_name;  ///< the name the file had (detection reads it only to break a near tie)
  std::string_view source;     ///< where the lines come from (a fixture under tests/data, see its SOURCES.md)
  std::string_view text;       ///< the lines, verbatim
  std::uint64_t records = 0;   ///< rows and events the parser makes of them
};

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

/// A line only this format writes; see LogFormat::score.
inline constexpr int kSignatureScore = 1000;

}  // namespace gpucost
