// nvidia-smi dmon, first cut: binds columns by header name.
#include <cmath>
#include <vector>

#include "gpucost/text.hpp"
#include "ingest/formats/formats.hpp"

namespace gpucost::formats {
namespace {

class Format final : public LogFormat {
 public:
  FormatId id() const noexcept override { return FormatId::dmon; }
  int score(std::string_view line) const noexcept override {
    std::string_view t = text::ltrim(line);
    if (t.substr(0, 1) == "#" && (text::contains(t, " gpu") || text::contains(t, "#gpu")) ) return 100;
    if (t.substr(0, 1) == "#" && text::contains(t, "Idx")) return 100;
    return 0;
  }
  void parse(LineSource& src, FileSink& sink) const override {
    Line line;
    std::vector<int> binding;  // per column: metric index, -1 gpu, -2 date, -3 time, -4 ignored
    std::vector<double> row(kGpuMetricCount);
    while (src.next(line)) {
      sink.line_read(line);
      std::string_view t = text::trim(line.text);
      if (t.empty()) continue;
      if (t.front() == '#') {
        t.remove_prefix(1);
        std::string_view s = t;
        std::string_view first = text::next_token(s);
        if (first == "Idx" || first == "YYYYMMDD") {
          sink.accept();
          continue;
        }
        binding.clear();
        std::string_view rest = t;
        while (!rest.empty()) {
          auto tok = text::next_token(rest);
          if (tok == "gpu") binding.push_back(-1);
          else if (tok == "Date") binding.push_back(-2);
          else if (tok == "Time") binding.push_back(-3);
          else if (auto m = gpu_metric_from_dmon(tok)) binding.push_back(static_cast<int>(*m));
          else binding.push_back(-4);
        }
        sink.accept();
        continue;
      }
      if (binding.empty()) {
        sink.problem(line, Problem::no_header, "dmon row before any `# gpu ...` header");
        continue;
      }
      std::fill(row.begin(), row.end(), std::nan(""));
      std::string_view rest = t;
      std::size_t col = 0;
      long gpu = -1;
      unsigned date = 0, hh = 0, mm = 0, ss = 0;
      bool has_date = false, has_time = false, ok = true;
      while (!rest.empty() && col < binding.size()) {
        auto tok = text::next_token(rest);
        const int b = binding[col++];
        if (b == -1) {
          auto g = text::to_int<long>(tok);
          if (!g) ok = false; else gpu = *g;
        } else if (b == -2) {
          has_date = text::digits(tok, 0, 8, date) && tok.size() == 8;
        } else if (b == -3) {
          has_time = tok.size() == 8 && text::digits(tok, 0, 2, hh) && text::digits(tok, 3, 2, mm) && text::digits(tok, 6, 2, ss);
        } else if (b >= 0 && tok != "-") {
          auto v = text::to_double(tok);
          if (v) row[static_cast<std::size_t>(b)] = *v;
        }
      }
      if (!ok || col != binding.size() || !rest.empty()) {
        sink.problem(line, Problem::column_mismatch, "row does not match the header's columns");
        continue;
      }
      sink.accept();
      Table& s = sink.samples();
      TimeNs raw = kNoTime;
      WallKind kind = WallKind::kNone;
      if (has_date && has_time) {
        CivilTime c{date / 10000, (date / 100) % 100, date % 100, hh, mm, ss, 0};
        raw = civil_to_ns(c);
        kind = WallKind::kLocal;
      }
      s.ts().push_null();
      s.column(sample_col::wall_kind).push_int(static_cast<std::int64_t>(kind));
      s.column(sample_col::wall_raw_ns).push_int_or_null(raw);
      s.column(sample_col::file).push_int(sink.file_index());
      s.column(sample_col::line).push_int(static_cast<std::int64_t>(line.number));
      s.column(sample_col::gpu).push_int(gpu);
      s.column(sample_col::interval_ns).push_null();
      for (std::size_t m = 0; m < kGpuMetricCount; ++m) s.column(sample_col::first_metric + m).push_float_or_null(row[m]);
      sink.record();
    }
  }
};
}  // namespace
const LogFormat& dmon_format() {
  static const Format f;
  return f;
}
}  // namespace gpucost::formats
