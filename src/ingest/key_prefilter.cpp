#include "ingest/key_prefilter.hpp"

#include <cstring>
#include <stdexcept>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define GPUCOST_HAVE_AVX2_PATH 1
#endif

namespace gpucost {
namespace {

std::uint32_t load4(const char* p) noexcept {
  std::uint32_t w;
  std::memcpy(&w, p, 4);
  return w;
}

std::size_t hash(std::uint32_t w) noexcept { return (w * 2654435761u) >> 25; }

bool test(const std::array<std::uint64_t, 1024>& b, unsigned char x, unsigned char y) noexcept {
  const unsigned pair = x | (static_cast<unsigned>(y) << 8);
  return (b[pair >> 6] >> (pair & 63)) & 1;
}

void set(std::array<std::uint64_t, 1024>& b, char x, char y) noexcept {
  const unsigned pair = static_cast<unsigned char>(x) | (static_cast<unsigned>(static_cast<unsigned char>(y)) << 8);
  b[pair >> 6] |= std::uint64_t{1} << (pair & 63);
}

}  // namespace

KeyPrefilter::KeyPrefilter(std::span<const std::string_view> keys) {
  if (keys.size() > 64) throw std::logic_error("a key prefilter holds at most 64 keys");
  std::size_t distinct = 0;
  for (std::size_t bit = 0; bit < keys.size(); ++bit) {
    const std::string_view key = keys[bit];
    if (key.size() != 4) throw std::logic_error("prefilter keys are four bytes");
    bool seen = false;
    for (std::size_t b = 0; b < bit; ++b) seen = seen || keys[b] == key;
    add(key, bit);
    if (seen) continue;
    // Distinct keys are dealt round-robin into the 8 buckets.
    const auto bucket = static_cast<std::uint8_t>(1u << (distinct++ % 8));
    for (std::size_t j = 0; j < 4; ++j) {
      const auto c = static_cast<unsigned char>(key[j]);
      lo_[j][c & 0x0f] |= bucket;
      hi_[j][c >> 4] |= bucket;
    }
  }
}

void KeyPrefilter::add(std::string_view key, std::size_t bit) {
  set(head_, key[0], key[1]);
  set(tail_, key[2], key[3]);
  const std::uint32_t w = load4(key.data());
  for (std::size_t s = hash(w);; s = (s + 1) % kSlots) {
    if (slots_[s].mask == 0 || slots_[s].key == w) {
      slots_[s].key = w;
      slots_[s].mask |= std::uint64_t{1} << bit;
      return;
    }
  }
}

std::uint64_t KeyPrefilter::lookup(const char* p) const noexcept {
  const std::uint32_t w = load4(p);
  for (std::size_t s = hash(w);; s = (s + 1) % kSlots) {
    if (slots_[s].mask == 0) return 0;
    if (slots_[s].key == w) return slots_[s].mask;
  }
}

std::uint64_t KeyPrefilter::scan_from(std::string_view t, std::size_t from) const noexcept {
  std::uint64_t mask = 0;
  const auto* p = reinterpret_cast<const unsigned char*>(t.data());
  for (std::size_t i = from; i + 4 <= t.size(); ++i) {
    if (!test(head_, p[i], p[i + 1]) || !test(tail_, p[i + 2], p[i + 3])) continue;
    mask |= lookup(t.data() + i);
  }
  return mask;
}

const char* KeyPrefilter::name(Way way) noexcept {
  switch (way) {
    case Way::kAvx2: return "AVX2 Teddy";
    case Way::kAvx512: return "AVX-512 Teddy";
    case Way::kPortable: break;
  }
  return "portable";
}

#if defined(GPUCOST_HAVE_AVX2_PATH)

bool KeyPrefilter::available(Way way) noexcept {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  static const bool avx512 = __builtin_cpu_supports("avx512bw");
  switch (way) {
    case Way::kAvx2: return avx2;
    case Way::kAvx512: return avx512;
    case Way::kPortable: break;
  }
  return true;
}

KeyPrefilter::Way KeyPrefilter::best_way() noexcept {
  static const Way best = available(Way::kAvx512) ? Way::kAvx512 : available(Way::kAvx2) ? Way::kAvx2 : Way::kPortable;
  return best;
}

namespace {

// Bit l set: position l of the 32 from p may start a key (p must have 35 readable bytes).
__attribute__((target("avx2"))) std::uint32_t fingerprint32(const char* p, const __m256i* lo, const __m256i* hi) noexcept {
  const __m256i nibble = _mm256_set1_epi8(0x0f);
  __m256i buckets = _mm256_set1_epi8(-1);
  for (int j = 0; j < 4; ++j) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + j));
    const __m256i l = _mm256_shuffle_epi8(lo[j], _mm256_and_si256(v, nibble));
    const __m256i h = _mm256_shuffle_epi8(hi[j], _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble));
    buckets = _mm256_and_si256(buckets, _mm256_and_si256(l, h));
  }
  return ~static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(buckets, _mm256_setzero_si256())));
}

}  // namespace

