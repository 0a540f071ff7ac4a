// PyTorch profiler traces (Chrome trace JSON written by Kineto): one ProfilerSummary per file,
// the input of feature F003 (share of time lost to kernel-launch queueing).
//
// The trace is one JSON document, usually pretty-printed over many lines and possibly hundreds
// of MB, so it is read whole (LineSource::read_raw, which also takes .gz apart on the fly) into
// one padded buffer and walked once with simdjson's On-Demand API; only launches and kernels are
// kept, as three numbers each. Line accounting: every line before the first JSON error is
// accepted, the line holding the error gets the problem, the lines after it are counted as lost.
// A trace cut short (the profiler killed while writing) still yields a summary of the events
// before the cut.
#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "gpucost/text.hpp"
#include "ingest/formats/formats.hpp"
#include "ingest/formats/json_support.hpp"
#include "ingest/formats/profiler_summary.hpp"

namespace gpucost::formats {
namespace {

namespace od = simdjson::ondemand;

constexpr std::size_t kReadBlock = 4 << 20;
// The trace is held whole, so a compressed one is inflated to at most this many times its size
// (and at least kMinInflatedTraceBytes): Kineto's JSON compresses 10-30:1 with gzip, a crafted
// stream about 1000:1 (0.4 MB would become 400 MB). The events before the cap still count.
constexpr std::uint64_t kMaxTraceInflation = 100;
constexpr std::uint64_t kMinInflatedTraceBytes = 64ull << 20;

// Keys that only a Chrome/Kineto trace writes; and keys that traces share with other JSON.
constexpr std::string_view kTraceKeys[] = {
    "\"schemaVersion\"", "\"traceEvents\"", "\"deviceProperties\"", "\"displayTimeUnit\"",
    "\"baseTimeNanoseconds\"", "\"ph\"", "\"External id\"", "\"correlation\"", "\"cupti_version\"",
    "\"cuda_runtime_version\"", "\"cuda_driver_version\"", "\"computeMajor\"", "\"totalGlobalMem\"",
    "\"maxThreadsPerBlock\"", "\"distributedInfo\"", "\"Trace name\"", "\"Trace iteration\"",
    "\"Profiler Event Index\"", "\"Ev Idx\"", "\"Record function id\"", "\"Input Dims\"",
    "\"registers per thread\"", "\"blocks per SM\"", "\"warps per SM\"", "\"est. achieved occupancy %\"",
    "\"cbid\"", "\"queued\"", "\"trace_id\"", "\"Sequence number\"", "\"Fwd thread id\""};
constexpr std::string_view kSharedKeys[] = {"\"cat\"", "\"ts\"", "\"dur\"", "\"pid\"", "\"tid\"",
                                            "\"args\"", "\"name\"", "\"grid\"", "\"block\"",
                                            "\"stream\"", "\"device\"", "\"context\""};

// A line of pretty-printed JSON structure or numbers only (`{`, `},`, `2048,`).
bool is_json_structure(std::string_view t) noexcept {
  if (t.empty()) return false;
  for (const char c : t)
    if (!std::strchr("{}[],:0123456789.-+eE \t", c)) return false;
  return true;
}

bool category_is(std::string_view cat, std::string_view want) noexcept { return text::iequals(cat, want); }

struct TraceReader {
  std::vector<TraceLaunch> launches;
  std::vector<TraceKernel> kernels;
  TimeNs first_ns = kNoTime, last_ns = kNoTime;
  std::uint64_t events = 0, untimed = 0;
  bool saw_events = false;

