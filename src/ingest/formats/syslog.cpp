// kern.log, syslog, messages: classic BSD `Mmm dd HH:MM:SS host ident[pid]: msg` and rsyslog's
// RFC 3339 stamps. Kernel lines that keep the kernel's `[mono]` stamp are boot anchors.
#include "ingest/formats/formats.hpp"
#include "ingest/formats/syslog_prefix.hpp"

namespace gpucost::formats {
namespace {

// Real lines of the format, with what the parser makes of them (tests/unit/format_samples_test.cpp).
constexpr FormatSample kSamples[] = {
    {"syslog", "tests/data/real/kern/aer-correctable-syslog-with-kernel-ts.txt",
     R"smp(Sep 19 16:18:02 bubz kernel: [68183.615790] pcieport 0000:00:03.1: AER: Correctable error message received from 0000:00:00.0
Sep 19 16:18:02 bubz kernel: [68183.615810] pcieport 0000:00:03.1: PCIe Bus Error: severity=Correctable, type=Data Link Layer, (Transmitter ID)
Sep 19 16:18:02 bubz kernel: [68183.615818] pcieport 0000:00:03.1:   device [1022:1453] error status/mask=00001000/00006000
Sep 19 16:18:02 bubz kernel: [68183.615826] pcieport 0000:00:03.1:    [12] Timeout               
Sep 19 16:18:02 bubz kernel: [68183.637883] pcieport 0000:00:03.1: AER: Correctable error message received from 0000:00:00.0
Sep 19 16:18:02 bubz kernel: [68183.637897] pcieport 0000:00:03.1: PCIe Bus Error: severity=Correctable, type=Data Link Layer, (Receiver ID)
Sep 19 16:18:02 bubz kernel: [68183.637902] pcieport 0000:00:03.1:   device [1022:1453] error status/mask=00000040/00006000
Sep 19 16:18:02 bubz kernel: [68183.637907] pcieport 0000:00:03.1:    [ 6] BadTLP                
)smp",
     2},
};

class Format final : public SyslogFamilyFormat {
 public:
  Format() noexcept : SyslogFamilyFormat(false) {}
  FormatId id() const noexcept override { return FormatId::syslog; }
  std::span<const FormatSample> samples() const noexcept override { return kSamples; }
  int score(std::string_view line) const noexcept override {
    Leaning leaning;
    const int base = syslog_family_score(line, leaning);
    if (leaning == Leaning::kJournalOnly) return 0;
    return base + (leaning == Leaning::kSyslog ? kLeaningBonus : 0);
  }
};

}  // namespace

const LogFormat& syslog_format() {
  static const Format f;
  return f;
}

}  // namespace gpucost::formats
