// journalctl's short family: short, short-iso, short-iso-precise, short-precise,
// short-monotonic, short-unix, short-full; `-- Boot ... --` markers and `systemctl status` blocks
// pasted above the lines.
#include <algorithm>

#include "ingest/formats/formats.hpp"
#include "ingest/formats/syslog_prefix.hpp"

namespace gpucost::formats {
namespace {

// Real lines of the format, with what the parser makes of them (tests/unit/format_samples_test.cpp).
constexpr FormatSample kSamples[] = {
    {"journalctl-k.txt", "tests/data/real/kern/xid31-journalctl-k-driver450.txt",
     R"smp(Nov 29 11:28:11 zeus kernel: NVRM: GPU at PCI:0000:c1:00: GPU-<uuid redacted>
Nov 29 11:28:11 zeus kernel: NVRM: Xid (PCI:0000:c1:00): 31, pid=12890, Ch 0000003b, intr 00000000. MMU Fault: ENGINE HOST0 HUBCLIENT_HOST_CPU faulted @ 0x1_0c3c0000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_WRITE
Nov 29 11:28:11 zeus kernel: NVRM: Xid (PCI:0000:c1:00): 31, pid=12890, Ch 0000003e, intr 00000000. MMU Fault: ENGINE GRAPHICS HUBCLIENT_SCC faulted @ 0x1_8c710000. Fault is of type FAULT_PTE ACCESS_TYPE_VIRT_READ
)smp",
     2},
};

class Format final : public SyslogFamilyFormat {
 public:
  Format() noexcept : SyslogFamilyFormat(true) {}
  FormatId id() const noexcept override { return FormatId::journal_short; }
  std::span<const FormatSample> samples() const noexcept override { return kSamples; }
  int score(std::string_view line) const noexcept override {
    Leaning leaning;
    const int base = syslog_family_score(line, leaning);
    const bool journal = leaning == Leaning::kJournal || leaning == Leaning::kJournalOnly;
    return std::max(base + (journal ? kLeaningBonus : 0), journal_structure_score(line));
  }
};

}  // namespace

const LogFormat& journal_short_format() {
  static const Format f;
  return f;
}

}  // namespace gpucost::formats
