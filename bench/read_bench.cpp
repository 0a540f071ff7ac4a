// Reading a large file's bytes and finding its line ends, the floor under every parser: through a
// private read-only mapping (as gpucost read files of 1 MiB and more until issue 16's last
// round), the same with MAP_POPULATE, and with pread into a buffer on one and on two threads
// (each thread its half of the file, as chunked parsing reads it). The median of REPETITIONS
// runs of each; scripts/bench.sh runs it on the event-dense day's kern.log and
// docs/performance.md ("Read, not mapped") has the figures. Not part of ctest.
// Usage: gpucost_read_bench [-r REPETITIONS] FILE
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace {

std::size_t count_lines(const char* p, const char* end) {
  std::size_t n = 0;
  while (p < end) {
    const auto* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
    if (!nl) break;
    ++n;
    p = nl + 1;
  }
  return n;
}

std::size_t mapped(int fd, std::size_t size, bool populate) {
  void* m = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | (populate ? MAP_POPULATE : 0), fd, 0);
  if (m == MAP_FAILED) return 0;
  const auto* p = static_cast<const char*>(m);
  const std::size_t n = count_lines(p, p + size);
  ::munmap(m, size);
  return n;
}

// Lines of [begin, end) read with pread in blocks (a line cut by a block is counted by its end).
std::size_t read_range(int fd, std::size_t begin, std::size_t end, std::size_t block) {
  std::vector<char> buf(block);
  std::size_t n = 0;
  for (std::size_t at = begin; at < end;) {
    const ssize_t got = ::pread(fd, buf.data(), std::min(block, end - at), static_cast<off_t>(at));
    if (got <= 0) break;
    n += count_lines(buf.data(), buf.data() + got);
    at += static_cast<std::size_t>(got);
  }
  return n;
}

std::size_t read_threads(int fd, std::size_t size, unsigned threads, std::size_t block) {
  std::vector<std::size_t> lines(threads, 0);
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      const std::size_t b = size / threads * t, e = t + 1 == threads ? size : size / threads * (t + 1);
      lines[t] = read_range(fd, b, e, block);
    });
  for (auto& t : pool) t.join();
  std::size_t n = 0;
  for (const std::size_t l : lines) n += l;
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 3, i = 1;
  if (argc > 2 && std::string(argv[1]) == "-r") {
    reps = std::max(1, std::atoi(argv[2]));
    i = 3;
  }
  if (i >= argc) {
    std::fprintf(stderr, "usage: gpucost_read_bench [-r REPETITIONS] FILE\n");
    return 2;
  }
  const int fd = ::open(argv[i], O_RDONLY | O_CLOEXEC);
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0 || st.st_size <= 0) {
    std::fprintf(stderr, "gpucost_read_bench: cannot read %s\n", argv[i]);
    return 1;
  }
  const auto size = static_cast<std::size_t>(st.st_size);
  const std::vector<std::pair<const char*, std::function<std::size_t()>>> ways = {
      {"mmap, memchr", [&] { return mapped(fd, size, false); }},
      {"mmap MAP_POPULATE, memchr", [&] { return mapped(fd, size, true); }},
      {"pread 256 KiB blocks, memchr", [&] { return read_threads(fd, size, 1, 256 << 10); }},
      {"pread 1 MiB blocks, memchr", [&] { return read_threads(fd, size, 1, 1 << 20); }},
      {"pread 256 KiB, two threads", [&] { return read_threads(fd, size, 2, 256 << 10); }},
  };
  std::printf("%-32s %10s %9s %8s\n", "way", "lines", "seconds", "GB/s");
  for (const auto& [name, run] : ways) {
    std::vector<double> seconds;
    std::size_t lines = 0;
    for (int r = 0; r < reps; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      lines = run();
      seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(seconds.begin(), seconds.end());
    const double med = seconds[seconds.size() / 2];
    std::printf("%-32s %10zu %9.3f %8.2f\n", name, lines, med, static_cast<double>(size) / med / 1e9);
  }
  ::close(fd);
  return 0;
}
