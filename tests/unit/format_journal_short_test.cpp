// journalctl's short family: every short-* stamp, markers and boots, `systemctl status` blocks,
// wrapped and prefix-cut lines, and the real samples (expected values read off the files by hand).
#include <gtest/gtest.h>

#include <cctype>

#include "gpucost/ingest/detect.hpp"
#include "kernel_fixture.hpp"

namespace gpucost::testing {
namespace {

Parsed journal(std::string_view data) { return parse_text(data, "journal.txt", FormatId::journal_short); }

TEST(JournalShort, ShortIso) {
  const auto p = journal("2026-11-29T19:50:45+0100 gpu-box systemd-logind[812]: Lid closed.\n");
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, EventKind::lid_close);
  EXPECT_EQ(ev[0].wall_kind, WallKind::kUtc);
  EXPECT_EQ(ev[0].wall_raw_ns, civil_to_ns(CivilTime{2026, 11, 29, 18, 50, 45, 0}));
  EXPECT_EQ(ev[0].ident, "systemd-logind");
  EXPECT_EQ(ev[0].pid, 812);
  ASSERT_EQ(p.out.zone_evidence.size(), 1u);
  EXPECT_EQ(p.out.zone_evidence[0].offset_ns, kNsPerHour);
}

TEST(JournalShort, ShortIsoPrecise) {
  const auto p = journal("2026-11-29T19:50:45.123456-05:00 gpu-box systemd-logind[812]: Lid opened.\n");
  ASSERT_EQ(p.events().size(), 1u);
  EXPECT_EQ(p.events()[0].wall_raw_ns, civil_to_ns(CivilTime{2026, 11, 30, 0, 50, 45, 123456000}));
  EXPECT_EQ(p.out.zone_evidence.at(0).offset_ns, -5 * kNsPerHour);
}

TEST(JournalShort, ShortPrecise) {
  const auto p = journal("Nov 29 19:50:45.123456 gpu-box systemd-sleep[4242]: Entering sleep state 'suspend'...\n");
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, EventKind::suspend);
  EXPECT_EQ(ev[0].wall_kind, WallKind::kLocalNoYear);
  EXPECT_EQ(ev[0].wall_raw_ns, no_year(11, 29, 19, 50, 45, 2000, 123456000));
}

TEST(JournalShort, ShortMonotonic) {
  const auto p = journal(
      "[ 4909.922970] gpu-box kernel: PM: suspend exit\n"
      "[ 4910.000001] gpu-box systemd-sleep[4242]: System returned from sleep state.\n");
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].mono_ns, mono(4909, 922970));
  EXPECT_EQ(ev[0].wall_kind, WallKind::kNone);
  EXPECT_EQ(ev[0].ident, "kernel");
  EXPECT_EQ(ev[0].text, "PM: suspend exit");
  EXPECT_EQ(ev[1].kind, EventKind::resume);
  EXPECT_EQ(ev[1].ident, "systemd-sleep");
}

TEST(JournalShort, ShortUnix) {
  const auto p = journal("1764445845.123456 gpu-box systemd-sleep[4242]: System returned from sleep state.\n");
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].wall_kind, WallKind::kUtc);
  EXPECT_EQ(ev[0].wall_raw_ns, 1764445845123456000);
}

TEST(JournalShort, ShortFullZoneAbbreviationIsLocal) {
  const auto p = journal(
      "Sun 2026-11-29 19:50:45 CET gpu-box systemd-logind[812]: Lid opened.\n"
      "Sun 2026-11-29 19:50:46 UTC gpu-box systemd-logind[812]: Lid closed.\n"
      "Sun 2026-11-29 19:50:47 +03 gpu-box systemd-logind[812]: Lid opened.\n");
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 3u);
  EXPECT_EQ(ev[0].wall_kind, WallKind::kLocal);
  EXPECT_EQ(ev[0].wall_raw_ns, civil_to_ns(CivilTime{2026, 11, 29, 19, 50, 45, 0}));
  EXPECT_EQ(ev[1].wall_kind, WallKind::kUtc);
  EXPECT_EQ(ev[1].wall_raw_ns, civil_to_ns(CivilTime{2026, 11, 29, 19, 50, 46, 0}));
  EXPECT_EQ(ev[2].wall_kind, WallKind::kUtc);
  EXPECT_EQ(ev[2].wall_raw_ns, civil_to_ns(CivilTime{2026, 11, 29, 16, 50, 47, 0}));
  ASSERT_EQ(p.file().notes.size(), 1u);
  EXPECT_NE(p.file().notes[0].find("CET"), std::string::npos);
}

