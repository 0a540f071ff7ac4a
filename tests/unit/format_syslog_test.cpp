// kern.log / syslog / messages: BSD and RFC 3339 stamps, locales, year rollover, idents, the
// kernel's own stamp (anchors, boots), noise, detection against journalctl short, and the real
// samples (expected values read off the files by hand).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "gpucost/ingest/detect.hpp"
#include "gpucost/ingest/format.hpp"
#include "kernel_fixture.hpp"

namespace gpucost::testing {
namespace {

Parsed syslog(std::string_view data) { return parse_text(data, "kern.log", FormatId::syslog); }

int score(FormatId f, std::string_view line) { return find_format(f)->score(line); }

TEST(Syslog, ClassicStampWithSpacePaddedDay) {
  const auto p = syslog("Sep  9 07:05:01 bubz kernel: [  123.456789] PM: suspend entry (deep)\n");
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].wall_kind, WallKind::kLocalNoYear);
  EXPECT_EQ(ev[0].wall_raw_ns, no_year(9, 9, 7, 5, 1));
  EXPECT_EQ(ev[0].mono_ns, mono(123, 456789));
  EXPECT_EQ(ev[0].ident, "kernel");
  EXPECT_EQ(ev[0].text, "PM: suspend entry (deep)");
}

TEST(Syslog, MonthNamesInOtherLocales) {
  const auto p = syslog(
      "jan. 29 20:50:17 kevin kernel: PM: suspend exit\n"
      "фев 12 10:00:00 host kernel: PM: suspend exit\n"
      "Mär  3 10:00:00 host kernel: PM: suspend exit\n"
      "4月 05 10:00:00 host kernel: PM: suspend exit\n");
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 4u);
  EXPECT_EQ(ev[0].wall_raw_ns, no_year(1, 29, 20, 50, 17));
  EXPECT_EQ(ev[1].wall_raw_ns, no_year(2, 12, 10, 0, 0));
  EXPECT_EQ(ev[2].wall_raw_ns, no_year(3, 3, 10, 0, 0));
  EXPECT_EQ(ev[3].wall_raw_ns, no_year(4, 5, 10, 0, 0));
}

TEST(Syslog, YearRolloverAdvancesTheProvisionalYear) {
  const auto p = syslog(
      "Feb 29 08:00:00 h kernel: PM: suspend entry (deep)\n"   // 2000 is a leap year
      "Dec 31 23:59:59 h kernel: PM: suspend entry (deep)\n"
      "Jan  1 00:00:01 h kernel: PM: suspend exit\n"
      "Dec 31 23:59:58 h kernel: PM: suspend exit\n"           // a straggler of the old year
      "Jan  2 00:00:00 h kernel: PM: suspend exit\n");
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 5u);
  EXPECT_EQ(ev[0].wall_raw_ns, no_year(2, 29, 8, 0, 0));
  EXPECT_EQ(ev[1].wall_raw_ns, no_year(12, 31, 23, 59, 59));
  EXPECT_EQ(ev[2].wall_raw_ns, no_year(1, 1, 0, 0, 1, 2001));
  // Dec right after Jan is a line written late, not a year later; it does not make the next
  // January a second rollover either.
  EXPECT_EQ(ev[3].wall_raw_ns, no_year(12, 31, 23, 59, 58, 2000));
  EXPECT_EQ(ev[4].wall_raw_ns, no_year(1, 2, 0, 0, 0, 2001));
}

TEST(Syslog, SmallStepBackIsNoRollover) {
  const auto p = syslog(
      "Mar 10 08:00:00 h kernel: PM: suspend entry (deep)\n"
      "Feb 28 08:00:00 h kernel: PM: suspend exit\n");
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[1].wall_raw_ns, no_year(2, 28, 8, 0, 0));
}

