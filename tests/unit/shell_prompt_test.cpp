// Pasted terminals: shell prompt lines are recognized (and only they), counted as prompts, kept
// out of the data and the error rate, and what their command says is used (`-d 15`, `-o json`,
// `--query-gpu=...`, a second `ps` run).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "gpucost/ingest/ingest.hpp"
#include "gpucost/ingest/shell_prompt.hpp"

namespace gpucost {
namespace {

struct Ingested {
  IngestResult out;
  Diagnostics diag;
  const FileDiagnostics& file() const { return diag.files.at(0); }
};

Ingested ingest(std::string_view text, std::string_view name = "paste.txt") {
  Ingested p;
  IngestStage(IngestOptions{}).run_buffer(text, name, FormatId::unknown, p.out, p.diag);
  return p;
}

TEST(ShellPrompt, RecognizesThePromptsPeoplePaste) {
  for (std::string_view line : {
           "alex@deeplab:~$ sudo dmesg -T | grep -i nvrm",
           "root@gpu-node07:/var/log# journalctl -k -o json",
           "[root@gpu-node07 ~]# nvidia-smi dmon -d 15",
           "[user@fedora log]$ cat kern.log",
           "(base) user@host:~/src$ nvidia-smi",
           "user@mac ~ % ps aux",
           "$ nvidia-smi --query-gpu=index,power.draw --format=csv,noheader",
           "# journalctl -o json",
           "$ sudo dmesg",
           "user@host:~$",
           "^C",
       })
    EXPECT_TRUE(parse_shell_prompt(line)) << line;
}

TEST(ShellPrompt, LeavesLogLinesAlone) {
  for (std::string_view line : {
           "# gpu    pwr  gtemp  mtemp     sm    mem",  // dmon header
           "# Idx      W      C      C      %      %",
           "# comment in a CSV",
           "$ make all",
           "Nov 29 19:50:45 host kernel: NVRM: Xid (PCI:0000:01:00): 79",
           "[ 4909.922970] NVRM: GPU at PCI:0000:01:00: GPU-abc",
           "user@1000.service: Succeeded.",
           "systemd[1]: Started user@1000.service.",
           "{ \"MESSAGE\" : \"x\" }",
           "lab      2214337  797 11.2 98342012 29613404 ?  Rl   09:12 1432:07 python train.py",
       })
    EXPECT_FALSE(parse_shell_prompt(line)) << line;
}

TEST(ShellPrompt, ReadsTheCommandsOptions) {
  ShellHints h;
  ASSERT_TRUE(parse_shell_prompt("ubuntu@ip-172-31-5-18:~$ nvidia-smi dmon -s pu -d 15", &h));
  EXPECT_EQ(h.format, FormatId::dmon);
  EXPECT_EQ(h.interval_ns, 15 * kNsPerSec);
  EXPECT_EQ(h.command, "nvidia-smi dmon -s pu -d 15");

  ASSERT_TRUE(parse_shell_prompt("$ sudo nvidia-smi --query-gpu=index,utilization.gpu --format=csv,noheader -lms 500", &h));
  EXPECT_EQ(h.format, FormatId::query_gpu_csv);
  EXPECT_EQ(h.query_fields, "index,utilization.gpu");
  EXPECT_TRUE(h.csv_noheader);
  EXPECT_EQ(h.interval_ns, kNsPerSec / 2);

  ASSERT_TRUE(parse_shell_prompt("[root@n7 ~]# journalctl -k -o json --since \"2024-05-02 03:00\" | grep Xid", &h));
  EXPECT_EQ(h.format, FormatId::journal_json);
  EXPECT_EQ(h.journal_output, "json");

  ASSERT_TRUE(parse_shell_prompt("alex@deeplab:~$ sudo dmesg -T | grep -i nvrm", &h));
  EXPECT_EQ(h.format, FormatId::dmesg);
  EXPECT_TRUE(h.dmesg_ctime);

  ASSERT_TRUE(parse_shell_prompt("$ watch -n 1 nvidia-smi -q -d MEMORY", &h));
  EXPECT_EQ(h.format, FormatId::nvidia_smi_q);

  ASSERT_TRUE(parse_shell_prompt("lab@dgx01:~$ ps aux --sort=-%cpu | head -4", &h));
  EXPECT_EQ(h.format, FormatId::ps);

  ASSERT_TRUE(parse_shell_prompt("shadeform@brev-7hpnmoj9o:~$ dcgmi dmon -e 150,155,156,203,252 -d 500", &h));
  EXPECT_EQ(h.format, FormatId::dcgmi_dmon);
  EXPECT_EQ(h.interval_ns, kNsPerSec / 2);  // DCGM's -d is in milliseconds
  ASSERT_TRUE(parse_shell_prompt("$ dcgmi dmon -e 155", &h));
  EXPECT_EQ(h.format, FormatId::dcgmi_dmon);

  ASSERT_TRUE(parse_shell_prompt("user@h200:~$ nvidia-smi -q -x > q.xml", &h));
  EXPECT_EQ(h.format, FormatId::nvidia_smi_q_xml);
}

TEST(ShellPrompt, PromptLinesAreNeitherDataNorRejected) {
  // Six dmesg lines and four prompt lines: without the prompt class the prompts were kernel
  // messages (or, in other formats, rejected lines that pushed a file over --max-error-rate).
  const std::string text =
      "alex@deeplab:~$ sudo dmesg -T | grep -i nvrm\n"
      "[Tue Mar 11 14:03:17 2025] NVRM: Xid (PCI:0000:41:00): 79, pid=1912, name=python3, GPU has fallen off the bus.\n"
      "[Tue Mar 11 14:03:17 2025] NVRM: GPU 0000:41:00.0: GPU has fallen off the bus.\n"
      "alex@deeplab:~$ uptime\n"
      "alex@deeplab:~$ sudo dmesg -T | grep -c Xid\n"
      "[Tue Mar 11 14:05:17 2025] NVRM: Xid (PCI:0000:41:00): 79, pid=1912, name=python3, GPU has fallen off the bus.\n"
      "alex@deeplab:~$\n";
  const Ingested p = ingest(text);
  EXPECT_EQ(p.file().format, FormatId::dmesg);
  EXPECT_EQ(p.file().prompts, 4u);
  EXPECT_EQ(p.file().rejected(), 0u);
  EXPECT_EQ(p.file().accepted, 3u);
  EXPECT_EQ(p.diag.total_lines(), 3u);  // prompts are not lines of data
  EXPECT_EQ(p.out.events.rows(), 3u);
  for (std::size_t r = 0; r < p.out.events.rows(); ++r)
    EXPECT_EQ(std::string(p.out.events.column(event_col::text).get_string(r)).find("deeplab"), std::string::npos);
}

TEST(ShellPrompt, DmonIntervalComesFromThePastedCommandLine) {
  const std::string rows =
      "# gpu    pwr  gtemp     sm    mem\n"
      "# Idx      W      C      %      %\n"
      "    0    287     61     98     41\n"
      "    0    291     62     97     40\n"
      "    0     72     52      0      0\n";
  const Ingested with = ingest("ubuntu@ip-172-31-5-18:~$ nvidia-smi dmon -s pu -d 15\n" + rows + "^C\n");
  EXPECT_EQ(with.file().format, FormatId::dmon);
  EXPECT_EQ(with.file().rejected(), 0u);
  EXPECT_EQ(with.file().prompts, 2u);
  const Table& s = with.out.samples;
  ASSERT_EQ(s.rows(), 3u);
  EXPECT_EQ(s.column(sample_col::wall_raw_ns).get_int(1) - s.column(sample_col::wall_raw_ns).get_int(0), 15 * kNsPerSec);
  EXPECT_EQ(s.column(sample_col::interval_ns).get_int(2), 15 * kNsPerSec);
  // Without the command line, the option (1 s) is all there is.
  const Ingested without = ingest(rows);
  EXPECT_EQ(without.out.samples.column(sample_col::interval_ns).get_int(2), kNsPerSec);
}

TEST(ShellPrompt, TwoPsRunsAreTwoSnapshots) {
  const std::string text =
      "lab@dgx01:~$ ps aux --sort=-%cpu | head -3\n"
      "USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND\n"
      "lab      2214337  797 11.2 98342012 29613404 ?  Rl   09:12 1432:07 python train.py\n"
      "root        1872  3.1  0.0 1784940 49652 ?      Ssl  Feb27  95:41 /usr/bin/nvidia-persistenced\n"
      "lab@dgx01:~$ ps aux --sort=-%cpu | head -3 | tail -2\n"
      "lab      2214337  802 11.2 98342012 29614012 ?  Rl   09:12 1433:48 python train.py\n"
      "root        1872  3.1  0.0 1784940 49652 ?      Ssl  Feb27  95:41 /usr/bin/nvidia-persistenced\n";
  const Ingested p = ingest(text);
  EXPECT_EQ(p.file().format, FormatId::ps);
  EXPECT_EQ(p.file().rejected(), 0u);
  const Table& t = p.out.processes;
  ASSERT_EQ(t.rows(), 4u);
  EXPECT_EQ(t.column(process_col::snapshot).get_int(0), t.column(process_col::snapshot).get_int(1));
  EXPECT_NE(t.column(process_col::snapshot).get_int(1), t.column(process_col::snapshot).get_int(2));
  EXPECT_EQ(t.column(process_col::snapshot).get_int(2), t.column(process_col::snapshot).get_int(3));
  EXPECT_DOUBLE_EQ(t.column(process_col::cpu_pct).get_float(0), 797.0);
  EXPECT_DOUBLE_EQ(t.column(process_col::cpu_pct).get_float(2), 802.0);  // headerless, >= 100 %
}

TEST(ShellPrompt, HeaderlessPsKeepsTheBusiestProcess) {
  // procps prints %CPU without a decimal from 100 on: the row was not taken for `ps aux` layout.
  const Ingested p = ingest(
      "lab      2214337  797 11.2 98342012 29613404 ?  Rl   09:12 1432:07 python train.py\n"
      "lab      2214902 99.8  1.1 31276544 2961340 ?   Sl   09:12 191:10 python -m torch.distributed.run\n"
      "root        1872  3.1  0.0 1784940 49652 ?      Ssl  Feb27  95:41 /usr/bin/nvidia-persistenced\n");
  EXPECT_EQ(p.file().format, FormatId::ps);
  EXPECT_EQ(p.file().rejected(), 0u);
  ASSERT_EQ(p.out.processes.rows(), 3u);
  EXPECT_EQ(p.out.processes.column(process_col::pid).get_int(0), 2214337);
  EXPECT_DOUBLE_EQ(p.out.processes.column(process_col::cpu_pct).get_float(0), 797.0);
}

TEST(ShellPrompt, AFileOfPromptsAloneSaysSo) {
  const Ingested p = ingest("user@host:~$ nvidia-smi dmon -d 15\n^C\nuser@host:~$\n");
  EXPECT_EQ(p.file().format, FormatId::unknown);
  EXPECT_EQ(p.file().prompts, 3u);
  EXPECT_EQ(p.file().rejected(), 0u);
  ASSERT_FALSE(p.file().notes.empty());
  EXPECT_NE(p.file().notes.back().find("nothing but pasted shell prompt lines"), std::string::npos)
      << p.file().notes.back();
}


// may_be_shell_prompt, PromptFilter's early reject, is false only where parse_shell_prompt is.
TEST(ShellPromptEarlyReject, KeepsEveryPrompt) {
  for (std::string_view line : {
           "alex@deeplab:~$ sudo dmesg -T | grep -i nvrm", "root@gpu-node07:/var/log# journalctl -k -o json",
           "[root@gpu-node07 ~]# nvidia-smi dmon -d 15", "[user@fedora log]$ cat kern.log",
           "(base) user@host:~/src$ nvidia-smi", "user@mac ~ % ps aux", "$ sudo dmesg", "# journalctl -o json",
           "user@host:~$", "root@host#", "^C", "^C  ",
           // 64 name bytes, the most a user name may have.
           "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijkl@h:~$ dmesg",
       }) {
    ASSERT_TRUE(parse_shell_prompt(line)) << line;
    EXPECT_TRUE(may_be_shell_prompt(line)) << line;
  }
}

TEST(ShellPromptEarlyReject, RejectsLogLinesByTheirFirstBytes) {
  for (std::string_view line : {
           "Nov 20 13:46:48 ml-laptop kernel: [15345.708181] nvidia-modeset: ERROR: GPU:0: Failed",
           "[ 4909.922970] NVRM: GPU at PCI:0000:01:00: GPU-abc", "2026-11-20T13:46:48.123456+01:00 host kernel: x",
           "{ \"MESSAGE\" : \"x\" }", "    0     70     45      -     98     40", "", " ", "@host:~$ dmesg",
           // 65 name bytes: one more than a user name may have.
           "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklm@h:~$ dmesg",
       }) {
    EXPECT_FALSE(may_be_shell_prompt(line)) << line;
    EXPECT_FALSE(parse_shell_prompt(line)) << line;
  }
}

// Generated lines made of the bytes prompts are made of, and every line of the test data: no
// prompt is rejected early.
TEST(ShellPromptEarlyReject, NeverRejectsWhatParseShellPromptAccepts) {
  std::mt19937_64 rng(1202);
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  static constexpr std::string_view kPieces[] = {
      "a", "Z", "0", "_", "-", ".", "@", ":", "~", "/", "$", "#", "%", "[", "]", "(", ") ", " ", "\t", "^C", "^",
      "\xc3\xa9", "user", "host", "dmesg", "sudo", "root@gpu1", ":~$ ", " ~ % ", "]# ", "(venv) ", "[u@h ~]$ "};
  int prompts = 0, rejected = 0;
  for (int n = 0; n < 200000; ++n) {
    std::string s;
    for (std::size_t k = pick(12); k > 0; --k) s += kPieces[pick(std::size(kPieces))];
    if (pick(50) == 0) s.insert(pick(s.size() + 1), std::string(60 + pick(8), 'x'));
    const bool prompt = parse_shell_prompt(s);
    const bool may = may_be_shell_prompt(s);
    if (prompt) {
      ++prompts;
      EXPECT_TRUE(may) << '"' << s << '"';
    }
    if (!may) ++rejected;
  }
  EXPECT_GT(prompts, 1000);
  EXPECT_GT(rejected, 10000);
  std::size_t lines = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(GPUCOST_TEST_DATA)) {
    if (!e.is_regular_file()) continue;
    std::ifstream in(e.path(), std::ios::binary);
    for (std::string l; std::getline(in, l); ++lines)
      if (parse_shell_prompt(l)) {
        EXPECT_TRUE(may_be_shell_prompt(l)) << e.path() << ": " << l;
      }
  }
  EXPECT_GT(lines, 1000u);
}

}  // namespace
}  // namespace gpucost
