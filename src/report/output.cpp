#include "gpucost/report/output.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace gpucost {

namespace {
constexpr std::size_t kFlushAt = 1 << 20;
constexpr std::size_t kWriteThroughAt = 64 << 10;

// The temporary file being written, removed if SIGINT or SIGTERM ends the run before it is
// renamed into place (a 100 MB FILE.tmp.PID.XXXXXX must not be left behind). One at a time: a command
// writes one output. The handler uses only unlink() and raise(), which are async-signal-safe.
char g_tmp_path[4096];
volatile std::sig_atomic_t g_tmp_armed = 0;
struct sigaction g_old_int {}, g_old_term {};

extern "C" void remove_tmp_and_die(int sig) {
  if (g_tmp_armed) ::unlink(g_tmp_path);
  g_tmp_armed = 0;
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void arm_tmp_cleanup(const std::string& tmp) {
  if (g_tmp_armed || tmp.size() >= sizeof g_tmp_path) return;
  std::memcpy(g_tmp_path, tmp.c_str(), tmp.size() + 1);
  struct sigaction sa {};
  sa.sa_handler = remove_tmp_and_die;
  sigemptyset(&sa.sa_mask);
  g_tmp_armed = 1;
  // A signal that was ignored (SIGINT of a background job) stays ignored.
  ::sigaction(SIGINT, nullptr, &g_old_int);
  ::sigaction(SIGTERM, nullptr, &g_old_term);
  if (g_old_int.sa_handler != SIG_IGN) ::sigaction(SIGINT, &sa, nullptr);
  if (g_old_term.sa_handler != SIG_IGN) ::sigaction(SIGTERM, &sa, nullptr);
}

void disarm_tmp_cleanup() {
  if (!g_tmp_armed) return;
  ::sigaction(SIGINT, &g_old_int, nullptr);
  ::sigaction(SIGTERM, &g_old_term, nullptr);
  g_tmp_armed = 0;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Paths that name an open file descriptor (`/dev/stdout` -> /proc/self/fd/1): the file behind
// them is written where it is, never replaced by a rename.
bool names_a_descriptor(std::string_view p) {
  return p == "/dev/stdout" || p == "/dev/stderr" || p == "/dev/stdin" || starts_with(p, "/dev/fd/") ||
         starts_with(p, "/proc/");
}

// The file that `path` finally names, following symbolic links (also dangling ones, and up to
// 40 of them, like the kernel); `through_fd` is set when a link leads to a descriptor path.
// Empty (errno set) on a loop or an unreadable link.
std::string link_target(const std::string& path, bool& through_fd) {
  std::string target = path;
  through_fd = false;
  for (int hops = 0;; ++hops) {
    if (names_a_descriptor(target)) {
      through_fd = true;
      return target;
    }
    struct stat st {};
    if (::lstat(target.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return target;
    if (hops == 40) {
      errno = ELOOP;
      return {};
    }
    char buf[4096];
    const ssize_t n = ::readlink(target.c_str(), buf, sizeof buf);
    if (n <= 0 || static_cast<std::size_t>(n) >= sizeof buf) return {};
    std::string next(buf, static_cast<std::size_t>(n));
    if (next[0] != '/') {
      const auto slash = target.rfind('/');
      next = (slash == std::string::npos ? std::string() : target.substr(0, slash + 1)) + next;
    }
    target = std::move(next);
  }
}
// Creates the temporary file beside target as mkstemp does: a new name (`TARGET.tmp.PID.XXXXXX`,
// the suffix random) opened with O_CREAT|O_EXCL|O_NOFOLLOW, so that whatever is already there
// under that name (a link planted by another user of the directory) is never opened, followed
// or truncated; another name is tried instead. The mode is 0644 less the umask, as before
// (mkstemp's 0600 would change who may read the report). -1 with errno set when none can be made.
int create_tmp_beside(const std::string& target, std::string& tmp) {
  static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  const std::string stem = target + ".tmp." + std::to_string(::getpid()) + ".";
  for (int attempt = 0; attempt < 100; ++attempt) {
    unsigned char bytes[6];
    if (::getrandom(bytes, sizeof bytes, GRND_NONBLOCK) != static_cast<ssize_t>(sizeof bytes)) {
      // No entropy yet (early boot): the clock and the attempt still give a new name each time.
      const auto seed = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) +
                        static_cast<std::uint64_t>(attempt) * 0x9E3779B97F4A7C15ULL;
      for (std::size_t k = 0; k < sizeof bytes; ++k) bytes[k] = static_cast<unsigned char>(seed >> (8 * k));
    }
    tmp = stem;
    for (unsigned char b : bytes) tmp += kChars[b % (sizeof kChars - 1)];
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}
}  // namespace

Output::Output(std::string path) : path_(std::move(path)) {
  if (path_.empty() || path_ == "-") {
    fd_ = 1;
    return;
  }
  bool through_fd = false;
  const std::string target = link_target(path_, through_fd);
  if (target.empty()) {
    error_ = "cannot write " + path_ + ": " + std::strerror(errno);
    failed_ = true;
    return;
  }
  struct stat st {};
  const bool exists = ::stat(path_.c_str(), &st) == 0;
  if ((exists && !S_ISREG(st.st_mode)) || through_fd) {
    // A device, a FIFO, or a descriptor's file (`-o /dev/stdout`, also when stdout is a regular
    // file): written where it is. A rename would replace the node or the link (as root, the
    // system's /dev/stdout). A regular file behind a descriptor is appended to, as `>>` would.
    const int flags = O_WRONLY | O_CLOEXEC | (exists && S_ISREG(st.st_mode) ? O_APPEND : 0);
    fd_ = ::open(path_.c_str(), flags);
    if (fd_ < 0) {
      error_ = "cannot write " + path_ + ": " + std::strerror(errno);
      failed_ = true;
    }
    return;
  }
  // A regular file (or none yet), perhaps behind symbolic links: the temporary file goes beside
  // the link's target and is renamed onto it, so the links stay links.
  target_ = target;
  // SIGINT and SIGTERM wait while the file is created and the handler armed: one arriving in
  // between would otherwise end the run with the new file left behind.
  sigset_t stop_signals, before;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  ::pthread_sigmask(SIG_BLOCK, &stop_signals, &before);
  std::string tmp;
  fd_ = create_tmp_beside(target, tmp);
  const int create_errno = errno;
  if (fd_ >= 0) {
    tmp_path_ = std::move(tmp);
    arm_tmp_cleanup(tmp_path_);
  }
  ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
  if (fd_ < 0) {
    error_ = "cannot write " + path_ + ": " + std::strerror(create_errno);
    failed_ = true;
  }
}

Output::~Output() {
  if (fd_ > 1) ::close(fd_);
  if (!finished_ && !tmp_path_.empty()) ::unlink(tmp_path_.c_str());
  if (!tmp_path_.empty()) disarm_tmp_cleanup();
}

WriteStatus Output::write(std::string_view data) {
  if (failed_) return WriteStatus::kError;
  if (closed_pipe_) return WriteStatus::kClosedPipe;
  // A whole report in one piece goes out as it is, not copied into the buffer first.
  if (buffer_.empty() && data.size() >= kWriteThroughAt) return write_out(data);
  buffer_.append(data);
  if (buffer_.size() >= kFlushAt) return flush();
  return WriteStatus::kOk;
}

WriteStatus Output::flush() {
  const WriteStatus s = write_out(buffer_);
  buffer_.clear();
  return s;
}

WriteStatus Output::write_out(std::string_view data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd_, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EPIPE && fd_ == 1) {
        closed_pipe_ = true;
        return WriteStatus::kClosedPipe;
      }
      error_ = "cannot write " + (fd_ == 1 ? std::string("standard output") : path_) + ": " + std::strerror(errno);
      failed_ = true;
      return WriteStatus::kError;
    }
    done += static_cast<std::size_t>(n);
  }
  return WriteStatus::kOk;
}

WriteStatus Output::finish() {
  if (failed_) return WriteStatus::kError;
  if (closed_pipe_) return WriteStatus::kClosedPipe;
  const WriteStatus s = flush();
  if (s != WriteStatus::kOk) return s;
  if (fd_ == 1) return WriteStatus::kOk;
  if (tmp_path_.empty()) {  // written in place (device or FIFO)
    finished_ = true;
    return WriteStatus::kOk;
  }
  if (::fsync(fd_) != 0 && errno != EINVAL) {
    error_ = "cannot write " + path_ + ": " + std::strerror(errno);
    failed_ = true;
    return WriteStatus::kError;
  }
  ::close(fd_);
  fd_ = -1;
  if (std::rename(tmp_path_.c_str(), target_.c_str()) != 0) {
    error_ = "cannot rename into " + path_ + ": " + std::strerror(errno);
    failed_ = true;
    return WriteStatus::kError;
  }
  finished_ = true;
  disarm_tmp_cleanup();
  return WriteStatus::kOk;
}

}  // namespace gpucost
