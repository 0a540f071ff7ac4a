#include "gpucost/ingest/line_source.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <vector>

namespace gpucost {
namespace {

std::vector<std::string> all_lines(LineSource& src, std::vector<bool>* truncated = nullptr) {
  std::vector<std::string> out;
  Line l;
  while (src.next(l)) {
    out.emplace_back(l.text);
    if (truncated) truncated->push_back(l.truncated);
  }
  return out;
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("gpucost_ls_" + std::to_string(::getpid()) + "_" + name)).string();
}

void write_file(const std::string& path, std::string_view data) {
  std::ofstream f(path, std::ios::binary);
  f.write(data.data(), static_cast<std::streamsize>(data.size()));
}

void write_gzip(const std::string& path, std::string_view data) {
  gzFile g = gzopen(path.c_str(), "wb");
  ASSERT_NE(g, nullptr);
  gzwrite(g, data.data(), static_cast<unsigned>(data.size()));
  gzclose(g);
}

TEST(LineSource, SplitsLinesStripsCrAndKeepsLastLineWithoutNewline) {
  auto src = make_buffer_source("a\r\nb\n\nlast");
  Line l;
  ASSERT_TRUE(src->next(l));
  EXPECT_EQ(l.text, "a");
  EXPECT_EQ(l.number, 1u);
  EXPECT_EQ(l.offset, 0u);
  ASSERT_TRUE(src->next(l));
  EXPECT_EQ(l.text, "b");
  EXPECT_EQ(l.offset, 3u);
  ASSERT_TRUE(src->next(l));
  EXPECT_EQ(l.text, "");
  ASSERT_TRUE(src->next(l));
  EXPECT_EQ(l.text, "last");
  EXPECT_EQ(l.number, 4u);
  EXPECT_FALSE(src->next(l));
  EXPECT_TRUE(src->error().empty());
}

TEST(LineSource, LoneCarriageReturnsEndLines) {
  // Issue 21: a file with CR-only line ends was one record. CRLF stays one line end.
  auto src = make_buffer_source("a\rb\r\nc\nd\r\re\r");
  EXPECT_EQ(all_lines(*src), (std::vector<std::string>{"a", "b", "c", "d", "", "e"}));
  ASSERT_TRUE(src->rewind());
  EXPECT_EQ(all_lines(*src).size(), 6u);
}

TEST(LineSource, CrLfSplitAcrossTwoReadsIsOneLineEnd) {
  // The first read fills the buffer (1 MiB and one line of max_line 256, plus one byte) up to
  // and including the '\r'; its '\n' comes with the next read.
  const std::size_t first_fill = (1u << 20) + 256 + 1;
  std::string data(first_fill - 1, 'x');
  for (std::size_t i = 100; i < data.size(); i += 100) data[i] = '\n';
  data += "\r\nnext\n";
  auto src = make_buffer_source(data, 256);
  const auto lines = all_lines(*src);
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(lines.back(), "next");
  EXPECT_NE(lines[lines.size() - 2], "") << "no blank line between the \\r and its \\n";
}

TEST(LineSource, ALongLineGrowsTheBufferOnlyAsFarAsItReaches) {
  // --max-line-length 1 GiB allocates nothing up front; a 3 MiB line under a 4 MiB limit is
  // read whole, a 5 MiB one is cut at 4 MiB.
  const std::string data = std::string(3u << 20, 'a') + "\n" + std::string(5u << 20, 'b') + "\nend\n";
  auto src = make_buffer_source(data, 4u << 20);
  std::vector<bool> cut;
  const auto lines = all_lines(*src, &cut);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].size(), 3u << 20);
  EXPECT_FALSE(cut[0]);
  EXPECT_EQ(lines[1].size(), 4u << 20);
  EXPECT_TRUE(cut[1]);
  EXPECT_EQ(lines[2], "end");
}

TEST(LineSource, KeepsNulBytesInsideLines) {
  const std::string data("x\0y\nz\n", 6);
  auto src = make_buffer_source(data);
  auto lines = all_lines(*src);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], std::string("x\0y", 3));
}

TEST(LineSource, CutsOverlongLinesAndGoesOn) {
  std::string data = "short\n" + std::string(5000, 'x') + "\nafter\n" + std::string(3000, 'y');
  auto src = make_buffer_source(data, 1024);
  std::vector<bool> truncated;
  auto lines = all_lines(*src, &truncated);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[1].size(), 1024u);
  EXPECT_TRUE(truncated[1]);
  EXPECT_EQ(lines[2], "after");
  EXPECT_FALSE(truncated[2]);
  EXPECT_EQ(lines[3].size(), 1024u);  // no newline at the end, still cut
  EXPECT_TRUE(truncated[3]);
}

