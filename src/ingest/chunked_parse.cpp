#include "ingest/chunked_parse.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <vector>

#include "gpucost/ingest/decompress.hpp"
#include "gpucost/parallel.hpp"
#include "ingest/prompt_filter.hpp"
#include "ingest/sink_merge.hpp"

namespace gpucost {

namespace {

// Chunk starts: 0, then the first line start at or after each multiple of the chunk size; the
// file's size last. The line ends are looked for with pread, a small window at each cut.
std::vector<std::uint64_t> plan_chunks(const OpenFile& file, std::uint64_t chunk) {
  const std::uint64_t size = file.size();
  std::vector<std::uint64_t> starts{0};
  char window[16 * 1024];
  for (std::uint64_t target = chunk; target < size; target += chunk) {
    if (target <= starts.back()) continue;
    std::uint64_t start = 0;  // 0: no line end after the target
    for (std::uint64_t at = target - 1; at < size && !start;) {
      const ssize_t got = ::pread(file.fd(), window, sizeof window, static_cast<off_t>(at));
      if (got <= 0) break;  // the file shrank (or cannot be read): no more cuts
      if (const void* nl = std::memchr(window, '\n', static_cast<std::size_t>(got)))
        start = at + static_cast<std::uint64_t>(static_cast<const char*>(nl) - window) + 1;
      at += static_cast<std::uint64_t>(got);
    }
    if (!start || start >= size) break;
    if (start > starts.back()) starts.push_back(start);
  }
  starts.push_back(size);
  return starts;
}

std::shared_ptr<const OpenFile> open_plain_file(const std::string& path, std::uint64_t min_bytes) {
  std::string error;
  auto file = OpenFile::open(path, error);
  if (!file || file->size() == 0 || file->size() < min_bytes || file->compression() != Compression::kNone) return nullptr;
  return file;
}

}  // namespace

bool parse_in_chunks(const std::string& path, const LogFormat& format, FileSink& sink,
                     const EventRecognizer& recognizer, const ChunkPlanOptions& options, ChunkedRead& read) {
  if (!format.chunkable() || options.threads < 2) return false;
  const auto file = open_plain_file(path, options.min_file_bytes);
  if (!file) return false;
  const std::uint64_t chunk =
      options.chunk_bytes ? options.chunk_bytes
                          : std::clamp<std::uint64_t>(file->size() / (2 * options.threads), 1, kMaxChunkBytes);
  const std::vector<std::uint64_t> starts = plan_chunks(*file, chunk);
  const std::size_t n = starts.size() - 1;
  if (n < 2) return false;

  // The chunks after the first are parsed from a fresh state into sinks of their own, without
  // the per-kind cap (which applies when they are merged); the first into the file's sink.
  ParseOptions uncapped = sink.options();
  uncapped.max_events_per_kind = std::numeric_limits<std::size_t>::max();
  std::vector<std::unique_ptr<FileSink>> sinks(n);
  std::vector<std::unique_ptr<ChunkState>> states(n);
  std::vector<std::uint64_t> nul(n, 0), consumed(n, 0);
  // A chunk's lines are numbered from 1; the merge adds the lines of the chunks before it
  // (FileSink::append_chunk), which only it knows without a pass over their bytes.
  auto parse_chunk = [&](std::size_t i, FileSink& into, ChunkState& state, std::uint64_t first_line) {
    auto src = make_chunk_source(file, starts[i], starts[i + 1], first_line, options.max_line);
    PromptFilter lines(*src, into);
    format.parse_chunk(lines, into, state);
    nul[i] = src->nul_bytes_skipped();
    consumed[i] = src->bytes_read() - starts[i];
  };
  for (std::size_t i = 0; i < n; ++i) {
    states[i] = format.start_state();
    if (i > 0) {
      sinks[i] = std::make_unique<FileSink>(sink.file_index(), sink.path(), sink.mtime_ns(), uncapped, recognizer);
      SinkMerge::start_chunk(*sinks[i]);
      sinks[i]->set_format(sink.format());
      sinks[i]->diagnostics().format = sink.format();
    }
  }
  // Merged in order, each as soon as the chunks before it are (so that a chunk's sink is let go
  // early, and the merge overlaps the parse of the chunks after it): each chunk continues from
  // the state the chunks before it ended in, or, when its format cannot take that state over
  // (or its lines held what a fresh sink cannot merge: pasted prompts, notes), is parsed again
  // from that state into the file's sink.
  read = ChunkedRead{};
  read.chunks = n;
  ChunkState& state = *states[0];
  std::mutex merge_mutex;
  std::vector<char> parsed(n, 0);
  std::size_t merged = 1;  // chunk 0 was parsed into the file's sink itself
  auto merge_ready = [&](std::size_t done) {
    const std::lock_guard lock(merge_mutex);
    parsed[done] = 1;
    if (!parsed[0]) return;  // the file's sink is still being written
    for (; merged < n && parsed[merged]; ++merged) {
      const std::size_t i = merged;
      FileSink& chunk_sink = *sinks[i];
      const bool mergeable = chunk_sink.diagnostics().prompts == 0 && chunk_sink.diagnostics().notes.empty();
      if (mergeable && format.continue_chunk(state, *states[i], sink, chunk_sink)) {
        SinkMerge::append_chunk(sink, chunk_sink);
      } else {
        ++read.parsed_again;
        sinks[i].reset();
        parse_chunk(i, sink, state, sink.diagnostics().lines + 1);
      }
      sinks[i].reset();
      states[i].reset();
    }
  };
  for_each_task(n, options.threads, [&](std::size_t i) {
    parse_chunk(i, i ? *sinks[i] : sink, *states[i], 1);
    merge_ready(i);
  });
  for (std::size_t i = 0; i < n; ++i) {
    read.nul_bytes_skipped += nul[i];
    read.bytes += consumed[i];
  }
  format.end_chunks(sink, state);
  return true;
}

}  // namespace gpucost