TEST(Syslog, Rfc3339StampIsUtcAndEvidenceForTheZone) {
  const auto p = syslog(
      "2026-11-29T19:50:45.123456+01:00 gpu-box kernel: [ 4909.922970] PM: suspend entry (deep)\n"
      "2026-11-29T19:50:46.000001+01:00 gpu-box systemd-logind[812]: Lid closed.\n");
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].wall_kind, WallKind::kUtc);
  EXPECT_EQ(ev[0].wall_raw_ns, civil_to_ns(CivilTime{2026, 11, 29, 18, 50, 45, 123456000}));
  EXPECT_EQ(ev[0].mono_ns, mono(4909, 922970));
  EXPECT_EQ(ev[1].kind, EventKind::lid_close);
  EXPECT_EQ(ev[1].pid, 812);
  ASSERT_EQ(p.out.zone_evidence.size(), 1u);
  EXPECT_EQ(p.out.zone_evidence[0].offset_ns, kNsPerHour);
  EXPECT_EQ(p.out.zone_evidence[0].count, 2u);
  ASSERT_EQ(p.out.anchors.size(), 1u);
  EXPECT_EQ(p.out.anchors[0].precision_ns, kNsPerUs);
  EXPECT_EQ(p.out.anchors[0].wall_kind, WallKind::kUtc);
  EXPECT_EQ(p.out.anchors[0].mono_ns, mono(4909, 922970));
  EXPECT_EQ(p.out.anchors[0].line, 1u);
}

TEST(Syslog, IdentsOfEveryShape) {
  const auto p = syslog(
      "Oct 17 13:17:58 rog /usr/bin/nvidia-powerd[10710]: nvidia-powerd version:1.0(build 1)\n"
      "Jun 15 04:06:20 combo logrotate: ALERT exited abnormally with [1]\n"
      "Jun 14 15:16:01 combo sshd(pam_unix)[19939]: authentication failure; logname= uid=0\n"
      "Jun 14 15:16:02 combo kernel:\n"
      "Nov 29 19:50:45 kernel: PM: suspend exit\n"
      "Nov 29 19:50:46 combo -- MARK --\n");
  EXPECT_EQ(p.file().accepted, 6u);
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].kind, EventKind::service_restart);
  EXPECT_EQ(ev[0].ident, "/usr/bin/nvidia-powerd");
  EXPECT_EQ(ev[0].pid, 10710);
  EXPECT_EQ(ev[0].text, "nvidia-powerd version:1.0(build 1)");
  EXPECT_EQ(ev[1].kind, EventKind::resume);  // no host: `kernel:` right after the stamp
  EXPECT_EQ(ev[1].ident, "kernel");
  EXPECT_EQ(ev[1].line, 5);
}

TEST(Syslog, IdentWithParenthesesAndPidThroughAUserPattern) {
  const std::string pat = ::testing::TempDir() + "/sshd.patterns";
  {
    std::ofstream f(pat);
    f << "user\tsshd(pam_unix)\tauthentication failure\n";
  }
  const auto p = parse_text(read_test_file("real/syslog/loghub-linux-2k-head.log"), "syslog/loghub-linux-2k-head.log",
                            FormatId::unknown, pat);
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 50u);  // `grep -c 'sshd(pam_unix)\[[0-9]*\]: authentication failure'`
  EXPECT_EQ(ev[0].kind, EventKind::user);
  EXPECT_EQ(ev[0].ident, "sshd(pam_unix)");
  EXPECT_EQ(ev[0].pid, 19939);
  EXPECT_EQ(ev[0].line, 1);
  EXPECT_EQ(ev[0].wall_raw_ns, no_year(6, 14, 15, 16, 1));
  // Trailing blanks of the original are not part of the text.
  EXPECT_EQ(ev[0].text, "authentication failure; logname= uid=0 euid=0 tty=NODEVssh ruser= rhost=218.188.2.4");
}