  // Reads one event object; false on a JSON error (err set).
  bool event(od::object obj, simdjson::error_code& err) {
    std::string_view ph, cat, name;
    std::optional<TimeNs> ts, dur;
    std::int64_t correlation = INT64_MIN;
    for (auto field : obj) {
      std::string_view key;
      if ((err = field.unescaped_key().get(key))) return false;
      od::value v;
      if ((err = field.value().get(v))) return false;
      if (key == "ph" || key == "cat" || key == "name") {
        std::string_view s;
        od::json_type t;
        if ((err = v.type().get(t))) return false;
        if (t != od::json_type::string) continue;  // odd but harmless: the event just is not ours
        if ((err = v.get_string().get(s))) return false;
        (key == "ph" ? ph : key == "cat" ? cat : name) = s;
      } else if (key == "ts" || key == "dur") {
        od::json_type t;
        if ((err = v.type().get(t))) return false;
        if (t != od::json_type::number) continue;
        (key == "ts" ? ts : dur) = trace_us_to_ns(v.raw_json_token());
      } else if (key == "args") {
        od::json_type t;
        if ((err = v.type().get(t))) return false;
        if (t != od::json_type::object) continue;
        od::object args;
        if ((err = v.get_object().get(args))) return false;
        for (auto a : args) {
          std::string_view k;
          if ((err = a.unescaped_key().get(k))) return false;
          if (k != "correlation") continue;
          std::int64_t c = 0;
          if (a.value().get_int64().get(c) == simdjson::SUCCESS) correlation = c;
        }
      }
    }
    ++events;
    if (ph == "M") return true;  // metadata (process and thread names): no time of its own
    if (!ts) {
      ++untimed;
      return true;
    }
    const TimeNs start = *ts, end = *ts + (dur && *dur > 0 ? *dur : 0);
    if (first_ns == kNoTime || start < first_ns) first_ns = start;
    if (last_ns == kNoTime || end > last_ns) last_ns = end;
    if (ph != "X") return true;
    if (category_is(cat, "kernel")) {
      kernels.push_back({correlation, start, end});
    } else if ((category_is(cat, "cuda_runtime") || category_is(cat, "cuda_driver") || category_is(cat, "runtime")) &&
               correlation != INT64_MIN && is_kernel_launch_name(name)) {
      launches.push_back({correlation, start});
    }
    return true;
  }

  bool event_array(od::array arr, simdjson::error_code& err) {
    saw_events = true;
    for (auto element : arr) {
      od::value v;
      if ((err = element.get(v))) return false;
      od::json_type t;
      if ((err = v.type().get(t))) return false;
      if (t != od::json_type::object) continue;
      od::object obj;
      if ((err = v.get_object().get(obj))) return false;
      if (!event(obj, err)) return false;
    }
    return true;
  }

  // Walks the document: `{"traceEvents": [...], ...}` (Kineto) or a bare array of events
  // (Chrome's "JSON Array Format").
  bool document(od::document& doc, simdjson::error_code& err) {
    od::json_type t;
    if ((err = doc.type().get(t))) return false;
    if (t == od::json_type::array) {
      od::array arr;
      if ((err = doc.get_array().get(arr))) return false;
      return event_array(arr, err);
    }
    od::object top;
    if ((err = doc.get_object().get(top))) return false;
    for (auto field : top) {
      std::string_view key;
      if ((err = field.unescaped_key().get(key))) return false;
      if (key != "traceEvents") continue;
      od::array arr;
      if ((err = field.value().get_array().get(arr))) return false;
      if (!event_array(arr, err)) return false;
    }
    return true;
  }
};

// Real lines of the format, with what the parser makes of them (tests/unit/format_samples_test.cpp).
constexpr FormatSample kSamples[] = {
    {"trace.json", "tests/data/structured/torch-trace-hta-backward-thread.json",
     R"smp({
    "traceEvents": [
        {
            "ph": "X",
            "cat": "user_annotation",
            "name": "ProfilerStep#552",
            "pid": 3914,
            "tid": 3914,
            "ts": 1666149715033200,
            "dur": 413451,
            "args": {
                "Trace name": "PyTorch Profiler",
                "Trace iteration": 0,
                "External id": 49220,
                "Profiler Event Index": 24131
            }
        },
        {
            "ph": "X",
            "cat": "user_annotation",
            "name": "## backward ##",
            "pid": 3914,
            "tid": 3914,
            "ts": 1666149715287655,
            "dur": 107988,
            "args": {
                "Trace name": "PyTorch Profiler",
                "Trace iteration": 0,
                "External id": 56949,
                "Profiler Event Index": 31860
            }
        },
        {
            "ph": "X",
            "cat": "cpu_op",
            "name": "autograd::engine::evaluate_function: AddmmBackward0",
            "pid": 3914,
            "tid": 24922,
            "ts": 1666149715364322,
            "dur": 145,
            "args": {
                "Trace name": "PyTorch Profiler",
                "Trace iteration": 0,
                "External id": 67242,
                "Profiler Event Index": 95305,
                "Fwd thread id": 1,
                "Sequence number": 714649
            }
        },
        {
            "ph": "X",
            "cat": "cpu_op",
            "name": "AddmmBackward0",
            "pid": 3914,
            "tid": 24922,
            "ts": 1666149715364324,
            "dur": 102,
            "args": {
                "Trace name": "PyTorch Profiler",
                "Trace iteration": 0,
                "External id": 67243,
                "Profiler Event Index": 95306,
                "Input Dims": [
                    [
                        2048,
                        2048
                    ]
                ],
                "Input type": [
                    "float"
                ],
                "Fwd thread id": 1,
                "Sequence number": 714649
            }
        },
        {
            "ph": "X",
            "cat": "cpu_op",
            "name": "aten::mm",
            "pid": 3914,
            "tid": 24922,
            "ts": 1666149715364330,
            "dur": 58,
            "args": {
                "Trace name": "PyTorch Profiler",
                "Trace iteration": 0,
                "External id": 67247,
                "Profiler Event Index": 95310,
                "Input Dims": [
                    [
                        2048,
                        2048
                    ],
                    [
                        2048,
                        256
                    ]
                ],
                "Input type": [
                    "float",
                    "float"
                ]
            }
        },
        {
            "ph": "X",
            "cat": "kernel",
            "name": "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>",
            "pid": 0,
            "tid": 7,
            "ts": 1666149715428509,
            "dur": 45,
            "args": {
                "External id": 2131433,
                "queued": 0,
                "device": 0,
                "context": 1,
                "stream": 7,
                "correlation": 2131433,
                "registers per thread": 240,
                "shared memory": 98304,
                "blocks per SM": 0.5925926,
                "warps per SM": 2.3703704,
                "grid": [
                    32,
                    1,
                    2
                ],
                "block": [
                    128,
                    1,
                    1
                ],
                "est. achieved occupancy %": 0
            }
        },
        {
            "ph": "X",
            "cat": "cuda_runtime",
            "name": "cudaLaunchKernel",
            "pid": 3914,
            "tid": 24922,
            "ts": 1666149715364374,
            "dur": 10,
            "args": {
                "External id": 2131433,
                "cbid": 211,
                "correlation": 2131433
            }
        }
    ],
    "distributedInfo": {
        "rank": 0
    }
}
)smp",
     1},
};