TEST(JournalShort, BootMarkerStartsABootAtTheNextEntry) {
  const auto p = journal(
      "-- Logs begin at Sat 2015-02-14 17:45:21 PST, end at Mon 2015-08-17 17:40:51 PDT. --\n"
      "-- Boot 6a3e2b0ac9a44b3e8b11c0d8c7e8a7b2 --\n"
      "Aug 17 17:25:43 gurney systemd-logind[675]: Lid closed.\n"
      "-- Boot 0123456789abcdef0123456789abcdef --\n"
      "Aug 17 18:00:00 gurney systemd-logind[675]: Lid opened.\n"
      "-- Reboot --\n"
      "Aug 17 19:00:00 gurney kernel: Linux version 6.1.0 (debian-kernel@lists.debian.org)\n"
      "-- No entries --\n");
  EXPECT_EQ(p.file().accepted, 8u);
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 4u);
  // The first marker opens the file: it names the boot but starts none.
  EXPECT_EQ(ev[0].kind, EventKind::lid_close);
  EXPECT_EQ(ev[0].boot_seq, 0);
  EXPECT_EQ(ev[0].boot_id, "6a3e2b0ac9a44b3e8b11c0d8c7e8a7b2");
  EXPECT_EQ(ev[1].kind, EventKind::boot);
  EXPECT_EQ(ev[1].line, 4);
  EXPECT_EQ(ev[1].text, "-- Boot 0123456789abcdef0123456789abcdef --");
  EXPECT_EQ(ev[1].wall_raw_ns, no_year(8, 17, 18, 0, 0));  // the next entry's time
  EXPECT_EQ(ev[1].boot_seq, 1);
  EXPECT_EQ(ev[1].boot_id, "0123456789abcdef0123456789abcdef");
  EXPECT_EQ(ev[1].ident, "");
  EXPECT_EQ(ev[2].kind, EventKind::lid_open);
  EXPECT_EQ(ev[2].boot_seq, 1);
  EXPECT_EQ(ev[2].boot_id, "0123456789abcdef0123456789abcdef");
  // `-- Reboot --` followed by the kernel's own first message: one boot event, the kernel's.
  EXPECT_EQ(ev[3].kind, EventKind::boot);
  EXPECT_EQ(ev[3].line, 7);
  EXPECT_EQ(ev[3].boot_seq, 2);
  EXPECT_EQ(ev[3].boot_id, "");
}

TEST(JournalShort, BootMarkerAtTheEndIsKeptWithoutTime) {
  const auto p = journal(
      "Aug 17 17:25:43 gurney systemd-logind[675]: Lid closed.\n"
      "-- Reboot --\n");
  const auto ev = p.events(EventKind::boot);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].wall_kind, WallKind::kNone);
  EXPECT_TRUE(ev[0].flags & kFlagApproxTime);
  EXPECT_EQ(ev[0].line, 2);
}

TEST(JournalShort, SystemctlStatusBlockIsStructure) {
  const auto p = journal(
      "\xE2\x97\x8F docker.service - Docker Application Container Engine\n"
      "     Loaded: loaded (/lib/systemd/system/docker.service; enabled; vendor preset: enabled)\n"
      "     Active: active (running) since Mon 2023-03-06 09:12:01 CET; 2h ago\n"
      "TriggeredBy: \xE2\x97\x8F docker.socket\n"
      "       Docs: https://docs.docker.com\n"
      "   Main PID: 1234 (dockerd)\n"
      "      Tasks: 23\n"
      "     Memory: 81.2M\n"
      "        CPU: 3.201s\n"
      "     CGroup: /system.slice/docker.service\n"
      "             \xE2\x94\x94\xE2\x94\x80" "1234 /usr/bin/dockerd -H fd://\n"
      "\n"
      "Mar 06 09:12:01 box systemd[1]: Started Docker Application Container Engine.\n"
      "Hint: Some lines were ellipsized, use -l to show in full.\n");
  // `TriggeredBy:` is not indented in this layout; everything else is structure or an entry.
  EXPECT_EQ(p.file().accepted + p.file().continuations, 13u);
  EXPECT_TRUE(p.events().empty());
}