TEST(LineSource, TwentyMegabyteLineWithoutNewlineIsBounded) {
  std::string data(20u << 20, 'z');
  auto src = make_buffer_source(data, kDefaultMaxLineLength);
  std::vector<bool> truncated;
  auto lines = all_lines(*src, &truncated);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].size(), kDefaultMaxLineLength);
  EXPECT_TRUE(truncated[0]);
}

TEST(LineSource, ReadRawTakesBytesAfterTheLastLine) {
  static const char kData[] = "FIELD\n\x03\x00\x00\x00\x00\x00\x00\x00" "a\nb\nNEXT=1\n";
  auto src = make_buffer_source(std::string_view(kData, sizeof kData - 1));
  Line l;
  ASSERT_TRUE(src->next(l));
  EXPECT_EQ(l.text, "FIELD");
  std::string raw;
  EXPECT_EQ(src->read_raw(8, raw), 8u);
  EXPECT_EQ(raw[0], '\x03');
  raw.clear();
  EXPECT_EQ(src->read_raw(3, raw), 3u);
  EXPECT_EQ(raw, "a\nb");
  raw.clear();
  src->read_raw(1, raw);  // the '\n' after the field
  ASSERT_TRUE(src->next(l));
  EXPECT_EQ(l.text, "NEXT=1");
}

TEST(LineSource, RewindStartsOver) {
  auto src = make_buffer_source("one\ntwo\n");
  Line l;
  src->next(l);
  src->next(l);
  ASSERT_TRUE(src->rewind());
  ASSERT_TRUE(src->next(l));
  EXPECT_EQ(l.text, "one");
  EXPECT_EQ(l.number, 1u);
}

TEST(LineSource, ReadsFilesAcrossBlockBoundaries) {
  std::string data;
  for (int i = 0; i < 200000; ++i) data += "line number " + std::to_string(i) + "\n";  // ~3.7 MB
  const std::string path = temp_path("big.txt");
  write_file(path, data);
  std::string err;
  auto src = open_line_source(path, err);
  ASSERT_TRUE(src) << err;
  auto lines = all_lines(*src);
  ASSERT_EQ(lines.size(), 200000u);
  EXPECT_EQ(lines[123456], "line number 123456");
  EXPECT_EQ(src->bytes_read(), data.size());
  std::filesystem::remove(path);
}

TEST(LineSource, GunzipsByContentNotByName) {
  const std::string path = temp_path("rotated.1");  // no .gz suffix on purpose
  std::string data;
  for (int i = 0; i < 50000; ++i) data += "Nov 29 10:00:00 host kernel: message " + std::to_string(i) + "\n";
  write_gzip(path, data);
  EXPECT_TRUE(is_gzip_file(path));
  std::string err;
  auto src = open_line_source(path, err);
  ASSERT_TRUE(src);
  auto lines = all_lines(*src);
  ASSERT_EQ(lines.size(), 50000u);
  EXPECT_EQ(lines.back(), "Nov 29 10:00:00 host kernel: message 49999");
  EXPECT_TRUE(src->error().empty());
  ASSERT_TRUE(src->rewind());
  EXPECT_EQ(all_lines(*src).size(), 50000u);
  std::filesystem::remove(path);
}

TEST(LineSource, TruncatedGzipKeepsLinesBeforeTheDamageAndSaysSo) {
  const std::string path = temp_path("cut.gz");
  std::string data;
  for (int i = 0; i < 100000; ++i) data += "payload line " + std::to_string(i * 7919) + "\n";
  write_gzip(path, data);
  const auto size = std::filesystem::file_size(path);
  std::filesystem::resize_file(path, size / 2);
  std::string err;
  auto src = open_line_source(path, err);
  ASSERT_TRUE(src);
  auto lines = all_lines(*src);
  EXPECT_GT(lines.size(), 1000u);
  EXPECT_LT(lines.size(), 100000u);
  EXPECT_EQ(lines[10], "payload line 79190");
  EXPECT_NE(src->error().find("truncated"), std::string::npos) << src->error();
  std::filesystem::remove(path);
}

TEST(LineSource, ConcatenatedGzipMembersAreOneStream) {
  const std::string path = temp_path("multi.gz");
  write_gzip(path, "first\n");
  const std::string second = temp_path("second.gz");
  write_gzip(second, "second\n");
  {
    std::ifstream in(second, std::ios::binary);
    std::ofstream out(path, std::ios::binary | std::ios::app);
    out << in.rdbuf();
  }
  std::string err;
  auto src = open_line_source(path, err);
  auto lines = all_lines(*src);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1], "second");
  std::filesystem::remove(path);
  std::filesystem::remove(second);
}