TEST(Syslog, KernelLinesAreAnchorsAndStartBoots) {
  const auto p = syslog(
      "Nov 29 10:00:00 h kernel: [    0.000000] Linux version 6.1.0 (debian-kernel@lists.debian.org)\n"
      "Nov 29 10:00:05 h kernel: [    4.800000] PM: suspend entry (deep)\n"
      "Nov 29 12:00:00 h kernel: [    5.100000] PM: suspend exit\n"
      "Nov 29 13:00:00 h kernel: [    0.000000] Linux version 6.1.0 (debian-kernel@lists.debian.org)\n"
      "Nov 29 13:10:00 h kernel: [  600.000000] PM: suspend entry (deep)\n"
      "Nov 29 14:00:00 h kernel: [   30.000000] PM: suspend exit\n");
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 6u);
  const std::int64_t seq[] = {0, 0, 0, 1, 1, 2};
  for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(ev[i].boot_seq, seq[i]) << i;
  // Anchors: the resume moved the offset by ~2 h (kept), each boot starts anew.
  ASSERT_EQ(p.out.anchors.size(), 5u);
  EXPECT_EQ(p.out.anchors[0].mono_ns, 0);
  EXPECT_EQ(p.out.anchors[0].wall_raw_ns, no_year(11, 29, 10, 0, 0));
  EXPECT_EQ(p.out.anchors[0].precision_ns, kNsPerSec);
  EXPECT_EQ(p.out.anchors[0].wall_kind, WallKind::kLocalNoYear);
  EXPECT_EQ(p.out.anchors[1].line, 3u);  // line 2 says the same offset as line 1 within 1 s
  EXPECT_EQ(p.out.anchors[2].boot_seq, 1);
  EXPECT_EQ(p.out.anchors[4].boot_seq, 2);
}

// The anchors kept from many kernel lines are those the thinning rule of format.hpp keeps, line by
// line: the first of a boot or of a minute of monotonic time after the one offered before it, an
// offset moved by more than the stamp's second since the anchor kept last, a monotonic time before
// it. The lines drift, step the clock both ways, go back in monotonic time, cross minutes and
// reboot; most say the offset before them (the parser's shortcut for those must keep the same).
TEST(Syslog, AnchorsKeptAreThoseTheThinningRuleKeeps) {
  std::mt19937 rng(11);
  std::string text;
  struct Offered {
    std::int32_t seq;
    TimeNs mono, wall;
  };
  std::vector<Offered> offered;
  std::int32_t seq = 0;
  TimeNs mono = 0, offset_s = 36000;  // wall seconds since Nov 29 00:00 = mono seconds + offset_s
  for (int i = 0; i < 4000; ++i) {
    const unsigned r = rng() % 1000;
    bool reboot = false;
    if (r < 3 && i > 0) {
      reboot = true;
      ++seq;
      mono = 0;
      offset_s += 600;
    } else if (r < 13) {
      offset_s += static_cast<TimeNs>(rng() % 5) - 2;  // a clock step of up to 2 s either way
    } else if (r < 20 && mono > 3 * kNsPerSec) {
      mono -= 2 * kNsPerSec;  // an earlier line printed late
    }
    mono += static_cast<TimeNs>(rng() % 700) * kNsPerMs + (r % 2 ? 13 * kNsPerUs : 0);
    const TimeNs wall_s = mono / kNsPerSec + offset_s;
    text += fmt::format("Nov 29 {:02}:{:02}:{:02} h kernel: [{:5}.{:06}] {}\n", wall_s / 3600, wall_s / 60 % 60, wall_s % 60,
                        mono / kNsPerSec, mono % kNsPerSec / 1000,
                        reboot ? "Linux version 6.1.0 (debian-kernel@lists.debian.org)" : "usb 1-1: new device");
    offered.push_back({seq, mono / kNsPerUs * kNsPerUs, no_year(11, 29, 0, 0, 0) + wall_s * kNsPerSec});
  }
  ASSERT_LT(offered.back().wall, no_year(11, 30, 0, 0, 0));  // one day: no year to place
  std::vector<std::size_t> want;  // indices of the lines kept
  TimeNs kept_offset = 0, kept_mono = 0, offered_mono = 0;
  std::int32_t offered_seq = 0;
  for (std::size_t i = 0; i < offered.size(); ++i) {
    const Offered& a = offered[i];
    const TimeNs offset = a.wall - a.mono;
    const bool forced = i == 0 || a.seq != offered_seq || a.mono / kNsPerMin != offered_mono / kNsPerMin;
    const bool keep = forced || std::llabs(offset - kept_offset) > kNsPerSec || a.mono < kept_mono;
    offered_mono = a.mono;
    offered_seq = a.seq;
    if (!keep) continue;
    want.push_back(i);
    kept_offset = offset;
    kept_mono = a.mono;
  }
  const auto p = syslog(text);
  ASSERT_EQ(p.out.anchors.size(), want.size());
  for (std::size_t k = 0; k < want.size(); ++k) {
    const BootAnchor& got = p.out.anchors[k];
    ASSERT_EQ(got.line, want[k] + 1) << "anchor " << k;
    EXPECT_EQ(got.mono_ns, offered[want[k]].mono) << "anchor " << k;
    EXPECT_EQ(got.wall_raw_ns, offered[want[k]].wall) << "anchor " << k;
    EXPECT_EQ(got.boot_seq, offered[want[k]].seq) << "anchor " << k;
  }
  EXPECT_GT(want.size(), 40u);                   // steps, minutes and boots were kept
  EXPECT_LT(want.size(), offered.size() / 10);  // and the rest thinned
}

