// text::find (the recognizer's and the JSON readers' substring search) against
// std::string_view::find: every needle of a small alphabet in haystacks of every length around
// the 16-byte steps, at every offset of a buffer whose ends are guarded.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "gpucost/text.hpp"

namespace gpucost::text {
namespace {

TEST(TextFind, FindsWhatStringViewFindFinds) {
  std::mt19937 rng(20261202);
  // Three letters: first-and-last-byte candidates are frequent, so the whole-needle comparison
  // is exercised and so are near misses.
  std::uniform_int_distribution<int> letter(0, 2);
  std::uniform_int_distribution<std::size_t> needle_len(1, 12);
  for (int round = 0; round < 4000; ++round) {
    const std::size_t h = static_cast<std::size_t>(round % 70);
    std::string hay(h, ' ');
    for (char& c : hay) c = static_cast<char>('a' + letter(rng));
    std::string needle(needle_len(rng), ' ');
    for (char& c : needle) c = static_cast<char>('a' + letter(rng));
    // Half the time, plant the needle somewhere (or at the very end).
    if (round % 2 && needle.size() <= h) {
      const std::size_t at = round % 4 == 1 ? h - needle.size() : static_cast<std::size_t>(rng()) % (h - needle.size() + 1);
      hay.replace(at, needle.size(), needle);
    }
    // The haystack is a view into a larger buffer whose bytes around it would match: a read
    // past either end would show as a wrong answer.
    const std::string buf = needle + hay + needle;
    const std::string_view view(buf.data() + needle.size(), h);
    ASSERT_EQ(find(view, needle), view.find(needle)) << "hay \"" << hay << "\", needle \"" << needle << "\"";
    ASSERT_EQ(contains(view, needle), view.find(needle) != std::string_view::npos);
  }
}

TEST(TextFind, EdgeCases) {
  EXPECT_EQ(find("abc", ""), 0u);
  EXPECT_EQ(find("", ""), 0u);
  EXPECT_EQ(find("", "a"), std::string_view::npos);
  EXPECT_EQ(find("ab", "abc"), std::string_view::npos);
  EXPECT_EQ(find("NVRM: Xid (PCI:0000:01:00): 79, pid=1234", "Xid"), 6u);
  // A match that starts in one 16-byte step and ends in the next; the first of two.
  const std::string line = std::string(14, '.') + "fallen off the bus" + std::string(20, '.') + "fallen off the bus";
  EXPECT_EQ(find(line, "fallen off the bus"), 14u);
  // Bytes above 0x7f compare as bytes.
  EXPECT_EQ(find("temp \xc2\xb0" "C high", "\xb0" "C"), 6u);
}

}  // namespace
}  // namespace gpucost::text

namespace gpucost {
namespace {

// same_bytes is a == b at every length (each of its four ways), for a difference at every
// position, and for strings of other lengths that share a prefix or an end.
TEST(Text, SameBytesIsEqualityAtEveryLengthAndPosition) {
  std::string base;
  for (int i = 0; i < 48; ++i) base += static_cast<char>('a' + (i * 7) % 26);
  for (std::size_t n = 0; n <= base.size(); ++n) {
    const std::string a = base.substr(0, n);
    std::string b = a;
    EXPECT_TRUE(text::same_bytes(a, b)) << n;
    for (std::size_t at = 0; at < n; ++at) {
      b[at] ^= 0x20;
      EXPECT_FALSE(text::same_bytes(a, b)) << n << " at " << at;
      EXPECT_EQ(text::same_bytes(a, b), a == b);
      b[at] ^= 0x20;
    }
    if (n > 0) {
      EXPECT_FALSE(text::same_bytes(a, a.substr(0, n - 1))) << n;
      EXPECT_EQ(text::same_bytes(a.substr(1), a.substr(0, n - 1)), a.substr(1) == a.substr(0, n - 1)) << n;
    }
  }
  EXPECT_TRUE(text::same_bytes(std::string_view(), std::string_view("")));
}

}  // namespace
}  // namespace gpucost
