// acpid's own log (/var/log/acpid): each `received event` line is one ACPI event (AC, lid);
// what acpid did with it (`completed`, `executing action`, the handler's output) is no second one.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "gpucost/ingest/ingest.hpp"

namespace gpucost {
namespace {

std::string read_data(const std::string& rel) {
  std::ifstream in(std::string(GPUCOST_TEST_DATA) + "/" + rel, std::ios::binary);
  EXPECT_TRUE(in.good()) << rel;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Parsed {
  IngestResult out;
  Diagnostics diag;
  const FileDiagnostics& file() const { return diag.files.at(0); }
  std::uint64_t nonblank() const { return file().lines - file().blank; }
  EventKind kind(std::size_t r) const {
    return static_cast<EventKind>(out.events.column(event_col::kind).get_int(r));
  }
};

Parsed parse_text(const std::string& text, const std::string& name) {
  Parsed p;
  IngestStage(IngestOptions{}).run_buffer(text, name, FormatId::unknown, p.out, p.diag);
  return p;
}

TEST(AcpidFormat, TheReceivedLinesOfAnAcUnplugAreItsEvents) {
  const Parsed p = parse_text(read_data("kernel/acpid-log-ac-battery-hotkey-2006.txt"), "acpid");
  EXPECT_EQ(format_name(p.file().format), "acpid");
  EXPECT_EQ(p.file().rejected(), 0u);
  EXPECT_EQ(p.file().accepted, p.nonblank());
  // `ac_adapter AC0 00000080 00000001` (on AC), then `... 00000000` (on battery), in one second;
  // the `completed event` and `executing action` lines name them again and are no events.
  ASSERT_EQ(p.out.events.rows(), 2u);
  EXPECT_EQ(p.kind(0), EventKind::ac_online);
  EXPECT_EQ(p.kind(1), EventKind::ac_offline);
  const Table& e = p.out.events;
  EXPECT_EQ(e.column(event_col::line).get_int(0), 1);
  EXPECT_EQ(e.column(event_col::line).get_int(1), 18);
  EXPECT_EQ(e.column(event_col::ident).get_string(1), "acpid");
  EXPECT_EQ(e.column(event_col::text).get_string(1), "received event \"ac_adapter AC0 00000080 00000000\"");
  EXPECT_EQ(e.column(event_col::wall_kind).get_int(1), static_cast<int>(WallKind::kLocal));
  EXPECT_EQ(e.column(event_col::wall_raw_ns).get_int(1), civil_to_ns(CivilTime{2006, 8, 31, 2, 38, 11, 0}));
}

TEST(AcpidFormat, HandlerOutputIsPartOfTheLogAndOldLidEventsSayNoState) {
  const Parsed p = parse_text(read_data("kernel/acpid-log-lid-handler-output-2006.txt"), "acpid.log");
  EXPECT_EQ(format_name(p.file().format), "acpid");
  EXPECT_EQ(p.file().rejected(), 0u);
  // 35 lines of dhclient and module messages a handler printed, without acpid's stamp.
  EXPECT_EQ(p.file().continuations, 35u);
  EXPECT_EQ(p.file().accepted + p.file().continuations, p.nonblank());
  // `button/lid LID 00000080 00000001` counts lid events without saying open or closed: no
  // lid_close is made up; the AC unplug is the file's one event.
  ASSERT_EQ(p.out.events.rows(), 1u);
  EXPECT_EQ(p.kind(0), EventKind::ac_offline);
  EXPECT_EQ(p.out.events.column(event_col::line).get_int(0), 28);
}

// dmesg -T prints the same `[ctime]` bracket: a kernel log stays a kernel log.
TEST(AcpidFormat, DmesgWithCtimeStampsIsNotAcpid) {
  const Parsed p = parse_text(
      "[Sun Nov 29 19:50:45 2026] ACPI: AC: AC Adapter [ADP1] (off-line)\n"
      "[Sun Nov 29 19:50:46 2026] NVRM: Xid (PCI:0000:01:00): 79, pid=1234, GPU has fallen off the bus.\n",
      "dmesg-T.txt");
  EXPECT_EQ(format_name(p.file().format), "dmesg");
}

}  // namespace
}  // namespace gpucost
