// dmesg: every timestamp layout, continuation joining, boots, stamp-less pastes, and the real
// samples under tests/data/real/kern (expected values read off the files by hand).
#include <gtest/gtest.h>

#include <cctype>

#include "kernel_fixture.hpp"

namespace gpucost::testing {
namespace {

Parsed dmesg(std::string_view data) { return parse_text(data, "dmesg.txt", FormatId::dmesg); }

TEST(Dmesg, RawMonotonicStamp) {
  const auto p = dmesg("[ 1451.785035] NVRM: Xid (PCI:0000:01:00): 31, pid=35097, name=SpaceEngine.exe, channel 0x0000005c\n");
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].mono_ns, mono(1451, 785035));
  EXPECT_EQ(ev[0].wall_kind, WallKind::kNone);
  EXPECT_EQ(ev[0].wall_raw_ns, kNoTime);
  EXPECT_EQ(ev[0].ident, "kernel");
  EXPECT_EQ(ev[0].text, "NVRM: Xid (PCI:0000:01:00): 31, pid=35097, name=SpaceEngine.exe, channel 0x0000005c");
  EXPECT_EQ(p.file().accepted, 1u);
}

TEST(Dmesg, StampWithoutLeadingBlanksAndShortFraction) {
  const auto p = dmesg("[68183.6] PM: suspend entry (deep)\n");
  ASSERT_EQ(p.events().size(), 1u);
  EXPECT_EQ(p.events()[0].mono_ns, mono(68183, 600000));
}

TEST(Dmesg, PrintkCallerIdIsNotPartOfTheText) {
  // Console form (no blank between) and dmesg's form (a blank between).
  const auto p = dmesg(
      "[   36.764462][  T291] PM: suspend entry (deep)\n"
      "[   37.000001] [    C3] PM: suspend exit\n");
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].text, "PM: suspend entry (deep)");
  EXPECT_EQ(ev[0].mono_ns, mono(36, 764462));
  EXPECT_EQ(ev[1].text, "PM: suspend exit");
  EXPECT_EQ(ev[1].kind, EventKind::resume);
}

TEST(Dmesg, CtimeStampIsLocalAndUnreliable) {
  const auto p = dmesg("[Sun Nov 29 19:50:45 2026] PM: suspend entry (deep)\n");
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].wall_kind, WallKind::kLocal);
  EXPECT_EQ(ev[0].wall_raw_ns, civil_to_ns(CivilTime{2026, 11, 29, 19, 50, 45, 0}));
  EXPECT_EQ(ev[0].mono_ns, kNoTime);
  EXPECT_TRUE(ev[0].flags & kFlagUnreliableWall);
  EXPECT_EQ(ev[0].text, "PM: suspend entry (deep)");
}

TEST(Dmesg, CtimeStampInAChineseLocale) {
  // dmesg -T under zh_CN: weekday 三 (Wednesday), month 9月, space-padded day.
  const auto p = dmesg("[三 9月  6 11:00:27 2017] ACPI: AC: AC Adapter [ADP1] (off-line)\n");
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, EventKind::ac_offline);
  EXPECT_EQ(ev[0].wall_raw_ns, civil_to_ns(CivilTime{2017, 9, 6, 11, 0, 27, 0}));
  EXPECT_EQ(p.format(), FormatId::dmesg);
}

TEST(Dmesg, CtimeStampInGerman) {
  const auto p = dmesg("[Mi Mär  4 08:01:02 2026] PM: suspend exit\n");
  ASSERT_EQ(p.events().size(), 1u);
  EXPECT_EQ(p.events()[0].wall_raw_ns, civil_to_ns(CivilTime{2026, 3, 4, 8, 1, 2, 0}));
}

TEST(Dmesg, IsoStampAppliesTheOffset) {
  const auto p = dmesg("2026-11-29T19:50:45,123456+08:00 PM: suspend entry (s2idle)\n");
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].wall_kind, WallKind::kUtc);
  EXPECT_EQ(ev[0].wall_raw_ns, civil_to_ns(CivilTime{2026, 11, 29, 11, 50, 45, 123456000}));
  EXPECT_EQ(ev[0].text, "PM: suspend entry (s2idle)");
  ASSERT_EQ(p.out.zone_evidence.size(), 1u);
  EXPECT_EQ(p.out.zone_evidence[0].offset_ns, 8 * kNsPerHour);
  EXPECT_EQ(p.out.zone_evidence[0].count, 1u);
}

