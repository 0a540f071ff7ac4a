#include "gpucost/text/json.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <limits>

#include "gpucost/text/csv.hpp"

namespace gpucost {
namespace {

std::string quoted(std::string_view s) {
  std::string out;
  append_json_string(out, s);
  return out;
}

TEST(JsonString, EscapesControlCharactersAndQuotes) {
  EXPECT_EQ(quoted("plain"), "\"plain\"");
  EXPECT_EQ(quoted("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(quoted("l1\nl2\tx\r"), "\"l1\\nl2\\tx\\r\"");
  EXPECT_EQ(quoted(std::string_view("\x01\x1f", 2)), "\"\\u0001\\u001f\"");
  EXPECT_EQ(quoted(std::string_view("nul\0byte", 8)), "\"nul\\u0000byte\"");
}

TEST(JsonString, KeepsValidUtf8) {
  EXPECT_EQ(quoted("温度 фев 🙂"), "\"温度 фев 🙂\"");
}

TEST(JsonString, KeepsInvalidUtf8AsSurrogateEscapes) {
  // A lone continuation byte, a truncated sequence, an overlong encoding and a surrogate.
  EXPECT_EQ(quoted("a\x80" "b"), "\"a\\udc80b\"");
  EXPECT_EQ(quoted("\xe6\x9c"), "\"\\udce6\\udc9c\"");
  EXPECT_EQ(quoted("\xc0\xaf"), "\"\\udcc0\\udcaf\"");
  EXPECT_EQ(quoted("\xed\xa0\x80"), "\"\\udced\\udca0\\udc80\"");
  EXPECT_EQ(quoted("\xff"), "\"\\udcff\"");
}

TEST(JsonWriter, WritesNestedDocumentsThatParse) {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.kv("name", "gpu\"0").kv("count", std::int64_t{-3}).kv("ratio", 0.25).kv("ok", true);
  w.key("empty").begin_array().end_array();
  w.key("list").begin_array().value(1).null().value("x").end_array();
  w.key("nan").value(std::nan(""));
  w.key("obj").begin_object().end_object();
  w.end_object();
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(out).get(doc), simdjson::SUCCESS) << out;
  EXPECT_EQ(std::string_view(doc["name"]), "gpu\"0");
  EXPECT_EQ(int64_t(doc["count"]), -3);
  EXPECT_EQ(double(doc["ratio"]), 0.25);
  EXPECT_TRUE(doc["nan"].is_null());
  EXPECT_EQ(simdjson::dom::array(doc["list"]).size(), 3u);
}

TEST(JsonWriter, CompactModeHasNoNewlines) {
  std::string out;
  JsonWriter w(out, false);
  w.begin_object().kv("a", 1).key("b").begin_array().value(2).value(3).end_array().end_object();
  EXPECT_EQ(out, "{\"a\":1,\"b\":[2,3]}");
}

TEST(FormatNumber, IsShortStableAndJsonSafe) {
  EXPECT_EQ(format_number(0.0), "0");
  EXPECT_EQ(format_number(42.0), "42");
  EXPECT_EQ(format_number(-7.0), "-7");
  EXPECT_EQ(format_number(0.1 + 0.2), "0.3");
  EXPECT_EQ(format_number(1.0 / 3.0), "0.3333333333");
  EXPECT_EQ(format_number(0.7666), "0.7666");
  EXPECT_EQ(format_number(INFINITY), "null");
  EXPECT_EQ(format_number(1e20), "1e+20");
}

TEST(FormatNumber, SubnormalsAndExtremesNeverThrow) {
  // Issue 21: the rounding re-parsed its text with std::stod, which throws out_of_range on
  // subnormals (`--idle-threshold 1e-310`): "internal error: stod".
  EXPECT_EQ(format_number(1e-310), "1e-310");
  EXPECT_EQ(format_number(-1e-310), "-1e-310");
  EXPECT_EQ(format_number(std::numeric_limits<double>::denorm_min()), "5e-324");
  EXPECT_EQ(format_number(std::numeric_limits<double>::min()), "2.225073859e-308");
  // Rounded to 10 digits it would exceed the largest double: printed exactly instead.
  EXPECT_EQ(format_number(std::numeric_limits<double>::max()), "1.7976931348623157e+308");
  EXPECT_EQ(format_number(-std::numeric_limits<double>::max()), "-1.7976931348623157e+308");
}

TEST(Csv, QuotesOnlyWhenNeeded) {
  std::string out;
  CsvWriter c(out);
  c.field("id").field("a,b").field("say \"hi\"").field("two\nlines").number(1.5).number(std::nan("")).end_row();
  c.field("x").end_row();
  EXPECT_EQ(out, "id,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",1.5,\nx\n");
}

}  // namespace
}  // namespace gpucost
