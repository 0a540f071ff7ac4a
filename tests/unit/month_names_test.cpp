// Month names of every glibc locale: the committed table (src/month_names_table.cpp) is what
// scripts/gen-month-names.py makes of Debian's locale data, and stamps in those locales read.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include <unistd.h>

#include "gpucost/time.hpp"
#include "ingest/formats/stamps.hpp"

namespace gpucost {
namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(MonthNames, GeneratedTableMatchesLocaleData) {
  const fs::path locales = "/usr/share/i18n/locales";
  if (!fs::is_directory(locales) || !fs::exists(locales / "ja_JP"))
    GTEST_SKIP() << "glibc locale sources absent (" << locales
                 << "; Debian package `locales`, installed by scripts/setup.sh): the generated month table "
                    "cannot be checked against them here";
  if (std::system("python3 --version > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "python3 absent: scripts/gen-month-names.py cannot run here";
  const fs::path out = fs::temp_directory_path() / ("gpucost-month-names-" + std::to_string(::getpid()) + ".cpp");
  const std::string cmd = "python3 '" + std::string(GPUCOST_SOURCE_DIR) + "/scripts/gen-month-names.py' '" +
                          locales.string() + "' > '" + out.string() + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  const std::string generated = read_file(out);
  fs::remove(out);
  const std::string committed = read_file(fs::path(GPUCOST_SOURCE_DIR) / "src/month_names_table.cpp");
  ASSERT_FALSE(generated.empty());
  EXPECT_TRUE(generated == committed)
      << "src/month_names_table.cpp is not what scripts/gen-month-names.py makes of " << locales
      << ": rerun `scripts/gen-month-names.py > src/month_names_table.cpp` and commit it";
}

TEST(MonthNames, EveryLocaleKnownBefore) {
  EXPECT_EQ(parse_month_name("Nov"), 11);
  EXPECT_EQ(parse_month_name("jan."), 1);
  EXPECT_EQ(parse_month_name("Mär"), 3);
  EXPECT_EQ(parse_month_name("фев"), 2);
  EXPECT_EQ(parse_month_name("4月"), 4);
  EXPECT_EQ(parse_month_name("lip"), 7);  // Polish (the table leaves it out: Croatian says June)
}

TEST(MonthNames, LocalesThatWereUnknown) {
  EXPECT_EQ(parse_month_name("\xE0\xB4\xAE\xE0\xB4\xBE\xE0\xB5\xBC"), 3);  // ml_IN മാർ
  EXPECT_EQ(parse_month_name(" 3\xE6\x9C\x88"), 3);                          // ja_JP ` 3月`
  EXPECT_EQ(parse_month_name("3\xEC\x9B\x94"), 3);                           // ko_KR `3월` (blank cut off)
  EXPECT_EQ(parse_month_name("Thg 3"), 3);                                   // vi_VN
  EXPECT_EQ(parse_month_name("\xCE\x9C\xCE\xB1\xCF\x81"), 3);                // el_GR Μαρ
  EXPECT_EQ(parse_month_name("\xD7\x9E\xD7\xA8\xD7\xA5"), 3);                // he_IL מרץ
  EXPECT_EQ(parse_month_name("gpu"), 0);
}

TEST(MonthNames, SyslogStampsInEveryPadding) {
  formats::ParsedStamp p;
  formats::DayPadding pad;
  // journalctl (%b %d) and syslog (%b %e) paddings, with a month that is padded itself.
  for (std::string_view s : {" 3\xE6\x9C\x88 13 18:33:21 host kernel: x", " 3\xE6\x9C\x88 03 18:33:21 host kernel: x",
                             " 3\xE6\x9C\x88  3 18:33:21 host kernel: x", "Thg 3 13 18:33:21 host kernel: x",
                             "\xE0\xB4\xAE\xE0\xB4\xBE\xE0\xB5\xBC  3 18:33:21 host kernel: x"}) {
    ASSERT_TRUE(formats::parse_bsd_stamp(s, p, pad)) << s;
    EXPECT_EQ(p.civil.month, 3u) << s;
    EXPECT_EQ(p.civil.hour, 18u) << s;
  }
}

}  // namespace
}  // namespace gpucost
