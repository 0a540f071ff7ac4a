// journalctl's short family: short, short-iso, short-iso-precise, short-precise,
// short-monotonic, short-unix, short-full; `-- Boot ... --` markers and `systemctl status` blocks
// pasted above the lines.
#include <algorithm>

#include "ingest/formats/formats.hpp"
#include "ingest/formats/syslog_prefix.hpp"

namespace gpucost::formats {
namespace {

class Format final : public LogFormat {
 public:
  FormatId id() const noexcept override { return FormatId::journal_short; }
  int score(std::string_view line) const noexcept override {
    Leaning leaning;
    const int base = syslog_family_score(line, leaning);
    const bool journal = leaning == Leaning::kJournal || leaning == Leaning::kJournalOnly;
    return std::max(base + (journal ? kLeaningBonus : 0), journal_structure_score(line));
  }
  void parse(LineSource& src, FileSink& sink) const override { parse_syslog_family(src, sink, true); }
};

}  // namespace

const LogFormat& journal_short_format() {
  static const Format f;
  return f;
}

}  // namespace gpucost::formats
