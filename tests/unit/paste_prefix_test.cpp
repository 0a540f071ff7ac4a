// Issue 36: what stands before a log line in a paste is taken off (quote marks, grep -H file
// names and -n line numbers, pdsh hosts), and a message's own `word: ` never is.
#include "gpucost/ingest/paste_prefix.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace gpucost {
namespace {

std::string_view after(std::string_view line) { return line.substr(paste_prefix_length(line)); }

TEST(PastePrefix, QuoteMarksBeforeAKernelMessageOrAStamp) {
  EXPECT_EQ(after("> NVRM: Xid (PCI:0000:01:00): 79, pid=1234, GPU has fallen off the bus."),
            "NVRM: Xid (PCI:0000:01:00): 79, pid=1234, GPU has fallen off the bus.");
  EXPECT_EQ(after(">> [ 8812.118866] NVRM: Xid (PCI:0000:01:00): 13, pid=2871"), "[ 8812.118866] NVRM: Xid (PCI:0000:01:00): 13, pid=2871");
  EXPECT_EQ(after("  > > Mar  3 14:02:11 gpu01 kernel: x"), "Mar  3 14:02:11 gpu01 kernel: x");
  // A quote of prose stays as it is: nothing of a log follows the marks.
  EXPECT_EQ(paste_prefix_length("> I keep getting this after a few hours"), 0u);
  EXPECT_EQ(paste_prefix_length(">"), 0u);
}

TEST(PastePrefix, GrepFileNamesAndLineNumbers) {
  EXPECT_EQ(after("/var/log/kern.log:Mar  3 14:02:11 gpu01 kernel: [ 5123.456789] NVRM: Xid"),
            "Mar  3 14:02:11 gpu01 kernel: [ 5123.456789] NVRM: Xid");
  EXPECT_EQ(after("kern.log.1:Mar  2 09:11:02 gpu01 kernel: x"), "Mar  2 09:11:02 gpu01 kernel: x");
  EXPECT_EQ(after("/var/log/syslog:1234:2024-03-05T10:12:01.123456+00:00 host kernel: x"),
            "2024-03-05T10:12:01.123456+00:00 host kernel: x");
  EXPECT_EQ(after("logs/dmesg.txt:NVRM: Xid (PCI:0000:3b:00): 79, pid=0"), "NVRM: Xid (PCI:0000:3b:00): 79, pid=0");
  EXPECT_EQ(after("512:[  101.223344] NVRM: Xid (PCI:0000:3b:00): 79"), "[  101.223344] NVRM: Xid (PCI:0000:3b:00): 79");
}

TEST(PastePrefix, PdshHostsBeforeAStamp) {
  EXPECT_EQ(after("node017: [Tue Mar  5 10:12:01 2024] NVRM: Xid (PCI:0000:41:00): 48"),
            "[Tue Mar  5 10:12:01 2024] NVRM: Xid (PCI:0000:41:00): 48");
  EXPECT_EQ(after("gpu-a100-03.cluster: [ 4711.000001] nvidia 0000:41:00.0: x"), "[ 4711.000001] nvidia 0000:41:00.0: x");
  EXPECT_EQ(after("ip-10-0-3-7: Mar  5 10:12:01 ip-10-0-3-7 kernel: x"), "Mar  5 10:12:01 ip-10-0-3-7 kernel: x");
}

TEST(PastePrefix, LinesOfEveryLayoutKeepTheirFront) {
  for (const std::string_view line : {
           "NVRM: GPU at PCI:0000:01:00: GPU-8ba16ede-b303-d769-7297-d266d9383b89",
           "nvidia-uvm: Loaded the UVM driver, major device number 510.",
           "ACPI: AC adapter [ACAD] (on-line)",
           "ACPI: PM: Preparing to enter system sleep state S3",
           "pcieport 0000:00:1d.0: AER: Corrected error received: 0000:03:00.0",
           "Mar  3 14:02:11 gpu01 kernel: [ 5123.456789] NVRM: Xid",
           "Jun 01 23:10:02 laptop systemd-logind[812]: The system will suspend now!",
           "2024-03-05T10:12:01.123456+00:00 host kernel: x",
           "2024-03-05 10:12:01 host kernel: x",
           "Nov 20 00:00:04 ws-lab-07 cupsd[300]: job 1 finished",
           "Tue Mar  5 10:12:01 2024 | x",
           "[Tue Mar  5 10:12:01 2024] NVRM: Xid (PCI:0000:01:00): 13",
           "[ 8812.118866] NVRM: Xid (PCI:0000:01:00): 13",
           "systemd[1]: Starting System Suspend...",
           "CPU3: Core temperature above threshold, cpu clock throttled",
           "2024/03/05 10:12:01.123, NVIDIA H100 80GB HBM3, 00000000:41:00.0, 535.104.05",
           "    0    245     47      -     98     23      0      0   2619   1980",
           "    Product Name                          : NVIDIA H200",
           "{\"__REALTIME_TIMESTAMP\":\"1\",\"MESSAGE\":\"x\"}",
           "MESSAGE=NVRM: Xid (PCI:0000:01:00): 13",
           "root      4412 98.0  1.2 1234 5678 ?  Rl   10:12   1:02 python train.py",
           "| NVIDIA-SMI 535.104.05             Driver Version: 535.104.05   CUDA Version: 12.2     |",
           "10:12:01 up 3 days,  load average: 0.00",
           "x86/fpu: Supporting XSAVE feature 0x001: 'x87 floating point registers'",
           "ata1.00: ATA-9: Samsung SSD 860 EVO 500GB, RVT04B6Q, max UDMA/133",
       })
    EXPECT_EQ(paste_prefix_length(line), 0u) << line;
}

TEST(PastePrefix, DockerComposeServiceColumn) {
  EXPECT_EQ(after("trainer-1  | [ 5123.456789] NVRM: Xid (PCI:0000:3b:00): 31"),
            "[ 5123.456789] NVRM: Xid (PCI:0000:3b:00): 31");
  EXPECT_EQ(paste_prefix_length("trainer-1  | epoch 3 loss 0.12"), 0u);
}

// Only for files no format reads as they stand (detection's message-first retry).
TEST(MessageStart, AfterACutHeaderAtTheKernelsPart) {
  const auto from = [](std::string_view l) { return l.substr(message_start(l)); };
  EXPECT_EQ(from(":02:11 gpu01 kernel: [ 5123.456789] NVRM: Xid (PCI:0000:3b:00): 31"),
            "[ 5123.456789] NVRM: Xid (PCI:0000:3b:00): 31");
  EXPECT_EQ(from("01 gpu01 kernel: nvidia 0000:3b:00.0: PCIe Bus Error: severity=Corrected"),
            "nvidia 0000:3b:00.0: PCIe Bus Error: severity=Corrected");
  EXPECT_EQ(from("u01 [ 5123.456789] NVRM: Xid (PCI:0000:3b:00): 31"), "[ 5123.456789] NVRM: Xid (PCI:0000:3b:00): 31");
  EXPECT_EQ(from("ith this: NVRM: Xid (PCI:0000:3b:00): 79, pid=0"), "NVRM: Xid (PCI:0000:3b:00): 79, pid=0");
  // A line that starts like a log line, or holds nothing of one, is left as it is.
  EXPECT_EQ(message_start("Mar  3 14:02:11 gpu01 kernel: [ 5123.456789] NVRM: Xid"), 0u);
  EXPECT_EQ(message_start("[ 5123.456789] NVRM: Xid"), 0u);
  EXPECT_EQ(message_start("the GPU kernel: fused attention was slow"), 0u);
}

}  // namespace
}  // namespace gpucost
