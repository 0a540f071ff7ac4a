#include "ingest/mapped_file.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <mutex>

namespace gpucost {
namespace {

/// One live mapping, as the SIGBUS handler sees it. Plain atomics: the handler may run on any
/// thread at any moment, so it takes no lock and allocates nothing.
struct Guard {
  std::atomic<bool> used{false};
  std::atomic<std::uintptr_t> begin{0}, end{0};
  std::atomic<unsigned> faults{0};
  std::atomic<std::uintptr_t> zeros_from{0};  // the lowest page mapped with zeros
};

// As many mappings as files parsed at once (one per thread); a file past that is read instead.
constexpr int kGuards = 256;
std::array<Guard, kGuards> g_guards;
struct sigaction g_previous {};

std::uintptr_t page_size() noexcept {
  static const auto size = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  return size;
}

void on_sigbus(int sig, siginfo_t* info, void* context) {
  const auto at = reinterpret_cast<std::uintptr_t>(info->si_addr);
  for (Guard& g : g_guards) {
    const std::uintptr_t begin = g.begin.load(std::memory_order_acquire);
    const std::uintptr_t end = g.end.load(std::memory_order_acquire);
    if (begin == 0 || at < begin || at >= end) continue;
    // Zeros from the faulting page to the end of the mapping; the access is then repeated.
    const std::uintptr_t page = at & ~(page_size() - 1);
    void* zeros = ::mmap(reinterpret_cast<void*>(page), end - page, PROT_READ,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (zeros == MAP_FAILED) break;
    std::uintptr_t lowest = g.zeros_from.load(std::memory_order_relaxed);
    while (page < lowest && !g.zeros_from.compare_exchange_weak(lowest, page, std::memory_order_relaxed)) {
    }
    g.faults.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  // Not one of ours (or no way to mend it): whatever handled SIGBUS before us, else the default.
  if (g_previous.sa_flags & SA_SIGINFO) {
    if (g_previous.sa_sigaction) return g_previous.sa_sigaction(sig, info, context);
  } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN && g_previous.sa_handler) {
    return g_previous.sa_handler(sig);
  }
  ::signal(SIGBUS, SIG_DFL);  // returning repeats the access, which now ends the process
}

bool install_handler() {
  static const bool installed = [] {
    struct sigaction sa {};
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    return ::sigaction(SIGBUS, &sa, &g_previous) == 0;
  }();
  return installed;
}

int claim_guard() noexcept {
  for (int i = 0; i < kGuards; ++i) {
    bool expected = false;
    if (g_guards[i].used.compare_exchange_strong(expected, true)) return i;
  }
  return -1;
}

// Pages dropped at a time, behind the reader.
constexpr std::size_t kReleaseStep = 4u << 20;

}  // namespace

std::unique_ptr<MappedFile> MappedFile::map(int fd, std::uint64_t size) {
  if (size == 0 || size > SIZE_MAX / 2 || !install_handler()) return nullptr;
  const int slot = claim_guard();
  if (slot < 0) return nullptr;
  Guard& g = g_guards[static_cast<std::size_t>(slot)];
  void* p = ::mmap(nullptr, static_cast<std::size_t>(size), PROT_READ, MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED) {
    g.used.store(false);
    return nullptr;
  }
  ::madvise(p, static_cast<std::size_t>(size), MADV_SEQUENTIAL);
  const auto begin = reinterpret_cast<std::uintptr_t>(p);
  // The whole last page: past the end of the file but inside it the kernel reads zeros itself.
  const std::uintptr_t end = (begin + static_cast<std::uintptr_t>(size) + page_size() - 1) & ~(page_size() - 1);
  g.faults.store(0, std::memory_order_relaxed);
  g.zeros_from.store(end, std::memory_order_relaxed);
  g.end.store(end, std::memory_order_release);
  g.begin.store(begin, std::memory_order_release);
  return std::unique_ptr<MappedFile>(new MappedFile(static_cast<const char*>(p), static_cast<std::size_t>(size), slot));
}

MappedFile::~MappedFile() {
  Guard& g = g_guards[static_cast<std::size_t>(slot_)];
  g.begin.store(0, std::memory_order_release);
  g.end.store(0, std::memory_order_release);
  ::munmap(const_cast<char*>(data_), size_);
  g.used.store(false, std::memory_order_release);
}

const std::atomic<unsigned>& MappedFile::faults() const noexcept {
  return g_guards[static_cast<std::size_t>(slot_)].faults;
}

std::size_t MappedFile::zeros_from() const noexcept {
  const std::uintptr_t at = g_guards[static_cast<std::size_t>(slot_)].zeros_from.load(std::memory_order_relaxed);
  const auto begin = reinterpret_cast<std::uintptr_t>(data_);
  return at < begin + size_ ? static_cast<std::size_t>(at - begin) : size_;
}

void MappedFile::release_before(std::uint64_t offset) noexcept {
  if (offset < released_ + kReleaseStep) return;
  const std::size_t to = static_cast<std::size_t>(offset) & ~(page_size() - 1);
  ::madvise(const_cast<char*>(data_) + released_, to - released_, MADV_DONTNEED);
  released_ = to;
}

void MappedFile::release(std::uint64_t from, std::uint64_t to) const noexcept {
  const std::uint64_t page = page_size();
  from = (from + page - 1) & ~(page - 1);
  to = std::min<std::uint64_t>(to, size_) & ~(page - 1);
  if (to > from) ::madvise(const_cast<char*>(data_) + from, static_cast<std::size_t>(to - from), MADV_DONTNEED);
}

}  // namespace gpucost
