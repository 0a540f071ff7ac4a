// Decompression speed over real files: each file given is decompressed with every engine that
// reads its format (gzip: ISA-L where the build has it, and zlib; zstd; xz), REPETITIONS times,
// and gzip also with libdeflate where it is installed (the whole file in memory, out into one
// buffer: libdeflate has no streaming API, so gpucost could not use it as it is; it is here to
// show what the streaming engines give up),
// and the median throughput of the decompressed bytes is printed, one line per engine and
// format over all files of that format. scripts/bench.sh runs it on its rotated corpus;
// docs/performance.md has the figures. Not part of ctest.
// Usage: gpucost_inflate_bench [-r REPETITIONS] FILE...
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "gpucost/ingest/decompress.hpp"

#if GPUCOST_HAVE_LIBDEFLATE
#include <libdeflate.h>

#include <fstream>
#include <iterator>
#endif

using namespace gpucost;

namespace {

struct Total {
  std::uint64_t in = 0, out = 0;
  std::vector<double> seconds;  // per repetition, over all files
};

// Decompressed bytes of one pass over the file (0 and a message on an error).
std::uint64_t one_pass(const std::string& path, Compression c, GzipEngine engine, std::vector<char>& buf) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  std::uint64_t n = 0;
  {
    auto dec = make_decompressor(c, fd, std::filesystem::file_size(path), engine);
    while (const std::size_t got = dec->read(buf.data(), buf.size())) n += got;
    if (!dec->error().empty()) std::fprintf(stderr, "%s: %s\n", path.c_str(), dec->error().c_str());
  }
  ::close(fd);
  return n;
}

#if GPUCOST_HAVE_LIBDEFLATE
// Every member of a gzip file, read whole, into one buffer that grows until it holds the output.
std::uint64_t libdeflate_pass(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  const std::vector<char> in((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  static std::vector<char> out(64 << 20);
  libdeflate_decompressor* d = libdeflate_alloc_decompressor();
  std::size_t at = 0, total = 0;
  while (at < in.size()) {
    std::size_t used = 0, got = 0;
    const auto rc = libdeflate_gzip_decompress_ex(d, in.data() + at, in.size() - at, out.data(), out.size(), &used, &got);
    if (rc == LIBDEFLATE_INSUFFICIENT_SPACE) {
      out.resize(out.size() * 2);
      continue;
    }
    if (rc != LIBDEFLATE_SUCCESS) break;
    at += used;
    total += got;
  }
  libdeflate_free_decompressor(d);
  return total;
}
#endif

}  // namespace

int main(int argc, char** argv) {
  int reps = 3;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-r" && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
    else files.push_back(a);
  }
  std::vector<char> buf(4 << 20);  // what the line source asks for at a time
  std::map<std::string, Total> totals;
  for (int r = 0; r < reps; ++r) {
    std::map<std::string, double> pass;
    for (const auto& f : files) {
      char head[kCompressionMagicBytes] = {};
      const int fd = ::open(f.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;
      const ssize_t got = ::read(fd, head, sizeof head);
      ::close(fd);
      const Compression c = detect_compression(std::string_view(head, got > 0 ? static_cast<std::size_t>(got) : 0));
      if (c == Compression::kNone) continue;
      std::vector<std::pair<std::string, GzipEngine>> engines{{std::string(compression_name(c)), GzipEngine::kFastest}};
      if (c == Compression::kGzip) {
        engines[0].first = gzip_uses_isal() ? "gzip (ISA-L igzip)" : "gzip (zlib)";
        if (gzip_uses_isal()) engines.emplace_back("gzip (zlib)", GzipEngine::kZlib);
#if GPUCOST_HAVE_LIBDEFLATE
        const auto t0 = std::chrono::steady_clock::now();
        const std::uint64_t out = libdeflate_pass(f);
        pass["gzip (libdeflate, whole)"] += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (r == 0) {
          totals["gzip (libdeflate, whole)"].in += std::filesystem::file_size(f);
          totals["gzip (libdeflate, whole)"].out += out;
        }
#endif
      }
      for (const auto& [name, engine] : engines) {
        const auto t0 = std::chrono::steady_clock::now();
        const std::uint64_t out = one_pass(f, c, engine, buf);
        pass[name] += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (r == 0) {
          totals[name].in += std::filesystem::file_size(f);
          totals[name].out += out;
        }
      }
    }
    for (const auto& [name, s] : pass) totals[name].seconds.push_back(s);
  }
  std::printf("%-26s %12s %12s %10s %10s\n", "decompressor", "MB in", "MB out", "seconds", "MB/s out");
  for (auto& [name, t] : totals) {
    std::sort(t.seconds.begin(), t.seconds.end());
    const double median = t.seconds[t.seconds.size() / 2];
    std::printf("%-26s %12.1f %12.1f %10.3f %10.0f\n", name.c_str(), t.in / 1e6, t.out / 1e6, median, t.out / 1e6 / median);
  }
  return 0;
}
