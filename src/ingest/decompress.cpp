#include "gpucost/ingest/decompress.hpp"

#include <fcntl.h>
#include <lzma.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#ifndef GPUCOST_HAVE_ISAL  // set by CMake when it finds libisal
#define GPUCOST_HAVE_ISAL 0
#endif
#if GPUCOST_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

namespace gpucost {

namespace {

constexpr std::size_t kInputBlock = 1 << 20;

/// The compressed bytes: read from the file in blocks, up to its size at open.
class CompressedInput {
 public:
  CompressedInput(int fd, std::uint64_t size)
      : fd_(fd), size_(size), left_(size), buf_(static_cast<std::size_t>(std::min<std::uint64_t>(size, kInputBlock))) {}

  /// Reads the next block; false at the end of the file or on a read error (see error).
  bool refill(std::string& error) {
    next_ = avail_ = 0;
    if (left_ == 0 || buf_.empty()) {
      eof_ = true;
      return false;
    }
    ssize_t n;
    do n = ::read(fd_, buf_.data(), static_cast<std::size_t>(std::min<std::uint64_t>(buf_.size(), left_)));
    while (n < 0 && errno == EINTR);
    if (n < 0) {
      error = std::string("read error: ") + std::strerror(errno);
      eof_ = true;
      return false;
    }
    if (n == 0) {  // the file shrank: it ends here
      eof_ = true;
      return false;
    }
    left_ -= static_cast<std::uint64_t>(n);
    avail_ = static_cast<std::size_t>(n);
    return true;
  }
  bool rewind() {
    next_ = avail_ = 0;
    left_ = size_;
    eof_ = false;
    return ::lseek(fd_, 0, SEEK_SET) == 0;
  }
  unsigned char* data() noexcept { return buf_.data() + next_; }
  const unsigned char* data() const noexcept { return buf_.data() + next_; }
  std::size_t avail() const noexcept { return avail_; }
  /// The decoder took n bytes.
  void consume(std::size_t n) noexcept {
    next_ += n;
    avail_ -= n;
  }
  bool eof() const noexcept { return eof_; }

 private:
  int fd_;
  std::uint64_t size_, left_;
  std::vector<unsigned char> buf_;
  std::size_t next_ = 0, avail_ = 0;
  bool eof_ = false;
};

// Decoders on a shared frame: read() loops until some output is produced or the data ends;
// step() runs the library once over what input there is.
class StreamDecompressor : public Decompressor {
 public:
  StreamDecompressor(int fd, std::uint64_t size) : in_(fd, size) {}

  std::size_t read(char* dst, std::size_t cap) override {
    if (done_ || cap == 0) return 0;
    for (;;) {
      if (in_.avail() == 0 && !in_.eof()) in_.refill(error_);
      if (!error_.empty()) {
        failure_ = DecompressFailure::kNone;  // the file could not be read, the data is not at fault
        return finish(0);
      }
      const std::size_t before_in = in_.avail();
      std::size_t out = 0;
      switch (step(reinterpret_cast<unsigned char*>(dst), cap, out)) {
        case Step::kMore:
          break;
        case Step::kEnd:
          return finish(out);
        case Step::kFailed:
          return finish(out);
      }
      if (out > 0) return out;
      // Nothing came out and nothing went in: at the end of the file the data stops short;
      // before it, the decoder is stuck on bytes it neither takes nor rejects.
      if (in_.avail() == before_in && (in_.eof() || in_.avail() > 0)) {
        error_ = in_.eof() ? truncated_message() : "corrupt " + std::string(name()) + " data (the decoder stopped)";
        return finish(0);
      }
    }
  }
  bool rewind() override {
    error_.clear();
    failure_ = DecompressFailure::kDamaged;
    done_ = false;
    return in_.rewind() && restart();
  }
  const std::string& error() const noexcept override { return error_; }
  DecompressFailure failure() const noexcept override {
    return error_.empty() ? DecompressFailure::kNone : failure_;
  }

 protected:
  enum class Step { kMore, kEnd, kFailed };
  /// Decodes from in_ into dst (cap bytes); out = bytes written. end: the data is complete;
  /// failed: error_ is set.
  virtual Step step(unsigned char* dst, std::size_t cap, std::size_t& out) = 0;
  /// Resets the library's state for a new pass.
  virtual bool restart() = 0;
  virtual std::string truncated_message() const = 0;
  virtual std::string_view name() const = 0;

