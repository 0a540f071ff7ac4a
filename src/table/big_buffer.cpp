#include "gpucost/table/big_buffer.hpp"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#define GPUCOST_BIG_BUFFER_MAPPED 1
#endif

namespace gpucost::big_buffer {

namespace {

constexpr std::size_t kHuge = std::size_t{2} << 20;

#if defined(GPUCOST_BIG_BUFFER_MAPPED)

bool mapped(std::size_t bytes) noexcept { return bytes >= kHugeFrom; }

std::size_t map_size(std::size_t bytes) noexcept { return (bytes + kHuge - 1) & ~(kHuge - 1); }

void advise(void* p, std::size_t bytes) noexcept {
#if defined(MADV_HUGEPAGE)
  madvise(p, map_size(bytes), MADV_HUGEPAGE);  // advice: where the kernel says no, 4 KiB pages serve
#else
  (void)p;
  (void)bytes;
#endif
}

// A mapping of map_size(bytes) that starts on a 2 MiB boundary (else its first and last huge
// page could not be huge): map 2 MiB more, then cut off what lies before and after.
void* map(std::size_t bytes) {
  const std::size_t size = map_size(bytes);
  void* raw = mmap(nullptr, size + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const auto start = reinterpret_cast<std::uintptr_t>(raw);
  const auto aligned = (start + kHuge - 1) & ~(kHuge - 1);
  if (aligned > start) munmap(raw, aligned - start);
  if (const std::size_t after = start + size + kHuge - (aligned + size); after > 0)
    munmap(reinterpret_cast<void*>(aligned + size), after);
  void* p = reinterpret_cast<void*>(aligned);
  advise(p, bytes);
  return p;
}

#endif

}  // namespace

void* allocate(std::size_t bytes) {
#if defined(GPUCOST_BIG_BUFFER_MAPPED)
  if (mapped(bytes)) return map(bytes);
#endif
  void* p = std::malloc(bytes == 0 ? 1 : bytes);
  if (!p) throw std::bad_alloc();
  return p;
}

void* resize(void* p, std::size_t old_bytes, std::size_t new_bytes) {
  if (!p) return allocate(new_bytes);
#if defined(GPUCOST_BIG_BUFFER_MAPPED)
  if (mapped(old_bytes) && mapped(new_bytes)) {
    if (map_size(old_bytes) == map_size(new_bytes)) return p;
    // Pages move with their page tables, huge ones whole, when the new place is aligned as the
    // old one: try in place first (the space after is often free), else a fresh aligned mapping.
    void* q = mremap(p, map_size(old_bytes), map_size(new_bytes), 0);
    if (q != MAP_FAILED) {
      advise(q, new_bytes);
      return q;
    }
    void* fresh = map(new_bytes);
    void* moved = mremap(p, map_size(old_bytes), map_size(old_bytes), MREMAP_MAYMOVE | MREMAP_FIXED, fresh);
    if (moved == MAP_FAILED) {
      std::memcpy(fresh, p, old_bytes < new_bytes ? old_bytes : new_bytes);
      munmap(p, map_size(old_bytes));
    }
    return fresh;
  }
  if (mapped(old_bytes) || mapped(new_bytes)) {
    void* q = allocate(new_bytes);
    std::memcpy(q, p, old_bytes < new_bytes ? old_bytes : new_bytes);
    release(p, old_bytes);
    return q;
  }
#else
  (void)old_bytes;
#endif
  void* q = std::realloc(p, new_bytes == 0 ? 1 : new_bytes);
  if (!q) throw std::bad_alloc();
  return q;
}

void trim(void* p, std::size_t bytes, std::size_t used) noexcept {
#if defined(GPUCOST_BIG_BUFFER_MAPPED)
  if (!p || !mapped(bytes)) return;
  constexpr std::size_t kPage = 4096;
  const std::size_t from = (used + kPage - 1) & ~(kPage - 1);
  if (from < map_size(bytes)) madvise(static_cast<char*>(p) + from, map_size(bytes) - from, MADV_DONTNEED);
#else
  (void)p;
  (void)bytes;
  (void)used;
#endif
}

void release(void* p, std::size_t bytes) noexcept {
  if (!p) return;
#if defined(GPUCOST_BIG_BUFFER_MAPPED)
  if (mapped(bytes)) {
    munmap(p, map_size(bytes));
    return;
  }
#else
  (void)bytes;
#endif
  std::free(p);
}

}  // namespace gpucost::big_buffer
