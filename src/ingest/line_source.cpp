#include "gpucost/ingest/line_source.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "gpucost/ingest/decompress.hpp"

namespace gpucost {

namespace {

constexpr std::size_t kBlock = 1 << 18;  // 256 KiB reads: the block is still in L2 when its lines are parsed
// How far ahead one search for '\r' looks: a file without any is scanned for it once per 64 KiB
// (in the cache, just ahead of the lines), not once per line.
constexpr std::size_t kCrLookahead = 64 * 1024;

/// Splits a byte stream into lines; subclasses supply the bytes in blocks through fill(). A line ends at '\n', at "\r\n" and at a
/// lone '\r' (old Mac line ends: without it such a file would be one record).
class ChunkedLineSource : public LineSource {
 public:
  // The buffer starts at a block plus one line of at most a block (or at the size of a file
  // known to be smaller: 20 000 small files must not each fill a megabyte), and grows (doubling)
  // only while a line longer than that is read: `--max-line-length 1GiB` costs what the lines
  // need.
  explicit ChunkedLineSource(std::size_t max_line, std::uint64_t expected_bytes = UINT64_MAX)
      : max_line_(max_line ? max_line : 1) {
    const std::size_t full = std::min(max_line_, kBlock) + kBlock + 1;
    buf_.resize(expected_bytes < full ? static_cast<std::size_t>(expected_bytes) + 1 : full);
    data_ = buf_.data();
  }

  bool next(Line& line) override {
    for (;;) {
      if (after_cr_ && pos_ < end_) {  // the '\n' of a "\r\n" whose '\r' ended the last line
        if (data_[pos_] == '\n') ++pos_;
        after_cr_ = false;
      }
      if (!skipping_)  // zero padding in front of a line, however long (see nul_bytes_skipped)
        while (pos_ < end_ && data_[pos_] == '\0') ++pos_, ++nul_skipped_;
      const char* begin = data_ + pos_;
      const std::size_t avail = end_ - pos_;
      // Bytes already searched for '\n' are not searched again while a long line grows block by
      // block (a 1 GiB line allowed by --max-line-length would cost a search per block).
      const std::size_t nl_from = std::max(pos_, no_nl_before_);
      const void* nl = end_ > nl_from ? std::memchr(data_ + nl_from, '\n', end_ - nl_from) : nullptr;
      if (!nl) no_nl_before_ = end_;
      const std::size_t to_nl = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - begin) : avail;
      const char* cr = find_cr(pos_, pos_ + to_nl);
      if (cr) {  // "\r\n" or a lone '\r': the line ends at the '\r'
        const std::size_t len = static_cast<std::size_t>(cr - begin);
        after_cr_ = true;
        if (skipping_) {
          skipping_ = false;
          pos_ += len + 1;
          continue;
        }
        emit(line, begin, std::min(len, max_line_), len > max_line_);
        pos_ += len + 1;
        return true;
      }
      if (nl) {
        const std::size_t len = static_cast<std::size_t>(static_cast<const char*>(nl) - begin);
        if (skipping_) {  // rest of an over-long line
          skipping_ = false;
          pos_ += len + 1;
          continue;
        }
        if (len > max_line_) {
          emit(line, begin, max_line_, true);
          pos_ += len + 1;
          return true;
        }
        emit(line, begin, len, false);
        pos_ += len + 1;
        return true;
      }
      if (!skipping_ && avail >= max_line_) {  // over-long line: cut it, skip to its end
        emit(line, begin, max_line_, true);
        pos_ += max_line_;
        skipping_ = true;
        return true;
      }
      if (skipping_) pos_ = end_;
      if (eof_) {
        if (end_ > pos_ && !skipping_) {
          emit(line, begin, end_ - pos_, false);
          pos_ = end_;
          return true;
        }
        return false;
      }
      if (keeper_) keeper_->keep_lines();
      compact();
      if (end_ == buf_.size()) grow();  // a line longer than the buffer, not yet max_line_ long
      const std::size_t got = fill(buf_.data() + end_, buf_.size() - end_);
      if (got == 0) eof_ = true;
      end_ += got;
    }
  }

  bool set_keeper(LineKeeper* keeper) noexcept override {
    keeper_ = keeper;
    return true;
  }

  std::size_t read_raw(std::size_t n, std::string& out) override {
    std::size_t done = 0;
    if (after_cr_ && pos_ < end_) {  // the bytes after the line, not its "\r\n"'s '\n'
      if (data_[pos_] == '\n') ++pos_;
      after_cr_ = false;
    }
    while (done < n) {
      if (pos_ == end_) {
        if (eof_) break;
        if (keeper_) keeper_->keep_lines();
        compact();
        const std::size_t got = fill(buf_.data() + end_, buf_.size() - end_);
        if (got == 0) {
          eof_ = true;
          break;
        }
        end_ += got;
      }
      const std::size_t take = std::min(n - done, end_ - pos_);
      out.append(data_ + pos_, take);
      pos_ += take;
      done += take;
    }
    return done;
  }

