// BlankTokens cuts exactly the tokens that repeated text::next_token cuts, at every length and
// window boundary, with every blank the parsers know and control bytes that are no blanks.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "gpucost/text.hpp"
#include "ingest/formats/blank_tokens.hpp"

namespace gpucost::formats {
namespace {

std::vector<std::string_view> by_next_token(std::string_view s) {
  std::vector<std::string_view> out;
  s = text::ltrim(s);
  while (!s.empty()) out.push_back(text::next_token(s));
  return out;
}

std::vector<std::string_view> by_mask(std::string_view s) {
  std::vector<std::string_view> out;
  BlankTokens cut(s);
  std::string_view tok;
  while (cut.next(tok)) out.push_back(tok);
  return out;
}

TEST(BlankTokens, RealPsRow) {
  const std::string_view row =
      "root         1  0.0  0.1 167744 11904 ?        Ss   Nov20   0:05 /sbin/init splash";
  const auto t = by_mask(row);
  ASSERT_EQ(t.size(), 12u);
  EXPECT_EQ(t[0], "root");
  EXPECT_EQ(t[1], "1");
  EXPECT_EQ(t[7], "Ss");
  EXPECT_EQ(t[10], "/sbin/init");
  EXPECT_EQ(t[11], "splash");
  EXPECT_EQ(t[11].data() + t[11].size(), row.data() + row.size());  // views into the line
}

TEST(BlankTokens, SameTokensAsNextTokenOnRandomLines) {
  std::mt19937 rng(7);
  const char alphabet[] = {' ', ' ', ' ', '\t', '\r', '\v', '\f', '\x01', '\x1f', '\n', 'a', 'b', '0', '/', '\xc3', '\xa9'};
  for (int round = 0; round < 4000; ++round) {
    std::string line(rng() % 200, ' ');
    for (auto& c : line) c = alphabet[rng() % sizeof alphabet];
    // Text that is only blanks for long stretches crosses windows inside a blank run.
    if (round % 7 == 0) line.insert(rng() % (line.size() + 1), std::string(70 + rng() % 70, ' '));
    if (round % 11 == 0) line.insert(rng() % (line.size() + 1), std::string(64 + rng() % 80, 'x'));
    const auto want = by_next_token(line), got = by_mask(line);
    ASSERT_EQ(got.size(), want.size()) << round;
    for (std::size_t i = 0; i < want.size(); ++i) {
      ASSERT_EQ(got[i].data(), want[i].data()) << round << " token " << i;
      ASSERT_EQ(got[i].size(), want[i].size()) << round << " token " << i;
    }
  }
}

std::vector<std::string_view> by_spaces(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    const std::size_t b = i;
    while (i < s.size() && s[i] != ' ') ++i;
    if (i > b) out.push_back(s.substr(b, i - b));
  }
  return out;
}

TEST(BlankTokens, OnlySpacesModeKeepsOtherBlanksInTokens) {
  std::mt19937 rng(11);
  const char alphabet[] = {' ', ' ', '\t', '\r', '\v', 'a', '7', '-'};
  for (int round = 0; round < 2000; ++round) {
    std::string line(rng() % 300, ' ');
    for (auto& c : line) c = alphabet[rng() % sizeof alphabet];
    std::vector<std::string_view> got;
    BlankTokens cut(line, true);
    std::string_view tok;
    while (cut.next(tok)) got.push_back(tok);
    const auto want = by_spaces(line);
    ASSERT_EQ(got.size(), want.size()) << round;
    for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(got[i].data(), want[i].data()) << round;
  }
}

// A line for the window tests: every length up to 300 first, then random ones; blanks of every
// kind, control bytes that are no blanks, a token on the last byte now and then, and a run of
// blanks over a window's end.
std::string window_line(std::mt19937& rng, int round) {
  const char alphabet[] = {' ', ' ', ' ', '\t', '\r', '\v', '\f', '\x01', '\n', 'a', 'b', '0', '/', '\xc3'};
  const std::size_t n = round < 300 ? static_cast<std::size_t>(round) : rng() % 260;
  std::string line(n, ' ');
  for (auto& c : line) c = alphabet[rng() % sizeof alphabet];
  if (round % 5 == 0 && !line.empty()) line.back() = 'z';
  if (round % 9 == 0) line.insert(rng() % (line.size() + 1), std::string(60 + rng() % 80, ' '));
  return line;
}

// The tokens repeated next() cuts.
std::vector<std::string_view> by_next(std::string_view line, bool only_spaces) {
  std::vector<std::string_view> out;
  BlankTokens cut(line, only_spaces);
  std::string_view tok;
  while (cut.next(tok)) out.push_back(tok);
  return out;
}

// cut_all: the same tokens (the same views) as next(), in both modes, at every length around
// the 64-byte windows, with a token or a blank on the last byte of a window.
TEST(BlankTokens, CutAllCutsWhatNextCuts) {
  std::mt19937 rng(23);
  std::vector<std::string_view> got;
  for (int round = 0; round < 6000; ++round) {
    const std::string line = window_line(rng, round);
    for (const bool only_spaces : {false, true}) {
      const std::vector<std::string_view> want = by_next(line, only_spaces);
      got.assign(3, std::string_view("stale"));  // cut_all clears what was there
      BlankTokens::cut_all(line, only_spaces, got);
      ASSERT_EQ(got.size(), want.size()) << round << " only_spaces " << only_spaces;
      for (std::size_t i = 0; i < want.size(); ++i) {
        ASSERT_EQ(got[i].data(), want[i].data()) << round << " token " << i;
        ASSERT_EQ(got[i].size(), want[i].size()) << round << " token " << i;
      }
    }
  }
}

// cut_first: the first `max` tokens that next() cuts (all of them when there are fewer), in
// both modes, at every length around the 64-byte windows.
TEST(BlankTokens, CutFirstCutsTheFirstTokensNextCuts) {
  std::mt19937 rng(29);
  std::string_view got[40];
  for (int round = 0; round < 6000; ++round) {
    const std::string line = window_line(rng, round);
    for (const bool only_spaces : {false, true}) {
      const std::vector<std::string_view> want = by_next(line, only_spaces);
      const std::size_t max = round % 41 == 0 ? 0 : 1 + rng() % 39;
      for (auto& g : got) g = "stale";
      const std::size_t k = BlankTokens::cut_first(line, only_spaces, got, max);
      ASSERT_EQ(k, std::min(max, want.size())) << round << " only_spaces " << only_spaces << " max " << max;
      for (std::size_t i = 0; i < k; ++i) {
        ASSERT_EQ(got[i].data(), want[i].data()) << round << " token " << i;
        ASSERT_EQ(got[i].size(), want[i].size()) << round << " token " << i;
      }
      if (k < 40) {
        ASSERT_EQ(got[k], "stale") << "nothing written past the tokens cut";
      }
    }
  }
}

TEST(BlankTokens, NextStartIsWhereTheNextTokenBegins) {
  const std::string line = std::string(70, ' ') + "a  b  /usr/bin/python3 train.py";
  BlankTokens cut(line);
  std::string_view tok;
  ASSERT_TRUE(cut.next(tok));
  ASSERT_TRUE(cut.next(tok));
  EXPECT_EQ(line.substr(cut.next_start()), "/usr/bin/python3 train.py");
  EXPECT_EQ(line.substr(cut.next_start()), "/usr/bin/python3 train.py");  // does not consume
  ASSERT_TRUE(cut.next(tok));
  EXPECT_EQ(tok, "/usr/bin/python3");
  ASSERT_TRUE(cut.next(tok));
  EXPECT_EQ(cut.next_start(), line.size());
  EXPECT_FALSE(cut.next(tok));
}

TEST(BlankTokens, EmptyAndBlankLines) {
  EXPECT_TRUE(by_mask("").empty());
  EXPECT_TRUE(by_mask(std::string(130, ' ')).empty());
  EXPECT_EQ(by_mask(std::string(64, ' ') + "x").size(), 1u);
  EXPECT_EQ(by_mask(std::string(63, ' ') + "xy").front(), "xy");
}

}  // namespace
}  // namespace gpucost::formats
