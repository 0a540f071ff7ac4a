// Issue 3: every file of the verbatim real samples (tests/data/real, a copy of
// ../shared/samples/real) is detected as its true format (as SOURCES.md describes it) and at
// least 99 % of its non-blank lines are accepted or attached as continuations. Golden tests
// (tests/golden/real-*) pin what each file yields.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "gpucost/diagnostics.hpp"
#include "gpucost/ingest/ingest.hpp"

namespace fs = std::filesystem;

namespace gpucost {
namespace {

// The true format of each sample, from tests/data/real/SOURCES.md ("format variant").
const std::map<std::string, FormatId> kTrueFormat = {
    {"collect-h200-580/nvidia-smi-pmon.txt", FormatId::pmon},
    {"collect-h200-580/nvidia-smi-q-start.txt", FormatId::nvidia_smi_q},
    {"dmon/3gpu-mixed-rtx30-driver535-trailing-space.txt", FormatId::dmon},
    {"dmon/dcgm-go-sample-dmon-old-temp-col.txt", FormatId::dmon},
    {"dmon/default-single-gpu-dcgm-exporter-issue.txt", FormatId::dmon},
    {"dmon/pucet-o-DT-ecc-dash-2021.txt", FormatId::dmon},
    {"dmon/slurm-pucm-fb-bar1-ccpm-mtemp.txt", FormatId::dmon},
    {"journal/docker-dockerd-logfmt-journal-jetson.txt", FormatId::journal_short},
    {"journal/docker-systemctl-status-failed-nvidia-runtime.txt", FormatId::journal_short},
    {"journal/json-kernel-transport-ext4-oneline.txt", FormatId::journal_json},
    {"journal/logind-buttons-lidswitch-nixos.txt", FormatId::journal_short},
    {"journal/nvidia-persistenced-journal-signal15.txt", FormatId::journal_short},
    {"journal/nvidia-powerd-systemctl-status-amd-laptop.txt", FormatId::journal_short},
    {"kern/acpi-ac-adapter-online-dmesg-stack.txt", FormatId::dmesg},
    {"kern/aer-correctable-syslog-with-kernel-ts.txt", FormatId::syslog},
    {"kern/aer-journal-locale-jan-dot.txt", FormatId::journal_short},
    {"kern/aer-no-timestamp-leading-space-laptop.txt", FormatId::dmesg},  // a dmesg paste, stamps cut
    {"kern/i915-gpu-hang-dmesg-2015-xps13.txt", FormatId::dmesg},
    {"kern/i915-gpu-hang-dmesg-modern.txt", FormatId::dmesg},
    {"kern/modeset-load-i915-fence-dmesg-530.txt", FormatId::dmesg},
    {"kern/nvassert-fullchip-reset-fedora-journal.txt", FormatId::journal_short},
    {"kern/nvidia-license-taints-64bit-bar-multiline.txt", FormatId::dmesg},
    {"kern/rminitadapter-failed-fedora-journal-595.txt", FormatId::journal_short},
    {"kern/taint-modeset-fedora-journal-595.txt", FormatId::journal_short},
    {"kern/taint-out-of-tree-nixos-dmesg-515.txt", FormatId::dmesg},
    {"kern/xid120-gsp-crashcat-journal-575.txt", FormatId::journal_short},
    // "journal/syslog short": one line, byte-identical in both; the name does not say syslog.
    {"kern/xid31-journal-steam-single.txt", FormatId::journal_short},
    {"kern/xid31-journalctl-k-driver450.txt", FormatId::journal_short},
    {"kern/xid31-mmu-fault-dmesg-proton.txt", FormatId::dmesg},
    {"kern/xid31-open595-dmesg-unrealeditor.txt", FormatId::dmesg},
    {"kern/xid31-xid13-xid32-dmesg-driver418.txt", FormatId::dmesg},
    {"kern/xid32-xid31-old-format-dmesg.txt", FormatId::dmesg},
    {"kern/xid79-fallen-off-bus-multiline-dmesg-570.txt", FormatId::dmesg},
    {"querygpu/2gpu-1080ti-1060-no-timestamp.txt", FormatId::query_gpu_csv},
    {"querygpu/rtx2060-busid-driver460.txt", FormatId::query_gpu_csv},
    {"smiq-xml/h200-580-q-x.xml", FormatId::nvidia_smi_q_xml},
    {"syslog/loghub-linux-2k-head.log", FormatId::syslog},
};

const fs::path kReal = fs::path(GPUCOST_TEST_DATA) / "real";

TEST(RealSamples, EveryFileIsListedWithItsTrueFormat) {
  std::set<std::string> on_disk;
  for (const auto& e : fs::recursive_directory_iterator(kReal))
    if (e.is_regular_file() && e.path().filename() != "SOURCES.md")
      on_disk.insert(fs::relative(e.path(), kReal).generic_string());
  std::set<std::string> listed;
  for (const auto& [f, _] : kTrueFormat) listed.insert(f);
  EXPECT_EQ(on_disk, listed);
}

TEST(RealSamples, DetectedAsTheirTrueFormatWithNinetyNinePercentUnderstood) {
  const IngestStage ingest(IngestOptions{});
  for (const auto& [rel, want] : kTrueFormat) {
    IngestResult out;
    Diagnostics diag;
    ingest.run(kReal / rel, out, diag);
    ASSERT_EQ(diag.files.size(), 1u) << rel;
    const FileDiagnostics& f = diag.files[0];
    EXPECT_EQ(format_name(f.format), format_name(want)) << rel;
    const std::uint64_t non_blank = f.lines - f.blank;
    ASSERT_GT(non_blank, 0u) << rel;
    EXPECT_GE(static_cast<double>(f.accepted + f.continuations), 0.99 * static_cast<double>(non_blank))
        << rel << ": " << f.accepted << " accepted + " << f.continuations << " continuations of " << non_blank;
    EXPECT_EQ(f.rejected(), 0u) << rel;
  }
}

}  // namespace
}  // namespace gpucost