TEST(Dmesg, FacilityLevelPrefix) {
  // dmesg -x, with both caller-id forms seen in kernel test robot reports.
  const auto p = dmesg(
      "kern  :err   : [  455.643635] NVRM: Xid (PCI:0000:01:00): 79, pid=1234, name=python3, GPU has fallen off the bus.\n"
      "kern  :notice: [   44.129098] [   T4552] PM: suspend exit\n"
      "user  :info  : [   45.000000] systemd[1]: Started Journal Service.\n");
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].kind, EventKind::xid);
  EXPECT_EQ(ev[0].code, 79);
  EXPECT_EQ(ev[0].mono_ns, mono(455, 643635));
  EXPECT_EQ(ev[1].text, "PM: suspend exit");
  EXPECT_EQ(p.file().accepted, 3u);
}

TEST(Dmesg, RawPriorityPrefixWithAndWithoutStamp) {
  const auto p = dmesg(
      "<3>[  123.456000] nvidia-modeset: ERROR: GPU:0: Failed to query display engine status\n"
      "<6>PM: suspend exit\n");
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].kind, EventKind::driver_error);
  EXPECT_EQ(ev[0].mono_ns, mono(123, 456000));
  EXPECT_EQ(ev[1].kind, EventKind::resume);
  // The unstamped line borrows the previous stamp, flagged approximate.
  EXPECT_EQ(ev[1].mono_ns, mono(123, 456000));
  EXPECT_TRUE(ev[1].flags & kFlagApproxTime);
}

TEST(Dmesg, DeltaFormKeepsTheMonotonicStamp) {
  const auto p = dmesg("[  327.189145 <    0.000123>] PM: suspend entry (deep)\n");
  ASSERT_EQ(p.events().size(), 1u);
  EXPECT_EQ(p.events()[0].mono_ns, mono(327, 189145));
}

TEST(Dmesg, ReltimeFormAccumulatesDeltas) {
  // dmesg -e: the minute, then deltas to the previous message.
  const auto p = dmesg(
      "[Nov29 19:50] PM: suspend entry (deep)\n"
      "[  +1.500000] PM: suspend exit\n");
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].wall_kind, WallKind::kLocalNoYear);
  EXPECT_EQ(ev[0].wall_raw_ns, no_year(11, 29, 19, 50, 0));
  EXPECT_EQ(ev[1].wall_raw_ns, no_year(11, 29, 19, 50, 1, 2000, 500000000));
  EXPECT_TRUE(ev[1].flags & kFlagUnreliableWall);
}

TEST(Dmesg, ContinuationLinesAreJoined) {
  const std::string data = read_test_file("real/kern/xid79-fallen-off-bus-multiline-dmesg-570.txt");
  const auto p = parse_text(data, "kern/xid79-fallen-off-bus-multiline-dmesg-570.txt");
  const auto ev = p.events(EventKind::fallen_off_bus);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].text,
            "NVRM: The NVIDIA GPU 0000:b3:00.0\n"
            "NVRM: (PCI ID: 10de:26b5) installed in this system has\n"
            "NVRM: fallen off the bus and is not responding to commands.");
  EXPECT_TRUE(ev[0].flags & kFlagContinued);
  EXPECT_EQ(ev[0].line, 1);
  EXPECT_EQ(ev[0].gpu, "0000:b3:00");
  EXPECT_EQ(ev[0].mono_ns, mono(1843, 308145));
  EXPECT_EQ(p.file().continuations, 2u);
}

