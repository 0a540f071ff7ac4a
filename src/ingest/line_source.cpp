#include "gpucost/ingest/line_source.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <vector>

#include "gpucost/ingest/decompress.hpp"
#include "ingest/mapped_file.hpp"

namespace gpucost {

namespace {

constexpr std::size_t kBlock = 1 << 20;  // 1 MiB reads: large enough for memory speed
constexpr std::uint64_t kMapAtLeast = kBlock;  // smaller files are read, larger ones mapped
// How far ahead one search for '\r' looks: a file without any is scanned for it once per 64 KiB
// (in the cache, just ahead of the lines), not once per line.
constexpr std::size_t kCrLookahead = 64 * 1024;

/// Splits a byte stream into lines; subclasses supply the bytes, in blocks through fill() or
/// all at once (a mapped file: then nothing is copied). A line ends at '\n', at "\r\n" and at a
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
    if (whole_ && pos_ >= release_at_) [[unlikely]] {  // now and then, not on every line
      release_before(pos_);
      release_at_ = pos_ + kBlock;
    }
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
      // A mapped file that shrank under the scan just now: end at its new end and look again.
      if (faults_ && faults_->load(std::memory_order_relaxed) != faults_seen_) [[unlikely]] {
        faults_seen_ = faults_->load(std::memory_order_relaxed);
        end_at(size_now());
        continue;
      }
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
      compact();
      if (end_ == buf_.size()) grow();  // a line longer than the buffer, not yet max_line_ long
      const std::size_t got = fill(buf_.data() + end_, buf_.size() - end_);
      if (got == 0) eof_ = true;
      end_ += got;
    }
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
    if (!reset()) return false;
    pos_ = end_ = 0;
    base_ = 0;
    lineno_ = 0;
    eof_ = skipping_ = after_cr_ = false;
    nul_skipped_ = 0;
    no_cr_before_ = no_nl_before_ = 0;
    release_at_ = 0;
    if (whole_) {  // everything is there again, up to a new end if the file shrank
      end_ = faults_ && faults_->load(std::memory_order_relaxed) ? std::min(whole_size_, size_now()) : whole_size_;
      eof_ = true;
    }
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
  /// Whole-buffer mode: every byte is already in `bytes`, which the subclass keeps alive;
  /// `faults` (of a mapped file) counts the times the bytes were cut short under the reader.
  void use_whole(std::string_view bytes, const std::atomic<unsigned>* faults) {
    faults_ = faults;
    whole_ = true;
    buf_ = {};
    buf_.shrink_to_fit();
    data_ = bytes.data();
    whole_size_ = end_ = bytes.size();
    eof_ = true;
  }
  /// The first byte is at `offset` of the stream and begins line `first_line` (a chunk).
  void number_from(std::uint64_t offset, std::uint64_t first_line) noexcept {
    base_ = offset;
    lineno_ = first_line - 1;
  }
  /// Whole-buffer mode: the bytes before `offset` will not be read again.
  virtual void release_before(std::size_t offset) { (void)offset; }
  /// Whole-buffer mode: how many bytes there are now.
  virtual std::size_t size_now() { return end_; }
  std::string error_;

 private:
  // The bytes end at `size` after all (a mapped file shrank): nothing past it is read.
  void end_at(std::size_t size) noexcept {
    end_ = std::min(end_, size);
    pos_ = std::min(pos_, end_);
    no_cr_before_ = std::min(no_cr_before_, end_);
    no_nl_before_ = std::min(no_nl_before_, end_);
  }
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
  const char* data_ = nullptr;  // buf_'s bytes, or the whole input in whole-buffer mode
  bool whole_ = false;
  std::size_t whole_size_ = 0;
  const std::atomic<unsigned>* faults_ = nullptr;
  unsigned faults_seen_ = 0;
  std::size_t release_at_ = 0;  // next offset at which to let go of what was read
  std::size_t pos_ = 0, end_ = 0;
  std::uint64_t base_ = 0;  // stream offset of buf_[0]
  std::uint64_t lineno_ = 0;
  std::uint64_t nul_skipped_ = 0;
  std::size_t no_cr_before_ = 0;  // data_[.., no_cr_before_) holds no '\r' (see find_cr)
  std::size_t no_nl_before_ = 0;  // nor '\n' before this, once a search found none
  bool eof_ = false, skipping_ = false;
  bool after_cr_ = false;  // the last line ended at a '\r': a '\n' right after it is part of its end
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

// Files are read up to the size they had when opened: a log that another process keeps appending
// to (faster than it can be parsed) must not keep the run going forever. A file that shrinks
// just ends early.
class FdLineSource final : public ChunkedLineSource {
 public:
  FdLineSource(int fd, std::size_t max_line, std::uint64_t size)
      : ChunkedLineSource(max_line, size), fd_(fd), size_(size), left_(size) {}
  ~FdLineSource() override { ::close(fd_); }