class Format final : public LogFormat {
 public:
  FormatId id() const noexcept override { return FormatId::torch_trace; }
  std::span<const FormatSample> samples() const noexcept override { return kSamples; }

  int score(std::string_view line) const noexcept override {
    const std::string_view t = text::trim(line);
    if (t.empty()) return 0;
    for (const auto k : kTraceKeys)
      if (has_json_key(t, k)) return 100;
    for (const auto k : kSharedKeys)
      if (has_json_key(t, k)) return 40;
    return is_json_structure(t) ? 20 : 0;
  }

  void parse(LineSource& src, FileSink& sink) const override {
    std::string doc;
    const std::uint64_t packed = src.compressed_size();
    const std::uint64_t cap = packed == 0 ? UINT64_MAX : std::max(kMinInflatedTraceBytes, packed * kMaxTraceInflation);
    while (doc.size() <= cap && src.read_raw(kReadBlock, doc) > 0) {
    }
    if (doc.size() > cap) {
      doc.resize(static_cast<std::size_t>(cap));
      sink.file_problem(Problem::decompression_limit,
                        fmt::format("the trace inflates to more than {} MiB ({} times its compressed size, at least "
                                    "{} MiB): read up to there",
                                    cap >> 20, kMaxTraceInflation, kMinInflatedTraceBytes >> 20));
    }
    const std::size_t len = doc.size();
    doc.append(simdjson::SIMDJSON_PADDING, ' ');
    const std::string_view text(doc.data(), len);

    od::parser parser;
    TraceReader reader;
    std::size_t error_pos = std::string::npos;
    simdjson::error_code err = read_trace(parser, doc, len, reader, error_pos);
    bool salvaged = false;
    if ((err == simdjson::INCOMPLETE_ARRAY_OR_OBJECT || err == simdjson::UNCLOSED_STRING) && reader.events == 0)
      salvaged = salvage(parser, doc, len, reader, error_pos);

    std::string reason;
    Problem problem = Problem::bad_json;
    if (err) {
      reason = salvaged ? std::string("truncated: the document ends inside this event")
                        : fmt::format("{} (byte {})", json_error_text(err), error_pos);
      if (reader.events > 0) reason += fmt::format("; the summary covers the {} events before it", reader.events);
    } else if (!reader.saw_events) {
      problem = Problem::missing_field;
      reason = "the JSON document has no traceEvents array";
      error_pos = 0;
    }
    account_lines(text, err || !reader.saw_events ? error_pos : std::string::npos, problem, reason, sink);

    if (!reader.saw_events) return;
    ProfilerSummary s = summarize_launches(reader.launches, reader.kernels);
    s.file = sink.file_index();
    if (reader.first_ns != kNoTime) s.span_ns = reader.last_ns - reader.first_ns;
    sink.profiles().push_back(s);
    sink.record();
    if (reader.untimed > 0)
      sink.diagnostics().notes.push_back(fmt::format("{} trace events without a numeric ts were left out", reader.untimed));
  }

