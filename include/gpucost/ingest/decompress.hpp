#pragma once
/// \file decompress.hpp
/// Streams the decompressed bytes of a rotated log archive: gzip (one member or several
/// concatenated), zstd (one frame or several) and xz (one stream or several). The format is told
/// by the first bytes (content decides, not the name). gzip is inflated with ISA-L's igzip where
/// the build found it (libisal-dev: about twice zlib's speed on log text, docs/performance.md),
/// else with zlib; zstd with libzstd, xz with liblzma.

#ifndef GPUCOST_LAYER_INGEST
#error "gpucost_ingest header: include it only in gpucost_ingest or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace gpucost {

/// How a file's bytes are compressed.
enum class Compression : std::uint8_t { kNone, kGzip, kZstd, kXz };

/// Bytes to read from the start of a file to tell its compression.
inline constexpr std::size_t kCompressionMagicBytes = 6;

/// The compression whose magic number `head` (a file's first bytes, kCompressionMagicBytes or
/// fewer) starts with; none when it starts with no known magic.
Compression detect_compression(std::string_view head) noexcept;

/// "gzip", "zstd", "xz" or "none".
std::string_view compression_name(Compression c) noexcept;

/// The library that inflates gzip: ISA-L (fast) or zlib (always there; the tests and the
/// benchmark compare the two).
enum class GzipEngine : std::uint8_t { kFastest, kZlib };

/// True when this build inflates gzip with ISA-L (GzipEngine::kFastest is not zlib).
bool gzip_uses_isal() noexcept;

/// Why a decompressor's data ended early.
enum class DecompressFailure : std::uint8_t {
  kNone,       ///< it did not (or the file could not be read: error() says so)
  kDamaged,    ///< the stream stops short or is corrupt
  kLimit,      ///< the stream needs more memory than allowed (kXzMemoryLimit, kZstdWindowLogMax)
};

/// xz's decoder may use this much (its dictionary and state): `xz -9`, the largest preset, needs
/// 65 MiB; a header that asks for more is refused (DecompressFailure::kLimit), not obeyed.
inline constexpr std::uint64_t kXzMemoryLimit = 80ull << 20;
/// zstd's window may be at most 2^27 bytes (128 MiB, libzstd's own default: `zstd --ultra -22`
/// and `--long` use it); a frame that asks for a larger one (`--long=31`) is refused.
inline constexpr int kZstdWindowLogMax = 27;

/// A pull stream of decompressed bytes read from a file descriptor.
class Decompressor {
 public:
  virtual ~Decompressor() = default;
  /// Writes up to cap decompressed bytes to dst; 0 at the end of the data, or after an error
  /// (then error() says what went wrong; bytes returned before it stay valid).
  virtual std::size_t read(char* dst, std::size_t cap) = 0;
  /// Starts again from the first compressed byte; false when the file cannot be read again.
  virtual bool rewind() = 0;
  /// Empty while all is well; else why the data ended early (truncated, corrupt, unreadable).
  virtual const std::string& error() const noexcept = 0;
  /// What kind of error error() is.
  virtual DecompressFailure failure() const noexcept = 0;
};

/// A decompressor for `c` (not none) over the first `size` bytes of `fd` (the size of the file
/// when it was opened: a file still being appended to is not followed). The caller keeps fd
/// open while the decompressor lives, and closes it.
std::unique_ptr<Decompressor> make_decompressor(Compression c, int fd, std::uint64_t size,
                                                GzipEngine gzip = GzipEngine::kFastest);

/// How many bytes of text a file holds, for scheduling (ingest hands the largest work out
/// first): its size, or for a file named like a rotated archive (.gz, .zst, .xz) whose content
/// is one, its decompressed size as the archive records it (gzip: the last member's trailer;
/// zstd: the first frame's header) or else kTypicalLogRatio times its size. Only a hint: a
/// file is decompressed by what its content is, whatever this says.
std::uint64_t expected_text_bytes(const std::string& path, std::uint64_t size) noexcept;

/// How much a rotated log shrinks when compressed, about (real logs 8-15:1).
inline constexpr std::uint64_t kTypicalLogRatio = 10;

}  // namespace gpucost
