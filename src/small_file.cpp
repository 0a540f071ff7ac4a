#include "gpucost/small_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace gpucost {

namespace {
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};
}  // namespace

std::string read_small_file(const std::string& path, std::size_t max_bytes, const std::string& what) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
  const Fd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  if (f.fd < 0) throw std::invalid_argument(fmt::format("{} {}: cannot open: {}", what, path, std::strerror(errno)));
  struct stat st {};
  if (::fstat(f.fd, &st) != 0 || !S_ISREG(st.st_mode))
    throw std::invalid_argument(
        fmt::format("{} {}: not a regular file (a FIFO, device or directory is not read)", what, path));
  const auto too_big = [&] {
    return std::invalid_argument(
        fmt::format("{} {}: larger than the {} KiB such a file may have; not read", what, path, max_bytes / 1024));
  };
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes) throw too_big();
  // Read to the end, but never past the cap: the file may grow while it is read.
  std::string out(static_cast<std::size_t>(st.st_size) + 1, '\0');
  std::size_t got = 0;
  for (;;) {
    if (got == out.size()) {
      if (got > max_bytes) throw too_big();
      out.resize(std::min(out.size() * 2, max_bytes + 1));
    }
    const ssize_t n = ::read(f.fd, out.data() + got, out.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::invalid_argument(fmt::format("{} {}: read error: {}", what, path, std::strerror(errno)));
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  if (got > max_bytes) throw too_big();
  out.resize(got);
  return out;
}

}  // namespace gpucost
