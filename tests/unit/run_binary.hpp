#pragma once
// Runs the built gpucost binary (GPUCOST_BINARY) as a child process and captures its output.

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace gpucost::testing {

/// Whether this build runs under AddressSanitizer, whose shadow memory roughly doubles what the
/// binary holds resident (the peak-RSS bounds allow for it).
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAsanBuild = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kAsanBuild = true;
#else
inline constexpr bool kAsanBuild = false;
#endif
#else
inline constexpr bool kAsanBuild = false;
#endif
/// The peak RSS a run of the binary must stay under: issue 37's 256 MiB, 768 under ASan.
inline constexpr long kMaxRssKib = (kAsanBuild ? 768L : 256L) * 1024;

/// What a run of the binary gave.
struct RunResult {
  int exit_code = -1;          ///< exit status, or 128 + signal
  std::string out, err;
  bool hung = false;           ///< killed by the hang guard
  bool stdout_closed = false;  ///< the reader closed stdout early (close_stdout_after)
  long max_rss_kib = 0;        ///< the child's peak resident memory (getrusage's ru_maxrss)
};

/// How to run it.
struct RunOptions {
  std::vector<std::string> env;  ///< `K=V` entries added to the environment (TZ=UTC is set)
  std::string cwd;               ///< the child's working directory, when given
  /// Runs in the child after fork(), before exec (only async-signal-safe calls: setuid, setrlimit).
  std::function<void()> in_child;
  /// Close the read end of stdout once this many bytes arrived (a reader like `head`).
  std::size_t close_stdout_after = std::string::npos;
  /// Hang guard: the child is killed after this long (not a timing assertion: minutes).
  int timeout_s = 600;
};

/// Options for a run whose peak RSS is checked. ASan holds freed memory back from reuse (its
/// quarantine, 256 MiB by default) to catch a use after free, so that the peak measured ASan:
/// 20 000 one-line files peaked at 778-953 MiB, at 161-183 MiB with a 16 MiB quarantine, which
/// still catches a use of what was freed shortly before. Outside ASan: the default options.
inline RunOptions memory_checked_run() {
  RunOptions o;
  if (kAsanBuild) {
    const char* asan = std::getenv("ASAN_OPTIONS");
    o.env.push_back("ASAN_OPTIONS=" + std::string(asan != nullptr ? asan : "") + ":quarantine_size_mb=16");
  }
  return o;
}

/// Runs GPUCOST_BINARY with args, capturing stdout and stderr.
inline RunResult run_gpucost(const std::vector<std::string>& args, const RunOptions& o) {
  RunResult r;
  int out_pipe[2], err_pipe[2];
  if (::pipe(out_pipe) != 0 || ::pipe(err_pipe) != 0) return r;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(out_pipe[1], 1);
    ::dup2(err_pipe[1], 2);
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    ::setenv("TZ", "UTC", 1);
    if (!o.cwd.empty() && ::chdir(o.cwd.c_str()) != 0) ::_exit(126);
    for (const auto& e : o.env) ::putenv(const_cast<char*>(e.c_str()));
    if (o.in_child) o.in_child();
    std::vector<char*> argv;
    std::string bin = GPUCOST_BINARY;
    argv.push_back(bin.data());
    std::vector<std::string> copy = args;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(bin.c_str(), argv.data());
    ::_exit(127);
  }
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open = 2;
  char buf[65536];
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(o.timeout_s);
  while (open > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      r.hung = true;
      ::kill(pid, SIGKILL);
      break;
    }
    if (::poll(fds, 2, static_cast<int>(std::min<long long>(left.count(), 1000))) < 0) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n <= 0) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open;
        continue;
      }
      (i == 0 ? r.out : r.err).append(buf, static_cast<std::size_t>(n));
      if (i == 0 && r.out.size() >= o.close_stdout_after) {  // like `head`: stop reading, close
        ::close(fds[0].fd);
        fds[0].fd = -1;
        --open;
        r.stdout_closed = true;
      }
    }
  }
  for (auto& f : fds)
    if (f.fd >= 0) ::close(f.fd);
  int status = 0;
  struct rusage usage {};
  ::wait4(pid, &status, 0, &usage);
  r.max_rss_kib = usage.ru_maxrss;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

/// Runs GPUCOST_BINARY with args; env entries `K=V` are added to the environment (TZ=UTC is set);
/// cwd, when given, is the child's working directory.
inline RunResult run_gpucost(const std::vector<std::string>& args, const std::vector<std::string>& env = {},
                             const std::string& cwd = {}) {
  RunOptions o;
  o.env = env;
  o.cwd = cwd;
  return run_gpucost(args, o);
}

}  // namespace gpucost::testing
