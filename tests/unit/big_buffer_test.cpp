// Column buffers keep their bytes across every resize (within malloc, from malloc to a huge-page
// mapping, between mappings, and back), and trimming gives back only what lies past the bytes used.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "gpucost/table.hpp"
#include "gpucost/table/big_buffer.hpp"

namespace gpucost {
namespace {

void fill(void* p, std::size_t n, std::uint8_t seed) {
  auto* b = static_cast<std::uint8_t*>(p);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<std::uint8_t>(seed + i * 131 + (i >> 12));
}

// The index of the first byte of p[0, n) that fill(seed) did not write, or n.
std::size_t first_changed(const void* p, std::size_t n, std::uint8_t seed) {
  const auto* b = static_cast<const std::uint8_t*>(p);
  for (std::size_t i = 0; i < n; ++i)
    if (b[i] != static_cast<std::uint8_t>(seed + i * 131 + (i >> 12))) return i;
  return n;
}

TEST(BigBuffer, ResizeKeepsTheBytesAcrossEveryKindOfBuffer) {
  constexpr std::size_t kBig = big_buffer::kHugeFrom;
  // small -> small (realloc), small -> mapped, mapped -> mapped (same huge pages, more, fewer),
  // mapped -> small.
  const std::size_t sizes[] = {100, 5000, kBig - 1, kBig, kBig + 1, 3 * kBig + 12345, 40 * kBig, 3 * kBig, kBig / 2, 64};
  std::size_t size = 64;
  void* p = big_buffer::allocate(size);
  fill(p, size, 7);
  for (const std::size_t next : sizes) {
    p = big_buffer::resize(p, size, next);
    ASSERT_EQ(first_changed(p, std::min(size, next), 7), std::min(size, next)) << size << " -> " << next;
    fill(p, next, 7);  // every byte of the new size is writable
    size = next;
  }
  big_buffer::release(p, size);
}

TEST(BigBuffer, LargeBuffersStartOnAHugePageBoundary) {
#if defined(__linux__)
  void* p = big_buffer::allocate(big_buffer::kHugeFrom + 1);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % (std::uintptr_t{2} << 20), 0u);
  p = big_buffer::resize(p, big_buffer::kHugeFrom + 1, 9 * big_buffer::kHugeFrom);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % (std::uintptr_t{2} << 20), 0u);
  big_buffer::release(p, 9 * big_buffer::kHugeFrom);
#else
  GTEST_SKIP() << "huge-page mappings are Linux only";
#endif
}

TEST(BigBuffer, TrimKeepsTheBytesUsedAndFreesTheRest) {
  const std::size_t size = 5 * big_buffer::kHugeFrom + 777, used = 2 * big_buffer::kHugeFrom + 4097;
  void* p = big_buffer::allocate(size);
  fill(p, size, 3);
  big_buffer::trim(p, size, used);
  EXPECT_EQ(first_changed(p, used, 3), used);
#if defined(__linux__)
  // What lay past the page that holds the last byte used was given back: it reads as zero.
  const auto* b = static_cast<const std::uint8_t*>(p);
  const std::size_t from = (used + 4095) / 4096 * 4096;
  for (std::size_t i = from; i < size; i += 997) ASSERT_EQ(b[i], 0) << i;
#endif
  fill(p, size, 9);  // and stays writable
  EXPECT_EQ(first_changed(p, size, 9), size);
  big_buffer::release(p, size);
  // A small buffer is left as it is.
  void* q = big_buffer::allocate(1000);
  fill(q, 1000, 5);
  big_buffer::trim(q, 1000, 10);
  EXPECT_EQ(first_changed(q, 1000, 5), 1000u);
  big_buffer::release(q, 1000);
}

TEST(BigBuffer, PackedColumnsReadBackAfterGrowingLargeAndTrimming) {
  // Several MiB of 4-byte values: the buffer moves from malloc to a mapping and grows there.
  PackedInts p;
  std::vector<std::int64_t> want;
  for (std::int64_t i = 0; i < 3'000'000; ++i) want.push_back((i * 2654435761) % 4'000'000'000);
  for (std::size_t i = 0; i < want.size(); i += 512) p.append_values(want.data() + i, nullptr, std::min<std::size_t>(512, want.size() - i));
  ASSERT_GE(p.memory_bytes(), big_buffer::kHugeFrom);
  p.trim();
  for (std::size_t i = 0; i < want.size(); i += 1) ASSERT_EQ(p.get(i), want[i]) << i;
  // Growing after a trim writes into the pages given back.
  for (std::int64_t i = 0; i < 1'000'000; ++i) {
    p.push(i);
    want.push_back(i);
  }
  for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(p.get(i), want[i]) << i;
  // Copies and moves of a mapped buffer.
  PackedInts copy = p;
  PackedInts moved = std::move(p);
  for (std::size_t i = 0; i < want.size(); i += 7) {
    ASSERT_EQ(copy.get(i), want[i]) << i;
    ASSERT_EQ(moved.get(i), want[i]) << i;
  }
  Table t("t");
  const auto v = t.add_column("v", ColumnType::kFloat64);
  for (int i = 0; i < 600'000; ++i) {
    t.ts().push_int(i * 1'000'000'007LL);
    t.column(v).push_float(i * 0.5);
  }
  t.trim();
  for (int i = 0; i < 600'000; i += 3) {
    ASSERT_EQ(t.ts().get_int(static_cast<std::size_t>(i)), i * 1'000'000'007LL);
    ASSERT_EQ(t.column(v).get_float(static_cast<std::size_t>(i)), i * 0.5);
  }
}

}  // namespace
}  // namespace gpucost
