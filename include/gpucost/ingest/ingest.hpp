#pragma once
/// \file ingest.hpp
/// The ingest stage: finds the files under a directory, detects each one's format by content,
/// parses files in parallel and merges their records in file order (deterministic output).

#ifndef GPUCOST_LAYER_INGEST
#error "gpucost_ingest header: include it only in gpucost_ingest or a layer above it (docs/architecture.md, Layers)"
#endif

#include <filesystem>
#include <string>
#include <string_view>

#include "gpucost/diagnostics.hpp"
#include "gpucost/ingest/format.hpp"
#include "gpucost/ingest/ingest_result.hpp"

namespace gpucost {

/// Options of the ingest stage.
struct IngestOptions {
  unsigned threads = 0;           ///< 0 = all cores
  ParseOptions parse;
  std::string patterns_file;      ///< --patterns FILE (empty = built-ins only)
  /// A plain file at least this large, of a format that can hand its parser's state from one
  /// chunk to the next (LogFormat::chunkable), is cut at line ends into chunks parsed on all
  /// threads and merged into what one pass gives (docs/performance.md). 8 MiB: a lone 24 MB
  /// kern.log then uses both cores (ingest 33 -> 22 ms); it was 64 MiB.
  std::uint64_t chunk_min_file_bytes = 8ull << 20;
  std::uint64_t chunk_bytes = 0;  ///< bytes per chunk; 0: the file's size / (2 × threads), at most 32 MiB
};

/// How many files a thread may read ahead of the first file not merged yet, in file order (the
/// files that weigh in balancing the threads aside): what waits to be merged stays bounded.
inline constexpr std::size_t kFilesReadAheadPerThread = 256;

/// Reads a directory (or one file) of logs into columnar tables.
class IngestStage {
 public:
  /// Throws std::runtime_error when the patterns file is unusable (a setup error).
  explicit IngestStage(IngestOptions options);

  /// Ingests everything under `input`. Per-file problems go to diag; never throws for bad input.
  void run(const std::filesystem::path& input, IngestResult& out, Diagnostics& diag) const;

  /// Parses an in-memory buffer as a given format (FormatId::unknown = detect) as file
  /// `name` (tests, fuzzers). Appends to out and diag like run() does.
  void run_buffer(std::string_view data, std::string_view name, FormatId format, IngestResult& out,
                  Diagnostics& diag, TimeNs mtime_ns = kNoTime) const;

  const EventRecognizer& recognizer() const noexcept { return recognizer_; }

 private:
  IngestOptions options_;
  EventRecognizer recognizer_;
};

/// Orders paths so that rotated logs come oldest first (`kern.log.2.gz`, `kern.log.1`,
/// `kern.log`), otherwise by name; used to sort the input files.
bool rotation_order_less(std::string_view a, std::string_view b);

}  // namespace gpucost
