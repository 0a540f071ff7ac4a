// KeyPrefilter finds exactly the keys that occur in a message, the same every way (portable,
// the AVX2 and the AVX-512 fingerprint, each where this CPU has it), at every length and
// alignment (the AVX2 loop covers 32 positions at a time and ends with an overlapping pass, the
// AVX-512 loop 64 with masked loads at the tail), with keys at the ends, overlapping and
// repeated, and with bytes >= 0x80 (whose high nibble the fingerprint splits differently).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ingest/key_prefilter.hpp"

namespace gpucost {
namespace {

const std::vector<std::string_view> kKeys = {"Xid ", "Cras", "GSP ", "mark", "fall", "rm_i", "nvAs", "A UN",
                                             "ERRO", "prob", "API ", "HANG", "chip", "rese", "PCIe", "aint",
                                             "abov", "spee", "ical", "Adap", "PM: ", "hibe", "Linu", "Kill",
                                             "segf", "trap", "ERRO", "\xc3\xa9t\xff"};

constexpr KeyPrefilter::Way kWays[] = {KeyPrefilter::Way::kPortable, KeyPrefilter::Way::kAvx2,
                                        KeyPrefilter::Way::kAvx512};

std::uint64_t naive(std::string_view t) {
  std::uint64_t m = 0;
  for (std::size_t i = 0; i < kKeys.size(); ++i)
    if (t.find(kKeys[i]) != std::string_view::npos) m |= std::uint64_t{1} << i;
  return m;
}

TEST(KeyPrefilter, FindsEveryKeyAtEveryPositionAndLength) {
  const KeyPrefilter f(kKeys);
  for (std::size_t len = 0; len <= 200; ++len)
    for (std::size_t k = 0; k < kKeys.size(); ++k)
      for (std::size_t at = 0; at + 4 <= len; ++at) {
        std::string t(len, '.');
        t.replace(at, 4, kKeys[k]);
        const std::uint64_t want = naive(t);
        ASSERT_EQ(f.scan(t), want) << "key " << k << " at " << at << " of " << len;
        for (const auto way : kWays)
          ASSERT_EQ(f.scan_with(way, t), want) << KeyPrefilter::name(way) << ": key " << k << " at " << at << " of " << len;
      }
}

TEST(KeyPrefilter, AgreesWithANaiveSearchOnRandomText) {
  const KeyPrefilter f(kKeys);
  // Bytes of the keys and their nibble neighbours, so that fingerprints often half-match.
  const std::string alphabet = "XidCrasGSPmarkfl_nvAUNEROpbIHchePMLuKgt: ()[]0123456789abcdefQYZqyz\xc3\xa9\xff\x80\x7f";
  std::mt19937 rng(7);
  std::size_t hits = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string t(rng() % 300, ' ');
    for (char& c : t) c = alphabet[rng() % alphabet.size()];
    for (int k = 0, keys = static_cast<int>(rng() % 3); k < keys && t.size() >= 4; ++k)
      t.replace(rng() % (t.size() - 3), 4, kKeys[rng() % kKeys.size()]);
    const std::uint64_t want = naive(t);
    hits += want != 0;
    ASSERT_EQ(f.scan(t), want) << "round " << round;
    for (const auto way : kWays) ASSERT_EQ(f.scan_with(way, t), want) << KeyPrefilter::name(way) << ": round " << round;
  }
  EXPECT_GT(hits, 10000u);  // the keys were really there, in most rounds
}

// A message that ends where its memory ends: no way reads past it (ASan reports a read past the
// heap block; the AVX2 way copies short messages and ends with a pass that ends at the last byte).
TEST(KeyPrefilter, ReadsNoByteAfterTheMessage) {
  const KeyPrefilter f(kKeys);
  for (std::size_t len = 0; len <= 140; ++len) {
    std::string text(len, 'x');
    if (len >= 4) text.replace(len - 4, 4, "Kill");
    const auto block = std::make_unique<char[]>(len);
    std::copy(text.begin(), text.end(), block.get());
    const std::string_view t(block.get(), len);
    for (const auto way : kWays) ASSERT_EQ(f.scan_with(way, t), naive(t)) << KeyPrefilter::name(way) << " at " << len;
  }
}

// Every way this CPU has is tested here; say which, so that a run on a CPU without AVX-512 shows
// that its way went untested.
TEST(KeyPrefilter, SaysWhichWaysThisCpuHas) {
  for (const auto way : kWays)
    std::printf("[ info     ] %s: %s\n", KeyPrefilter::name(way), KeyPrefilter::available(way) ? "tested" : "not on this CPU");
  EXPECT_TRUE(KeyPrefilter::available(KeyPrefilter::Way::kPortable));
  EXPECT_TRUE(KeyPrefilter::available(KeyPrefilter::best_way()));
}

TEST(KeyPrefilter, NoiseHasNoKeys) {
  const KeyPrefilter f(kKeys);
  const std::string ufw =
      "[UFW BLOCK] IN=wlp2s0 OUT= MAC=01:00:5e:00:00:fb:a4:83:e7:2b:9c:10:08:00 SRC=192.168.1.23 "
      "DST=224.0.0.251 LEN=73 TOS=0x00 PREC=0x00 TTL=255 ID=39271 DF PROTO=UDP SPT=5353 DPT=5353 LEN=53";
  EXPECT_EQ(f.scan(ufw), 0u);
  EXPECT_EQ(f.scan(ufw + " PM: suspend entry"), std::uint64_t{1} << 20);
}

TEST(KeyPrefilter, RejectsKeysItCannotHold) {
  const std::vector<std::string_view> three = {"abc"};
  EXPECT_THROW(KeyPrefilter{three}, std::logic_error);
  const std::vector<std::string_view> many(65, "abcd");
  EXPECT_THROW(KeyPrefilter{many}, std::logic_error);
}

}  // namespace
}  // namespace gpucost
