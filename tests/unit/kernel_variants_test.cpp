// Kernel logs as older kernels, other locales and damaged files write them: pre-4.15 suspend
// wording, ACPI wake lines, the 32-bit jiffies wrap, dmesg's decimal comma, impossible syslog
// stamps, and the year that a kernel's build date gives year-less stamps.
#include <gtest/gtest.h>

#include <string>

#include "align_fixtures.hpp"
#include "gpucost/ingest/ingest.hpp"

namespace gpucost {
namespace {

using test::at;
using test::rows_of;
using test::ts_of;

struct Parsed {
  IngestResult in;
  Diagnostics diag;
  Timeline t;
  const FileDiagnostics& file() const { return diag.files.at(0); }
  std::uint64_t count(Problem p) const { return file().problems[static_cast<std::size_t>(p)]; }
};

Parsed run(std::string_view text, std::string_view name, std::optional<int> year = std::nullopt,
        TimeNs mtime = at(2026, 12, 1)) {
  Parsed r;
  IngestStage(IngestOptions{}).run_buffer(text, name, FormatId::unknown, r.in, r.diag, mtime);
  AlignOptions o;
  o.tz = "UTC";
  if (year) o.year = *year;
  AlignStage(std::move(o)).run(r.in, r.t, r.diag);
  return r;
}

TEST(KernelVariants, OldSuspendWordingAndAcpiWake) {
  // Kernel 3.x: no `PM: suspend entry`. Everything from `Preparing system for mem sleep` on was
  // read by syslog after the resume (07:30:01), the monotonic stamps still tell when it was.
  const std::string text =
      "Mar  3 22:14:09 tp kernel: [12340.112233] nvidia 0000:01:00.0: irq 31 for MSI/MSI-X\n"
      "Mar  3 22:14:10 tp kernel: [12345.678901] PM: Syncing filesystems ... done.\n"
      "Mar  4 07:30:01 tp kernel: [12345.702114] PM: Preparing system for mem sleep\n"
      "Mar  4 07:30:01 tp kernel: [12346.103000] PM: Entering mem sleep\n"
      "Mar  4 07:30:01 tp kernel: [12346.935000] ACPI: Waking up from system sleep state S3\n"
      "Mar  4 07:30:01 tp kernel: [12348.612345] PM: Finishing wakeup.\n"
      "Mar  4 07:30:03 tp kernel: [12350.720000] NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.\n";
  const Parsed r = run(text, "kern.log", 2025);
  EXPECT_EQ(r.file().format, FormatId::syslog);
  EXPECT_EQ(r.file().rejected(), 0u);
  const auto suspends = rows_of(r.t, EventKind::suspend);
  const auto resumes = rows_of(r.t, EventKind::resume);
  // Issue 36: Syncing, Preparing and Entering are three reports of one suspend, the ACPI wake
  // and Finishing wakeup two of one resume: one row each, its reports in its origins.
  ASSERT_EQ(suspends.size(), 1u);
  ASSERT_EQ(resumes.size(), 1u);
  EXPECT_EQ(r.t.origin_begin[suspends[0] + 1] - r.t.origin_begin[suspends[0]], 3u);
  EXPECT_EQ(r.t.origin_begin[resumes[0] + 1] - r.t.origin_begin[resumes[0]], 2u);
  // The suspend began before the night, not at the 07:30:01 the syslog daemon wrote after it.
  for (auto s : suspends) EXPECT_LT(ts_of(r.t.events, s), at(2025, 3, 3, 22, 15, 0)) << s;
  ASSERT_EQ(r.t.suspends.size(), 1u);
  EXPECT_LT(r.t.suspends[0].begin_ns, at(2025, 3, 3, 22, 15, 0));
  EXPECT_GE(r.t.suspends[0].end_ns, at(2025, 3, 4, 7, 29, 0));
}

TEST(KernelVariants, JiffiesWrapIsBootTimeNotFiftyDays) {
  const std::string text =
      "[4294667.296000] Linux version 2.6.32-5-686 (Debian 2.6.32-48squeeze6) (jmm@debian.org) (gcc version 4.3.5 "
      "(Debian 4.3.5-4) ) #1 SMP Mon Feb 25 01:04:36 UTC 2013\n"
      "[4294668.812000] ACPI: AC Adapter [AC] (on-line)\n"
      "[4294729.355000] nvidia: module license 'NVIDIA' taints kernel.\n"
      "[    1.104000] eth0: link up, 100Mbps, full-duplex\n"
      "[  812.315000] ACPI: AC Adapter [AC] (off-line)\n";
  Parsed r;
  IngestStage(IngestOptions{}).run_buffer(text, "dmesg", FormatId::unknown, r.in, r.diag, at(2026, 12, 1));
  EXPECT_EQ(r.file().format, FormatId::dmesg);
  const Table& e = r.in.events;
  ASSERT_EQ(e.rows(), 4u);  // boot, ac_online, taint, ac_offline
  const Column& mono = e.column(event_col::mono_ns);
  const Column& seq = e.column(event_col::boot_seq);
  EXPECT_EQ(mono.get_int(0), 0);
  EXPECT_EQ(mono.get_int(1), 1'516 * kNsPerMs);   // 1.5 s after the clock started: boot time
  EXPECT_EQ(mono.get_int(2), 62'059 * kNsPerMs);
  // Past the wrap: 300 s (the counter's start below 2^32 ms) + 812.315 s, the same boot.
  EXPECT_EQ(mono.get_int(3), (4'294'967'296 - 4'294'667'296 + 812'315) * kNsPerMs);
  for (std::size_t i = 0; i < e.rows(); ++i) EXPECT_EQ(seq.get_int(i), 0) << i;
  // A long uptime that merely passes through the window is left alone.
  Parsed plain;
  IngestStage(IngestOptions{}).run_buffer("[4000000.000000] ACPI: AC Adapter [AC] (on-line)\n"
                                          "[4294700.000000] ACPI: AC Adapter [AC] (off-line)\n",
                                          "dmesg", FormatId::dmesg, plain.in, plain.diag, at(2026, 12, 1));
  ASSERT_EQ(plain.in.events.rows(), 2u);
  EXPECT_EQ(plain.in.events.column(event_col::mono_ns).get_int(1), 4'294'700 * kNsPerSec);
}

TEST(KernelVariants, DmesgRelativeStampsWithADecimalComma) {
  const std::string text =
      "[Mar13 18:33] NVRM: GPU at PCI:0000:01:00: GPU-4d7a1e2b-9c3f-4b6a-8e1d-0f2c5a7b9d31\n"
      "[  +0,000012] NVRM: Xid (PCI:0000:01:00): 79, pid=4410, name=blender, GPU has fallen off the bus.\n"
      "[  +2,500000] NVRM: GPU 0000:01:00.0: GPU has fallen off the bus.\n";
  const Parsed r = run(text, "dmesg-e.txt", 2025);
  EXPECT_EQ(r.file().format, FormatId::dmesg);
  EXPECT_EQ(r.file().rejected(), 0u);
  const auto xid = rows_of(r.t, EventKind::xid);
  const auto bus = rows_of(r.t, EventKind::fallen_off_bus);
  ASSERT_EQ(xid.size(), 1u);
  ASSERT_EQ(bus.size(), 1u);
  EXPECT_EQ(ts_of(r.t.events, xid[0]), at(2025, 3, 13, 18, 33, 0) + 12 * kNsPerUs);
  EXPECT_EQ(ts_of(r.t.events, bus[0]), at(2025, 3, 13, 18, 33, 2) + 500'012 * kNsPerUs);
}

TEST(KernelVariants, ImpossibleSyslogStampsAreRejectedNotJoined) {
  const std::string text =
      "Nov 29 19:50:40 gpu01 kernel: [ 4904.100000] NVRM: GPU at PCI:0000:01:00: GPU-9b2e\n"
      "Nov 31 19:50:45 gpu01 kernel: [ 4909.922970] NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.\n"
      "Nov 29 25:61:61 gpu01 kernel: [ 4910.000001] NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.\n"
      "Foo 29 19:50:46 gpu01 kernel: [ 4910.100000] NVRM: Xid (PCI:0000:01:00): 48, DBE\n"
      "2026-13-45T10:00:00+00:00 gpu01 kernel: NVRM: Xid (PCI:0000:01:00): 48, DBE\n"
      "Nov 29 19:50:47 gpu01 kernel: [ 4911.200000] NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.\n";
  const Parsed r = run(text, "syslog", 2026);
  EXPECT_EQ(r.file().format, FormatId::syslog);
  EXPECT_EQ(r.count(Problem::bad_timestamp), 4u);
  EXPECT_EQ(r.file().continuations, 0u);
  std::string reasons;
  for (const auto& s : r.file().samples) reasons += s.reason + " | ";
  EXPECT_NE(reasons.find("no such day `Nov 31`"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("no such time of day `25:61:61`"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("unknown month name `Foo`"), std::string::npos) << reasons;
  // The message before them keeps its own text: nothing was appended to it.
  const auto xid = rows_of(r.t, EventKind::xid);
  ASSERT_EQ(xid.size(), 1u);
  // Placed from its monotonic stamp through the file's anchors: within the second of its stamp.
  EXPECT_NEAR(static_cast<double>(ts_of(r.t.events, xid[0]) - at(2026, 11, 29, 19, 50, 47)), 0.0, 1e9);
}

TEST(KernelVariants, YearFromTheKernelsBuildDate) {
  // Copied in December 2026: the modification time would say 2026; the kernel was built in
  // January 2025, and its log runs from January 20.
  const std::string text =
      "Jan 20 08:01:12 w3 kernel: [    0.000000] Linux version 6.1.0-30-amd64 (debian-kernel@lists.debian.org) "
      "(gcc-12 (Debian 12.2.0-14) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40) #1 SMP PREEMPT_DYNAMIC Debian "
      "6.1.124-1 (2025-01-12)\n"
      "Feb  2 13:45:02 w3 kernel: [1143222.508117] NVRM: Xid (PCI:0000:81:00): 94, pid=77321, name=python, "
      "Contained: SM (0x1). RST: No, D-RST: No\n";
  const Parsed r = run(text, "kern.log");
  const auto xid = rows_of(r.t, EventKind::xid);
  ASSERT_EQ(xid.size(), 1u);
  EXPECT_NEAR(static_cast<double>(ts_of(r.t.events, xid[0]) - at(2025, 2, 2, 13, 45, 2)), 0.0, 1e9);
  EXPECT_NE(r.t.year_reason.find("kernel's build date 2025-01-12"), std::string::npos) << r.t.year_reason;
  // The build stamp form: `#1 SMP PREEMPT_DYNAMIC Fri Jan 10 12:34:56 UTC 2025`.
  const Parsed b = run(
      "Mar  1 08:00:00 h kernel: [    0.000000] Linux version 6.12.9-arch1-1 (linux@archlinux) (gcc (GCC) 14.2.1 "
      "20240910, GNU ld (GNU Binutils) 2.43.0) #1 SMP PREEMPT_DYNAMIC Fri, 10 Jan 2025 00:39:41 +0000\n"
      "Mar  1 08:00:00 h kernel: [    0.000000] Linux version 6.12.9 (root@h) (gcc 14.2.1) #1 SMP PREEMPT_DYNAMIC Fri "
      "Jan 10 12:34:56 UTC 2025\n",
      "kern.log");
  EXPECT_NE(b.t.year_reason.find("kernel's build date 2025-01-10"), std::string::npos) << b.t.year_reason;
}

}  // namespace
}  // namespace gpucost
