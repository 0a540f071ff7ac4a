#pragma once
// Chunked parsing of one large file: a plain file cut at line ends into chunks that are parsed
// in parallel, each from a fresh parser state, and merged in order into what one pass gives
// (docs/performance.md, "Chunked parsing of one large file").

#ifndef GPUCOST_LAYER_INGEST
#error "gpucost_ingest header: include it only in gpucost_ingest or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstdint>
#include <string>

#include "gpucost/ingest/format.hpp"

namespace gpucost {

/// The largest chunk when none is given: a core slowed for a moment (a busy neighbour on a shared
/// machine) then holds up the others by less than a 64th of a GiB. With two chunks a thread, a
/// 432 MB kern.log took 0.30 s (median, spikes to 0.44 s) where 32 MiB chunks took 0.26 s.
inline constexpr std::uint64_t kMaxChunkBytes = 32ull << 20;

/// When and how a file is cut into chunks.
struct ChunkPlanOptions {
  unsigned threads = 1;                ///< chunks are parsed on this many threads; 1: never chunked
  std::uint64_t min_file_bytes = 0;    ///< smaller files are parsed in one pass
  std::uint64_t chunk_bytes = 0;       ///< bytes per chunk; 0: the file's size / (2 × threads), at most kMaxChunkBytes
  std::size_t max_line = kDefaultMaxLineLength;
};

/// What a chunked parse read.
struct ChunkedRead {
  std::uint64_t bytes = 0;           ///< bytes read
  std::uint64_t nul_bytes_skipped = 0;
  std::size_t chunks = 0;
  std::size_t parsed_again = 0;      ///< chunks whose format could not take over the state before them
};

/// Parses the file at `path`, detected as `format`, into `sink` in chunks, when the format is
/// chunkable and the file plain (not compressed), at least options.min_file_bytes long and
/// readable, and more than one thread is given; sink.finish() is left to the caller. Returns
/// false, having read nothing, when the file does not qualify.
bool parse_in_chunks(const std::string& path, const LogFormat& format, FileSink& sink,
                     const EventRecognizer& recognizer, const ChunkPlanOptions& options, ChunkedRead& read);

}  // namespace gpucost
