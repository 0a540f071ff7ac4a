// KeyPrefilter finds exactly the keys that occur in a message, the same way with and without
// the AVX2 fingerprint, at every length and alignment (the vector loop covers 32 positions at a
// time and leaves the tail to the portable loop), with keys at the ends, overlapping and
// repeated, and with bytes >= 0x80 (whose high nibble the fingerprint splits differently).
#include <gtest/gtest.h>

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

std::uint64_t naive(std::string_view t) {
  std::uint64_t m = 0;
  for (std::size_t i = 0; i < kKeys.size(); ++i)
    if (t.find(kKeys[i]) != std::string_view::npos) m |= std::uint64_t{1} << i;
  return m;
}

TEST(KeyPrefilter, FindsEveryKeyAtEveryPositionAndLength) {
  const KeyPrefilter f(kKeys);
  for (std::size_t len = 0; len <= 100; ++len)
    for (std::size_t k = 0; k < kKeys.size(); ++k)
      for (std::size_t at = 0; at + 4 <= len; ++at) {
        std::string t(len, '.');
        t.replace(at, 4, kKeys[k]);
        ASSERT_EQ(f.scan(t), naive(t)) << "key " << k << " at " << at << " of " << len;
        ASSERT_EQ(f.scan_portable(t), naive(t));
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
    ASSERT_EQ(f.scan_portable(t), want) << "round " << round;
  }
  EXPECT_GT(hits, 10000u);  // the keys were really there, in most rounds
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