TEST(Dmesg, ContinuationTextIsCheckedThroughAUserPattern) {
  // The NVRM 64-bit BAR table is no built-in event; a --patterns needle from its third line
  // matches only when the continuation lines were joined to the first.
  const std::string dir = ::testing::TempDir();
  const std::string pat = dir + "/bar.patterns";
  {
    std::ofstream f(pat);
    f << "# kind\tident\tneedles\n";
    f << "driver_error\tkernel\tThis is a 64-bit BAR\tprefetchable memory window\n";
  }
  const std::string data = read_test_file("real/kern/nvidia-license-taints-64bit-bar-multiline.txt");
  const auto p = parse_text(data, "kern/nvidia-license-taints-64bit-bar-multiline.txt", FormatId::unknown, pat);
  const auto ev = p.events(EventKind::driver_error);
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].line, 4);
  EXPECT_EQ(ev[0].text,
            "NVRM: This is a 64-bit BAR mapped above 4GB by the system\n"
            "NVRM: BIOS or the Linux kernel, but the PCI bridge\n"
            "NVRM: immediately upstream of this GPU does not define\n"
            "NVRM: a matching prefetchable memory window.");
  EXPECT_EQ(ev[1].line, 13);  // the built-in `NVIDIA probe routine failed`
}

TEST(Dmesg, ElisionLinesAreStructure) {
  const auto p = dmesg(
      "[    1.000000] PM: suspend entry (deep)\n"
      "...\n"
      "[    ....    ]\n"
      "\xE2\x80\xA6\n"
      "[    2.000000] PM: suspend exit\n");
  EXPECT_EQ(p.file().accepted, 5u);
  EXPECT_EQ(p.file().continuations, 0u);
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].text, "PM: suspend entry (deep)");  // nothing joined across the elision
}

TEST(Dmesg, CallTraceLinesKeepTheirOwnLeadingBlank) {
  const auto p = dmesg("[    0.841843]  dump_stack_lvl+0x34/0x44\n");
  EXPECT_EQ(p.file().accepted, 1u);
  EXPECT_TRUE(p.events().empty());
}

TEST(Dmesg, NewBootWhenMonotonicRestartsOrLinuxVersionAppears) {
  const auto p = dmesg(
      "[    0.000000] Linux version 6.1.0-13-amd64 (debian-kernel@lists.debian.org)\n"
      "[ 5000.000000] PM: suspend entry (deep)\n"
      "[    0.000000] Linux version 6.1.0-13-amd64 (debian-kernel@lists.debian.org)\n"
      "[   12.000000] PM: suspend entry (deep)\n"
      "[    3.000000] PM: suspend exit\n"
      "[    3.000001] PM: suspend exit\n");
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 6u);
  EXPECT_EQ(ev[0].kind, EventKind::boot);
  EXPECT_EQ(ev[0].boot_seq, 0);
  EXPECT_EQ(ev[1].boot_seq, 0);
  EXPECT_EQ(ev[2].kind, EventKind::boot);
  EXPECT_EQ(ev[2].boot_seq, 1);
  EXPECT_EQ(ev[3].boot_seq, 1);
  EXPECT_EQ(ev[4].boot_seq, 2);  // 12 s -> 3 s: monotonic went back by more than 2 s
  EXPECT_EQ(ev[5].boot_seq, 2);
}

TEST(Dmesg, SmallBackwardStepIsNotABoot) {
  const auto p = dmesg(
      "[  100.000100] PM: suspend entry (deep)\n"
      "[  100.000050] PM: suspend exit\n");
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[1].boot_seq, 0);
}

TEST(Dmesg, UnparsableBracketIsAnUnstampedMessage) {
  const auto p = dmesg("[drm] GPU HANG: ecode 8:0:0x85dffefd, in Xorg [1220], reason: Ring hung, action: reset\n");
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, EventKind::i915_hang);
  EXPECT_EQ(ev[0].wall_kind, WallKind::kNone);
  EXPECT_EQ(ev[0].mono_ns, kNoTime);
  EXPECT_TRUE(ev[0].flags & kFlagApproxTime);
}