TEST(Syslog, KernelLineWithoutItsStampHasNoMonotonicTime) {
  const auto p = syslog("Nov 29 10:00:05 h kernel: PM: suspend entry (deep)\n");
  ASSERT_EQ(p.events().size(), 1u);
  EXPECT_EQ(p.events()[0].mono_ns, kNoTime);
  EXPECT_TRUE(p.out.anchors.empty());
}

TEST(Syslog, NoiseLinesProduceNoEventsButCronIsCounted) {
  const auto p = syslog(
      "Nov 29 10:00:01 h CRON[4242]: (root) CMD (command -v debian-sa1 > /dev/null && debian-sa1 1 1)\n"
      "Nov 29 10:00:02 h sshd[991]: Accepted publickey for alice from 10.0.0.2 port 50122 ssh2\n"
      "Nov 29 10:00:03 h systemd[1]: Started Session 12 of user alice.\n"
      "Nov 29 10:00:04 h kernel: [ 100.000000] usb 1-1: new high-speed USB device number 5 using xhci_hcd\n"
      "Nov 29 10:00:05 h NetworkManager[700]: <info>  [1764445845.1234] device (wlp2s0): state change\n");
  EXPECT_EQ(p.file().accepted, 5u);
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, EventKind::cron);
  EXPECT_EQ(ev[0].pid, 4242);
}

TEST(Syslog, IndentedLinesContinueAndCutPrefixesAreApproximate) {
  const auto p = syslog(
      "Nov 29 10:00:00 h kernel: [ 10.000000] NVRM: The NVIDIA GPU 0000:b3:00.0\n"
      "               NVRM: fallen off the bus and is not responding to commands.\n"
      "NVRM: Xid (PCI:0000:b3:00): 79, pid=2211, name=python3, GPU has fallen off the bus.\n"
      "this line is neither\n"
      "\n"
      "orphan text with nothing before it\n");
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].kind, EventKind::fallen_off_bus);
  EXPECT_EQ(ev[0].text, "NVRM: The NVIDIA GPU 0000:b3:00.0\nNVRM: fallen off the bus and is not responding to commands.");
  EXPECT_EQ(ev[1].kind, EventKind::xid);
  EXPECT_EQ(ev[1].line, 3);
  EXPECT_TRUE(ev[1].flags & kFlagApproxTime);
  EXPECT_EQ(ev[1].wall_raw_ns, no_year(11, 29, 10, 0, 0));  // borrowed from line 1
  EXPECT_EQ(ev[1].text, "NVRM: Xid (PCI:0000:b3:00): 79, pid=2211, name=python3, GPU has fallen off the bus.\nthis line is neither");
  EXPECT_EQ(p.file().continuations, 2u);
  EXPECT_EQ(p.file().problems[static_cast<std::size_t>(Problem::unparsable_line)], 1u);
}

// ---- detection --------------------------------------------------------------------------------

TEST(SyslogDetection, PlainLinesScoreExactlyTheSameForSyslogAndJournal) {
  for (std::string_view line : {
           "Nov 29 19:50:45 host systemd[1]: Started Session 3 of user root.",
           "Jun 14 15:16:01 combo sshd(pam_unix)[19939]: authentication failure; logname= uid=0",
           "Jun 15 04:06:20 combo logrotate: ALERT exited abnormally with [1]",
           "Aug 24 10:39:53 eg-00-01-c0-26-e0-1d dockerd[629]: time=\"2023-08-24T10:39:53.891983761Z\" level=info",
           "Nov 29 19:50:45 host -- MARK --",
       }) {
    EXPECT_GT(score(FormatId::syslog, line), 0) << line;
    EXPECT_EQ(score(FormatId::syslog, line), score(FormatId::journal_short, line)) << line;
  }
}