TEST(JournalShort, StatusBlockWithoutItsHeaderAndKeyWordsInContinuations) {
  const auto p = journal(
      "     Loaded: loaded (/usr/lib/systemd/system/nvidia-powerd.service; disabled; preset: enabled)\n"
      "     Active: failed (Result: exit-code) since Mon 2022-10-17 13:18:00 IST; 13s ago\n"
      "     Status: \"exited\"\n"
      "\n"
      "Oct 17 13:18:00 rog kernel: NVRM: GPU0 vaspaceapiConstruct_IMPL: Could not construct VA space.\n"
      "                            Status: 62\n");
  EXPECT_EQ(p.file().accepted, 4u);
  EXPECT_EQ(p.file().continuations, 1u);  // `Status:` outside a status block continues the message
}

TEST(JournalShort, WrappedLinesContinueAndCutPrefixesAreApproximate) {
  const auto p = journal(
      "NVRM: Xid (PCI:0000:01:00): 13, pid=4242, name=python3, Graphics SM Warp Exception on (GPC 0, TPC 0, SM 0)\n"
      "May 27 16:50:10 fedora kernel: NVRM: GPU 0000:09:00.0: rm_init_adapter failed, device minor\n"
      "number 0\n"
      " kernel: NVRM: Xid (PCI:0000:09:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n");
  EXPECT_EQ(p.file().accepted, 3u);
  EXPECT_EQ(p.file().continuations, 1u);
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 3u);
  EXPECT_EQ(ev[0].kind, EventKind::xid);
  EXPECT_EQ(ev[0].wall_kind, WallKind::kNone);  // nothing before it to borrow from
  EXPECT_EQ(ev[0].flags, kFlagApproxTime);
  EXPECT_EQ(ev[0].ident, "kernel");
  EXPECT_EQ(ev[1].kind, EventKind::rm_init_failed);
  EXPECT_EQ(ev[1].text, "NVRM: GPU 0000:09:00.0: rm_init_adapter failed, device minor\nnumber 0");
  EXPECT_EQ(ev[2].kind, EventKind::xid);
  EXPECT_EQ(ev[2].code, 79);
  EXPECT_EQ(ev[2].pid, INT64_MIN);
  EXPECT_EQ(ev[2].process, "");
  EXPECT_EQ(ev[2].wall_raw_ns, no_year(5, 27, 16, 50, 10));  // borrowed from line 2
  EXPECT_TRUE(ev[2].flags & kFlagApproxTime);
  EXPECT_EQ(ev[2].text, "NVRM: Xid (PCI:0000:09:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.");
}

TEST(JournalShort, HostAndIdentWithoutStamp) {
  const auto p = journal("fedora kernel: NVRM: GPU 0000:09:00.0: rm_init_adapter failed, device minor number 0\n");
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].ident, "kernel");
  EXPECT_EQ(ev[0].text, "NVRM: GPU 0000:09:00.0: rm_init_adapter failed, device minor number 0");
}

TEST(JournalShort, EmptyKernelMessage) {
  const auto p = journal("May 27 16:50:10 fedora kernel: \nMay 27 16:50:11 fedora kernel:\n");
  EXPECT_EQ(p.file().accepted, 2u);
  EXPECT_TRUE(p.events().empty());
}

// ---- detection --------------------------------------------------------------------------------

TEST(JournalShortDetection, JournalOnlyLayoutsWin) {
  EXPECT_EQ(parse_text("-- Logs begin at Sat 2015-02-14 17:45:21 PST. --\nAug 17 17:25:43 gurney systemd[1]: Started.\n",
                       "x.log")
                .format(),
            FormatId::journal_short);
  EXPECT_EQ(parse_text("1764445845.123456 gpu-box systemd[1]: Started.\n", "x.log").format(), FormatId::journal_short);
  EXPECT_EQ(parse_text("Sun 2026-11-29 19:50:45 CET gpu-box systemd[1]: Started.\n", "x.log").format(),
            FormatId::journal_short);
}

