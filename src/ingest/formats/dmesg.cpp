// dmesg, raw monotonic form only (first cut).
#include "gpucost/text.hpp"
#include "ingest/formats/formats.hpp"

namespace gpucost::formats {
namespace {

// `[ 1234.567890] text` -> mono ns and the text; false when the line has no such stamp.
bool split_mono(std::string_view line, TimeNs& mono, std::string_view& rest) {
  if (line.empty() || line[0] != '[') return false;
  const auto close = line.find(']');
  if (close == std::string_view::npos) return false;
  std::string_view stamp = text::trim(line.substr(1, close - 1));
  const auto dot = stamp.find('.');
  if (dot == std::string_view::npos) return false;
  auto secs = text::to_int(stamp.substr(0, dot));
  std::string_view frac = stamp.substr(dot + 1);
  if (!secs || frac.empty() || frac.size() > 9) return false;
  auto f = text::to_int(frac);
  if (!f) return false;
  TimeNs ns = *f;
  for (std::size_t i = frac.size(); i < 9; ++i) ns *= 10;
  mono = *secs * kNsPerSec + ns;
  rest = line.substr(close + 1);
  if (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  return true;
}

class Format final : public LogFormat {
 public:
  FormatId id() const noexcept override { return FormatId::dmesg; }
  int score(std::string_view line) const noexcept override {
    TimeNs mono;
    std::string_view rest;
    return split_mono(line, mono, rest) ? 60 : 0;
  }
  void parse(LineSource& src, FileSink& sink) const override {
    Line line;
    while (src.next(line)) {
      sink.line_read(line);
      if (text::is_blank(line.text)) continue;
      TimeNs mono;
      std::string_view rest;
      if (!split_mono(line.text, mono, rest)) {
        sink.problem(line, Problem::unparsable_line, "no [seconds.micros] stamp");
        continue;
      }
      sink.accept();
      MessageRecord m;
      m.line = line.number;
      m.mono_ns = mono;
      m.ident = "kernel";
      m.text = rest;
      sink.message(m);
    }
  }
};
}  // namespace
const LogFormat& dmesg_format() {
  static const Format f;
  return f;
}
}  // namespace gpucost::formats