TEST(Dmesg, NeverThrowsOnGarbage) {
  const auto p = dmesg("\x01\x02[ 12.\n[ .5] x\n[99999999999999999.1] y\n<>\n<7\n[\n]\n");
  EXPECT_EQ(p.file().lines, 7u);
  // The first line is binary (two control bytes in eight): rejected, never a message.
  EXPECT_EQ(p.file().problems[static_cast<std::size_t>(Problem::binary_data)], 1u);
  EXPECT_EQ(p.file().accepted + p.file().continuations, 6u);
}

// ---- detection --------------------------------------------------------------------------------

TEST(Dmesg, ShortMonotonicJournalLinesAreNotDmesg) {
  const auto p = parse_text(
      "[ 4909.922970] zeus kernel: NVRM: Xid (PCI:0000:c1:00): 31, pid=12890, Ch 0000003b\n"
      "[ 4910.000000] zeus systemd[1]: Started Session 3 of user root.\n",
      "x.txt");
  EXPECT_EQ(p.format(), FormatId::journal_short);
}

TEST(Dmesg, StampCutPasteIsDetectedAndEveryMessageKept) {
  const auto p = parse_data_file("real/kern/aer-no-timestamp-leading-space-laptop.txt", "paste.txt");
  EXPECT_EQ(p.format(), FormatId::dmesg);
  EXPECT_EQ(p.file().accepted, 11u);  // each line is its own message, none is a continuation
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 3u);
  for (const auto& e : ev) {
    EXPECT_EQ(e.kind, EventKind::pcie_aer);
    EXPECT_EQ(e.code, 0);
    EXPECT_EQ(e.wall_kind, WallKind::kNone);
    EXPECT_EQ(e.mono_ns, kNoTime);
    EXPECT_EQ(e.flags, kFlagApproxTime);
  }
  EXPECT_EQ(ev[0].line, 1);
  EXPECT_EQ(ev[0].gpu, "0000:00:1d");
  EXPECT_EQ(ev[0].text, "pcieport 0000:00:1d.0: AER: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)");
  EXPECT_EQ(ev[1].line, 5);
  EXPECT_EQ(ev[2].line, 8);
  EXPECT_EQ(ev[2].gpu, "0000:03:00");
  ASSERT_FALSE(p.file().notes.empty());
}

// ---- the real samples -------------------------------------------------------------------------

struct SampleCase {
  const char* file;
  std::uint64_t lines, accepted, continuations;
};

class DmesgSample : public ::testing::TestWithParam<SampleCase> {};

TEST_P(DmesgSample, DetectedAndFullyUnderstood) {
  const SampleCase c = GetParam();
  const auto p = parse_data_file(std::string("real/") + c.file, c.file);
  EXPECT_EQ(p.format(), FormatId::dmesg);
  EXPECT_EQ(p.file().lines, c.lines);
  EXPECT_EQ(p.file().accepted, c.accepted);
  EXPECT_EQ(p.file().continuations, c.continuations);
  EXPECT_GE(p.understood(), 0.99);
  EXPECT_EQ(p.file().rejected(), 0u);
}

INSTANTIATE_TEST_SUITE_P(
    Real, DmesgSample,
    ::testing::Values(SampleCase{"kern/acpi-ac-adapter-online-dmesg-stack.txt", 15, 15, 0},
                      SampleCase{"kern/aer-no-timestamp-leading-space-laptop.txt", 11, 11, 0},
                      SampleCase{"kern/i915-gpu-hang-dmesg-2015-xps13.txt", 15, 15, 0},
                      SampleCase{"kern/i915-gpu-hang-dmesg-modern.txt", 9, 9, 0},
                      SampleCase{"kern/modeset-load-i915-fence-dmesg-530.txt", 13, 13, 0},
                      SampleCase{"kern/nvidia-license-taints-64bit-bar-multiline.txt", 15, 10, 5},
                      SampleCase{"kern/taint-out-of-tree-nixos-dmesg-515.txt", 8, 8, 0},
                      SampleCase{"kern/xid31-mmu-fault-dmesg-proton.txt", 3, 3, 0},
                      SampleCase{"kern/xid31-open595-dmesg-unrealeditor.txt", 4, 4, 0},
                      SampleCase{"kern/xid31-xid13-xid32-dmesg-driver418.txt", 8, 8, 0},
                      SampleCase{"kern/xid32-xid31-old-format-dmesg.txt", 3, 3, 0},
                      SampleCase{"kern/xid79-fallen-off-bus-multiline-dmesg-570.txt", 5, 3, 2}),
    sample_name<SampleCase>);

