// The report document (report/document.hpp): what the HTML, Prometheus and NDJSON writers read.
// It must hold exactly what the JSON report says, as a JSON reader reads it.
#include "gpucost/report/document.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "gpucost/report/report.hpp"
#include "json_reading.hpp"

namespace gpucost::reportdoc {
namespace {

// The document's values in one canonical text (types kept apart), to compare two documents.
void dump(Element e, std::string& out) {
  switch (e.type()) {
    case ValueType::kNull: out += "null"; break;
    case ValueType::kBool: out += "bool?"; break;  // compared through boolean() by the parent
    case ValueType::kInteger: out += "i" + std::to_string(*integer(e)); break;
    case ValueType::kDouble: out += "d" + format_number(*number(e)); break;
    case ValueType::kString: out += "s[" + std::string(string(e)) + "]"; break;
    case ValueType::kArray:
      out += '[';
      each(e, [&](Element x) { dump(x, out); out += ','; });
      out += ']';
      break;
    case ValueType::kObject:
      out += '{';
      each_member(e, [&](std::string_view k, Element v) {
        out += std::string(k) + ':';
        if (v.type() == ValueType::kBool) out += boolean(e, k) ? "true" : "false";
        else dump(v, out);
        out += ',';
      });
      out += '}';
      break;
  }
}
std::string dump(const Document& d) {
  std::string s;
  dump(d.root(), s);
  return s;
}

Document build(void (*write)(JsonWriter&)) {
  Document d;
  DocumentBuilder b(d);
  write(b);
  return d;
}

TEST(ReportDocument, NumbersReadAsTheJsonReportWritesThem) {
  const Document d = build([](JsonWriter& w) {
    w.begin_object();
    w.kv("noisy", 3066.0000000000005).kv("half", 2.5).kv("count", std::int64_t{7});
    w.kv("nan", std::numeric_limits<double>::quiet_NaN()).kv("small", 1.23456789012345e-7);
    w.end_object();
  });
  const Element root = d.root();
  // Rounded to 10 significant digits, a whole number: an integer, as a JSON reader sees "3066".
  EXPECT_EQ(integer(root, "noisy"), 3066);
  EXPECT_EQ(number(root, "half"), 2.5);
  EXPECT_FALSE(integer(root, "half"));
  EXPECT_EQ(integer(root, "count"), 7);
  EXPECT_FALSE(number(root, "nan"));  // null
  EXPECT_EQ(number(root, "small"), 1.234567890e-7);
}

TEST(ReportDocument, TextReadsAsUtf8) {
  const Document d = build([](JsonWriter& w) {
    w.begin_object().kv("host", "gpu\xff" "box").kv("ok", "温度").key("nul").value(std::string_view("a\0b", 3));
    w.end_object();
  });
  EXPECT_EQ(string(d.root(), "host"), "gpu\xEF\xBF\xBD" "box");
  EXPECT_EQ(string(d.root(), "ok"), "温度");
  EXPECT_EQ(string(d.root(), "nul"), std::string_view("a\0b", 3));
}

TEST(ReportDocument, LookupsNeverThrow) {
  const Document d = build([](JsonWriter& w) {
    w.begin_object().kv("a", 1).key("gone").null().key("list").begin_array().value(1).value("x").end_array();
    w.key("o").begin_object().kv("b", true).end_object().end_object();
  });
  const Element root = d.root();
  EXPECT_FALSE(child(root, "gone"));      // null reads as absent
  EXPECT_FALSE(child(root, "missing"));
  EXPECT_FALSE(child(*child(root, "a"), "x"));  // not an object
  EXPECT_EQ(string(root, "a"), "");            // the wrong type reads as absent
  EXPECT_TRUE(boolean(*child(root, "o"), "b"));
  EXPECT_TRUE(boolean(root, "missing", true));
  EXPECT_TRUE(path(root, "o", "b"));
  int n = 0;
  each(child(root, "list"), [&](Element) { ++n; });
  each(child(root, "a"), [&](Element) { ++n; });  // not an array: nothing
  EXPECT_EQ(n, 2);
  EXPECT_EQ(dump(d), "{a:i1,gone:null,list:[i1,s[x],],o:{b:true,},}");
}

// The writers used to read the JSON text parsed back; the document must read the same.
TEST(ReportDocument, HoldsWhatTheJsonReportSays) {
  PipelineOptions options;
  options.align.tz = "UTC";
  PipelineResult result;
  run_pipeline(std::string(GPUCOST_TEST_DATA) + "/report/logs", options, result);
  Report rep;
  rep.input = "logs \xff\x01 \"quoted\"";
  rep.result = &result;
  result.timings.clear();
  const std::string json = render_report(rep, ReportFormat::kJson);
  const Document direct = report_document(rep);
  const Document parsed = gpucost::testing::document_from_json(json);
  EXPECT_EQ(dump(direct), dump(parsed));
  EXPECT_GT(dump(direct).size(), 1000u);
  EXPECT_EQ(string(direct.root(), "input"), "logs \xEF\xBF\xBD\x01 \"quoted\"");
}

}  // namespace
}  // namespace gpucost::reportdoc
