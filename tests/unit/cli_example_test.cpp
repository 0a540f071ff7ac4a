// Issue 2's CLI requirements on the bundled example: `gpucost analyze examples/laptop-training
// --format json` is valid JSON (simdjson), `--format csv` has one header row, the stable column
// order id,name,value,unit,layer,reason,scope, and RFC 4180 quoting, so Python's csv module loads
// it; both carry the same values.
#include <gtest/gtest.h>
#include <simdjson.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "gpucost/features/features.hpp"
#include "run_binary.hpp"

namespace fs = std::filesystem;

namespace {

const std::string kExample = (fs::path(GPUCOST_SOURCE_DIR) / "examples" / "laptop-training").string();

// RFC 4180: fields separated by commas, records by CRLF or LF; a field with a comma, quote or
// line break is quoted and its quotes doubled. Returns false on a malformed quote.
bool parse_csv(const std::string& s, std::vector<std::vector<std::string>>& rows) {
  std::vector<std::string> row;
  std::string field;
  bool quoted = false, was_quoted = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (quoted) {
      if (c != '"') field += c;
      else if (i + 1 < s.size() && s[i + 1] == '"') field += '"', ++i;
      else quoted = false;
    } else if (c == '"') {
      if (!field.empty() || was_quoted) return false;  // a quote inside an unquoted field
      quoted = was_quoted = true;
    } else if (c == ',') {
      row.push_back(std::move(field)), field.clear(), was_quoted = false;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < s.size() && s[i + 1] == '\n') ++i;
      row.push_back(std::move(field)), field.clear(), was_quoted = false;
      rows.push_back(std::move(row)), row.clear();
    } else {
      if (was_quoted) return false;  // text after the closing quote
      field += c;
    }
  }
  if (quoted) return false;
  if (!field.empty() || !row.empty()) row.push_back(std::move(field)), rows.push_back(std::move(row));
  return true;
}

struct Reports {
  gpucost::testing::RunResult json, csv;
};

const Reports& reports() {
  static const Reports r{gpucost::testing::run_gpucost({"analyze", kExample, "--format", "json"}),
                         gpucost::testing::run_gpucost({"analyze", kExample, "--format", "csv"})};
  return r;
}

TEST(CliExample, JsonReportParsesWithEveryFeatureValuedOrNullWithAReason) {
  const auto& r = reports().json;
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser p;
  simdjson::dom::element doc;
  ASSERT_EQ(p.parse(r.out).get(doc), simdjson::SUCCESS);
  simdjson::dom::array features;
  ASSERT_EQ(doc["features"].get(features), simdjson::SUCCESS);
  EXPECT_EQ(features.size(), gpucost::feature_catalog().size());
  for (simdjson::dom::element f : features) {
    const bool null = f["value"].is_null();
    EXPECT_EQ(null, !f["reason"].is_null()) << std::string_view(f["name"]);
  }
  EXPECT_EQ(simdjson::dom::array(doc["gpus"]).size(), 1u);
}

TEST(CliExample, CsvHasOneHeaderStableColumnsAndRfc4180Quoting) {
  const auto& r = reports().csv;
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::vector<std::string>> rows;
  ASSERT_TRUE(parse_csv(r.out, rows));
  const std::size_t n = gpucost::feature_catalog().size();
  ASSERT_GT(rows.size(), n);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"id", "name", "value", "unit", "layer", "reason", "scope"}));
  std::size_t quoted_commas = 0;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i].size(), 7u) << "row " << i;
    EXPECT_NE(rows[i][0], "id") << "a second header at row " << i;
    if (rows[i][0][0] == 'F') {  // features: a value, or null with its reason (cost rows note their origin)
      EXPECT_EQ(rows[i][2].empty(), !rows[i][5].empty()) << rows[i][1] << ": a value or a reason, not both";
    }
    quoted_commas += rows[i][5].find(',') != std::string::npos;
  }
  EXPECT_GT(quoted_commas, 0u);  // the example has reasons with commas: quoting is exercised
  // The host feature rows come first, in catalog order.
  for (std::size_t i = 1; i <= n; ++i) {
    char id[24];  // room for any size_t: the count is the catalog's, not a constant
    std::snprintf(id, sizeof id, "F%03zu", i);
    EXPECT_EQ(rows[i][0], id);
    EXPECT_EQ(rows[i][6], "host");
  }
}

TEST(CliExample, CsvAndJsonCarryTheSameHostValues) {
  ASSERT_EQ(reports().json.exit_code, 0);
  simdjson::dom::parser p;
  const simdjson::dom::element doc = p.parse(reports().json.out);
  std::vector<std::vector<std::string>> rows;
  ASSERT_TRUE(parse_csv(reports().csv.out, rows));
  std::map<std::string, std::string> csv;
  for (const auto& row : rows)
    if (row.size() == 7 && row[6] == "host") csv[row[0]] = row[2];
  for (simdjson::dom::element f : doc["features"].get_array()) {
    const std::string id{std::string_view(f["id"])};
    ASSERT_TRUE(csv.count(id)) << id;
    if (f["value"].is_null()) {
      EXPECT_EQ(csv[id], "") << id;
    } else {
      const double v = double(f["value"]);
      EXPECT_NEAR(std::stod(csv[id]), v, std::abs(v) * 1e-9 + 1e-12) << id;
    }
  }
}

// Python's csv module reads the same rows (skipped where python3 is not installed).
TEST(CliExample, PythonCsvModuleLoadsTheCsv) {
  if (std::system("python3 -c 'import csv' >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  const auto& r = reports().csv;
  ASSERT_EQ(r.exit_code, 0);
  const fs::path file = fs::temp_directory_path() / ("gpucost-cli-example-" + std::to_string(::getpid()) + ".csv");
  std::ofstream(file, std::ios::binary) << r.out;
  std::vector<std::vector<std::string>> rows;
  ASSERT_TRUE(parse_csv(r.out, rows));
  // Exit 0 only when every row has 7 fields, the header is the expected one and the row count and
  // the reasons agree with the C++ reading.
  std::string reasons;
  for (std::size_t i = 1; i < rows.size(); ++i) reasons += std::to_string(rows[i][5].size()) + " ";
  const std::string cmd =
      "python3 -c \"import csv,sys\n"
      "rows=list(csv.reader(open(sys.argv[1],newline='',encoding='utf-8'),strict=True))\n"
      "assert rows[0]==['id','name','value','unit','layer','reason','scope'], rows[0]\n"
      "assert all(len(r)==7 for r in rows)\n"
      "assert len(rows)==" + std::to_string(rows.size()) + ", len(rows)\n"
      "got=' '.join(str(len(r[5].encode('utf-8'))) for r in rows[1:])+' '\n"
      "assert got==sys.argv[2]\n\" " + file.string() + " '" + reasons + "'";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  fs::remove(file);
}

}  // namespace
