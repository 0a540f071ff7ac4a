#pragma once
// The merge of chunked parsing, private to ingest: the sink of a file's next chunk appended to
// the sink of the chunks before it, so that the result is what one pass over the file gives.
// chunked_parse.cpp is its one caller; parsers see only file_sink.hpp. The members it reaches
// are FileSink's private chunk members (their comments in file_sink.hpp say what each keeps).

#ifndef GPUCOST_LAYER_INGEST
#error "gpucost_ingest header: include it only in gpucost_ingest or a layer above it (docs/architecture.md, Layers)"
#endif

#include "gpucost/ingest/file_sink.hpp"

namespace gpucost {

class SinkMerge {
 public:
  // Marks a chunk's sink (not the first chunk's) before anything is appended to it.
  static void start_chunk(FileSink& chunk) noexcept { chunk.start_chunk(); }
  // Appends the next chunk's sink to the sink of the chunks before it; `chunk` is left empty.
  static void append_chunk(FileSink& file, FileSink& chunk) { file.append_chunk(chunk); }
};

}  // namespace gpucost