TEST(DmesgReal, AcAdapterOnlineThenACallTrace) {
  const auto p = parse_data_file("real/kern/acpi-ac-adapter-online-dmesg-stack.txt");
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, EventKind::ac_online);
  EXPECT_EQ(ev[0].line, 1);
  EXPECT_EQ(ev[0].mono_ns, mono(0, 841701));
  EXPECT_EQ(ev[0].text, "ACPI: AC: AC Adapter [ADP1] (on-line)");
}

TEST(DmesgReal, I915HangOldForm) {
  const auto p = parse_data_file("real/kern/i915-gpu-hang-dmesg-2015-xps13.txt");
  const auto hangs = p.events(EventKind::i915_hang);
  ASSERT_EQ(hangs.size(), 3u);
  const std::int64_t lines[] = {2, 10, 13};
  const TimeNs monos[] = {mono(402, 15909), mono(413, 994721), mono(420, 2456)};
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(hangs[i].line, lines[i]);
    EXPECT_EQ(hangs[i].mono_ns, monos[i]);
    EXPECT_EQ(hangs[i].pid, 1220);
    EXPECT_EQ(hangs[i].process, "Xorg");
    EXPECT_EQ(hangs[i].gpu, "");  // the old form names no PCI address
  }
  const auto resets = p.events(EventKind::gpu_reset);
  ASSERT_EQ(resets.size(), 3u);
  EXPECT_EQ(resets[0].line, 8);
  EXPECT_EQ(resets[1].line, 11);
  EXPECT_EQ(resets[2].line, 15);
  EXPECT_EQ(p.events().size(), 6u);  // "GPU hangs can indicate a bug ..." is no hang
}

TEST(DmesgReal, I915HangNewForm) {
  const auto p = parse_data_file("real/kern/i915-gpu-hang-dmesg-modern.txt");
  const auto hangs = p.events(EventKind::i915_hang);
  ASSERT_EQ(hangs.size(), 3u);
  EXPECT_EQ(hangs[0].line, 1);
  EXPECT_EQ(hangs[0].mono_ns, mono(172, 95092));
  EXPECT_EQ(hangs[0].gpu, "0000:00:02");
  EXPECT_EQ(hangs[0].pid, 996);
  EXPECT_EQ(hangs[0].process, "Xorg");
  EXPECT_EQ(hangs[1].line, 4);
  EXPECT_EQ(hangs[2].line, 7);
  const auto resets = p.events(EventKind::gpu_reset);
  ASSERT_EQ(resets.size(), 3u);
  EXPECT_EQ(resets[0].line, 2);
  EXPECT_EQ(resets[0].gpu, "0000:00:02");
  EXPECT_EQ(p.events().size(), 6u);  // "context reset due to GPU hang" repeats the hang
}

TEST(DmesgReal, DriverLoadWithTrailingBlanks) {
  const auto p = parse_data_file("real/kern/modeset-load-i915-fence-dmesg-530.txt");
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, EventKind::driver_load);
  EXPECT_EQ(ev[0].line, 5);
  EXPECT_EQ(ev[0].mono_ns, mono(2, 757687));
  // Trailing blanks are dropped so the same printk read from another source compares equal.
  EXPECT_EQ(ev[0].text,
            "NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  530.41.03  Release Build  (archlinux-builder@archalien)");
}

TEST(DmesgReal, LicenseTaintAndProbeFailure) {
  const auto p = parse_data_file("real/kern/nvidia-license-taints-64bit-bar-multiline.txt");
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].kind, EventKind::taint);
  EXPECT_EQ(ev[0].line, 1);
  EXPECT_EQ(ev[0].mono_ns, mono(7, 985106));
  EXPECT_EQ(ev[1].kind, EventKind::driver_error);
  EXPECT_EQ(ev[1].line, 13);
  EXPECT_EQ(ev[1].mono_ns, mono(8, 9488));
}

