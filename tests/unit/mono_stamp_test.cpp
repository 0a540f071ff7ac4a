// The kernel's `[ 1234.567890]` stamp: parse_mono_stamp's word-at-a-time fast path
// (parse_mono_stamp_fixed) must give what the general byte loop gives on every input it accepts,
// and accept the shapes kernels print; MonoStampCache, which reads only the fraction after
// seconds met just before, must give what parse_mono_stamp gives.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <string_view>

#include "ingest/formats/kernel_message.hpp"

namespace gpucost::formats {
namespace {

struct Parse {
  bool ok = false;
  TimeNs mono = -1;
  std::size_t length = 0;
  bool operator==(const Parse&) const = default;
};

Parse loop(std::string_view s) {
  Parse p;
  p.ok = parse_mono_stamp_loop(s, p.mono, p.length);
  if (!p.ok) p = Parse{};
  return p;
}

Parse fixed(std::string_view s) {
  Parse p;
  p.ok = parse_mono_stamp_fixed(s, p.mono, p.length);
  if (!p.ok) p = Parse{};
  return p;
}

Parse both(std::string_view s) {
  Parse p;
  p.ok = parse_mono_stamp(s, p.mono, p.length);
  if (!p.ok) p = Parse{};
  return p;
}

// The fast path agrees with the loop where it accepts, and parse_mono_stamp always does; true
// when the fast path accepted.
bool check(std::string_view s) {
  const Parse l = loop(s), f = fixed(s), b = both(s);
  EXPECT_EQ(b, l) << '"' << s << '"';
  if (f.ok) {
    EXPECT_EQ(f, l) << '"' << s << '"';
  }
  return f.ok;
}

TEST(MonoStampFast, ReadsTheShapesKernelsPrint) {
  struct Case {
    std::string_view line;
    TimeNs mono;
    std::size_t length;
  };
  for (const Case& c : {
           Case{"[    0.000000] Linux version 6.8.0", 0, 14},
           Case{"[    1.000001] x", 1'000'001'000, 14},
           Case{"[15345.708181] nvidia-modeset: ERROR", 15'345'708'181'000, 14},
           Case{"[99999.999999] x", 99'999'999'999'000, 14},
           Case{"[123456.654321] x", 123'456'654'321'000, 15},
           Case{"[1234567.000100] x", 1'234'567'000'100'000, 16},
           Case{"[12345678.123456] x", 12'345'678'123'456'000, 17},
           Case{"[       7.250000] x", 7'250'000'000, 17},
           Case{"[0.500000]x", 500'000'000, 10},
           Case{"[ 00042.000042]", 42'000'042'000, 15},
       }) {
    const Parse f = fixed(c.line);
    EXPECT_TRUE(f.ok) << c.line;
    EXPECT_EQ(f.mono, c.mono) << c.line;
    EXPECT_EQ(f.length, c.length) << c.line;
    EXPECT_EQ(f, loop(c.line)) << c.line;
  }
}

TEST(MonoStampFast, LeavesOtherShapesToTheLoop) {
  for (std::string_view s : {
           "[ 1234.567890 <    0.000123>] x",  // dmesg -d
           "[ 1234.567890123] x",              // 9 digits of fraction
           "[ 1234.5678] x",                   // 4
           "[123456789.123456] x",             // 9 digits of seconds: past the 8 bytes read
           "[         5.000000] x",            // blanks past the 8 bytes read
           "[ 12 34.567890] x", "[ 1x34.567890] x", "[ .567890] x", "[    .567890] x", "[1234.56789]0 x",
           "(    5.000000] x", "[    5,000000] x", "[    5.000000) x", "[    5.0000a0] x",
           "[\t   5.000000] x", "[ 5 .000000] x", "[5.00000]",
       }) {
    EXPECT_FALSE(fixed(s).ok) << s;
    check(s);
  }
  // What the loop makes of them is unchanged.
  const Parse d = both("[ 1234.567890 <    0.000123>] x");
  EXPECT_TRUE(d.ok);
  EXPECT_EQ(d.mono, 1'234'567'890'000);
  EXPECT_EQ(d.length, 29u);
  const Parse nine = both("[ 1234.567890123] x");
  EXPECT_EQ(nine.mono, 1'234'567'890'123);
  EXPECT_EQ(both("[123456789.123456] x").mono, 123'456'789'123'456'000);
  EXPECT_EQ(both("[    5.000000]").length, 14u);
}

// Every byte value at every position of stamps of each width: the fast path agrees with the loop
// on each, and accepts exactly the digit (or, before the digits, blank) substitutions.
TEST(MonoStampFast, AgreesWithTheLoopOnEverySingleByteChange) {
  for (std::string_view base : {"[    0.000000] x", "[15345.708181] kernel", "[    7.123456]  ", "[123.000001]ab",
                                "[12345678.999999]z", "[1.000000]yz"}) {
    ASSERT_TRUE(check(base)) << base;
    int accepted = 0;
    for (std::size_t at = 0; at < base.size(); ++at)
      for (int v = 0; v < 256; ++v) {
        std::string s(base);
        s[at] = static_cast<char>(v);
        if (check(s)) ++accepted;
      }
    // At least each digit of the fraction replaced by each digit.
    EXPECT_GE(accepted, 6 * 10) << base;
  }
}

// Random stamps built from the pieces that matter (blanks, digits, the dot, brackets, dmesg -d's
// delta, bytes next to them in the table, bytes with the high bit set), some cut short.
TEST(MonoStampFast, AgreesWithTheLoopOnGeneratedStamps) {
  std::mt19937_64 rng(20261202);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); };
  static constexpr char kNoise[] = {' ', '0', '9', '.', '[', ']', '<', '>', '/', ':', '\t', '\0',
                                    'x', '\x20' | '\x80', '\x30' | '\x80', '\x2e' | '\x80', '\xdd', '\xff'};
  int accepted = 0;
  for (int n = 0; n < 300000; ++n) {
    std::string s = "[";
    s.append(static_cast<std::size_t>(pick(10)), ' ');
    for (int k = pick(11); k > 0; --k) s += static_cast<char>('0' + pick(10));
    s += '.';
    for (int k = pick(2) ? 6 : pick(11); k > 0; --k) s += static_cast<char>('0' + pick(10));
    if (pick(8) == 0) s += " <    0.000123>";
    s += ']';
    for (int k = pick(4); k > 0; --k) s += "x "[pick(2)];
    for (int k = pick(3); k > 0; --k) s[static_cast<std::size_t>(pick(static_cast<int>(s.size())))] = kNoise[pick(sizeof kNoise)];
    if (pick(6) == 0) s.resize(static_cast<std::size_t>(pick(static_cast<int>(s.size()) + 1)));
    if (check(s)) ++accepted;
  }
  // The generator makes plenty of the common shape: a fast path that accepts nothing is broken too.
  EXPECT_GT(accepted, 5000);
}

// Stamps in runs that share their seconds, as consecutive kernel lines do, each followed at random
// by a changed byte anywhere (the fraction, the bracket, the seconds, the dot), cut short, a
// dmesg -d delta or another width of seconds: the cache reads each as parse_mono_stamp does.
TEST(MonoStampCache, ReadsWhatParseMonoStampReads) {
  std::mt19937_64 rng(7);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); };
  static constexpr char kNoise[] = {' ', '0', '9', '.', '[', ']', '<', '/', ':', 'x', '\0', '\xb0', '\xff'};
  MonoStampCache cache;
  int fast = 0;
  std::string head = "[  100.";
  for (int n = 0; n < 200000; ++n) {
    if (pick(40) == 0) {  // new seconds, of another width now and then
      const int width = pick(8) == 0 ? 1 + pick(9) : 5;
      std::string secs = std::to_string(rng() % 1000000000ULL).substr(0, static_cast<std::size_t>(width));
      if (secs.size() < 5) secs.insert(0, 5 - secs.size(), ' ');
      head = "[" + secs + ".";
    }
    std::string s = head;
    for (int k = 0; k < 6; ++k) s += static_cast<char>('0' + pick(10));
    if (pick(30) == 0) s += " <    0.000123>";
    s += "] msg";
    if (pick(10) == 0) s[static_cast<std::size_t>(pick(static_cast<int>(s.size())))] = kNoise[pick(sizeof kNoise)];
    if (pick(20) == 0) s.resize(static_cast<std::size_t>(pick(static_cast<int>(s.size()) + 1)));
    Parse c;
    c.ok = cache.parse(s, c.mono, c.length);
    if (!c.ok) c = Parse{};
    ASSERT_EQ(c, both(s)) << '"' << s << '"';
    fast += c.ok;
  }
  EXPECT_GT(fast, 150000);  // the runs were read, mostly
}

}  // namespace
}  // namespace gpucost::formats
