// The one table of analyze's output formats (issue 40): `--format`, its help and the dispatch
// read it, so a format named in one place is named in all.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "gpucost/report/report.hpp"

namespace gpucost {
namespace {

TEST(ReportFormats, EveryNameResolvesToItsFormatAndIsInTheHelp) {
  std::set<std::string_view> names;
  std::set<ReportFormat> formats;
  const std::string help = report_formats_help();
  for (const auto& f : report_formats()) {
    EXPECT_TRUE(names.insert(f.name).second) << f.name;
    EXPECT_TRUE(formats.insert(f.format).second) << f.name;
    EXPECT_EQ(report_format_named(f.name), f.format) << f.name;
    EXPECT_NE(help.find(std::string(f.name) + " ("), std::string::npos) << help;
  }
  // ndjson was a string special case in analyze.cpp: it is a format like the others.
  EXPECT_EQ(report_format_named("ndjson"), ReportFormat::kNdjson);
  EXPECT_EQ(report_formats().front().format, ReportFormat::kTable);
  EXPECT_EQ(formats.size(), 6u);
  EXPECT_FALSE(report_format_named("xml").has_value());
  EXPECT_FALSE(report_format_named("JSON").has_value());
}

}  // namespace
}  // namespace gpucost