TEST(LineSource, RefusesWhatIsNotARegularFile) {
  std::string err;
  EXPECT_FALSE(open_line_source("/nonexistent/file", err));
  EXPECT_FALSE(err.empty());
  EXPECT_FALSE(open_line_source(std::filesystem::temp_directory_path().string(), err));
}

// ---- files of several blocks (read with pread in 1 MiB blocks) -------------------------------

struct Seen {
  std::string text;
  std::uint64_t number, offset;
  bool truncated;
  bool operator==(const Seen&) const = default;
};

std::vector<Seen> seen(LineSource& src) {
  std::vector<Seen> out;
  Line l;
  while (src.next(l)) out.push_back({std::string(l.text), l.number, l.offset, l.truncated});
  return out;
}

// A few MiB of lines of every kind the splitter treats apart: CRLF, NUL padding at line starts,
// NULs inside lines, blank lines, lines over the limit, and no newline at the very end.
std::string messy_bytes(std::size_t size, std::uint32_t seed) {
  std::string s;
  std::uint32_t x = seed;
  const auto rnd = [&x] {
    x = x * 1664525u + 1013904223u;
    return x >> 16;  // the high bits: the low ones of this generator repeat quickly
  };
  while (s.size() < size) {
    switch (rnd() % 8) {
      case 0: s += "Nov 29 10:00:00 host kernel: [ 1.000000] line with CRLF\r\n"; break;
      case 1: s.append(rnd() % 300, '\0'); s += "after padding\n"; break;
      case 2: s += std::string("nul \0 inside\n", 13); break;
      case 3: s += "\n"; break;
      case 5: s += "old mac line\rnext one\r"; break;
      case 4: s.append(3000 + rnd() % 5000, 'x'); s += "\n"; break;
      default: s.append(20 + rnd() % 200, 'a' + static_cast<char>(rnd() % 26)); s += "\n"; break;
    }
  }
  s.resize(size);
  return s;
}

TEST(LineSourceFile, SplitsExactlyAsTheBlockReader) {
  for (std::uint32_t seed : {1u, 2u, 3u}) {
    const std::string data = messy_bytes((3u << 20) + seed * 777, seed);
    const std::string path = temp_path("blocks_" + std::to_string(seed));
    write_file(path, data);
    std::string err;
    auto file = open_line_source(path, err, 2048);  // a small limit: many lines are cut
    ASSERT_TRUE(file) << err;
    auto buffer = make_buffer_source(data, 2048);
    const auto a = seen(*file), b = seen(*buffer);
    ASSERT_EQ(a.size(), b.size());
    EXPECT_TRUE(a == b);
    EXPECT_EQ(file->bytes_read(), buffer->bytes_read());
    EXPECT_EQ(file->nul_bytes_skipped(), buffer->nul_bytes_skipped());
    EXPECT_GT(file->nul_bytes_skipped(), 0u);
    ASSERT_TRUE(file->rewind());
    EXPECT_TRUE(seen(*file) == b);  // rewind starts over, as after detection
    std::remove(path.c_str());
  }
}

std::vector<std::string> numbered_lines(std::size_t bytes) {
  std::vector<std::string> lines;
  std::size_t total = 0;
  for (int i = 0; total < bytes; ++i) {
    lines.push_back("Nov 29 10:00:00 host app[1]: line " + std::to_string(i) + std::string(40 + i % 50, '.'));
    total += lines.back().size() + 1;
  }
  return lines;
}

// The file shrinks under the reader (logrotate's copytruncate): the reader ends at the new end,
// and what it read before stays.
TEST(LineSourceFile, AFileThatShrinksWhileReadEndsAtItsNewEnd) {
  const auto lines = numbered_lines(8u << 20);
  std::string data;
  for (const auto& l : lines) data += l + "\n";
  for (const double cut_at : {0.25, 0.75}) {  // before and after where the reader is
    const std::string path = temp_path("shrink");
    write_file(path, data);
    std::string err;
    auto src = open_line_source(path, err);
    ASSERT_TRUE(src) << err;
    Line l;
    std::size_t n = 0;
    while (n < lines.size() / 2 && src->next(l)) ASSERT_EQ(l.text, lines[n++]);
    const std::uint64_t read_before_cut = src->bytes_read();
    // Cut in the middle of a line (and of a page).
    const auto cut = static_cast<off_t>(static_cast<double>(data.size()) * cut_at) | 1;
    ASSERT_EQ(::truncate(path.c_str(), cut), 0);
    std::size_t after = 0, partial = 0;
    while (src->next(l)) {
      if (n < lines.size() && l.text == lines[n]) {
        ++after;
        ++n;
      } else {
        ++partial;
        ASSERT_LT(n, lines.size());
        EXPECT_EQ(lines[n].substr(0, l.text.size()), std::string(l.text)) << "a cut line is a prefix";
      }
    }
    EXPECT_LE(partial, 1u);
    EXPECT_LE(src->bytes_read(), static_cast<std::uint64_t>(cut) > data.size() / 2 ? static_cast<std::uint64_t>(cut) : data.size());
    // Cut behind the reader: what it holds of the block it read before the cut (1 MiB at most)
    // stays good, and nothing is read after it.
    if (cut_at < 0.5) {
      EXPECT_LE(src->bytes_read(), read_before_cut + (1u << 20)) << "nothing past the new end is read";
    }
    else EXPECT_GT(after, lines.size() / 5) << "the rest up to the new end is read";
    std::remove(path.c_str());
  }
}

