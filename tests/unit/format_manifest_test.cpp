// manifest.json (docs/manifest.md): every field, the GPUs as devices, and damaged manifests.
#include <gtest/gtest.h>

#include <string>

#include "structured_test_util.hpp"

namespace gpucost {
namespace {

using testing::read_test_file;
using testing::run_format;
using testing::sample_reasons;

TEST(Manifest, DocumentedExampleIsReadWhole) {
  const std::string data = read_test_file("structured/manifest.json");
  auto run = run_format(FormatId::manifest, data);
  EXPECT_EQ(run->detection.format, FormatId::manifest);
  auto& d = run->diag();
  EXPECT_EQ(d.lines, 22u);
  EXPECT_EQ(d.accepted, 22u);
  EXPECT_EQ(d.records, 1u);
  ASSERT_TRUE(run->sink->manifest().has_value());
  const Manifest& m = *run->sink->manifest();
  EXPECT_EQ(m.host, "gpu-box-01");
  EXPECT_EQ(m.kernel, "6.1.0-18-amd64");
  EXPECT_EQ(m.driver_version, "535.154.05");
  EXPECT_EQ(m.timezone_name, "Asia/Shanghai");
  EXPECT_EQ(m.utc_offset_ns, 8 * kNsPerHour);
  EXPECT_EQ(m.boot_id, "c4b33c96f240457abc130dcb73da2b24");
  // 08:00:01+08:00 is 00:00:01Z; 19:50:45+08:00 is 11:50:45Z.
  EXPECT_EQ(m.boot_time_ns, civil_to_ns(CivilTime{2026, 11, 29, 0, 0, 1, 0}));
  EXPECT_EQ(m.start_ns, civil_to_ns(CivilTime{2026, 11, 29, 11, 50, 45, 0}));
  EXPECT_EQ(m.end_ns, civil_to_ns(CivilTime{2026, 11, 29, 12, 50, 45, 500000000}));
  EXPECT_EQ(m.interval_ns, kNsPerSec);
  ASSERT_EQ(m.gpu_names.size(), 2u);
  EXPECT_EQ(m.gpu_bus_ids[1], "0000:4c:00");
  ASSERT_EQ(m.commands.size(), 4u);
  EXPECT_EQ(m.commands[2].status, "failed");
  EXPECT_EQ(m.commands[2].reason, "dmesg: read kernel buffer failed: Operation not permitted");
  EXPECT_EQ(m.commands[3].status, "skipped");

  auto& gpus = run->sink->devices();
  ASSERT_EQ(gpus.size(), 2u);
  EXPECT_EQ(gpus[0].index, 0);
  EXPECT_EQ(gpus[0].pci_bus, "0000:01:00");
  EXPECT_EQ(gpus[0].uuid, "GPU-6a1e3f9e-1c2b-4d5e-8f70-1a2b3c4d5e6f");
  EXPECT_EQ(gpus[0].name, "NVIDIA GeForce RTX 3090");
  EXPECT_EQ(gpus[0].driver_version, "535.154.05");
  EXPECT_EQ(gpus[0].line, 13u);
  EXPECT_EQ(gpus[1].index, 1);
  EXPECT_EQ(gpus[1].line, 14u);

  const auto& z = run->sink->output().zone_evidence;
  ASSERT_EQ(z.size(), 1u);
  EXPECT_EQ(z[0].offset_ns, 8 * kNsPerHour);
}

TEST(Manifest, WrongFieldsAreReportedOnTheirLinesAndTheRestIsKept) {
  const std::string data =
      "{\n"
      "  \"gpucost_manifest\": 1,\n"
      "  \"host\": 42,\n"
      "  \"start\": \"2026-11-29 19:50\",\n"
      "  \"end\": \"2026-11-29T20:50:45\",\n"
      "  \"interval_s\": -1,\n"
      "  \"timezone\": {\"name\": \"Europe/Berlin\", \"utc_offset\": \"CET\"},\n"
      "  \"gpus\": [{\"index\": \"zero\", \"name\": \"NVIDIA A100\", \"pci_bus_id\": null}],\n"
      "  \"kernel\": \"6.8.0\",\n"
      "  \"future_field\": {\"anything\": [1, 2]}\n"
      "}\n";
  auto run = run_format(FormatId::manifest, data);
  auto& d = run->diag();
  EXPECT_EQ(d.accepted, 5u);  // lines 1, 2, 9, 10, 11
  EXPECT_EQ(sample_reasons(d, Problem::bad_json), "host is not a string");
  EXPECT_EQ(sample_reasons(d, Problem::bad_timestamp),
            "start \"2026-11-29 19:50\" is not an RFC 3339 time with a UTC offset | "
            "end \"2026-11-29T20:50:45\" is not an RFC 3339 time with a UTC offset | "
            "timezone.utc_offset \"CET\" is not like +08:00");
  EXPECT_EQ(sample_reasons(d, Problem::bad_number),
            "interval_s -1 is not a sampling interval in seconds | gpus[].index is not a GPU index");
  ASSERT_TRUE(run->sink->manifest().has_value());
  const Manifest& m = *run->sink->manifest();
  EXPECT_TRUE(m.host.empty());
  EXPECT_EQ(m.kernel, "6.8.0");
  EXPECT_EQ(m.timezone_name, "Europe/Berlin");
  EXPECT_FALSE(m.utc_offset_ns);
  EXPECT_FALSE(m.start_ns);
  EXPECT_FALSE(m.interval_ns);
  ASSERT_EQ(run->sink->devices().size(), 1u);
  EXPECT_FALSE(run->sink->devices()[0].index);
  EXPECT_EQ(run->sink->devices()[0].name, "NVIDIA A100");
  EXPECT_TRUE(run->sink->output().zone_evidence.empty());
}

TEST(Manifest, BrokenJsonIsNotUsed) {
  const std::string data = "{\n  \"gpucost_manifest\": 1,\n  \"host\": \"gpu-box\"\n  \"kernel\": \"6.1\"\n}\n";
  auto run = run_format(FormatId::manifest, data);
  EXPECT_FALSE(run->sink->manifest().has_value());
  EXPECT_EQ(run->diag().accepted, 0u);
  EXPECT_EQ(run->problems(Problem::bad_json), 5u);
  ASSERT_EQ(run->diag().samples.size(), 1u);
  EXPECT_EQ(run->diag().samples[0].line, 4u);

  auto cut = run_format(FormatId::manifest, std::string("{\n  \"gpucost_manifest\": 1,\n  \"host\": \"gpu-"));
  EXPECT_FALSE(cut->sink->manifest().has_value());
  EXPECT_EQ(cut->problems(Problem::bad_json), 3u);
  EXPECT_NE(sample_reasons(cut->diag(), Problem::bad_json).find("the manifest is not used"), std::string::npos);
}

TEST(Manifest, OtherJsonIsNoManifest) {
  auto run = run_format(FormatId::manifest, "{\"host\": \"x\", \"name\": \"y\"}\n");
  EXPECT_FALSE(run->sink->manifest().has_value());
  EXPECT_EQ(sample_reasons(run->diag(), Problem::missing_field), "no \"gpucost_manifest\" key: not a gpucost manifest");
}

TEST(Manifest, NewerVersionIsReadWithANote) {
  auto run = run_format(FormatId::manifest, "{\"gpucost_manifest\": 2, \"host\": \"x\", \"new\": true}\n");
  ASSERT_TRUE(run->sink->manifest().has_value());
  EXPECT_EQ(run->sink->manifest()->host, "x");
  ASSERT_EQ(run->diag().notes.size(), 1u);
  EXPECT_EQ(run->diag().notes[0], "manifest version 2 is newer than this gpucost reads (1); the known fields were used");
}

TEST(Manifest, ZoneEvidenceFromAStampWhenTimezoneIsMissing) {
  auto run = run_format(FormatId::manifest,
                        "{\"gpucost_manifest\": 1, \"start\": \"2026-11-29T19:50:45Z\", \"end\": \"2026-11-29T14:50:45-05:00\"}\n");
  const auto& z = run->sink->output().zone_evidence;
  ASSERT_EQ(z.size(), 1u);
  EXPECT_EQ(z[0].offset_ns, -5 * kNsPerHour);  // `Z` says nothing about the local zone
}

TEST(Manifest, WhatTheCollectionCouldNotReadBecomesNotes) {
  // The documented example: dmesg failed, nvidia-bug-report.sh skipped; the others are ok.
  auto doc = run_format(FormatId::manifest, read_test_file("structured/manifest.json"));
  ASSERT_EQ(doc->diag().notes.size(), 2u);
  EXPECT_EQ(doc->diag().notes[0],
            "collection: `dmesg --time-format iso` failed: dmesg: read kernel buffer failed: Operation not permitted");
  EXPECT_EQ(doc->diag().notes[1], "collection: `nvidia-bug-report.sh` skipped: not run by default (takes minutes)");

  // As collect-logs.sh writes it when killed: still "collecting", a collector still "running",
  // and a journal cut short (its file named).
  const std::string data =
      "{\"gpucost_manifest\": 1, \"state\": \"collecting\", \"commands\": [\n"
      "  {\"cmd\": \"nvidia-smi dmon -s pucvmet -o DT -d 1\", \"status\": \"running\", \"reason\": \"\", \"file\": \"nvidia-smi-dmon.txt\"},\n"
      "  {\"cmd\": \"journalctl -o json\", \"status\": \"partial\", \"reason\": \"cut short by SIGINT while it ran\", \"file\": \"journal.json\"},\n"
      "  {\"cmd\": \"dmesg\", \"status\": \"ok\", \"reason\": \"\", \"file\": \"dmesg.txt\"}\n"
      "]}\n";
  auto run = run_format(FormatId::manifest, data);
  EXPECT_EQ(run->diag().accepted, 5u);
  const auto& notes = run->diag().notes;
  ASSERT_EQ(notes.size(), 3u);
  EXPECT_EQ(notes[0], "the collection did not finish (the manifest still says \"collecting\"): files may be missing or "
                      "cut short (see the commands)");
  EXPECT_EQ(notes[1], "collection: `nvidia-smi dmon -s pucvmet -o DT -d 1` running (nvidia-smi-dmon.txt)");
  EXPECT_EQ(notes[2], "collection: `journalctl -o json` partial (journal.json): cut short by SIGINT while it ran");

  auto done = run_format(FormatId::manifest, "{\"gpucost_manifest\": 1, \"state\": \"complete\", \"commands\": []}\n");
  EXPECT_TRUE(done->diag().notes.empty());
  auto cut = run_format(FormatId::manifest, "{\"gpucost_manifest\": 1, \"state\": \"interrupted\"}\n");
  ASSERT_EQ(cut->diag().notes.size(), 1u);
  EXPECT_EQ(cut->diag().notes[0],
            "the collection ended \"interrupted\": files may be missing or cut short (see the commands)");
}

TEST(Manifest, Scores) {
  const LogFormat& f = *find_format(FormatId::manifest);
  EXPECT_EQ(f.score("  \"gpucost_manifest\": 1,"), 100);
  EXPECT_EQ(f.score("  \"host\": \"gpu-box-01\","), 40);
  EXPECT_EQ(f.score("  ],"), 20);
  EXPECT_EQ(f.score("    \"ph\": \"X\", \"cat\": \"kernel\","), 0);
  EXPECT_EQ(f.score("Nov 29 19:50:45 host kernel: x"), 0);
}

}  // namespace
}  // namespace gpucost
