#pragma once
/// \file line_source.hpp
/// Streams lines out of a file, a compressed stream (.gz, .zst, .xz) or a memory buffer. Files
/// are read in 256 KiB blocks, compressed streams in 1 MiB ones (a file up to the size it had
/// when opened; one that shrinks ends at its new end); line ends are found with memchr; a line is
/// a view that stays valid until the next call to next(), or longer for a reader that a
/// LineKeeper tells when the bytes are about to move.

#ifndef GPUCOST_LAYER_INGEST
#error "gpucost_ingest header: include it only in gpucost_ingest or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "gpucost/ingest/decompress.hpp"

namespace gpucost {

/// One line, without its '\n' and without a '\r' before it.
struct Line {
  std::string_view text;
  std::uint64_t number = 0;   ///< 1-based
  std::uint64_t offset = 0;   ///< byte offset of its first byte in the (decompressed) stream
  bool truncated = false;     ///< longer than the source's max line length; the rest was dropped
};

/// A reader that keeps views into lines it was given after asking for the next line (a message
/// waiting for its continuation lines), told before those bytes move.
class LineKeeper {
 public:
  /// The bytes of the lines returned so far are about to be moved or overwritten: copy what is
  /// still needed of them.
  virtual void keep_lines() = 0;

 protected:
  ~LineKeeper() = default;
};

/// A pull source of lines.
class LineSource {
 public:
  virtual ~LineSource() = default;
  /// Calls keeper->keep_lines() before the bytes of any line returned so far are moved or
  /// overwritten (nullptr: no one is told, and a line is valid until the next call to next()).
  /// False when this source cannot tell: a keeper must then copy what it keeps of a line before
  /// the next call to next().
  virtual bool set_keeper(LineKeeper* keeper) noexcept {
    (void)keeper;
    return false;
  }
  /// Reads the next line; false at the end of the input (or after an error, see error()).
  virtual bool next(Line& line) = 0;
  /// Reads up to n raw bytes that follow the last line returned (journal export binary fields);
  /// appends them to out and returns how many were read.
  virtual std::size_t read_raw(std::size_t n, std::string& out) = 0;
  /// Starts again from the first byte; false when the source cannot.
  virtual bool rewind() = 0;
  /// Empty while all is well; else what went wrong (a truncated .gz, a read error). Lines read
  /// before the error stay valid results.
  virtual const std::string& error() const noexcept = 0;
  /// What the source's bytes are compressed with (kNone: plain text, a buffer).
  virtual Compression compression() const noexcept { return Compression::kNone; }
  /// For a compressed source, what kind of error error() is (kNone: none, or a read error).
  virtual DecompressFailure failure() const noexcept { return DecompressFailure::kNone; }
  /// For a compressed source, the size of the compressed file (0 for plain text).
  virtual std::uint64_t compressed_size() const noexcept { return 0; }
  /// Bytes consumed so far (decompressed).
  virtual std::uint64_t bytes_read() const noexcept = 0;
  /// NUL bytes dropped from the start of lines so far: the zero padding that a crash or a power
  /// loss leaves in a log file, in front of the first line written after it.
  virtual std::uint64_t nul_bytes_skipped() const noexcept { return 0; }
};

/// Default longest line kept: longer lines are cut here and flagged truncated.
inline constexpr std::size_t kDefaultMaxLineLength = 64 * 1024;

/// Lines of a buffer the caller keeps alive (tests, fuzzers).
std::unique_ptr<LineSource> make_buffer_source(std::string_view data,
                                               std::size_t max_line = kDefaultMaxLineLength);

/// Lines of a file, decompressed on the fly when its first bytes are the magic of gzip, zstd or
/// xz (content decides, not the name; decompress.hpp). Returns nullptr and sets error when the file cannot be opened.
std::unique_ptr<LineSource> open_line_source(const std::string& path, std::string& error,
                                             std::size_t max_line = kDefaultMaxLineLength);

/// An open regular file, shared by the readers of its chunks (chunked parsing) and closed when
/// the last one lets go.
class OpenFile {
 public:
  /// Opens `path` for reading; nullptr, with `error` set, when it cannot be opened or is not a
  /// regular file.
  static std::shared_ptr<const OpenFile> open(const std::string& path, std::string& error);
  ~OpenFile();
  OpenFile(const OpenFile&) = delete;
  OpenFile& operator=(const OpenFile&) = delete;

  int fd() const noexcept { return fd_; }
  /// The size when opened: nothing past it is read.
  std::uint64_t size() const noexcept { return size_; }
  /// What its first bytes say it is compressed with (kNone: plain text).
  Compression compression() const noexcept { return compression_; }

 private:
  explicit OpenFile(int fd) noexcept : fd_(fd) {}
  int fd_;
  std::uint64_t size_ = 0;
  Compression compression_ = Compression::kNone;
};

/// Lines of the bytes [begin, end) of a plain file, as a source over the whole file would give
/// them from `begin` on: numbered from `first_line`, offsets counted from the file's start
/// (chunked parsing; `begin` is the start of a line).
std::unique_ptr<LineSource> make_chunk_source(std::shared_ptr<const OpenFile> file, std::uint64_t begin,
                                              std::uint64_t end, std::uint64_t first_line,
                                              std::size_t max_line = kDefaultMaxLineLength);

/// True when the file starts with the gzip magic bytes.
bool is_gzip_file(const std::string& path) noexcept;

}  // namespace gpucost