  CompressedInput in_;
  std::string error_;
  DecompressFailure failure_ = DecompressFailure::kDamaged;  // what error_ is, once set

 private:
  std::size_t finish(std::size_t out) {
    done_ = true;
    return out;
  }
  bool done_ = false;
};

// Bytes that may follow a complete gzip member: another member, or anything else, which ends
// the data quietly (zero padding, trailing garbage), as gzip -d does with a warning.
// "WHAT 128 MiB to decompress: not read past this point".
std::string fmt_limit(std::string_view what, std::uint64_t bytes) {
  return std::string(what) + " " + std::to_string(bytes >> 20) + " MiB to decompress: not read past this point";
}

bool starts_gzip_member(const CompressedInput& in) { return in.avail() == 0 || *in.data() == 0x1f; }

class ZlibGunzip final : public StreamDecompressor {
 public:
  ZlibGunzip(int fd, std::uint64_t size) : StreamDecompressor(fd, size) { restart(); }
  ~ZlibGunzip() override { inflateEnd(&zs_); }

 protected:
  Step step(unsigned char* dst, std::size_t cap, std::size_t& out) override {
    if (member_ended_) {  // another member of a multi-member file, or the end
      if (in_.avail() == 0) return in_.eof() ? Step::kEnd : Step::kMore;
      if (!starts_gzip_member(in_)) return Step::kEnd;
      inflateReset(&zs_);
      member_ended_ = false;
    }
    zs_.next_in = in_.data();
    zs_.avail_in = static_cast<uInt>(in_.avail());
    zs_.next_out = dst;
    zs_.avail_out = static_cast<uInt>(std::min<std::size_t>(cap, UINT32_MAX));
    const int rc = inflate(&zs_, Z_NO_FLUSH);
    in_.consume(in_.avail() - zs_.avail_in);
    out = static_cast<std::size_t>(zs_.next_out - dst);
    if (rc == Z_STREAM_END) {
      member_ended_ = true;
      return Step::kMore;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      error_ = std::string("corrupt gzip data: ") + (zs_.msg ? zs_.msg : "inflate failed");
      return Step::kFailed;
    }
    return Step::kMore;
  }
  bool restart() override {
    inflateEnd(&zs_);
    std::memset(&zs_, 0, sizeof zs_);
    member_ended_ = false;
    return inflateInit2(&zs_, 15 + 32) == Z_OK;  // 32: a gzip or a zlib header
  }
  std::string truncated_message() const override { return "truncated gzip stream (ends before its trailer)"; }
  std::string_view name() const override { return "gzip"; }

 private:
  z_stream zs_{};
  bool member_ended_ = false;
};

#if GPUCOST_HAVE_ISAL
class IsalGunzip final : public StreamDecompressor {
 public:
  IsalGunzip(int fd, std::uint64_t size) : StreamDecompressor(fd, size) { restart(); }

 protected:
  Step step(unsigned char* dst, std::size_t cap, std::size_t& out) override {
    if (state_.block_state == ISAL_BLOCK_FINISH) {
      if (in_.avail() == 0) return in_.eof() ? Step::kEnd : Step::kMore;
      if (!starts_gzip_member(in_)) return Step::kEnd;
      isal_inflate_reset(&state_);
      state_.crc_flag = ISAL_GZIP;
    }
    state_.next_in = in_.data();
    state_.avail_in = static_cast<std::uint32_t>(in_.avail());
    state_.next_out = dst;
    state_.avail_out = static_cast<std::uint32_t>(std::min<std::size_t>(cap, UINT32_MAX));
    const int rc = isal_inflate(&state_);
    in_.consume(in_.avail() - state_.avail_in);
    out = static_cast<std::size_t>(state_.next_out - dst);
    if (rc < 0) {
      error_ = std::string("corrupt gzip data: ") + reason(rc);
      return Step::kFailed;
    }
    return Step::kMore;
  }
  bool restart() override {
    isal_inflate_init(&state_);
    state_.crc_flag = ISAL_GZIP;  // parse the gzip header, check the trailer's CRC and size
    return true;
  }
  std::string truncated_message() const override { return "truncated gzip stream (ends before its trailer)"; }
  std::string_view name() const override { return "gzip"; }