  bool rewind() override {
    if (keeper_) keeper_->keep_lines();
    if (!reset()) return false;
    pos_ = end_ = 0;
    base_ = 0;
    lineno_ = 0;
    eof_ = skipping_ = after_cr_ = false;
    nul_skipped_ = 0;
    no_cr_before_ = no_nl_before_ = 0;
    return true;
  }

  const std::string& error() const noexcept override { return error_; }
  std::uint64_t bytes_read() const noexcept override { return base_ + pos_; }
  std::uint64_t nul_bytes_skipped() const noexcept override { return nul_skipped_; }

 protected:
  /// Reads up to cap bytes into dst; 0 at the end (set error_ on failure).
  virtual std::size_t fill(char* dst, std::size_t cap) = 0;
  /// Restarts the byte stream.
  virtual bool reset() = 0;
  /// The first byte is at `offset` of the stream and begins line `first_line` (a chunk).
  void number_from(std::uint64_t offset, std::uint64_t first_line) noexcept {
    base_ = offset;
    lineno_ = first_line - 1;
  }
  std::string error_;

 private:
  // The first '\r' in data_[from, to), or nullptr. What was searched without finding one is
  // remembered (no_cr_before_), and each search looks kCrLookahead ahead, so a file without '\r'
  // costs one memchr per 64 KiB, not one per line.
  const char* find_cr(std::size_t from, std::size_t to) {
    if (no_cr_before_ >= to) return nullptr;
    const std::size_t start = std::max(from, no_cr_before_);
    const std::size_t stop = std::max(to, std::min(end_, start + kCrLookahead));
    const void* cr = std::memchr(data_ + start, '\r', stop - start);
    if (!cr) {
      no_cr_before_ = stop;
      return nullptr;
    }
    no_cr_before_ = static_cast<std::size_t>(static_cast<const char*>(cr) - data_);
    return no_cr_before_ < to ? data_ + no_cr_before_ : nullptr;
  }
  void emit(Line& line, const char* begin, std::size_t len, bool truncated) {
    line.text = std::string_view(begin, len);
    line.number = ++lineno_;
    line.offset = base_ + pos_;
    line.truncated = truncated;
  }
  void grow() {
    buf_.resize(std::min(std::max<std::size_t>(buf_.size() * 2, 64), max_line_ + kBlock + 1));
    data_ = buf_.data();
  }
  void compact() {
    if (pos_ == 0) return;
    std::memmove(buf_.data(), buf_.data() + pos_, end_ - pos_);
    no_cr_before_ = no_cr_before_ > pos_ ? no_cr_before_ - pos_ : 0;
    no_nl_before_ = no_nl_before_ > pos_ ? no_nl_before_ - pos_ : 0;
    end_ -= pos_;
    base_ += pos_;
    pos_ = 0;
  }

  std::size_t max_line_;
  std::vector<char> buf_;
  const char* data_ = nullptr;  // buf_'s bytes
  std::size_t pos_ = 0, end_ = 0;
  std::uint64_t base_ = 0;  // stream offset of buf_[0]
  std::uint64_t lineno_ = 0;
  std::uint64_t nul_skipped_ = 0;
  std::size_t no_cr_before_ = 0;  // data_[.., no_cr_before_) holds no '\r' (see find_cr)
  std::size_t no_nl_before_ = 0;  // nor '\n' before this, once a search found none
  bool eof_ = false, skipping_ = false;
  bool after_cr_ = false;  // the last line ended at a '\r': a '\n' right after it is part of its end
  LineKeeper* keeper_ = nullptr;  // told before compact() and grow() move the lines' bytes
};

class BufferLineSource final : public ChunkedLineSource {
 public:
  BufferLineSource(std::string_view data, std::size_t max_line)
      : ChunkedLineSource(max_line, data.size()), data_(data) {}

 protected:
  std::size_t fill(char* dst, std::size_t cap) override {
    const std::size_t n = std::min(cap, data_.size() - at_);
    std::memcpy(dst, data_.data() + at_, n);
    at_ += n;
    return n;
  }
  bool reset() override {
    at_ = 0;
    return true;
  }

 private:
  std::string_view data_;
  std::size_t at_ = 0;
};

// The bytes [begin, end) of a file, read with pread in 256 KiB blocks (kBlock). A file is read up
// to the size it had when opened: a log that another process keeps appending to (faster than it
// can be parsed) must not keep the run going forever. A file that shrinks just ends early (logrotate's
// copytruncate). Reading beats mapping the file: on these virtual machines a page fault of a
// mapping costs more than the copy read() makes (docs/performance.md, "Read, not mapped").
class FileRangeSource final : public ChunkedLineSource {
 public:
  FileRangeSource(std::shared_ptr<const OpenFile> file, std::uint64_t begin, std::uint64_t end, std::size_t max_line)
      : ChunkedLineSource(max_line, end - begin), file_(std::move(file)), begin_(begin), end_(end), at_(begin) {}

