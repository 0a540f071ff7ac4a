#include "gpucost/text/escape.hpp"

#include <gtest/gtest.h>

#include <string>

#include "gpucost/text.hpp"
#include "gpucost/text/csv.hpp"

namespace gpucost::text {
namespace {

TEST(EscapeControl, WritesC0ControlsAndDelAsHex) {
  EXPECT_EQ(escape_control("a\x1b[2Jb"), "a\\x1b[2Jb");
  EXPECT_EQ(escape_control("bell\x07"), "bell\\x07");
  EXPECT_EQ(escape_control("run\n1"), "run\\x0a1");  // a file name cannot forge a line
  EXPECT_EQ(escape_control("cr\rx"), "cr\\x0dx");
  EXPECT_EQ(escape_control("del\x7f"), "del\\x7f");
  EXPECT_EQ(escape_control(std::string_view("nul\0x", 5)), "nul\\x00x");
  EXPECT_EQ(escape_control("tab\tkept"), "tab\tkept");
}

TEST(EscapeControl, WritesC1ControlsInUtf8AsCodePoints) {
  EXPECT_EQ(escape_control("\xc2\x9b" "2J"), "\\u009b2J");                  // CSI
  EXPECT_EQ(escape_control("\xc2\x9d" "52;c;x\xc2\x9c"), "\\u009d52;c;x\\u009c");  // OSC 52 ... ST
  EXPECT_EQ(escape_control("\xc2\x85"), "\\u0085");                         // NEL
}

TEST(EscapeControl, WritesRawC1BytesOutsideUtf8AsHex) {
  // A lone 0x9B is CSI on an 8-bit terminal (issue 39).
  EXPECT_EQ(escape_control("\x9b" "2J"), "\\x9b2J");
  EXPECT_EQ(escape_control("x\x80y\x9fz"), "x\\x80y\\x9fz");
  // A sequence cut short: its lead byte is kept, the C1 byte after it is not part of a character.
  EXPECT_EQ(escape_control("\xe2\x9b" "x"), "\xe2\\x9bx");
}

TEST(EscapeControl, KeepsWellFormedUtf8AndLatin1Letters) {
  // These characters have bytes 0x80..0x9F inside them: they are not controls.
  for (std::string_view s : {"\xe2\x80\x99", "\xe2\x82\xac", "\xf0\x9f\x99\x82", "温度 фев", "NVIDIA GeForce RTX 4090",
                             "caf\xe9", "back\\slash"}) {
    EXPECT_FALSE(needs_escape_control(s)) << testing::PrintToString(std::string(s));
    EXPECT_EQ(escape_control(s), s);
  }
}

TEST(EscapeControl, NeedsAgreesWithEscape) {
  for (std::string_view s : {"", "plain", "\x1b", "\x9b", "\xc2\x9b", "\xc2\xa0", "\xe9\x9b", "\xf0\x9f\x99", "\t"})
    EXPECT_EQ(needs_escape_control(s), escape_control(s) != s) << testing::PrintToString(std::string(s));
}

TEST(EscapeControl, AppendStopsAtMax) {
  std::string out = "x: ";
  append_escape_control(out, "\x1b\x1b\x1b\x1b", 8);
  EXPECT_EQ(out, "x: \\x1b\\x1b...");
}

// The writers that went through text::printable (the table report, CSV cells, stderr, the
// diagnostics' excerpts) escape a raw C1 byte too: before issue 39 a lone 0x9B passed raw.
TEST(EscapeControl, PrintableExcerptAndCsvEscapeARawC1Byte) {
  EXPECT_EQ(printable("\x9b" "2J"), "\\x9b2J");
  EXPECT_TRUE(needs_printable("\x9b"));
  EXPECT_EQ(printable_lines("a\x9b\nb"), "a\\x9b\nb");
  EXPECT_EQ(excerpt("\x9b" "2J"), "\\x9b2J");
  std::string csv;
  CsvWriter(csv).field("gpu\x9b" "2J").end_row();
  EXPECT_EQ(csv, "gpu\\x9b2J\n");
}

}  // namespace
}  // namespace gpucost::text
