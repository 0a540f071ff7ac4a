#include "gpucost/text/utf8.hpp"

#include <gtest/gtest.h>

#include <string>

namespace gpucost::text {
namespace {

Utf8Char at0(std::string_view s) { return decode_utf8(s, 0); }

TEST(Utf8, DecodesEachLength) {
  EXPECT_EQ(at0("A").code_point, U'A');
  EXPECT_EQ(at0("A").length, 1u);
  EXPECT_EQ(at0("\xc3\xa9").code_point, U'\u00e9');  // é
  EXPECT_EQ(at0("\xc3\xa9").length, 2u);
  EXPECT_EQ(at0("\xe6\xb8\xa9").code_point, U'\u6e29');  // 温
  EXPECT_EQ(at0("\xe6\xb8\xa9").length, 3u);
  EXPECT_EQ(at0("\xf0\x9f\x99\x82").code_point, U'\U0001F642');  // 🙂
  EXPECT_EQ(at0("\xf0\x9f\x99\x82").length, 4u);
  EXPECT_EQ(at0("\xef\xbf\xbf").code_point, U'\uffff');  // well-formed; XML's rules are the HTML writer's
  EXPECT_EQ(at0(std::string_view("\0", 1)).length, 1u);
}

TEST(Utf8, RejectsWhatRfc3629Forbids) {
  for (std::string_view bad : {"\x80", "\xbf", "\xc0\xaf", "\xc1\xbf", "\xe0\x80\xaf", "\xed\xa0\x80", "\xed\xbf\xbf",
                               "\xf0\x80\x80\xaf", "\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xff", "\xe6\x9c", "\xc3",
                               "\xc3\x41", "\xf0\x9f\x99"}) {
    EXPECT_EQ(at0(bad).length, 0u) << testing::PrintToString(std::string(bad));
    EXPECT_FALSE(is_valid_utf8(bad));
  }
}

TEST(Utf8, DecodesInsideAString) {
  const std::string_view s = "a\xc3\xa9" "b";
  EXPECT_EQ(decode_utf8(s, 1).code_point, U'\u00e9');
  // A sequence cut by the end of the view is not a character.
  EXPECT_EQ(decode_utf8(s.substr(0, 2), 1).length, 0u);
  EXPECT_TRUE(is_valid_utf8("温度 фев 🙂"));
  EXPECT_TRUE(is_valid_utf8(""));
  EXPECT_FALSE(is_valid_utf8("ok\xffok"));
}

}  // namespace
}  // namespace gpucost::text