 private:
  static const char* reason(int rc) {
    switch (rc) {
      case ISAL_INVALID_BLOCK: return "invalid deflate block";
      case ISAL_INVALID_SYMBOL: return "invalid deflate symbol";
      case ISAL_INVALID_LOOKBACK: return "invalid distance too far back";
      case ISAL_INVALID_WRAPPER: return "invalid gzip header";
      case ISAL_UNSUPPORTED_METHOD: return "unknown compression method";
      case ISAL_INCORRECT_CHECKSUM: return "incorrect data check";
      default: return "inflate failed";
    }
  }
  inflate_state state_{};
};
#endif

class ZstdDecompressor final : public StreamDecompressor {
 public:
  ZstdDecompressor(int fd, std::uint64_t size) : StreamDecompressor(fd, size), ds_(ZSTD_createDStream()) {
    // Kept across resets of the session: a frame asking for a larger window is refused.
    if (ds_) ZSTD_DCtx_setParameter(ds_, ZSTD_d_windowLogMax, kZstdWindowLogMax);
    restart();
  }
  ~ZstdDecompressor() override { ZSTD_freeDStream(ds_); }

 protected:
  Step step(unsigned char* dst, std::size_t cap, std::size_t& out) override {
    if (in_.avail() == 0 && in_.eof() && frame_done_) return Step::kEnd;
    ZSTD_inBuffer input{in_.data(), in_.avail(), 0};
    ZSTD_outBuffer output{dst, cap, 0};
    const std::size_t rc = ZSTD_decompressStream(ds_, &output, &input);
    in_.consume(input.pos);
    out = output.pos;
    if (ZSTD_isError(rc)) {
      if (ZSTD_getErrorCode(rc) == ZSTD_error_frameParameter_windowTooLarge) {
        error_ = fmt_limit("zstd frame needs a window larger than", std::uint64_t{1} << kZstdWindowLogMax);
        failure_ = DecompressFailure::kLimit;
      } else {
        error_ = std::string("corrupt zstd data: ") + ZSTD_getErrorName(rc);
      }
      return Step::kFailed;
    }
    // 0: a frame is complete and flushed; the data may end here or hold another frame.
    frame_done_ = rc == 0;
    return Step::kMore;
  }
  bool restart() override {
    frame_done_ = false;
    return ds_ && !ZSTD_isError(ZSTD_DCtx_reset(ds_, ZSTD_reset_session_only));
  }
  std::string truncated_message() const override { return "truncated zstd stream (ends inside a frame)"; }
  std::string_view name() const override { return "zstd"; }

 private:
  ZSTD_DStream* ds_;
  bool frame_done_ = false;
};

class XzDecompressor final : public StreamDecompressor {
 public:
  XzDecompressor(int fd, std::uint64_t size) : StreamDecompressor(fd, size) { restart(); }
  ~XzDecompressor() override { lzma_end(&xs_); }

 protected:
  Step step(unsigned char* dst, std::size_t cap, std::size_t& out) override {
    if (ended_) return Step::kEnd;
    xs_.next_in = in_.data();
    xs_.avail_in = in_.avail();
    xs_.next_out = dst;
    xs_.avail_out = cap;
    // LZMA_FINISH once the file is read: the decoder then says whether the data was complete.
    const lzma_ret rc = lzma_code(&xs_, in_.eof() ? LZMA_FINISH : LZMA_RUN);
    in_.consume(in_.avail() - xs_.avail_in);
    out = static_cast<std::size_t>(xs_.next_out - dst);
    switch (rc) {
      case LZMA_OK:
        return Step::kMore;
      case LZMA_STREAM_END:
        ended_ = true;
        return out > 0 ? Step::kMore : Step::kEnd;
      case LZMA_BUF_ERROR:  // no progress possible: at the end of the file, the data stops short
        if (out > 0) return Step::kMore;
        error_ = truncated_message();
        return Step::kFailed;
      case LZMA_MEMLIMIT_ERROR:
        error_ = fmt_limit("xz data needs more memory (its dictionary) than", kXzMemoryLimit);
        failure_ = DecompressFailure::kLimit;
        return Step::kFailed;
      default:
        error_ = std::string("corrupt xz data: ") + reason(rc);
        return Step::kFailed;
    }
  }
  bool restart() override {
    lzma_end(&xs_);
    xs_ = LZMA_STREAM_INIT;
    ended_ = false;
    // Concatenated: `xz` writes one stream, but appended streams are one file to it too.
    return lzma_stream_decoder(&xs_, kXzMemoryLimit, LZMA_CONCATENATED) == LZMA_OK;
  }
  std::string truncated_message() const override { return "truncated xz stream (ends inside a block)"; }
  std::string_view name() const override { return "xz"; }