  /// Numbered as in the whole file: the first line is `first_line`, offsets count from byte 0.
  void number_as_in_file(std::uint64_t first_line) { number_from(begin_, first_line); }

 protected:
  std::size_t fill(char* dst, std::size_t cap) override {
    for (;;) {
      if (at_ >= end_) return 0;
      const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(std::min(cap, kBlock), end_ - at_));
      const ssize_t n = ::pread(file_->fd(), dst, want, static_cast<off_t>(at_));
      if (n > 0) {
        at_ += static_cast<std::uint64_t>(n);
        return static_cast<std::size_t>(n);
      }
      if (n == 0) {  // the file shrank: it ends here
        at_ = end_;
        return 0;
      }
      if (errno == EINTR) continue;
      if (errno == EAGAIN) return 0;
      error_ = std::string("read error: ") + std::strerror(errno);
      return 0;
    }
  }
  bool reset() override {
    at_ = begin_;
    return true;
  }

 private:
  std::shared_ptr<const OpenFile> file_;
  std::uint64_t begin_, end_, at_;
};

// A rotated archive (gzip, zstd, xz: decompress.hpp), decompressed block by block.
class DecompressedLineSource final : public ChunkedLineSource {
 public:
  DecompressedLineSource(std::shared_ptr<const OpenFile> file, std::size_t max_line)
      : ChunkedLineSource(max_line),
        file_(std::move(file)),
        dec_(make_decompressor(file_->compression(), file_->fd(), file_->size())) {}

 protected:
  std::size_t fill(char* dst, std::size_t cap) override {
    const std::size_t n = dec_->read(dst, std::min<std::size_t>(cap, kBlock * 4));
    if (n == 0 && error_.empty()) error_ = dec_->error();
    return n;
  }
  bool reset() override {
    error_.clear();
    return dec_->rewind();
  }

 public:
  Compression compression() const noexcept override { return file_->compression(); }
  DecompressFailure failure() const noexcept override {
    return error_.empty() ? DecompressFailure::kNone : dec_->failure();
  }
  std::uint64_t compressed_size() const noexcept override { return file_->size(); }

 private:
  std::shared_ptr<const OpenFile> file_;  // outlives dec_, which reads its descriptor
  std::unique_ptr<Decompressor> dec_;
};

}  // namespace

std::unique_ptr<LineSource> make_buffer_source(std::string_view data, std::size_t max_line) {
  return std::make_unique<BufferLineSource>(data, max_line);
}

std::unique_ptr<LineSource> make_chunk_source(std::shared_ptr<const OpenFile> file, std::uint64_t begin,
                                              std::uint64_t end, std::uint64_t first_line, std::size_t max_line) {
  auto src = std::make_unique<FileRangeSource>(std::move(file), begin, end, max_line);
  src->number_as_in_file(first_line);
  return src;
}

OpenFile::~OpenFile() {
  if (fd_ >= 0) ::close(fd_);
}

std::shared_ptr<const OpenFile> OpenFile::open(const std::string& path, std::string& error) {
  // O_NONBLOCK: never hang on a FIFO that slipped past the caller's checks.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    error = std::strerror(errno);
    return nullptr;
  }
  std::shared_ptr<OpenFile> file(new OpenFile(fd));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    error = "not a regular file";
    return nullptr;
  }
  file->size_ = static_cast<std::uint64_t>(st.st_size);
  char magic[kCompressionMagicBytes];
  const ssize_t got = ::pread(fd, magic, sizeof magic, 0);
  file->compression_ = detect_compression(std::string_view(magic, got > 0 ? static_cast<std::size_t>(got) : 0));
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);  // a larger read-ahead; only a hint
  return file;
}

bool is_gzip_file(const std::string& path) noexcept {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return false;
  unsigned char magic[2] = {0, 0};
  const bool gz = ::read(fd, magic, 2) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  ::close(fd);
  return gz;
}

std::unique_ptr<LineSource> open_line_source(const std::string& path, std::string& error,
                                             std::size_t max_line) {
  auto file = OpenFile::open(path, error);
  if (!file) return nullptr;
  if (file->compression() != Compression::kNone) return std::make_unique<DecompressedLineSource>(std::move(file), max_line);
  const std::uint64_t size = file->size();
  return std::make_unique<FileRangeSource>(std::move(file), 0, size, max_line);
}

}  // namespace gpucost
