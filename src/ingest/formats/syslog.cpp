// kern.log, syslog, messages: classic BSD `Mmm dd HH:MM:SS host ident[pid]: msg` and rsyslog's
// RFC 3339 stamps. Kernel lines that keep the kernel's `[mono]` stamp are boot anchors.
#include "ingest/formats/formats.hpp"
#include "ingest/formats/syslog_prefix.hpp"

namespace gpucost::formats {
namespace {

class Format final : public LogFormat {
 public:
  FormatId id() const noexcept override { return FormatId::syslog; }
  int score(std::string_view line) const noexcept override {
    Leaning leaning;
    const int base = syslog_family_score(line, leaning);
    if (leaning == Leaning::kJournalOnly) return 0;
    return base + (leaning == Leaning::kSyslog ? kLeaningBonus : 0);
  }
  void parse(LineSource& src, FileSink& sink) const override { parse_syslog_family(src, sink, false); }
};

}  // namespace

const LogFormat& syslog_format() {
  static const Format f;
  return f;
}

}  // namespace gpucost::formats
