// The AdminComment job summary: made from the per-job rows of one node, written as key=value
// words whose values are percent-encoded outside a small safe set, and parsed back by
// `gpucost fleet --sacct`. Numbers carry 6 significant digits: a summary is a record, the
// NDJSON rows keep the full precision.
#include "gpucost/fleet/job_summary.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <charconv>
#include <cmath>
#include <utility>

namespace gpucost::fleet {

namespace {

bool safe(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
         c == '-' || c == ':' || c == '@' || c == '+';
}

std::string encode(std::string_view s) {
  std::string out;
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (safe(c)) out += ch;
    else out += fmt::format("%{:02X}", c);
  }
  return out;
}

int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

bool decode(std::string_view s, std::string& out) {
  out.clear();
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    if (i + 2 >= s.size() || hex(s[i + 1]) < 0 || hex(s[i + 2]) < 0) return false;
    out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
    i += 2;
  }
  return true;
}

std::string number(const std::optional<double>& v) { return v ? fmt::format("{:.6g}", *v) : std::string("-"); }

bool parse_number(std::string_view s, std::optional<double>& out) {
  if (s == "-") {
    out.reset();
    return true;
  }
  double d = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(d)) return false;
  out = d;
  return true;
}

std::optional<double> field(simdjson::dom::object o, std::string_view key) {
  simdjson::dom::element e;
  if (o.at_key(key).get(e) || e.is_null()) return std::nullopt;
  double d = 0;
  if (e.is_double() && !e.get(d)) return d;
  std::int64_t i = 0;
  if (e.is_int64() && !e.get(i)) return static_cast<double>(i);
  return std::nullopt;
}

std::string string_field(simdjson::dom::object o, std::string_view key) {
  std::string_view s;
  if (o.at_key(key).get(s)) return {};
  return std::string(s);
}

// The numbers of a segment, by key, in output order.
using Number = std::optional<double> JobSummary::*;
constexpr std::pair<std::string_view, Number> kNumbers[] = {
    {"alloc_h", &JobSummary::allocated_gpu_hours}, {"busy_h", &JobSummary::busy_gpu_hours},
    {"idle_h", &JobSummary::idle_gpu_hours},       {"unmeas_h", &JobSummary::unmeasured_gpu_hours},
    {"eff_h", &JobSummary::effective_gpu_hours},   {"kwh", &JobSummary::energy_kwh},
    {"xid", &JobSummary::xid_events},              {"inc", &JobSummary::incidents},
    {"lost_s", &JobSummary::gpu_lost_s},           {"own", &JobSummary::local_cost},
    {"idle_cost", &JobSummary::idle_cost},         {"rent", &JobSummary::cloud_cost}};

}  // namespace

std::vector<JobSummary> summaries_of_rows(std::string_view ndjson) {
  std::vector<JobSummary> out;
  std::vector<JobSummary::Gpu> gpus;
  simdjson::dom::parser parser;
  for (std::size_t at = 0; at < ndjson.size();) {
    auto nl = ndjson.find('\n', at);
    if (nl == std::string_view::npos) nl = ndjson.size();
    const std::string_view line = ndjson.substr(at, nl - at);
    at = nl + 1;
    simdjson::dom::element doc;
    simdjson::dom::object o;
    if (parser.parse(line.data(), line.size()).get(doc) || doc.get(o)) continue;
    if (string_field(o, "schema") != "gpucost.job_row") continue;
    const std::string row = string_field(o, "row");
    if (row == "gpu") {
      JobSummary::Gpu g;
      simdjson::dom::element e;
      std::int64_t index = 0;
      if (!o.at_key("gpu_index").get(e) && !e.get(index)) g.id = fmt::format("{}", index);
      else g.id = string_field(o, "gpu_uuid");
      g.allocated_gpu_hours = field(o, "allocated_gpu_hours");
      g.busy_gpu_hours = field(o, "busy_gpu_hours");
      gpus.push_back(std::move(g));
      continue;
    }
    if (row != "node") continue;
    JobSummary s;
    s.host = string_field(o, "host");
    s.window_start = string_field(o, "window_start");
    s.window_end = string_field(o, "window_end");
    s.model = string_field(o, "gpu_model");
    s.currency = string_field(o, "currency");
    s.cloud = string_field(o, "cloud_preset");
    s.allocated_gpu_hours = field(o, "allocated_gpu_hours");
    s.busy_gpu_hours = field(o, "busy_gpu_hours");
    s.idle_gpu_hours = field(o, "idle_gpu_hours");
    s.unmeasured_gpu_hours = field(o, "unmeasured_gpu_hours");
    s.effective_gpu_hours = field(o, "effective_gpu_hours");
    s.energy_kwh = field(o, "energy_kwh");
    s.xid_events = field(o, "xid_events");
    s.incidents = field(o, "incidents");
    s.gpu_lost_s = field(o, "gpu_lost_s");
    s.local_cost = field(o, "local_cost");
    s.idle_cost = field(o, "idle_cost");
    s.cloud_cost = field(o, "cloud_cost");
    if (auto n = field(o, "gpu_count")) s.gpus = static_cast<std::size_t>(*n);
    simdjson::dom::array findings;
    if (!o.at_key("findings").get(findings))
      for (auto f : findings) {
        std::string_view name;
        if (!f.get(name)) s.findings.emplace_back(name);
      }
    s.per_gpu = std::move(gpus);
    gpus.clear();
    out.push_back(std::move(s));
  }
  return out;
}

