// The zone of local-time stamps: --tz, RFC 3339 offsets, matched messages, manifest, system.
#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>

#include "align_fixtures.hpp"

namespace gpucost {
namespace {

using namespace test;

// A kern.log line in local time and a dmon row in local time: what the zone decides.
Input local_files() {
  Input b;
  const auto d = b.file("dmon.txt", FormatId::dmon);
  b.sample(d, 3, 0, WallKind::kLocal, at(2026, 11, 29, 19, 50, 45));
  return b;
}

class ScopedTz {
 public:
  explicit ScopedTz(const char* tz) {
    if (const char* old = std::getenv("TZ")) saved_ = old, had_ = true;
    ::setenv("TZ", tz, 1);
  }
  ~ScopedTz() {
    if (had_) ::setenv("TZ", saved_.c_str(), 1);
    else ::unsetenv("TZ");
  }

 private:
  std::string saved_;
  bool had_ = false;
};

TEST(AlignZone, TzOptionWinsOverEvidence) {
  Input b = local_files();
  const auto iso = b.file("kern-iso.log", FormatId::syslog);
  b.evidence(iso, 8 * kNsPerHour, 100);
  AlignOptions o;
  o.tz = "Asia/Tokyo";
  const Timeline t = align(b.in, o);
  EXPECT_EQ(t.zone_name, "Asia/Tokyo");
  EXPECT_EQ(ts_of(t.samples, 0), at(2026, 11, 29, 10, 50, 45));
}

TEST(AlignZone, BadTzIsAUsageError) {
  AlignOptions o;
  o.tz = "Mars/Olympus_Mons";
  EXPECT_THROW(AlignStage{o}, std::invalid_argument);
}

TEST(AlignZone, OffsetsPrintedByRfc3339Sources) {
  ScopedTz tz("UTC");
  Input b = local_files();
  const auto iso = b.file("syslog", FormatId::syslog);
  b.evidence(iso, 8 * kNsPerHour, 42);
  Diagnostics diag;
  const Timeline t = align(b.in, {}, &diag);
  EXPECT_EQ(t.zone_name, "+08:00");
  EXPECT_NE(t.zone_reason.find("RFC 3339"), std::string::npos);
  EXPECT_NE(t.zone_reason.find("42 lines"), std::string::npos);
  EXPECT_EQ(ts_of(t.samples, 0), at(2026, 11, 29, 11, 50, 45));
  ASSERT_FALSE(diag.notes.empty());
  EXPECT_NE(diag.notes.front().find("+08:00"), std::string::npos);
}

TEST(AlignZone, SeveralPrintedOffsetsAreTheManifestZonesDaylightSaving) {
  ScopedTz tz("UTC");
  Input b;
  const auto iso = b.file("syslog", FormatId::syslog);
  const auto d = b.file("dmon.txt", FormatId::dmon);
  b.evidence(iso, 1 * kNsPerHour, 10);
  b.evidence(iso, 2 * kNsPerHour, 30);
  Manifest m;
  m.timezone_name = "Europe/Berlin";
  m.start_ns = at(2026, 3, 20);
  m.end_ns = at(2026, 4, 5);
  b.in.manifest = m;
  b.sample(d, 3, 0, WallKind::kLocal, at(2026, 3, 25, 12, 0, 0));  // CET
  b.sample(d, 4, 0, WallKind::kLocal, at(2026, 4, 1, 12, 0, 0));   // CEST
  const Timeline t = align(b.in);
  EXPECT_EQ(t.zone_name, "Europe/Berlin");
  EXPECT_EQ(ts_of(t.samples, 0), at(2026, 3, 25, 11, 0, 0));
  EXPECT_EQ(ts_of(t.samples, 1), at(2026, 4, 1, 10, 0, 0));
}

TEST(AlignZone, OnePrintedOffsetOfTheManifestZoneKeepsItsDaylightSaving) {
  ScopedTz tz("UTC");
  Input b;
  const auto man = b.file("manifest.json", FormatId::manifest);
  const auto d = b.file("dmon.txt", FormatId::dmon);
  b.evidence(man, 1 * kNsPerHour, 1);  // collected in winter: +01:00
  Manifest m;
  m.timezone_name = "Europe/Berlin";
  m.start_ns = at(2026, 7, 1);
  m.end_ns = at(2026, 11, 29);
  b.in.manifest = m;
  b.sample(d, 3, 0, WallKind::kLocal, at(2026, 7, 1, 12, 0, 0));  // summer: +02:00
  const Timeline t = align(b.in);
  EXPECT_EQ(t.zone_name, "Europe/Berlin");
  EXPECT_EQ(ts_of(t.samples, 0), at(2026, 7, 1, 10, 0, 0));
}

TEST(AlignZone, SeveralPrintedOffsetsWithoutANamedZoneTakeTheMostPrinted) {
  ScopedTz tz("UTC");
  Input b = local_files();
  const auto iso = b.file("syslog", FormatId::syslog);
  b.evidence(iso, 1 * kNsPerHour, 10);
  b.evidence(iso, 2 * kNsPerHour, 30);
  const Timeline t = align(b.in);
  EXPECT_EQ(t.zone_name, "+02:00");
  EXPECT_NE(t.zone_reason.find("several offsets"), std::string::npos);
}

TEST(AlignZone, SameKernelMessageInUtcAndLocalSources) {
  ScopedTz tz("UTC");
  Input b;
  const auto kern = b.file("kern.log", FormatId::syslog, at(2026, 11, 30));
  const auto journal = b.file("journal.json", FormatId::journal_json);
  // kern.log: `Nov 29 19:50:45 host kernel: [ 1451.785035] NVRM: Xid ...` (+08:00, no year)
  b.event({.file = kern, .line = 10, .wall_kind = WallKind::kLocalNoYear, .wall = no_year(11, 29, 19, 50, 45),
           .mono = secs(1451.785035), .text = kXid31});
  // The journal received it 4 ms later, stamped in UTC.
  b.event({.file = journal, .line = 3, .wall_kind = WallKind::kUtc, .wall = at(2026, 11, 29, 11, 50, 45, 789'000'000),
           .mono = secs(1451.785035), .boot_id = "c4b33c96f240457abc130dcb73da2b24", .text = kXid31});
  const Timeline t = align(b.in);
  EXPECT_EQ(t.zone_name, "+08:00");
  EXPECT_NE(t.zone_reason.find("kern.log"), std::string::npos);
  EXPECT_NE(t.zone_reason.find("journal.json"), std::string::npos);
}

TEST(AlignZone, MessageWithoutMonotonicStampPairsOnlyWhenUnique) {
  ScopedTz tz("UTC");
  Input b;
  const auto kern = b.file("syslog", FormatId::syslog, at(2026, 11, 30));
  const auto journal = b.file("journal.json", FormatId::journal_json);
  // An acpid line (no kernel stamp) at -05:00 and its journal copy.
  b.event({.file = kern, .line = 4, .kind = EventKind::ac_online, .wall_kind = WallKind::kLocal,
           .wall = at(2026, 11, 29, 6, 50, 45), .text = kAcOnline});
  b.event({.file = journal, .line = 9, .kind = EventKind::ac_online, .wall_kind = WallKind::kUtc,
           .wall = at(2026, 11, 29, 11, 50, 45, 2'000'000), .text = kAcOnline});
  Timeline t = align(b.in);
  EXPECT_EQ(t.zone_name, "-05:00");
  // A second identical message in the local file: no longer a unique pair, no evidence.
  b.event({.file = kern, .line = 5, .kind = EventKind::ac_online, .wall_kind = WallKind::kLocal,
           .wall = at(2026, 11, 29, 8, 0, 0), .text = kAcOnline});
  t = align(b.in);
  EXPECT_EQ(t.zone_name, "UTC");
  EXPECT_NE(t.zone_reason.find("machine"), std::string::npos);
}

TEST(AlignZone, ManifestZone) {
  ScopedTz tz("UTC");
  Input b = local_files();
  Manifest m;
  m.timezone_name = "Asia/Kolkata";
  b.in.manifest = m;
  Timeline t = align(b.in);
  EXPECT_EQ(t.zone_name, "Asia/Kolkata");
  EXPECT_NE(t.zone_reason.find("manifest"), std::string::npos);
  EXPECT_EQ(ts_of(t.samples, 0), at(2026, 11, 29, 14, 20, 45));
  b.in.manifest->timezone_name.clear();
  b.in.manifest->utc_offset_ns = -(3 * kNsPerHour);
  t = align(b.in);
  EXPECT_EQ(t.zone_name, "-03:00");
}

TEST(AlignZone, MachineZoneLast) {
  ScopedTz tz("Asia/Tokyo");
  Input b = local_files();
  Diagnostics diag;
  const Timeline t = align(b.in, {}, &diag);
  EXPECT_EQ(t.zone_name, "Asia/Tokyo");
  EXPECT_NE(t.zone_reason.find("machine"), std::string::npos);
  EXPECT_EQ(ts_of(t.samples, 0), at(2026, 11, 29, 10, 50, 45));
  bool noted = false;
  for (const auto& n : diag.files.at(0).notes) noted = noted || n.find("Asia/Tokyo") != std::string::npos;
  EXPECT_TRUE(noted);
}

}  // namespace
}  // namespace gpucost