std::uint64_t resident_kib() {
  std::ifstream in("/proc/self/status");
  std::string key;
  std::uint64_t kib = 0;
  while (in >> key)
    if (key == "VmRSS:") {
      in >> kib;
      break;
    }
  return kib;
}

TEST(LineSourceFile, ResidentMemoryStaysSmallWhateverTheFileSize) {
  const std::string path = temp_path("big");
  write_file(path, messy_bytes(96u << 20, 9));
  std::string err;
  auto src = open_line_source(path, err);
  ASSERT_TRUE(src) << err;
  const std::uint64_t before = resident_kib();
  std::uint64_t peak = before, lines = 0;
  Line l;
  while (src->next(l))
    if (++lines % 4096 == 0) peak = std::max(peak, resident_kib());
  std::remove(path.c_str());
  EXPECT_GT(lines, 10000u);
  // One block and a line at a time: far less than the 96 MiB file.
  EXPECT_LT(peak - before, 32u * 1024) << "before " << before << " KiB, peak " << peak << " KiB";
}

// A keeper holds views of every line returned since it was last told (as a message waiting for
// its continuation lines does) and checks, after each line and when told, that their bytes are
// still those returned: a source must tell it before it moves or overwrites them.
class CheckingKeeper final : public LineKeeper {
 public:
  void hold(const Line& l) { held_.push_back({l.text, std::string(l.text)}); }
  void check(const char* when) const {
    for (const auto& [view, bytes] : held_) ASSERT_EQ(view, bytes) << when;
  }
  void keep_lines() override {
    check("when told");
    ++told_;
    held_.clear();
  }
  std::size_t told() const noexcept { return told_; }
  std::size_t held() const noexcept { return held_.size(); }

 private:
  std::vector<std::pair<std::string_view, std::string>> held_;
  std::size_t told_ = 0;
};

void read_keeping(LineSource& src, CheckingKeeper& keeper, std::size_t& lines) {
  Line l;
  while (src.next(l)) {
    keeper.check("after a line");
    keeper.hold(l);
    ++lines;
  }
  keeper.check("at the end");
}

TEST(LineSource, AKeeperIsToldBeforeTheLinesItHoldsMove) {
  for (std::uint32_t seed : {4u, 5u}) {
    // Messy lines (CRLF, lone CR, NUL padding, 3-8 kB lines, cut lines) and, in between, lines
    // longer than the buffer (it grows), in a buffer, a file and a gzip stream.
    std::string data = messy_bytes(1u << 20, seed);
    data += std::string(700000, 'L') + "\n" + messy_bytes(300000, seed + 1) + std::string(300000, 'M');
    const std::string path = temp_path("keeper_" + std::to_string(seed));
    const std::string gz = path + ".gz";
    write_file(path, data);
    write_gzip(gz, data);
    std::string err;
    std::vector<std::unique_ptr<LineSource>> sources;
    sources.push_back(make_buffer_source(data, 2u << 20));
    sources.push_back(open_line_source(path, err, 2u << 20));
    sources.push_back(open_line_source(gz, err, 2u << 20));
    sources.push_back(open_line_source(path, err, 2048));  // many lines cut
    for (auto& src : sources) {
      ASSERT_TRUE(src) << err;
      CheckingKeeper keeper;
      ASSERT_TRUE(src->set_keeper(&keeper));
      std::size_t lines = 0;
      read_keeping(*src, keeper, lines);
      EXPECT_GT(lines, 1000u);
      EXPECT_GT(keeper.told(), 3u);  // the data is several blocks
      // Rewinding moves everything: the keeper is told first.
      Line l;
      ASSERT_TRUE(src->rewind());
      keeper.check("after rewind");
      EXPECT_EQ(keeper.held(), 0u);
      ASSERT_TRUE(src->next(l));
      keeper.hold(l);
      // Without a keeper, no one is told.
      ASSERT_TRUE(src->set_keeper(nullptr));
      const std::size_t told = keeper.told();
      while (src->next(l)) {
      }
      EXPECT_EQ(keeper.told(), told);
    }
    std::filesystem::remove(path);
    std::filesystem::remove(gz);
  }
}

}  // namespace
}  // namespace gpucost
