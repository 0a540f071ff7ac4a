// The plain-layout journal reader (journal_plain.hpp) may only ever accept a line that the
// general simdjson reader accepts too, and must then read the same fields. Checked on real
// journal lines (both layouts journalctl has printed), on the example's journal, on lines made
// to sit at the edges of the layout, and on many random mutations of them. The reader must also
// take most plain lines, or it would save nothing: that is checked as well.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "ingest/formats/journal_json_reader.hpp"
#include "ingest/formats/journal_plain.hpp"
#include "structured_test_util.hpp"

namespace gpucost::formats {
namespace {

using Field = std::optional<std::string_view> JournalEntry::*;
constexpr Field kFields[] = {&JournalEntry::realtime,          &JournalEntry::monotonic, &JournalEntry::source_monotonic,
                             &JournalEntry::boot_id,           &JournalEntry::transport, &JournalEntry::syslog_identifier,
                             &JournalEntry::comm,              &JournalEntry::pid,       &JournalEntry::syslog_pid,
                             &JournalEntry::message};

std::string describe(const JournalEntry& e) {
  std::string s;
  for (Field f : kFields) {
    if (e.*f) s.append("\"").append(*(e.*f)).append("\" ");
    else s.append("null ");
  }
  return s.append(e.message_omitted ? "omitted" : "");
}

/// Checks the promise on one line; true when the plain reader took it.
bool check_line(JournalJsonReader& general, std::string_view line) {
  JournalEntry plain, full;
  std::string why;
  if (!read_plain_journal_line(line, plain)) return false;
  const bool ok = general.read_general(line, full, why);
  EXPECT_TRUE(ok) << "plain reader took a line simdjson rejects (" << why << "): " << line;
  if (ok) {
    EXPECT_EQ(describe(plain), describe(full)) << line;
  }
  return true;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    if (nl > pos) out.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return out;
}

std::vector<std::string> seed_lines() {
  std::vector<std::string> seeds = lines_of(testing::read_test_file("real/journal/json-kernel-transport-ext4-oneline.txt"));
  std::ifstream in(std::string(GPUCOST_SOURCE_DIR) + "/examples/laptop-training/journal.json");
  std::string line;
  for (int i = 0; std::getline(in, line) && i < 200; ++i) seeds.push_back(line);
  return seeds;
}

TEST(JournalPlain, TakesThePlainLinesOfRealAndGeneratedJournals) {
  JournalJsonReader general;
  const auto seeds = seed_lines();
  ASSERT_GT(seeds.size(), 100u);
  std::size_t taken = 0, escaped = 0;
  for (const auto& l : seeds) {
    if (check_line(general, l)) ++taken;
    else escaped += l.find('\\') != std::string::npos;
  }
  // Every line without an escape is in the plain layout, the spaced real one included.
  EXPECT_EQ(taken + escaped, seeds.size());
  EXPECT_GT(taken, seeds.size() / 2);
  JournalEntry e;
  ASSERT_TRUE(read_plain_journal_line(seeds.front(), e));  // `{ "__CURSOR" : "s=...", ... }`
  EXPECT_EQ(e.realtime.value_or(""), "1599541804928338");
  EXPECT_EQ(e.transport.value_or(""), "kernel");
}

TEST(JournalPlain, LeavesEveryOtherShapeToTheGeneralReader) {
  for (std::string_view l : {
           R"({})", R"({ })", R"({"MESSAGE":"a \"quoted\" word"})", R"({"MESSAGE":null})",
           R"({"MESSAGE":[104,105]})", R"({"_PID":1234})", "{\"MESSAGE\":\"tab\there\"}", R"({"MESSAGE":"x",})",
           R"({"MESSAGE":"x"} )", R"( {"MESSAGE":"x"})", R"({"MESSAGE""x"})", R"({"MESSAGE":"x""_PID":"1"})",
           R"({"MESSAGE":"x":"y"})", R"({"MESSAGE"})", R"({"MESSAGE":})", R"({"MESSAGE":"x")", R"(["MESSAGE","x"])",
           "{\"MESSAGE\":\"\xff\xfe\"}", "{\"MESSAGE\":\"\xc3\"}", R"({,"MESSAGE":"x"})", R"({"MESSAGE":"x",,"A":"b"})",
       }) {
    JournalEntry e;
    EXPECT_FALSE(read_plain_journal_line(l, e)) << l;
  }
}

TEST(JournalPlain, ReadsTheFieldsLikeSimdjsonAtTheEdgesOfTheLayout) {
  JournalJsonReader general;
  for (std::string_view l : {
           R"({"MESSAGE":""})", R"({"":""})", R"({"MESSAGE":"first","MESSAGE":"second"})",
           R"({  "MESSAGE"  :  "spaced"  ,  "_PID"  :  "7"  })", "{\"MESSAGE\":\"caf\xc3\xa9 \xe2\x82\xac\"}",
           "{\"MESSAGE\":\"del \x7f byte\"}", R"({"__REALTIME_TIMESTAMP":"1","__MONOTONIC_TIMESTAMP":"2","_BOOT_ID":"b"})",
       })
    EXPECT_TRUE(check_line(general, l)) << l;
  JournalEntry e;
  ASSERT_TRUE(read_plain_journal_line(R"({"MESSAGE":"first","MESSAGE":"second"})", e));
  EXPECT_EQ(e.message.value_or(""), "second");  // the last value, as the general reader reads it
}

TEST(JournalPlain, AgreesWithSimdjsonOnMutatedLines) {
  JournalJsonReader general;
  const auto seeds = seed_lines();
  std::mt19937 rng(11);
  const std::string bytes = "\"\\:,{} \t\x01\xff\xc3\xa9" "a0[]n";
  std::size_t taken = 0;
  for (int round = 0; round < 30000; ++round) {
    std::string l = seeds[rng() % seeds.size()];
    for (int m = 0, edits = 1 + static_cast<int>(rng() % 3); m < edits && !l.empty(); ++m) {
      const std::size_t at = rng() % l.size();
      switch (rng() % 3) {
        case 0: l[at] = bytes[rng() % bytes.size()]; break;
        case 1: l.erase(at, 1 + rng() % 4); break;
        default: l.insert(at, 1, bytes[rng() % bytes.size()]); break;
      }
    }
    taken += check_line(general, l);
    if (::testing::Test::HasFailure()) FAIL() << "round " << round;
  }
  EXPECT_GT(taken, 1000u);  // mutations in a message's text keep the line plain
}

}  // namespace
}  // namespace gpucost::formats
