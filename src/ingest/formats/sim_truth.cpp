// The truth.json that `gpucost simulate` writes beside its logs: recognized so that it is listed
// as what it is (ground truth for tests) instead of as an unknown file, and otherwise skipped.
#include "gpucost/text.hpp"
#include "ingest/formats/formats.hpp"

namespace gpucost::formats {
namespace {

// The opening of a truth.json: the signature line decides.
constexpr FormatSample kSamples[] = {
    {"truth.json", "examples/laptop-training/truth.json (its first four lines)",
     R"smp({
  "generator": "gpucost simulate 0.1.0",
  "scenario": "laptop",
  "seed": 42,
)smp",
     0},
};

class Format final : public LogFormat {
 public:
  FormatId id() const noexcept override { return FormatId::sim_truth; }
  std::span<const FormatSample> samples() const noexcept override { return kSamples; }
  // The signature is a whole line of the file's own shape, its first key as a JSON
  // pretty-printer indents it: a log line that quotes it (`logger '"generator": "gpucost
  // simulate'` in syslog, a journal's indented continuation line) is no truth file.
  int score(std::string_view line) const noexcept override {
    constexpr std::string_view kKey = "\"generator\": \"gpucost simulate ";
    constexpr std::size_t kMaxIndent = 8;
    std::size_t indent = 0;
    while (indent < line.size() && line[indent] == ' ') ++indent;
    if (indent > kMaxIndent) return 0;
    const std::string_view rest = text::rtrim(line.substr(indent));
    if (rest.substr(0, kKey.size()) != kKey) return 0;
    const auto close = rest.find('"', kKey.size());
    if (close == std::string_view::npos) return 0;
    const std::string_view after = rest.substr(close + 1);
    return after.empty() || after == "," ? kSignatureScore : 0;
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