// ---- the real samples -------------------------------------------------------------------------

struct SampleCase {
  const char* file;
  std::uint64_t lines, blank, accepted;
};

class JournalSample : public ::testing::TestWithParam<SampleCase> {};

TEST_P(JournalSample, DetectedAndFullyUnderstood) {
  const SampleCase c = GetParam();
  const auto p = parse_data_file(std::string("real/") + c.file, c.file);
  EXPECT_EQ(p.format(), FormatId::journal_short);
  EXPECT_EQ(p.file().lines, c.lines);
  EXPECT_EQ(p.file().blank, c.blank);
  EXPECT_EQ(p.file().accepted, c.accepted);
  EXPECT_EQ(p.file().continuations, 0u);
  EXPECT_GE(p.understood(), 0.99);
  EXPECT_EQ(p.file().rejected(), 0u);
}

INSTANTIATE_TEST_SUITE_P(
    Real, JournalSample,
    ::testing::Values(SampleCase{"kern/xid31-journalctl-k-driver450.txt", 3, 0, 3},
                      SampleCase{"kern/xid31-journal-steam-single.txt", 1, 0, 1},
                      SampleCase{"kern/xid120-gsp-crashcat-journal-575.txt", 11, 0, 11},
                      SampleCase{"kern/nvassert-fullchip-reset-fedora-journal.txt", 9, 0, 9},
                      SampleCase{"kern/rminitadapter-failed-fedora-journal-595.txt", 9, 0, 9},
                      SampleCase{"kern/taint-modeset-fedora-journal-595.txt", 3, 0, 3},
                      SampleCase{"kern/aer-journal-locale-jan-dot.txt", 4, 0, 4},
                      SampleCase{"journal/docker-dockerd-logfmt-journal-jetson.txt", 3, 0, 3},
                      SampleCase{"journal/docker-systemctl-status-failed-nvidia-runtime.txt", 12, 1, 11},
                      SampleCase{"journal/logind-buttons-lidswitch-nixos.txt", 8, 0, 8},
                      SampleCase{"journal/nvidia-persistenced-journal-signal15.txt", 11, 0, 11},
                      SampleCase{"journal/nvidia-powerd-systemctl-status-amd-laptop.txt", 11, 1, 10}),
    sample_name<SampleCase>);

TEST(JournalShortReal, XidWithPidNoName) {
  const auto p = parse_data_file("real/kern/xid31-journalctl-k-driver450.txt");
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 2u);
  for (const auto& e : ev) {
    EXPECT_EQ(e.kind, EventKind::xid);
    EXPECT_EQ(e.code, 31);
    EXPECT_EQ(e.gpu, "0000:c1:00");
    EXPECT_EQ(e.pid, 12890);
    EXPECT_EQ(e.process, "");
    EXPECT_EQ(e.wall_raw_ns, no_year(11, 29, 11, 28, 11));
    EXPECT_EQ(e.mono_ns, kNoTime);
  }
  EXPECT_EQ(ev[0].line, 2);
  EXPECT_EQ(ev[1].line, 3);
}

TEST(JournalShortReal, XidOldFormSingleLine) {
  const auto p = parse_data_file("real/kern/xid31-journal-steam-single.txt");
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].code, 31);
  EXPECT_EQ(ev[0].gpu, "0000:01:00");
  EXPECT_EQ(ev[0].pid, INT64_MIN);
  EXPECT_EQ(ev[0].wall_raw_ns, no_year(5, 2, 16, 8, 39));
}

TEST(JournalShortReal, GspCrashCatThenXid120) {
  const auto p = parse_data_file("real/kern/xid120-gsp-crashcat-journal-575.txt");
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 3u);
  EXPECT_EQ(ev[0].kind, EventKind::driver_load);
  EXPECT_EQ(ev[0].line, 2);
  EXPECT_EQ(ev[1].kind, EventKind::gsp_error);
  EXPECT_EQ(ev[1].line, 6);
  EXPECT_EQ(ev[2].kind, EventKind::xid);
  EXPECT_EQ(ev[2].line, 8);
  EXPECT_EQ(ev[2].code, 120);
  EXPECT_EQ(ev[2].gpu, "0000:02:00");
  EXPECT_EQ(ev[2].wall_raw_ns, no_year(4, 19, 13, 16, 41));
  // Messages indented after `NVRM:` keep their blanks.
  EXPECT_EQ(p.file().accepted, 11u);
}