TEST(SyslogDetection, EvidenceLeansOneWay) {
  // syslog: space-padded single-digit day, kernel [mono], rsyslog RFC 3339 with +01:00 and fraction.
  for (std::string_view line : {
           "Sep  9 16:18:02 bubz systemd[1]: Started Session 3 of user root.",
           "Sep 19 16:18:02 bubz kernel: [68183.615790] pcieport 0000:00:03.1: AER: Corrected error",
           "2026-11-29T19:50:45.123456+01:00 host systemd[1]: Started Session 3 of user root.",
       })
    EXPECT_GT(score(FormatId::syslog, line), score(FormatId::journal_short, line)) << line;
  // journal: zero-padded single-digit day, kernel line without [mono], short-precise, short-iso.
  for (std::string_view line : {
           "May 02 16:08:39 guilmon systemd[1]: Started Session 3 of user root.",
           "Nov 29 11:28:11 zeus kernel: NVRM: GPU at PCI:0000:c1:00: GPU-<uuid redacted>",
           "Nov 29 19:50:45.123456 host systemd[1]: Started Session 3 of user root.",
           "2026-11-29T19:50:45+0100 host systemd[1]: Started Session 3 of user root.",
       })
    EXPECT_GT(score(FormatId::journal_short, line), score(FormatId::syslog, line)) << line;
}

TEST(SyslogDetection, FileNameBreaksATie) {
  const std::string plain = "Nov 29 19:50:45 host systemd[1]: Started Session 3 of user root.\n";
  EXPECT_EQ(parse_text(plain, "var/log/syslog").format(), FormatId::syslog);
  EXPECT_EQ(parse_text(plain, "logs/kern.log.1").format(), FormatId::syslog);
  EXPECT_EQ(parse_text(plain, "messages").format(), FormatId::syslog);
  EXPECT_EQ(parse_text(plain, "journal-b0.txt").format(), FormatId::journal_short);
}

// ---- the real samples -------------------------------------------------------------------------

TEST(SyslogReal, LoghubLinux) {
  const auto p = parse_data_file("real/syslog/loghub-linux-2k-head.log", "syslog/loghub-linux-2k-head.log");
  EXPECT_EQ(p.format(), FormatId::syslog);
  EXPECT_EQ(p.file().lines, 140u);
  EXPECT_EQ(p.file().accepted, 140u);
  EXPECT_EQ(p.file().rejected(), 0u);
  EXPECT_TRUE(p.events().empty());  // sshd/su/ftpd/logrotate noise only
}

TEST(SyslogReal, AerWithTheKernelStampInside) {
  const auto p = parse_data_file("real/kern/aer-correctable-syslog-with-kernel-ts.txt",
                                 "kern/aer-correctable-syslog-with-kernel-ts.txt");
  EXPECT_EQ(p.format(), FormatId::syslog);
  EXPECT_EQ(p.file().lines, 8u);
  EXPECT_EQ(p.file().accepted, 8u);
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].kind, EventKind::pcie_aer);
  EXPECT_EQ(ev[0].code, 0);  // severity=Correctable
  EXPECT_EQ(ev[0].gpu, "0000:00:03");
  EXPECT_EQ(ev[0].line, 2);
  EXPECT_EQ(ev[0].mono_ns, mono(68183, 615810));
  EXPECT_EQ(ev[0].wall_raw_ns, no_year(9, 19, 16, 18, 2));
  EXPECT_EQ(ev[0].text,
            "pcieport 0000:00:03.1: PCIe Bus Error: severity=Correctable, type=Data Link Layer, (Transmitter ID)");
  EXPECT_EQ(ev[1].line, 6);
  EXPECT_EQ(ev[1].mono_ns, mono(68183, 637897));
  // Eight lines within 23 ms and one second of wall time say the same offset: one anchor.
  ASSERT_EQ(p.out.anchors.size(), 1u);
  EXPECT_EQ(p.out.anchors[0].mono_ns, mono(68183, 615790));
  EXPECT_EQ(p.out.anchors[0].wall_raw_ns, no_year(9, 19, 16, 18, 2));
}

}  // namespace
}  // namespace gpucost::testing
