#pragma once
/// \file parallel.hpp
/// The project's ways to use more than one thread, in one place: a pool of workers that share a
/// list (run_on_threads, for_each_task), and one piece of work beside the calling thread
/// (Beside). Every one degrades to the calling thread alone when the system
/// refuses a thread (a container's pids limit, RLIMIT_NPROC, no memory for a stack), so a run
/// never fails for want of threads; results never depend on how many ran.

#ifndef GPUCOST_LAYER_BASE
#error "gpucost_base header: include it only in gpucost_base or a layer above it (docs/architecture.md, Layers)"
#endif

#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

namespace gpucost {

/// Runs `worker()` on up to `threads` threads, the calling one included, and returns once every
/// one has returned: how many ran it (at least 1). A thread the system refuses is one fewer; the
/// ones started share the work, and `refused`, when given, is set to the system's reason.
/// `worker` must not throw: an exception cannot leave a thread.
template <class Worker>
unsigned run_on_threads(unsigned threads, Worker& worker, std::string* refused = nullptr) {
  static_assert(noexcept(worker()), "a worker must catch what it throws: it runs on a thread of its own");
  std::vector<std::jthread> pool;
  for (unsigned t = 1; t < threads; ++t) {
    try {
      pool.emplace_back([&worker] { worker(); });
    } catch (const std::system_error& e) {
      if (refused) *refused = e.what();
      break;
    }
  }
  worker();
  for (auto& th : pool) th.join();
  return static_cast<unsigned>(pool.size()) + 1;
}

/// Runs task(0) .. task(n - 1) on up to `threads` threads (the calling one included), each task
/// taken in order by the next free thread. After a task throws no further task is started, and
/// once every thread ended the exception of the lowest-numbered task that threw is rethrown:
/// every task before it had been taken, so it is the one a single thread would have thrown.
template <class Task>
void for_each_task(std::size_t n, unsigned threads, const Task& task) {
  if (threads <= 1 || n <= 1) {
    for (std::size_t t = 0; t < n; ++t) task(t);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::size_t error_task = n;
  std::mutex error_mutex;
  auto worker = [&]() noexcept {
    for (std::size_t t; !failed.load(std::memory_order_relaxed) && (t = next.fetch_add(1)) < n;) {
      try {
        task(t);
      } catch (...) {
        const std::lock_guard lock(error_mutex);
        if (t < error_task) {
          error = std::current_exception();
          error_task = t;
        }
        failed.store(true, std::memory_order_relaxed);
      }
    }
  };
  run_on_threads(threads < n ? threads : static_cast<unsigned>(n), worker);
  if (error) std::rethrow_exception(error);
}

/// One piece of work run on a thread beside the calling one, when it is `worth` it (`threads` is
/// not 1, the machine has more than one core) and a thread can be had; else finish() does it on
/// the calling thread. Declare it after what the work reads and writes: should the caller throw,
/// it is joined (destroyed) before those are gone.
template <class Work>
class Beside {
 public:
  Beside(unsigned threads, bool worth, Work& work) : work_(work) {
    if (threads == 1 || !worth || std::thread::hardware_concurrency() <= 1) return;
    try {
      thread_ = std::jthread([this]() noexcept {
        try {
          work_();
        } catch (...) {
          error_ = std::current_exception();
        }
      });
    } catch (const std::system_error&) {  // no thread to be had: finish() does it here
    }
  }
  Beside(const Beside&) = delete;
  Beside& operator=(const Beside&) = delete;
  /// Waits for the work, or does it here when no thread took it; rethrows what it threw.
  void finish() {
    if (!thread_.joinable()) {
      work_();
      return;
    }
    thread_.join();
    if (error_) std::rethrow_exception(error_);
  }

 private:
  Work& work_;
  std::exception_ptr error_;
  std::jthread thread_;  // last: destroyed (joined) first
};

}  // namespace gpucost