 private:
  // Parses doc[0, len) (doc holds simdjson's padding after len); on an error sets error_pos to
  // where the parse stopped (len when simdjson cannot say).
  static simdjson::error_code read_trace(od::parser& parser, std::string& doc, std::size_t len, TraceReader& reader,
                                         std::size_t& error_pos) {
    reader = TraceReader{};
    od::document d;
    simdjson::error_code err = parser.iterate(simdjson::padded_string_view(doc.data(), len, doc.size())).get(d);
    if (err) {  // stage 1 failed: no document to ask where
      error_pos = len;
      return err;
    }
    if (reader.document(d, err)) {
      const char* rest = nullptr;
      if (d.current_location().get(rest) == simdjson::SUCCESS) err = simdjson::TRAILING_CONTENT;
    }
    if (err) {
      const char* at = nullptr;
      error_pos = d.current_location().get(at) == simdjson::SUCCESS ? static_cast<std::size_t>(at - doc.data()) : len;
      if (error_pos > len) error_pos = len;
    }
    return err;
  }

  // A trace cut short (the profiler killed while writing) fails as a whole: On-Demand checks the
  // root's closing bracket first. Closing the event array right after the last `},` (the end of
  // an event in Kineto's layout) lets the events before the cut count. The two bytes written
  // are put back, so line accounting sees the file as it is. True when that parse succeeds.
  static bool salvage(od::parser& parser, std::string& doc, std::size_t len, TraceReader& reader,
                      std::size_t& error_pos) {
    const std::string_view text(doc.data(), len);
    const auto first = text.find_first_not_of(" \t\r\n");
    const auto cut = text.rfind("},");
    if (first == std::string_view::npos || cut == std::string_view::npos) return false;
    const bool bare_array = text[first] == '[';
    const std::string_view close = bare_array ? "]" : "]}";
    char saved[2] = {doc[cut + 1], doc[cut + 2]};
    std::memcpy(doc.data() + cut + 1, close.data(), close.size());
    TraceReader attempt;
    std::size_t ignored = 0;
    const bool ok = read_trace(parser, doc, cut + 1 + close.size(), attempt, ignored) == simdjson::SUCCESS &&
                    attempt.saw_events;
    std::memcpy(doc.data() + cut + 1, saved, 2);
    if (!ok) return false;
    reader = std::move(attempt);
    const auto next = text.find_first_not_of(" \t\r\n", cut + 2);
    error_pos = next == std::string_view::npos ? len : next;
    return true;
  }

  // Feeds every line of the document to the sink: accepted before the error, the problem on the
  // last non-blank line that starts at or before it, counted as lost after that line.
  static void account_lines(std::string_view text, std::size_t error_pos, Problem p, std::string_view reason,
                            FileSink& sink) {
    std::uint64_t target = 0;  // 0: no error
    if (error_pos != std::string::npos) {
      for_each_doc_line(text, [&](const Line& l) {
        if (l.offset > error_pos) return false;
        if (!text::is_blank(l.text)) target = l.number;
        return true;
      });
      if (target == 0) target = 1;
    }
    for_each_doc_line(text, [&](const Line& l) {
      sink.line_read(l);
      if (text::is_blank(l.text)) return true;
      if (target == 0 || l.number < target) sink.accept();
      else if (l.number == target) sink.problem(l, p, reason);
      else ++sink.diagnostics().problems[static_cast<std::size_t>(p)];
      return true;
    });
  }
};

}  // namespace

const LogFormat& torch_trace_format() {
  static const Format f;
  return f;
}

}  // namespace gpucost::formats