 private:
  static const char* reason(lzma_ret rc) {
    switch (rc) {
      case LZMA_FORMAT_ERROR: return "not an xz stream";
      case LZMA_OPTIONS_ERROR: return "unsupported options";
      case LZMA_DATA_ERROR: return "damaged data";
      case LZMA_MEM_ERROR: return "out of memory";
      default: return "decoding failed";
    }
  }
  lzma_stream xs_ = LZMA_STREAM_INIT;
  bool ended_ = false;
};

}  // namespace

Compression detect_compression(std::string_view head) noexcept {
  const auto starts = [&](std::string_view magic) { return head.substr(0, magic.size()) == magic; };
  if (starts("\x1f\x8b")) return Compression::kGzip;
  if (starts("\x28\xb5\x2f\xfd")) return Compression::kZstd;
  if (starts(std::string_view("\xfd" "7zXZ\0", 6))) return Compression::kXz;
  return Compression::kNone;
}

std::string_view compression_name(Compression c) noexcept {
  switch (c) {
    case Compression::kGzip: return "gzip";
    case Compression::kZstd: return "zstd";
    case Compression::kXz: return "xz";
    case Compression::kNone: break;
  }
  return "none";
}

std::uint64_t expected_text_bytes(const std::string& path, std::uint64_t size) noexcept {
  const std::string_view name = path;
  if (!name.ends_with(".gz") && !name.ends_with(".zst") && !name.ends_with(".xz")) return size;
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return size;
  unsigned char head[18] = {};  // a zstd frame header's most (ZSTD_FRAMEHEADERSIZE_MAX)
  const ssize_t got = ::pread(fd, head, sizeof head, 0);
  const std::size_t n = got > 0 ? static_cast<std::size_t>(got) : 0;
  std::uint64_t text = size;
  switch (detect_compression(std::string_view(reinterpret_cast<const char*>(head), n))) {
    case Compression::kGzip: {
      unsigned char isize[4] = {};  // the last member's size mod 2^32, little-endian
      text = size * kTypicalLogRatio;
      if (size >= 18 && ::pread(fd, isize, 4, static_cast<off_t>(size - 4)) == 4) {
        const std::uint64_t v = isize[0] | isize[1] << 8 | isize[2] << 16 | std::uint64_t{isize[3]} << 24;
        if (v >= size) text = v;  // else several members, or 4 GiB and more: the typical ratio
      }
      break;
    }
    case Compression::kZstd: {
      const unsigned long long v = ZSTD_getFrameContentSize(head, n);
      text = v != ZSTD_CONTENTSIZE_UNKNOWN && v != ZSTD_CONTENTSIZE_ERROR ? v : size * kTypicalLogRatio;
      break;
    }
    case Compression::kXz:
      text = size * kTypicalLogRatio;
      break;
    case Compression::kNone:
      break;
  }
  ::close(fd);
  return text;
}

bool gzip_uses_isal() noexcept { return GPUCOST_HAVE_ISAL != 0; }

std::unique_ptr<Decompressor> make_decompressor(Compression c, int fd, std::uint64_t size, GzipEngine gzip) {
  switch (c) {
    case Compression::kGzip:
#if GPUCOST_HAVE_ISAL
      if (gzip == GzipEngine::kFastest) return std::make_unique<IsalGunzip>(fd, size);
#endif
      (void)gzip;
      return std::make_unique<ZlibGunzip>(fd, size);
    case Compression::kZstd:
      return std::make_unique<ZstdDecompressor>(fd, size);
    case Compression::kXz:
      return std::make_unique<XzDecompressor>(fd, size);
    case Compression::kNone:
      break;
  }
  return nullptr;
}

}  // namespace gpucost
