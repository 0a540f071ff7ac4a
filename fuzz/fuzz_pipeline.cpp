// Fuzz target: the whole run on a directory of fuzzed files. The input is cut into files at
// form feeds (`\f`); each is detected and parsed like a file of that name (the names are hints
// detection may use), then align, features and every report writer run, and the JSON report and
// each timeline line must be valid JSON (invalid UTF-8 in the logs is escaped, never passed on).
#include <fcntl.h>
#include <simdjson.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "fuzz_common.hpp"
#include "gpucost/align/align.hpp"
#include "gpucost/features/features.hpp"
#include "gpucost/pipeline/pipeline.hpp"
#include "gpucost/report/report.hpp"
#include "gpucost/report/timeline_writer.hpp"
#include "json_reading.hpp"

namespace {
using namespace gpucost;

constexpr const char* kNames[] = {"dmesg.txt", "kern.log", "journal.txt", "gpu0-dmon.txt", "ps.txt", "query.csv"};

// Valid JSON, with bytes that were not UTF-8 in the logs written as lone low surrogates
// (\udc80-\udcff, text/json.hpp), which simdjson alone would refuse: read as the HTML and
// Prometheus writers read the report.
bool valid_json(std::string_view s) {
  static simdjson::dom::parser parser;
  simdjson::padded_string padded(testing::replace_lone_surrogates(s));
  simdjson::dom::element doc;
  const auto e = parser.parse(padded).get(doc);
  if (e == simdjson::SUCCESS) return true;
  std::fprintf(stderr, "invalid JSON (%s), %zu bytes:\n%.*s\n", simdjson::error_message(e), s.size(),
               static_cast<int>(std::min<std::size_t>(s.size(), 200000)), s.data());
  return false;
}

std::string timeline_path() {
  const char* dir = ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  return std::string(dir) + "/gpucost-fuzz-timeline-" + std::to_string(::getpid()) + ".jsonl";
}

std::string read_file(const std::string& path) {
  std::string s;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return s;
  char buf[65536];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) s.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  ::setenv("TZ", "UTC", 1);  // the zone align falls back to: the same on every machine
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view rest = fuzz::as_text(data, size);
  PipelineResult result;
  for (std::size_t i = 0; i < 6; ++i) {
    const std::size_t ff = rest.find('\f');
    const std::string_view file = rest.substr(0, ff);
    fuzz::fuzz_stage().run_buffer(file, std::to_string(i) + "/" + kNames[i], FormatId::unknown, result.ingest,
                                  result.diagnostics, 1'764'445'845'000'000'000);
    if (ff == std::string_view::npos) break;
    rest.remove_prefix(ff + 1);
  }
  fuzz::check_ingest(result.ingest, result.diagnostics);
  AlignStage(AlignOptions{}).run(result.ingest, result.timeline, result.diagnostics);
  FeatureStage(FeatureOptions{}).run(result.timeline, result.features);

  Report rep;
  rep.input = "fuzz";
  rep.result = &result;
  rep.max_error_rate = 0.05;
  rep.error_rate_exceeded = result.diagnostics.error_rate() > rep.max_error_rate;
  const std::string json = render_report(rep, ReportFormat::kJson);
  FUZZ_CHECK(valid_json(json));
  FUZZ_CHECK(!render_report(rep, ReportFormat::kCsv).empty());
  FUZZ_CHECK(!render_report(rep, ReportFormat::kTable).empty());
  FUZZ_CHECK(!render_report(rep, ReportFormat::kHtml).empty());
  FUZZ_CHECK(!render_report(rep, ReportFormat::kProm).empty());

  static const std::string path = timeline_path();
  {
    Output out(path);
    FUZZ_CHECK(write_timeline(result.timeline, TimelineFormat::kJsonl, out) == WriteStatus::kOk);
  }
  const std::string lines = read_file(path);
  std::size_t n = 0;
  for (std::size_t pos = 0; pos < lines.size();) {
    const std::size_t nl = lines.find('\n', pos);
    FUZZ_CHECK(nl != std::string::npos);
    FUZZ_CHECK(valid_json(std::string_view(lines).substr(pos, nl - pos)));
    pos = nl + 1;
    ++n;
  }
  FUZZ_CHECK(n == result.timeline.events.rows());
  ::unlink(path.c_str());
  return 0;
}