 protected:
  std::size_t fill(char* dst, std::size_t cap) override {
    for (;;) {
      if (left_ == 0) return 0;
      const ssize_t n = ::read(fd_, dst, static_cast<std::size_t>(std::min<std::uint64_t>(std::min(cap, kBlock), left_)));
      if (n >= 0) {
        left_ -= static_cast<std::uint64_t>(n);
        return static_cast<std::size_t>(n);
      }
      if (errno == EINTR) continue;
      if (errno == EAGAIN) return 0;
      error_ = std::string("read error: ") + std::strerror(errno);
      return 0;
    }
  }
  bool reset() override {
    left_ = size_;
    return ::lseek(fd_, 0, SEEK_SET) == 0;
  }

 private:
  int fd_;
  std::uint64_t size_, left_;
};

// A large file read in place from a mapping (mapped_file.hpp), up to its size when opened like
// FdLineSource; a file that shrinks ends at its new end.
class MappedLineSource final : public ChunkedLineSource {
 public:
  MappedLineSource(int fd, std::size_t max_line, std::unique_ptr<MappedFile> map)
      : ChunkedLineSource(max_line), fd_(fd), map_(std::move(map)) {
    use_whole(map_->bytes(), &map_->faults());
  }
  ~MappedLineSource() override {
    map_.reset();
    ::close(fd_);
  }

 protected:
  std::size_t fill(char*, std::size_t) override { return 0; }
  bool reset() override { return true; }
  void release_before(std::size_t offset) override { map_->release_before(offset); }
  // The file's size now, and never past the zeros that replaced what it lost.
  std::size_t size_now() override {
    struct stat st {};
    const std::size_t size = ::fstat(fd_, &st) == 0 && st.st_size >= 0 ? static_cast<std::size_t>(st.st_size) : 0;
    return std::min(size, map_->zeros_from());
  }

 private:
  int fd_;
  std::unique_ptr<MappedFile> map_;
};

// One chunk of a mapped file (chunked parsing): its bytes read in place, numbered as in the file.
class MappedChunkSource final : public ChunkedLineSource {
 public:
  MappedChunkSource(std::shared_ptr<const MappedFile> map, std::size_t begin, std::size_t end, std::uint64_t first_line,
                    std::size_t max_line)
      : ChunkedLineSource(max_line), map_(std::move(map)), begin_(begin), chunk_end_(end) {
    use_whole(map_->bytes().substr(begin, end - begin), &map_->faults());
    number_from(begin, first_line);
  }

 protected:
  std::size_t fill(char*, std::size_t) override { return 0; }
  bool reset() override { return false; }
  void release_before(std::size_t offset) override {
    map_->release(begin_ + released_, begin_ + offset);
    released_ = offset;
  }
  std::size_t size_now() override {
    const std::size_t zeros = map_->zeros_from();
    return zeros > begin_ ? std::min(zeros, chunk_end_) - begin_ : 0;
  }

 private:
  std::shared_ptr<const MappedFile> map_;
  std::size_t begin_, chunk_end_;
  std::size_t released_ = 0;
};

// A rotated archive (gzip, zstd, xz: decompress.hpp), decompressed block by block.
class DecompressedLineSource final : public ChunkedLineSource {
 public:
  DecompressedLineSource(int fd, std::size_t max_line, std::unique_ptr<Decompressor> dec)
      : ChunkedLineSource(max_line), fd_(fd), dec_(std::move(dec)) {}
  ~DecompressedLineSource() override {
    dec_.reset();
    ::close(fd_);
  }

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

 private:
  int fd_;
  std::unique_ptr<Decompressor> dec_;
};

}  // namespace

std::unique_ptr<LineSource> make_buffer_source(std::string_view data, std::size_t max_line) {
  return std::make_unique<BufferLineSource>(data, max_line);
}

std::unique_ptr<LineSource> make_chunk_source(std::shared_ptr<const MappedFile> file, std::size_t begin,
                                              std::size_t end, std::uint64_t first_line, std::size_t max_line) {
  return std::make_unique<MappedChunkSource>(std::move(file), begin, end, first_line, max_line);
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
  // O_NONBLOCK: never hang on a FIFO that slipped past the caller's checks.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    error = std::strerror(errno);
    return nullptr;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    error = "not a regular file";
    ::close(fd);
    return nullptr;
  }
  char magic[kCompressionMagicBytes];
  const ssize_t got = ::pread(fd, magic, sizeof magic, 0);
  const auto size = static_cast<std::uint64_t>(st.st_size);
  const Compression c = detect_compression(std::string_view(magic, got > 0 ? static_cast<std::size_t>(got) : 0));
  if (c != Compression::kNone)
    return std::make_unique<DecompressedLineSource>(fd, max_line, make_decompressor(c, fd, size));
  // Large files are mapped (no copy); small ones are not worth a mapping.
  if (size >= kMapAtLeast)
    if (auto map = MappedFile::map(fd, size)) return std::make_unique<MappedLineSource>(fd, max_line, std::move(map));
  return std::make_unique<FdLineSource>(fd, max_line, size);
}

}  // namespace gpucost