TEST(DmesgReal, OutOfTreeTaintAfterBootAndElision) {
  const auto p = parse_data_file("real/kern/taint-out-of-tree-nixos-dmesg-515.txt");
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].kind, EventKind::boot);
  EXPECT_EQ(ev[0].line, 1);
  EXPECT_EQ(ev[0].mono_ns, 0);
  EXPECT_EQ(ev[0].boot_seq, 0);
  EXPECT_EQ(ev[1].kind, EventKind::taint);
  EXPECT_EQ(ev[1].line, 4);
  EXPECT_EQ(ev[1].mono_ns, mono(23, 989750));
  EXPECT_EQ(ev[1].boot_seq, 0);
}

TEST(DmesgReal, XidNewFormWithProcessName) {
  const auto p = parse_data_file("real/kern/xid31-mmu-fault-dmesg-proton.txt");
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, EventKind::xid);
  EXPECT_EQ(ev[0].code, 31);
  EXPECT_EQ(ev[0].gpu, "0000:01:00");
  EXPECT_EQ(ev[0].pid, 35097);
  EXPECT_EQ(ev[0].process, "SpaceEngine.exe");
  EXPECT_EQ(ev[0].line, 1);
  EXPECT_EQ(ev[0].mono_ns, mono(1451, 785035));
}

TEST(DmesgReal, OpenDriverLoadThenXid) {
  const auto p = parse_data_file("real/kern/xid31-open595-dmesg-unrealeditor.txt");
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].kind, EventKind::driver_load);
  EXPECT_EQ(ev[0].mono_ns, mono(2, 329368));
  EXPECT_EQ(ev[1].kind, EventKind::xid);
  EXPECT_EQ(ev[1].line, 4);
  EXPECT_EQ(ev[1].code, 31);
  EXPECT_EQ(ev[1].pid, 13705);
  EXPECT_EQ(ev[1].process, "UnrealEditor");
  EXPECT_EQ(ev[1].mono_ns, mono(365, 969681));
}

TEST(DmesgReal, XidOldDriverWithElision) {
  const auto p = parse_data_file("real/kern/xid31-xid13-xid32-dmesg-driver418.txt");
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 6u);
  const std::int64_t codes[] = {31, 13, 13, 13, 13, 32};
  const std::int64_t lines[] = {2, 4, 5, 6, 7, 8};
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(ev[i].kind, EventKind::xid);
    EXPECT_EQ(ev[i].code, codes[i]);
    EXPECT_EQ(ev[i].line, lines[i]);
    EXPECT_EQ(ev[i].gpu, "0000:01:00");
    EXPECT_EQ(ev[i].pid, INT64_MIN);  // driver 418 prints no pid
  }
  EXPECT_EQ(ev[0].mono_ns, mono(31543, 449443));
  EXPECT_EQ(ev[5].mono_ns, mono(31609, 615516));
}

TEST(DmesgReal, XidOldWording) {
  const auto p = parse_data_file("real/kern/xid32-xid31-old-format-dmesg.txt");
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 3u);
  EXPECT_EQ(ev[0].code, 32);
  EXPECT_EQ(ev[1].code, 32);
  EXPECT_EQ(ev[2].code, 31);
  EXPECT_EQ(ev[2].mono_ns, mono(24128, 834365));
}

TEST(DmesgReal, FallenOffTheBusThenProbeFailureThenReload) {
  const auto p = parse_data_file("real/kern/xid79-fallen-off-bus-multiline-dmesg-570.txt");
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 3u);
  EXPECT_EQ(ev[0].kind, EventKind::fallen_off_bus);
  EXPECT_EQ(ev[1].kind, EventKind::driver_error);
  EXPECT_EQ(ev[1].line, 4);
  EXPECT_EQ(ev[1].mono_ns, mono(1843, 439662));
  EXPECT_EQ(ev[2].kind, EventKind::driver_load);
  EXPECT_EQ(ev[2].line, 5);
}

}  // namespace
}  // namespace gpucost::testing
