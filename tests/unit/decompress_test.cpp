// Rotated archives: gzip (ISA-L and zlib), zstd and xz give the lines of the plain text, whatever
// the file is called; a truncated or corrupt archive ends with an error, never a crash or a hang.
#include "gpucost/ingest/decompress.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <lzma.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <cstdio>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gpucost/ingest/ingest.hpp"
#include "gpucost/ingest/line_source.hpp"
#include "robustness_util.hpp"

namespace gpucost {
namespace {

namespace fs = std::filesystem;

std::string gzip_member(std::string_view data) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);  // 16: gzip wrapper
  std::string out(deflateBound(&zs, data.size()) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

// A gzip member whose header carries every optional field (gzip without -n writes the name;
// other tools add a comment, an extra field, a header CRC): the readers must skip them all.
std::string gzip_member_with_header_fields(std::string_view data) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  gz_header h{};
  char name[] = "kern.log.1", comment[] = "rotated by logrotate";
  unsigned char extra[] = {'A', 'B', 4, 0, 1, 2, 3, 4};
  h.name = reinterpret_cast<Bytef*>(name);
  h.comment = reinterpret_cast<Bytef*>(comment);
  h.extra = extra;
  h.extra_len = sizeof extra;
  h.hcrc = 1;
  h.os = 3;
  EXPECT_EQ(deflateSetHeader(&zs, &h), Z_OK);
  std::string out(deflateBound(&zs, data.size()) + 256, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

std::string zstd_frame(std::string_view data) {
  std::string out(ZSTD_compressBound(data.size()), '\0');
  const std::size_t n = ZSTD_compress(out.data(), out.size(), data.data(), data.size(), 3);
  EXPECT_FALSE(ZSTD_isError(n));
  out.resize(n);
  return out;
}

std::string xz_stream(std::string_view data) {
  std::string out(lzma_stream_buffer_bound(data.size()), '\0');
  std::size_t pos = 0;
  EXPECT_EQ(lzma_easy_buffer_encode(1, LZMA_CHECK_CRC64, nullptr, reinterpret_cast<const std::uint8_t*>(data.data()),
                                    data.size(), reinterpret_cast<std::uint8_t*>(out.data()), &pos, out.size()),
            LZMA_OK);
  out.resize(pos);
  return out;
}

/// How the tests write an archive: `parts` compressed one member / frame / stream each, then
/// concatenated, as logrotate's appends and `cat a.gz b.gz` make them.
struct Codec {
  const char* name;
  Compression compression;
  std::string (*one)(std::string_view);
};
const Codec kCodecs[] = {{"gzip", Compression::kGzip, gzip_member},
                         {"zstd", Compression::kZstd, zstd_frame},
                         {"xz", Compression::kXz, xz_stream}};

std::string compress(const Codec& c, const std::vector<std::string_view>& parts) {
  std::string out;
  for (auto p : parts) out += c.one(p);
  return out;
}

/// Kernel log lines, distinct enough that a lost or repeated block shows: about `bytes` of them.
std::string log_text(std::size_t bytes) {
  std::string s;
  for (unsigned i = 0; s.size() < bytes; ++i)
    s += "Mar  3 10:" + std::to_string(10 + i / 6000 % 50) + ":" + std::to_string(10 + i / 100 % 50) +
         " host kernel: [" + std::to_string(1000 + i) + ".123456] NVRM: line " + std::to_string(i * 7919u % 100003u) +
         (i % 13 ? " usual text\n" : " a longer line to vary the lengths of what is compressed here\n");
  return s;
}

std::vector<std::string> split_lines(std::string_view s) {
  std::vector<std::string> out;
  while (!s.empty()) {
    const auto nl = s.find('\n');
    out.emplace_back(s.substr(0, nl));
    s.remove_prefix(nl == std::string_view::npos ? s.size() : nl + 1);
  }
  return out;
}

class TempFile {
 public:
  explicit TempFile(const std::string& name, std::string_view bytes)
      : path_(fs::temp_directory_path() / ("gpucost_dc_" + std::to_string(::getpid()) + "_" + name)) {
    std::ofstream f(path_, std::ios::binary | std::ios::trunc);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  ~TempFile() { fs::remove(path_); }
  std::string path() const { return path_.string(); }

 private:
  fs::path path_;
};

struct Read {
  std::vector<std::string> lines;
  std::string error;
};

Read read_lines(const std::string& path) {
  Read r;
  std::string err;
  auto src = open_line_source(path, err);
  EXPECT_NE(src, nullptr) << err;
  if (!src) return r;
  Line l;
  while (src->next(l)) r.lines.emplace_back(l.text);
  r.error = src->error();
  return r;
}

std::string decompress_all(Compression c, const std::string& path, GzipEngine engine) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  EXPECT_GE(fd, 0);
  std::string out;
  {
    auto dec = make_decompressor(c, fd, fs::file_size(path), engine);
    std::vector<char> buf(100'000);  // not a power of two: blocks end anywhere
    while (const std::size_t n = dec->read(buf.data(), buf.size())) out.append(buf.data(), n);
    EXPECT_EQ(dec->error(), "");
  }
  ::close(fd);
  return out;
}

// The error a decompressor ends with after reading everything it gives.
std::string error_after_all(Compression c, const std::string& path, GzipEngine engine) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  EXPECT_GE(fd, 0);
  std::string error;
  {
    auto dec = make_decompressor(c, fd, fs::file_size(path), engine);
    std::vector<char> buf(65'536);
    while (dec->read(buf.data(), buf.size()) != 0) {
    }
    error = dec->error();
  }
  ::close(fd);
  return error;
}

// A zstd frame written by hand: no content size, so its window descriptor stands (2^window_log
// bytes), and one raw block of `data` (at most 128 KiB).
std::string zstd_frame_with_window(std::string_view data, int window_log) {
  std::string f("\x28\xb5\x2f\xfd", 4);
  f += '\0';                                                 // descriptor: no size, no checksum
  f += static_cast<char>((window_log - 10) << 3);             // window: 2^(10 + exponent)
  const std::uint32_t block = static_cast<std::uint32_t>(data.size()) << 3 | 1;  // raw, last
  for (int k = 0; k < 3; ++k) f += static_cast<char>(block >> (8 * k) & 0xff);
  return f + std::string(data);
}

// An xz stream whose block header says the LZMA2 dictionary is `dict_code` (dictionary
// 2^(code/2 + 12) or 3 * 2^(code/2 + 11) bytes), its CRC32 made right: the data, written with a
// small dictionary, decodes the same with a larger one, so only the header asks for memory.
std::string xz_stream_with_dictionary(std::string_view data, std::uint8_t dict_code) {
  std::string x = xz_stream(data);
  const std::size_t at = 12, size = (static_cast<unsigned char>(x[at]) + 1u) * 4u;
  std::size_t p = at + 2;
  const auto skip_varint = [&] {
    while (static_cast<unsigned char>(x[p++]) & 0x80) {
    }
  };
  const auto flags = static_cast<unsigned char>(x[at + 1]);
  if (flags & 0x40) skip_varint();  // compressed size
  if (flags & 0x80) skip_varint();  // uncompressed size
  EXPECT_EQ(static_cast<unsigned char>(x[p]), 0x21u) << "LZMA2";
  EXPECT_EQ(static_cast<unsigned char>(x[p + 1]), 1u) << "one byte of properties";
  x[p + 2] = static_cast<char>(dict_code);
  const uLong crc = crc32(0, reinterpret_cast<const Bytef*>(x.data() + at), static_cast<uInt>(size - 4));
  for (int k = 0; k < 4; ++k) x[at + size - 4 + static_cast<std::size_t>(k)] = static_cast<char>(crc >> (8 * k) & 0xff);
  return x;
}

// Memory is bounded by what real rotations use (issue 39: an xz header asking for a 384 MiB
// dictionary was obeyed): the limit is a named failure, DecompressFailure::kLimit, not damage;
// what is within it decodes.
TEST(Decompress, WindowAndDictionaryBeyondTheLimitsAreRefusedByName) {
  const std::string text = log_text(20'000);
  {
    const TempFile ok("zst_window_ok", zstd_frame_with_window(text, kZstdWindowLogMax));
    EXPECT_EQ(decompress_all(Compression::kZstd, ok.path(), GzipEngine::kFastest), text);
    const TempFile big("zst_window_big", zstd_frame_with_window(text, kZstdWindowLogMax + 1));
    std::string err;
    auto src = open_line_source(big.path(), err);
    ASSERT_NE(src, nullptr) << err;
    Line l;
    while (src->next(l)) {
    }
    EXPECT_EQ(src->failure(), DecompressFailure::kLimit) << src->error();
    EXPECT_NE(src->error().find("128 MiB"), std::string::npos) << src->error();
  }
  {
    // Code 33: 384 MiB, refused; code 22: 8 MiB (xz -6), and code 37 (1.5 GiB) refused as before.
    const TempFile ok("xz_dict_ok", xz_stream_with_dictionary(text, 22));
    EXPECT_EQ(decompress_all(Compression::kXz, ok.path(), GzipEngine::kFastest), text);
    for (const std::uint8_t code : {std::uint8_t{33}, std::uint8_t{37}}) {
      const TempFile big("xz_dict_big", xz_stream_with_dictionary(text, code));
      std::string err;
      auto src = open_line_source(big.path(), err);
      ASSERT_NE(src, nullptr) << err;
      Line l;
      std::size_t lines = 0;
      while (src->next(l)) ++lines;
      EXPECT_EQ(lines, 0u) << int{code};
      EXPECT_EQ(src->failure(), DecompressFailure::kLimit) << int{code} << ": " << src->error();
      EXPECT_NE(src->error().find("80 MiB"), std::string::npos) << src->error();
    }
  }
  // Damage is kDamaged; a source that ended well has no failure.
  const std::string whole = zstd_frame(text);
  const TempFile cut("zst_cut", std::string_view(whole).substr(0, whole.size() / 2));
  std::string err;
  auto src = open_line_source(cut.path(), err);
  ASSERT_NE(src, nullptr) << err;
  Line l;
  while (src->next(l)) {
  }
  EXPECT_EQ(src->failure(), DecompressFailure::kDamaged) << src->error();
  EXPECT_EQ(src->compression(), Compression::kZstd);
  const TempFile good("zst_good", whole);
  auto fine = open_line_source(good.path(), err);
  ASSERT_NE(fine, nullptr) << err;
  while (fine->next(l)) {
  }
  EXPECT_EQ(fine->failure(), DecompressFailure::kNone);
  EXPECT_EQ(fine->compressed_size(), whole.size());
}

TEST(Decompress, TellsTheFormatByItsMagicBytes) {
  EXPECT_EQ(detect_compression("\x1f\x8b\x08"), Compression::kGzip);
  EXPECT_EQ(detect_compression("\x28\xb5\x2f\xfd\x24"), Compression::kZstd);
  EXPECT_EQ(detect_compression(std::string_view("\xfd" "7zXZ\0", 6)), Compression::kXz);
  EXPECT_EQ(detect_compression(std::string_view("\xfd" "7zXY\0", 6)), Compression::kNone);
  EXPECT_EQ(detect_compression("\x1f"), Compression::kNone);
  EXPECT_EQ(detect_compression("Mar  3 kernel"), Compression::kNone);
  EXPECT_EQ(detect_compression(""), Compression::kNone);
  for (const Codec& c : kCodecs) EXPECT_EQ(detect_compression(c.one("x\n").substr(0, 6)), c.compression) << c.name;
}

TEST(Decompress, EveryFormatGivesTheLinesOfThePlainTextWhateverTheName) {
  // 3 MB: several 1 MiB input blocks, and members that end inside a block.
  const std::string text = log_text(3'000'000);
  const std::string_view t = text;
  const std::vector<std::string> want = split_lines(text);
  const std::size_t cut = t.rfind('\n', t.size() / 3) + 1;  // members end at line ends...
  const std::size_t cut2 = t.size() * 2 / 3;                // ...and inside lines
  for (const Codec& c : kCodecs) {
    const TempFile one("one_" + std::string(c.name), compress(c, {t}));
    const TempFile many("kern.log.1", compress(c, {t.substr(0, cut), t.substr(cut, cut2 - cut), t.substr(cut2)}));
    for (const TempFile* f : {&one, &many}) {
      const Read r = read_lines(f->path());
      EXPECT_EQ(r.error, "") << c.name;
      ASSERT_EQ(r.lines.size(), want.size()) << c.name << " " << f->path();
      EXPECT_TRUE(r.lines == want) << c.name << " " << f->path();
    }
  }
}

// Hex noise compresses only 2:1, so the members below span several 1 MiB input blocks and
// their headers and trailers fall across block ends; some members are 1 to 100 bytes.
TEST(Decompress, IsalAndZlibInflateTheSameBytes) {
  std::string text;
  std::uint64_t x = 88172645463325252ull;  // xorshift64: deterministic noise
  for (int i = 0; i < 60'000; ++i) {
    for (int j = 0; j < 8; ++j) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      text += "0123456789abcdef"[x % 16];
      text += "0123456789abcdef"[x / 16 % 16];
      text += "0123456789abcdef"[x / 256 % 16];
      text += "0123456789abcdef"[x / 4096 % 16];
    }
    text += '\n';
  }
  const std::string_view t = text;
  std::vector<std::string_view> parts;
  std::size_t at = 0;
  for (const std::size_t n : {1, 100, 5000, 700'000, 1'234'567, 3}) {
    parts.push_back(t.substr(at, n));
    at += n;
  }
  parts.push_back(t.substr(at));
  const std::string gz = compress(kCodecs[0], parts);
  ASSERT_GT(gz.size(), std::size_t{1} << 20);
  const TempFile f("engines.gz", gz);
  EXPECT_TRUE(decompress_all(Compression::kGzip, f.path(), GzipEngine::kZlib) == text);
  EXPECT_TRUE(decompress_all(Compression::kGzip, f.path(), GzipEngine::kFastest) == text);
}

TEST(Decompress, GzipHeadersWithNameCommentExtraAndCrcAreSkipped) {
  const std::string text = log_text(300'000);
  const std::string_view t = text;
  const std::string member = gzip_member_with_header_fields(t.substr(0, 100'000));
  ASSERT_EQ(static_cast<unsigned char>(member[3]), 0x1e);  // FHCRC | FEXTRA | FNAME | FCOMMENT
  const TempFile f("named.gz", member + gzip_member_with_header_fields(t.substr(100'000)));
  EXPECT_EQ(decompress_all(Compression::kGzip, f.path(), GzipEngine::kZlib), text);
  EXPECT_EQ(decompress_all(Compression::kGzip, f.path(), GzipEngine::kFastest), text);
}

TEST(Decompress, RewindStartsOverFromTheFirstMember) {
  const std::string text = log_text(200'000);
  for (const Codec& c : kCodecs) {
    const TempFile f("rewind", compress(c, {std::string_view(text).substr(0, 50'000), std::string_view(text).substr(50'000)}));
    std::string err;
    auto src = open_line_source(f.path(), err);
    ASSERT_NE(src, nullptr) << err;
    Line l;
    for (int i = 0; i < 1000; ++i) ASSERT_TRUE(src->next(l));
    ASSERT_TRUE(src->rewind());
    std::vector<std::string> lines;
    while (src->next(l)) lines.emplace_back(l.text);
    EXPECT_TRUE(lines == split_lines(text)) << c.name;
    EXPECT_EQ(src->error(), "") << c.name;
  }
}

// Cut anywhere after the magic bytes: the lines that come out are the first lines of the text (the last one perhaps
// cut short), and the source says the data stops short. Bytes flipped: an error (found where the
// format finds it: a bad block, or the checksum after the data; deflate has no check before
// its trailer, so what came out before may be garbled), never a crash or a hang.
TEST(Decompress, TruncatedOrCorruptArchivesEndWithAnErrorAndKeepWhatCameBefore) {
  const std::string text = log_text(400'000);
  const std::vector<std::string> want = split_lines(text);
  for (const Codec& c : kCodecs) {
    const std::string whole = compress(c, {text});
    for (const std::size_t keep : {std::size_t{7}, std::size_t{12}, std::size_t{40}, whole.size() / 2, whole.size() - 1}) {
      const TempFile f("cut", std::string_view(whole).substr(0, keep));
      const Read r = read_lines(f.path());
      EXPECT_NE(r.error.find("truncated"), std::string::npos) << c.name << ", cut at " << keep << ": " << r.error;
      if (c.compression == Compression::kGzip) {  // zlib too, where the line source uses ISA-L
        EXPECT_NE(error_after_all(c.compression, f.path(), GzipEngine::kZlib).find("truncated"), std::string::npos) << keep;
      }
      ASSERT_LE(r.lines.size(), want.size()) << c.name << ", cut at " << keep;
      for (std::size_t i = 0; i + 1 < r.lines.size(); ++i) ASSERT_EQ(r.lines[i], want[i]) << c.name << ", cut at " << keep;
      if (!r.lines.empty()) {
        EXPECT_EQ(want[r.lines.size() - 1].rfind(r.lines.back(), 0), 0u) << c.name << ", cut at " << keep;
      }
    }
    for (const std::size_t at : {whole.size() / 3, whole.size() / 2, whole.size() - 6}) {
      std::string bad = whole;
      for (std::size_t i = at; i < at + 4 && i < bad.size(); ++i) bad[i] = static_cast<char>(bad[i] ^ 0x5a);
      const TempFile f("flipped", bad);
      const Read r = read_lines(f.path());
      EXPECT_NE(r.error, "") << c.name << ", flipped at " << at;
      if (c.compression == Compression::kGzip) {
        EXPECT_NE(error_after_all(c.compression, f.path(), GzipEngine::kZlib), "") << at;
      }
    }
  }
}

TEST(Decompress, ZstdAndXzRotationsSortAmongTheOthersByNumber) {
  std::vector<std::string> names{"kern.log", "kern.log.1", "kern.log.3.xz", "kern.log.2.zst", "kern.log.10.gz"};
  std::sort(names.begin(), names.end(), [](const auto& a, const auto& b) { return rotation_order_less(a, b); });
  const std::vector<std::string> want{"kern.log.10.gz", "kern.log.3.xz", "kern.log.2.zst", "kern.log.1", "kern.log"};
  EXPECT_EQ(names, want);
}

// Scheduling: a rotated archive weighs the text it holds, not its size on disk.
TEST(Decompress, ExpectedTextBytesOfAnArchiveIsItsDecompressedSize) {
  const std::string text = log_text(500'000);
  const TempFile gz("sched.gz", gzip_member(text));
  EXPECT_EQ(expected_text_bytes(gz.path(), fs::file_size(gz.path())), text.size());
  const TempFile zst("sched.zst", zstd_frame(text));  // ZSTD_compress records the content size
  EXPECT_EQ(expected_text_bytes(zst.path(), fs::file_size(zst.path())), text.size());
  const TempFile xz("sched.xz", xz_stream(text));  // no size up front: the typical ratio
  EXPECT_EQ(expected_text_bytes(xz.path(), fs::file_size(xz.path())), fs::file_size(xz.path()) * kTypicalLogRatio);
  // Several gzip members: the last trailer holds only the last one's size; never less than the
  // file's own size.
  const TempFile two("two.gz", gzip_member(text) + gzip_member("x\n"));
  EXPECT_EQ(expected_text_bytes(two.path(), fs::file_size(two.path())), fs::file_size(two.path()) * kTypicalLogRatio);
  // Plain text, whatever its name; an archive not named like one is not opened (its size).
  const TempFile plain("plain.gz", text);
  EXPECT_EQ(expected_text_bytes(plain.path(), text.size()), text.size());
  const TempFile unnamed("kern.log.1", gzip_member(text));
  EXPECT_EQ(expected_text_bytes(unnamed.path(), fs::file_size(unnamed.path())), fs::file_size(unnamed.path()));
  EXPECT_EQ(expected_text_bytes("/nonexistent/kern.log.2.gz", 1234), 1234u);
}

TEST(Decompress, ZeroPaddingAfterAGzipMemberEndsTheDataQuietly) {
  const std::string text = log_text(10'000);
  const TempFile f("padded.gz", gzip_member(text) + std::string(512, '\0'));
  const Read r = read_lines(f.path());
  EXPECT_EQ(r.error, "");
  EXPECT_TRUE(r.lines == split_lines(text));
}

// An Xid 31 line of kern.log (real layout) at second `s`, with a pid to tell them apart.
std::string xid_line(int s, int pid) {
  char stamp[32];
  std::snprintf(stamp, sizeof stamp, "Nov 29 11:%02d:%02d", 28 + s / 60 % 30, s % 60);
  return std::string(stamp) + " zeus kernel: NVRM: Xid (PCI:0000:c1:00): 31, pid=" + std::to_string(pid) +
         ", Ch 0000003b, intr 00000000. MMU Fault: ENGINE HOST0 HUBCLIENT_HOST_CPU faulted @ 0x1_0c3c0000. "
         "Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_WRITE\n";
}

// End to end: the rotated kernel log in each format gives the report of the plain one, and a
// truncated one is a diagnostic with the file and the reason.
TEST(Decompress, RotatedArchivesGiveTheEventsOfThePlainText) {
  using namespace robust;
  std::string log;
  for (int i = 0; i < 3000; ++i) log += xid_line(i, 10000 + i);
  Scratch plain("dc_plain");
  put_good_data(plain.path());
  write_bytes(plain / "kern.log.1", log);
  auto want = analyze(plain.path());
  ASSERT_TRUE(want->parsed) << want->child.err;
  ASSERT_GT(want->events("xid"), 2000u);
  for (const Codec& c : kCodecs) {
    Scratch d(std::string("dc_") + c.name);
    put_good_data(d.path());
    const std::string name = std::string("kern.log.1.") + (c.compression == Compression::kGzip ? "gz" : c.name);
    write_bytes(d / name, compress(c, {std::string_view(log).substr(0, 100'001), std::string_view(log).substr(100'001)}));
    auto got = analyze(d.path());
    ASSERT_TRUE(got->parsed) << got->child.err;
    EXPECT_EQ(got->events("xid"), want->events("xid")) << c.name;
    EXPECT_EQ(got->count(name, "records"), want->count("kern.log.1", "records")) << c.name;
    EXPECT_EQ(got->count(name, "lines"), want->count("kern.log.1", "lines")) << c.name;

    const std::string whole = compress(c, {log});
    write_bytes(d / name, std::string_view(whole).substr(0, whole.size() / 2));
    auto cut = analyze(d.path());
    ASSERT_TRUE(cut->parsed) << cut->child.err;
    // Each named for what it is (issue 39: a truncated .zst or .xz read as truncated_gzip).
    const std::string problem = std::string("truncated_") + c.name;
    EXPECT_EQ(cut->problems(name, problem), 1u) << c.name;
    const auto s = cut->samples(name, problem);
    ASSERT_EQ(s.size(), 1u) << c.name;
    EXPECT_NE(s[0].find(std::string("truncated ") + c.name), std::string::npos) << s[0];
    EXPECT_GT(cut->count(name, "records"), 100u) << c.name;
    EXPECT_LT(cut->count(name, "records"), 3000u) << c.name;
  }
}

// End to end: each limit is `decompression_limit` in the report, the file named, beside the
// good data.
TEST(Decompress, ALimitIsNamedInTheReport) {
  using namespace robust;
  Scratch d("dc_limits");
  put_good_data(d.path());
  std::string log;
  for (int i = 0; i < 100; ++i) log += xid_line(i, 10000 + i);
  write_bytes(d / "kern.log.3.xz", xz_stream_with_dictionary(log, 33));
  write_bytes(d / "kern.log.4.zst", zstd_frame_with_window(log, 31));
  auto a = analyze(d.path());
  ASSERT_TRUE(a->parsed) << a->child.err;
  EXPECT_TRUE(a->good_data_present());
  for (const char* f : {"kern.log.3.xz", "kern.log.4.zst"}) {
    EXPECT_EQ(a->problems(f, "decompression_limit"), 1u) << f << "\n" << a->child.out.substr(0, 3000);
    EXPECT_EQ(a->problems(f, "truncated_gzip"), 0u) << f;
  }
}

}  // namespace
}  // namespace gpucost