TEST(JournalShortReal, AssertBurst) {
  const auto p = parse_data_file("real/kern/nvassert-fullchip-reset-fedora-journal.txt");
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 8u);  // every line but `vaspaceapiConstruct_IMPL: Could not construct VA space`
  for (const auto& e : ev) EXPECT_EQ(e.kind, EventKind::nv_assert);
  EXPECT_EQ(ev[4].line, 6);
}

TEST(JournalShortReal, RmInitAdapterOneEventPerAttempt) {
  const auto p = parse_data_file("real/kern/rminitadapter-failed-fedora-journal-595.txt");
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 3u);  // three `rm_init_adapter failed` lines close three attempts
  const std::int64_t lines[] = {1, 5, 9};
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(ev[i].kind, EventKind::rm_init_failed);
    EXPECT_EQ(ev[i].line, lines[i]);
    EXPECT_EQ(ev[i].gpu, "0000:09:00");
    EXPECT_EQ(ev[i].wall_raw_ns, no_year(5, 27, 16, 50, 10));
  }
}

TEST(JournalShortReal, AssertAndDrmFlipTimeout) {
  const auto p = parse_data_file("real/kern/taint-modeset-fedora-journal-595.txt");
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].kind, EventKind::nv_assert);
  EXPECT_EQ(ev[0].wall_raw_ns, no_year(5, 27, 14, 30, 40));
  EXPECT_EQ(ev[1].kind, EventKind::driver_error);
  EXPECT_EQ(ev[1].line, 3);
  EXPECT_EQ(ev[1].wall_raw_ns, no_year(5, 27, 14, 31, 1));
}

TEST(JournalShortReal, AerWithDottedMonth) {
  const auto p = parse_data_file("real/kern/aer-journal-locale-jan-dot.txt");
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, EventKind::pcie_aer);
  EXPECT_EQ(ev[0].code, 0);  // severity=Corrected
  EXPECT_EQ(ev[0].gpu, "0000:00:1c");
  EXPECT_EQ(ev[0].line, 2);
  EXPECT_EQ(ev[0].wall_raw_ns, no_year(1, 29, 20, 50, 17));
}

TEST(JournalShortReal, DockerFailureAfterStatusBlock) {
  const auto p = parse_data_file("real/journal/docker-systemctl-status-failed-nvidia-runtime.txt");
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 1u);  // `Failed to start` and `Unit entered failed state` accompany it
  EXPECT_EQ(ev[0].kind, EventKind::service_failed);
  EXPECT_EQ(ev[0].line, 12);
  EXPECT_EQ(ev[0].process, "docker.service");
  EXPECT_EQ(ev[0].ident, "systemd");
  EXPECT_EQ(ev[0].pid, 1);
  EXPECT_EQ(ev[0].wall_raw_ns, no_year(3, 5, 17, 55, 44));
}

TEST(JournalShortReal, PersistencedStart) {
  const auto p = parse_data_file("real/journal/nvidia-persistenced-journal-signal15.txt");
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, EventKind::service_restart);
  EXPECT_EQ(ev[0].line, 4);
  EXPECT_EQ(ev[0].pid, 19176);
  EXPECT_EQ(ev[0].wall_raw_ns, no_year(5, 31, 5, 33, 40));
}

TEST(JournalShortReal, PowerdStartWithPathIdent) {
  const auto p = parse_data_file("real/journal/nvidia-powerd-systemctl-status-amd-laptop.txt");
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, EventKind::service_restart);
  EXPECT_EQ(ev[0].line, 9);
  EXPECT_EQ(ev[0].ident, "/usr/bin/nvidia-powerd");
  EXPECT_EQ(ev[0].pid, 10710);
}

TEST(JournalShortReal, NoEventsInDaemonStartupNoise) {
  EXPECT_TRUE(parse_data_file("real/journal/docker-dockerd-logfmt-journal-jetson.txt").events().empty());
  EXPECT_TRUE(parse_data_file("real/journal/logind-buttons-lidswitch-nixos.txt").events().empty());
}

}  // namespace
}  // namespace gpucost::testing
