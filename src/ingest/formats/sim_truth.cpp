// The truth.json that `gpucost simulate` writes beside its logs: recognized so that it is listed
// as what it is (ground truth for tests) instead of as an unknown file, and otherwise skipped.
#include "gpucost/text.hpp"
#include "ingest/formats/formats.hpp"

namespace gpucost::formats {
namespace {

class Format final : public LogFormat {
 public:
  FormatId id() const noexcept override { return FormatId::sim_truth; }
  int score(std::string_view line) const noexcept override {
    return text::contains(line, "\"generator\": \"gpucost simulate") ? kSignatureScore : 0;
  }
  void parse(LineSource& src, FileSink& sink) const override {
    Line line;
    while (src.next(line)) {
      sink.line_read(line);
      if (!text::is_blank(line.text)) sink.accept();
    }
    sink.diagnostics().notes.emplace_back("gpucost simulate ground truth: not a log, nothing read from it");
  }
};

}  // namespace

const LogFormat& sim_truth_format() {
  static const Format f;
  return f;
}

}  // namespace gpucost::formats
