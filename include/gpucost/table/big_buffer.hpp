#pragma once
/// \file big_buffer.hpp
/// Column buffers that large tables touch once: malloc below a size, huge-page mappings above.

#ifndef GPUCOST_LAYER_BASE
#error "gpucost_base header: include it only in gpucost_base or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstddef>

namespace gpucost::big_buffer {

/// Bytes from which a buffer is its own anonymous mapping that asks for transparent huge pages
/// (madvise MADV_HUGEPAGE), grown with mremap. Filling a large column then faults once per 2 MiB
/// instead of once per 4 KiB page: on a virtual machine a fault is a trap to the hypervisor, and
/// the dense benchmark corpus (5 M process rows) spent about a sixth of its time in them
/// (docs/performance.md). The price is at most one partly used 2 MiB page per such buffer. At
/// 512 KiB (1 MiB before): a column that grows past it no longer reallocates on the heap up to
/// 1 MiB, a copy into fresh 4 KiB pages each time (dense: 13.9 k -> 9.4 k faults, the same peak).
inline constexpr std::size_t kHugeFrom = std::size_t{512} << 10;

/// A buffer of `bytes` usable bytes (contents undefined); throws std::bad_alloc.
void* allocate(std::size_t bytes);
/// Resizes a buffer from allocate()/resize() of `old_bytes` to `new_bytes`, keeping the first
/// min(old, new) bytes; p may be nullptr (old_bytes 0). Throws std::bad_alloc, p then unchanged.
void* resize(void* p, std::size_t old_bytes, std::size_t new_bytes);
/// Gives back to the system the pages of a buffer of `bytes` past its first `used` bytes (a
/// huge page partly used is split); the buffer keeps its size, those bytes become zero.
void trim(void* p, std::size_t bytes, std::size_t used) noexcept;
/// Frees a buffer of `bytes` (the size it was allocated or last resized to); nullptr is nothing.
void release(void* p, std::size_t bytes) noexcept;

/// A std::allocator for vectors of millions of elements reserved at once (row lists): their
/// buffers are big_buffer's, so that filling one faults once per 2 MiB, not once per 4 KiB.
template <class T>
struct Allocator {
  using value_type = T;
  Allocator() = default;
  template <class U>
  Allocator(const Allocator<U>&) noexcept {}
  T* allocate(std::size_t n) { return static_cast<T*>(big_buffer::allocate(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { release(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const Allocator<U>&) const noexcept {
    return true;
  }
};

}  // namespace gpucost::big_buffer