__attribute__((target("avx2"))) std::uint64_t KeyPrefilter::scan_avx2(std::string_view t) const noexcept {
  const std::size_t n = t.size();
  if (n < 4) return 0;
  __m256i lo[4], hi[4];
  for (int j = 0; j < 4; ++j) {
    lo[j] = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(lo_[j].data())));
    hi[j] = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(hi_[j].data())));
  }
  std::uint64_t mask = 0;
  const auto lookup_all = [&](const char* base, std::uint32_t candidates) {
    for (; candidates; candidates &= candidates - 1) mask |= lookup(base + __builtin_ctz(candidates));
  };
  if (n < 35) {
    // A short message: one pass over a copy padded to 35 bytes, the lanes past n - 4 dropped.
    char buf[64] = {};
    std::memcpy(buf, t.data(), n);
    lookup_all(buf, fingerprint32(buf, lo, hi) & ((std::uint32_t{1} << (n - 3)) - 1));
    return mask;
  }
  // Positions i .. i+31, whose keys end by i+34: four loads of 32 bytes at i, i+1, i+2, i+3.
  std::size_t i = 0;
  for (; i + 35 <= n; i += 32) lookup_all(t.data() + i, fingerprint32(t.data() + i, lo, hi));
  if (i + 3 < n) {
    // The last positions: one more pass ending at the last byte, the lanes already seen dropped.
    const std::size_t last = n - 35;
    lookup_all(t.data() + last, fingerprint32(t.data() + last, lo, hi) & (~std::uint32_t{0} << (i - last)));
  }
  return mask;
}

namespace {

// Bit l set: position l of the 64 from p may start a key; p must have 67 readable bytes.
__attribute__((target("avx512f,avx512bw"))) std::uint64_t fingerprint64(const char* p, const __m512i* lo,
                                                                        const __m512i* hi) noexcept {
  const __m512i nibble = _mm512_set1_epi8(0x0f);
  __m512i buckets = _mm512_set1_epi8(-1);
  for (int j = 0; j < 4; ++j) {
    const __m512i v = _mm512_loadu_si512(p + j);
    const __m512i l = _mm512_shuffle_epi8(lo[j], _mm512_and_si512(v, nibble));
    const __m512i h = _mm512_shuffle_epi8(hi[j], _mm512_and_si512(_mm512_srli_epi16(v, 4), nibble));
    buckets = _mm512_ternarylogic_epi32(buckets, l, h, 0x80);  // buckets & l & h
  }
  return _mm512_test_epi8_mask(buckets, buckets);
}

}  // namespace

__attribute__((target("avx512f,avx512bw"))) std::uint64_t KeyPrefilter::scan_avx512(std::string_view t) const noexcept {
  const std::size_t n = t.size();
  if (n < 4) return 0;
  __m512i lo[4], hi[4];
  for (int j = 0; j < 4; ++j) {
    // The zero-masked broadcast, all lanes kept: GCC 12's plain one warns of an undefined operand.
    lo[j] = _mm512_maskz_broadcast_i32x4(0xFFFF, _mm_loadu_si128(reinterpret_cast<const __m128i*>(lo_[j].data())));
    hi[j] = _mm512_maskz_broadcast_i32x4(0xFFFF, _mm_loadu_si128(reinterpret_cast<const __m128i*>(hi_[j].data())));
  }
  std::uint64_t mask = 0;
  const auto lookup_all = [&](const char* base, std::uint64_t candidates) {
    for (; candidates; candidates &= candidates - 1) mask |= lookup(base + __builtin_ctzll(candidates));
  };
  if (n < 67) {
    // A short message: one pass over a copy padded to 67 bytes, the positions past n - 4 dropped.
    // (A masked load would read no copy, but costs more than the copy on the CPUs measured.)
    alignas(64) char buf[128] = {};
    std::memcpy(buf, t.data(), n);
    lookup_all(buf, fingerprint64(buf, lo, hi) & ((std::uint64_t{1} << (n - 3)) - 1));
    return mask;
  }
  // Positions i .. i+63, whose keys end by i+66.
  std::size_t i = 0;
  for (; i + 67 <= n; i += 64) lookup_all(t.data() + i, fingerprint64(t.data() + i, lo, hi));
  if (i + 3 < n) {
    // The last positions: one more pass ending at the last byte, the positions already seen dropped.
    const std::size_t last = n - 67;
    lookup_all(t.data() + last, fingerprint64(t.data() + last, lo, hi) & (~std::uint64_t{0} << (i - last)));
  }
  return mask;
}

std::uint64_t KeyPrefilter::scan_with(Way way, std::string_view t) const noexcept {
  if (!available(way)) return scan_from(t, 0);
  switch (way) {
    case Way::kAvx2: return scan_avx2(t);
    case Way::kAvx512: return scan_avx512(t);
    case Way::kPortable: break;
  }
  return scan_from(t, 0);
}

std::uint64_t KeyPrefilter::scan(std::string_view t) const noexcept {
  // best_way() is available: no second test per message, as scan_with makes.
  switch (best_way()) {
    case Way::kAvx512: return scan_avx512(t);
    case Way::kAvx2: return scan_avx2(t);
    case Way::kPortable: break;
  }
  return scan_from(t, 0);
}

#else

bool KeyPrefilter::available(Way way) noexcept { return way == Way::kPortable; }
KeyPrefilter::Way KeyPrefilter::best_way() noexcept { return Way::kPortable; }
std::uint64_t KeyPrefilter::scan_avx2(std::string_view t) const noexcept { return scan_from(t, 0); }
std::uint64_t KeyPrefilter::scan_avx512(std::string_view t) const noexcept { return scan_from(t, 0); }
std::uint64_t KeyPrefilter::scan_with(Way, std::string_view t) const noexcept { return scan_from(t, 0); }
std::uint64_t KeyPrefilter::scan(std::string_view t) const noexcept { return scan_from(t, 0); }

#endif

}  // namespace gpucost