std::string render_summary(const JobSummary& s) {
  std::string head = fmt::format("{} host={} win={}/{} gpus={}", kSummaryTag, encode(s.host), encode(s.window_start),
                                 encode(s.window_end), s.gpus);
  for (const auto& [key, member] : kNumbers)
    if (s.*member) head += fmt::format(" {}={}", key, number(s.*member));
  if (!s.currency.empty()) head += " cur=" + encode(s.currency);
  if (!s.cloud.empty()) head += " cloud=" + encode(s.cloud);
  if (!s.model.empty()) head += " model=" + encode(s.model);
  std::string gpu;
  for (const auto& g : s.per_gpu)
    gpu += fmt::format("{}{}:{}/{}", gpu.empty() ? " gpu=" : ",", encode(g.id), number(g.allocated_gpu_hours),
                       number(g.busy_gpu_hours));
  if (head.size() + gpu.size() > kMaxSummaryBytes) gpu.clear();
  head += gpu;
  // Findings as many as fit, in their order, and how many did not.
  std::string find;
  std::size_t shown = 0;
  for (const auto& f : s.findings) {
    const std::string word = (find.empty() ? " find=" : ",") + encode(f);
    const std::size_t rest = s.findings.size() - shown - 1;
    const std::size_t tail = rest ? fmt::formatted_size(" find_more={}", rest) : 0;
    if (head.size() + find.size() + word.size() + tail > kMaxSummaryBytes) break;
    find += word;
    ++shown;
  }
  head += find;
  const std::size_t more = s.findings.size() - shown + s.findings_left_out;
  if (more && head.size() + fmt::formatted_size(" find_more={}", more) <= kMaxSummaryBytes)
    head += fmt::format(" find_more={}", more);
  if (head.size() > kMaxSummaryBytes) head.resize(kMaxSummaryBytes);  // only an absurd host or model
  return head;
}

std::optional<JobSummary> parse_summary(std::string_view segment, std::string& why) {
  JobSummary s;
  bool tagged = false;
  std::string value;
  for (std::size_t at = 0; at < segment.size();) {
    auto sp = segment.find(' ', at);
    if (sp == std::string_view::npos) sp = segment.size();
    const std::string_view word = segment.substr(at, sp - at);
    at = sp + 1;
    if (word.empty()) continue;
    if (!tagged) {
      if (word != kSummaryTag) {
        why = fmt::format("does not start with {}", kSummaryTag);
        return std::nullopt;
      }
      tagged = true;
      continue;
    }
    const auto eq = word.find('=');
    if (eq == std::string_view::npos) continue;  // a word of a later version: ignored
    const std::string_view key = word.substr(0, eq), raw = word.substr(eq + 1);
    if (!decode(raw, value)) {
      why = fmt::format("{}: bad %-escape", key);
      return std::nullopt;
    }
    bool ok = true, known = false;
    for (const auto& [k, member] : kNumbers)
      if (k == key) ok = parse_number(raw, s.*member), known = true;
    if (!ok) {
      why = fmt::format("{}={} is not a number", key, raw);
      return std::nullopt;
    }
    if (known) continue;
    if (key == "host") s.host = value;
    else if (key == "cur") s.currency = value;
    else if (key == "cloud") s.cloud = value;
    else if (key == "model") s.model = value;
    else if (key == "gpus") {
      std::optional<double> n;
      if (parse_number(raw, n) && n && *n >= 0 && *n < 1e6) s.gpus = static_cast<std::size_t>(*n);
    } else if (key == "win") {
      const auto slash = raw.find('/');
      if (slash == std::string_view::npos || !decode(raw.substr(0, slash), s.window_start) ||
          !decode(raw.substr(slash + 1), s.window_end)) {
        why = "win is not START/END";
        return std::nullopt;
      }
    } else if (key == "find") {
      for (std::size_t f = 0; f < raw.size();) {
        auto comma = raw.find(',', f);
        if (comma == std::string_view::npos) comma = raw.size();
        if (decode(raw.substr(f, comma - f), value)) s.findings.push_back(value);
        f = comma + 1;
      }
    } else if (key == "find_more") {
      std::optional<double> n;
      if (parse_number(raw, n) && n && *n >= 0 && *n < 1e6) s.findings_left_out = static_cast<std::size_t>(*n);
    }
  }
  if (!tagged) {
    why = "empty";
    return std::nullopt;
  }
  return s;
}

}  // namespace gpucost::fleet
