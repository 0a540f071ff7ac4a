// SyslogPrefixCache reads every line as parse_syslog_line does: over the real samples of the
// syslog family, and over lines whose first bytes repeat the line before them while the bytes
// after those change in every way that could change how the prefix is read.
#include "ingest/formats/syslog_prefix.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace gpucost::formats {
namespace {

std::string describe(const SyslogLine& l) {
  std::ostringstream o;
  const CivilTime& c = l.stamp.civil;
  o << "form " << static_cast<int>(l.form) << " civil " << c.year << '-' << c.month << '-' << c.day << ' ' << c.hour
    << ':' << c.minute << ':' << c.second << '.' << c.nanos << " offset " << l.stamp.offset_ns << ' '
    << l.stamp.has_offset << l.stamp.offset_colon << " frac " << static_cast<int>(l.stamp.fraction_sep)
    << l.stamp.fraction_digits << " len " << l.stamp.length << " pad " << static_cast<int>(l.padding) << " unix "
    << l.unix_utc_ns << " mono " << l.mono_ns << ' ' << l.kernel_mono << " zone [" << l.zone << "] host [" << l.host
    << "] ident [" << l.ident << "] pid " << l.pid << " text [" << l.text << ']';
  return o.str();
}

// Every line through one cache, each compared with a fresh parse.
void expect_same_as_fresh(const std::vector<std::string>& lines) {
  SyslogPrefixCache cache;
  for (const std::string& line : lines) {
    std::string copy = line;  // the cache must not keep views into a line the reader overwrites
    SyslogLine fresh, cached;
    const bool ok_fresh = parse_syslog_line(line, fresh);
    const bool ok_cached = cache.parse(copy, cached);
    ASSERT_EQ(ok_cached, ok_fresh) << line;
    if (ok_fresh) {
      ASSERT_EQ(describe(cached), describe(fresh)) << line;
    }
  }
}

std::vector<std::string> lines_of(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::vector<std::string> out;
  std::string l;
  while (std::getline(in, l)) out.push_back(l);
  return out;
}

TEST(SyslogPrefixCache, ReadsTheRealSamplesAndTheExampleAsAFreshParse) {
  std::size_t lines = 0;
  for (const char* dir : {"kern", "syslog", "journal"})
    for (const auto& f : std::filesystem::directory_iterator(std::filesystem::path(GPUCOST_TEST_DATA) / "real" / dir)) {
      const auto l = lines_of(f.path());
      lines += l.size();
      expect_same_as_fresh(l);
    }
  // The bundled example's syslog files: many lines of one second from one host and ident.
  const auto example = std::filesystem::path(GPUCOST_TEST_DATA) / ".." / ".." / "examples" / "laptop-training";
  for (const char* name : {"kern.log", "kern.log.1", "syslog"}) {
    const auto l = lines_of(example / name);
    lines += l.size();
    expect_same_as_fresh(l);
  }
  EXPECT_GT(lines, 1000u);
}

TEST(SyslogPrefixCache, WhatFollowsARepeatedPrefixIsReadAfresh) {
  const std::vector<std::string> firsts = {
      "Nov 20 20:57:01 ml-laptop kernel: [39550.183129] nvidia-modeset: ERROR: GPU:0: Failed",
      "Nov 20 20:57:01 ml-laptop CRON[2211]: (root) CMD (true)",
      "Nov  2 20:57:01 ml-laptop systemd[1]: Started Session 3 of User x.",
      "Nov 20 20:57:01.123456 ml-laptop kernel: NVRM: Xid (PCI:0000:01:00): 79",
      "2026-11-20T20:57:01.123456+01:00 ml-laptop kernel: [ 1.000000] PM: suspend entry (deep)",
      "Nov 20 20:57:01 kernel: [ 2.000000] no host (journalctl --no-hostname)",
      "Nov 20 20:57:01 ml-laptop kernel: plain text",
  };
  // After each first line: the same prefix followed by bytes that would end the ident's token
  // elsewhere, no text at all, a tab, spaces, another kernel stamp or none, and a new second.
  std::vector<std::string> lines;
  for (const std::string& first : firsts) {
    const std::size_t colon = first.find(": ");
    ASSERT_NE(colon, std::string::npos);
    const std::string prefix = first.substr(0, colon + 2);
    const std::string bare = first.substr(0, colon + 1);
    for (const std::string& next :
         {prefix + "[39551.000001] another message", prefix + "plain", prefix + "[ bad stamp", prefix + " two spaces",
          prefix + "\ttab", prefix + "x", prefix, bare, bare + "X rest", bare + "\tafter a tab", prefix.substr(0, 5),
          std::string(), prefix + "[39552.5] short stamp", "Nov 21 00:00:00" + first.substr(15)}) {
      lines.push_back(first);
      lines.push_back(next);
      lines.push_back(next);
      lines.push_back(first);
    }
  }
  expect_same_as_fresh(lines);
}

// An ident's pid: up to nine plain digits read by text::digits, the rest as text::to_int reads it.
TEST(SyslogPrefix, IdentPids) {
  struct Case {
    std::string_view token;
    std::int64_t pid;  // INT64_MIN: no pid; 0 with ident "": not an ident (the token is the host)
    std::string_view ident;
  };
  for (const Case& c : {
           Case{"CRON[2211]:", 2211, "CRON"},
           Case{"systemd[1]:", 1, "systemd"},
           Case{"x[0]:", 0, "x"},
           Case{"x[000123]:", 123, "x"},
           Case{"x[999999999]:", 999999999, "x"},
           Case{"x[4294967296]:", 4294967296, "x"},
           Case{"x[123456789012345678]:", 123456789012345678, "x"},
           Case{"x[1234567890123456789]:", 1234567890123456789, "x"},
           Case{"x[+7]:", 7, "x"},
           Case{"x[-1]:", -1, "x"},
           Case{"kernel:", INT64_MIN, "kernel"},
           Case{"x[12a]:", 0, ""},
           Case{"x[]:", 0, ""},
           Case{"x[99999999999999999999]:", 0, ""},
       }) {
    const std::string line = "Nov 20 20:57:01 ml-laptop " + std::string(c.token) + " text";  // l's views point here
    SyslogLine l;
    ASSERT_TRUE(parse_syslog_line(line, l)) << c.token;
    EXPECT_EQ(l.ident, c.ident) << c.token;
    if (!c.ident.empty()) {
      EXPECT_EQ(l.pid, c.pid) << c.token;
    }
  }
}

// A line of the next second (only the clock's bytes differ from the cached prefix) has its stamp
// read again; any clock bytes that are no time, and any other byte that changes, read as a
// fresh parse reads them.
TEST(SyslogPrefixCache, TheNextSecondOfAPrefixReadsAsAFreshParse) {
  const std::vector<std::string> firsts = {
      "Nov 20 20:57:01 ml-laptop kernel: [39550.183129] nvidia-modeset: ERROR: GPU:0: Failed",
      "Nov  2 20:57:01 ml-laptop CRON[2211]: (root) CMD (true)",
      "Nov 02 20:57:01 ml-laptop systemd[1]: Started Session 3 of User x.",
      " 3月 13 20:57:01 ml-laptop kernel: [ 1.000000] ja_JP pads its month",
      "4月 13 20:57:01 ml-laptop kernel: a month that starts with a digit",
      "Thg 3 13 20:57:01 ml-laptop kernel: vi_VN writes its month in two words",
      "Nov 20 20:57:01.123456 ml-laptop kernel: NVRM: Xid (PCI:0000:01:00): 79",
      "Nov 20 20:57:01 kernel: [ 2.000000] no host (journalctl --no-hostname)",
  };
  const std::vector<std::string> clocks = {"20:57:02", "20:58:00", "21:00:00", "23:59:59", "00:00:00", "20:57:60",
                                           "25:61:61", "2a:57:01", "20:57:0x", "20 57 01", "20:57:01", "  :  :  ",
                                           "20:5:701", "99:99:99"};
  std::vector<std::string> lines;
  for (const std::string& first : firsts) {
    const std::size_t clock = first.find("20:57:01");
    ASSERT_NE(clock, std::string::npos);
    for (const std::string& c : clocks) {
      std::string next = first;
      next.replace(clock, 8, c);
      lines.push_back(first);
      lines.push_back(next);
      lines.push_back(next + " more text");
      std::string host = next;  // the next second, and another host
      host[clock + 9] = 'M';
      lines.push_back(host);
      std::string joined = next;  // the next second, and the host joined to the ident
      joined[first.find(' ', clock + 9)] = '_';
      lines.push_back(joined);
      std::string day = next;  // the next second, and another day
      day[clock - 2] = '2';
      lines.push_back(day);
      lines.push_back(next);
      lines.push_back(first);
    }
  }
  expect_same_as_fresh(lines);
}

}  // namespace
}  // namespace gpucost::formats
