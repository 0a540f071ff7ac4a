// Streaming the per-job rows: 1 MiB blocks, lines found with memchr, each line parsed in place
// by simdjson (the block keeps SIMDJSON_PADDING readable bytes after every line) and added to
// the totals of its keys. Nothing per row outlives its line.
#include <fcntl.h>
#include <simdjson.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "gpucost/fleet/fleet.hpp"

namespace gpucost::fleet {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kBlock = 1 << 20;
constexpr std::size_t kMaxLine = 16u << 20;
constexpr std::string_view kSchema = "gpucost.job_row";

// A measurement of the row: a pointer to its value, or null when the field is null or absent.
// A present field of another type makes the row malformed (reported by the caller).
bool measure(simdjson::dom::object& o, std::string_view key, double& storage, const double*& out) {
  out = nullptr;
  simdjson::dom::element e;
  if (o.at_key(key).get(e)) return true;  // absent: unknown
  if (e.is_null()) return true;
  if (e.is_double()) return !e.get(storage) && (out = &storage, true);
  if (e.is_int64()) {
    std::int64_t i = 0;
    if (e.get(i)) return false;
    storage = static_cast<double>(i);
    out = &storage;
    return true;
  }
  if (e.is_uint64()) {
    std::uint64_t u = 0;
    if (e.get(u)) return false;
    storage = static_cast<double>(u);
    out = &storage;
    return true;
  }
  return false;
}

// A string field: its value, "" when null or absent; false when of another type.
bool text(simdjson::dom::object& o, std::string_view key, std::string_view& out) {
  out = {};
  simdjson::dom::element e;
  if (o.at_key(key).get(e) || e.is_null()) return true;
  return !e.get(out);
}

}  // namespace

struct FleetReader::Parser {
  simdjson::dom::parser dom;
};

const std::unordered_map<std::string, Totals>& FleetSummary::group(Group g) const noexcept {
  switch (g) {
    case Group::kJob: return by_job;
    case Group::kUser: return by_user;
    case Group::kNode: return by_node;
    case Group::kGpuModel: return by_model;
  }
  return by_job;
}

void FleetReader::problem(const std::string& path, std::uint64_t line_no, std::string reason) {
  ++out_.malformed;
  if (out_.problems.size() < kMaxProblems) out_.problems.push_back({path, line_no, std::move(reason)});
}

void FleetReader::add_line(std::string_view line, const std::string& path, std::uint64_t line_no) {
  std::string padded(line.size() + simdjson::SIMDJSON_PADDING, ' ');
  line.copy(padded.data(), line.size());
  add_padded_line(std::string_view(padded.data(), line.size()), path, line_no);
}

void FleetReader::add_padded_line(std::string_view line, const std::string& path, std::uint64_t line_no) {
  ++out_.lines;
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
  if (line.find_first_not_of(" \t") == std::string_view::npos) {
    ++out_.blank_lines;
    return;
  }
  if (!parser_) parser_ = std::make_shared<Parser>();
  simdjson::dom::element doc;
  // The caller's buffer has SIMDJSON_PADDING readable bytes after the line: no copy.
  if (auto err = parser_->dom.parse(line.data(), line.size(), false).get(doc)) {
    problem(path, line_no, std::string("not JSON: ") + simdjson::error_message(err));
    return;
  }
  simdjson::dom::object o;
  if (doc.get(o)) return problem(path, line_no, "not a JSON object");
  std::string_view schema, row, job, user, host, model, currency, cloud;
  if (!text(o, "schema", schema) || schema != kSchema)
    return problem(path, line_no, "no \"schema\": \"gpucost.job_row\" (not a gpucost per-job row)");
  std::int64_t version = 0;
  if (o.at_key("schema_version").get(version) || version < 1)
    return problem(path, line_no, "no schema_version (a positive integer)");
  if (!text(o, "row", row) || (row != "gpu" && row != "node"))
    return problem(path, line_no, "\"row\" is neither \"gpu\" nor \"node\"");
  if (!text(o, "job_id", job) || !text(o, "user", user) || !text(o, "host", host) || !text(o, "gpu_model", model) ||
      !text(o, "currency", currency) || !text(o, "cloud_preset", cloud))
    return problem(path, line_no, "an identifier (job_id, user, host, gpu_model, currency, cloud_preset) is not a string");

  // Every measurement first, so a malformed row adds nothing.
  struct Field {
    std::string_view key;
    Sum Totals::*sum;
    double storage;
    const double* value;
  };
  Field fields[] = {
      {"allocated_gpu_hours", &Totals::allocated_gpu_hours, 0, nullptr},
      {"busy_gpu_hours", &Totals::busy_gpu_hours, 0, nullptr},
      {"idle_gpu_hours", &Totals::idle_gpu_hours, 0, nullptr},
      {"sampled_gpu_hours", &Totals::sampled_gpu_hours, 0, nullptr},
      {"effective_gpu_hours", &Totals::effective_gpu_hours, 0, nullptr},
      {"energy_kwh", &Totals::energy_kwh, 0, nullptr},
      {"local_cost", &Totals::local_cost, 0, nullptr},
      {"idle_cost", &Totals::idle_cost, 0, nullptr},
      {"cloud_cost", &Totals::cloud_cost, 0, nullptr},
      {"xid_events", &Totals::xid_events, 0, nullptr},
      {"incidents", &Totals::incidents, 0, nullptr},
      {"gpu_lost_s", &Totals::gpu_lost_s, 0, nullptr},
  };
  for (auto& f : fields)
    if (!measure(o, f.key, f.storage, f.value))
      return problem(path, line_no, std::string(f.key) + " is not a number or null");

  ++out_.rows;
  ++out_.schema_versions[version];
  if (!currency.empty() && (out_.currencies.size() < 16 || out_.currencies.count(std::string(currency))))
    out_.currencies.emplace(currency);
  if (!cloud.empty() && out_.cloud_offers.size() < 16) out_.cloud_offers.emplace(cloud);

  const bool gpu_row = row == "gpu";
  auto add = [&](Totals& t) {
    if (gpu_row) {
      ++t.gpu_rows;
      for (auto& f : fields)
        if (f.sum != &Totals::xid_events && f.sum != &Totals::incidents) (t.*f.sum).add(f.value);
    } else {
      ++t.node_rows;
      for (auto& f : fields)
        if (f.sum == &Totals::xid_events || f.sum == &Totals::incidents) (t.*f.sum).add(f.value);
    }
  };
  // The unordered maps are looked up with a string built once per key (find first: no
  // allocation for keys already present).
  auto group = [&](std::unordered_map<std::string, Totals>& m, std::string_view key) {
    const std::string_view k = key.empty() ? std::string_view("(unknown)") : key;
    thread_local std::string buf;
    buf.assign(k);
    auto it = m.find(buf);
    if (it == m.end()) it = m.emplace(buf, Totals{}).first;
    add(it->second);
  };
  add(out_.fleet);
  group(out_.by_job, job);
  group(out_.by_user, user);
  group(out_.by_node, host);
  group(out_.by_model, model);
}

void FleetReader::read_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    out_.unreadable.push_back(path + ": " + std::strerror(errno));
    return;
  }
  ++out_.files;
  std::string buf(kBlock + simdjson::SIMDJSON_PADDING, '\0');
  std::size_t have = 0;  // bytes of buf holding data
  std::uint64_t line_no = 0;
  bool skipping = false;  // inside a line longer than kMaxLine
  for (bool eof = false; !eof;) {
    if (buf.size() - have < kBlock / 2 + simdjson::SIMDJSON_PADDING) buf.resize(buf.size() * 2);
    const ssize_t n = ::read(fd, buf.data() + have, buf.size() - have - simdjson::SIMDJSON_PADDING);
    if (n < 0) {
      if (errno == EINTR) continue;
      out_.unreadable.push_back(path + ": " + std::strerror(errno));
      break;
    }
    out_.bytes += static_cast<std::uint64_t>(n);
    have += static_cast<std::size_t>(n);
    eof = n == 0;
    std::size_t start = 0;
    while (start < have) {
      const char* nl = static_cast<const char*>(std::memchr(buf.data() + start, '\n', have - start));
      if (!nl && !eof) break;
      const std::size_t end = nl ? static_cast<std::size_t>(nl - buf.data()) : have;
      ++line_no;
      if (skipping) skipping = false;
      else add_padded_line(std::string_view(buf.data() + start, end - start), path, line_no);
      start = end + 1;
    }
    if (start >= have) {
      have = 0;
    } else {
      std::memmove(buf.data(), buf.data() + start, have - start);
      have -= start;
    }
    if (have > kMaxLine) {  // a line without end: report it once and drop what is held of it
      problem(path, line_no + 1, "line longer than 16 MiB");
      ++out_.lines;
      have = 0;
      skipping = true;
    }
    if (buf.size() > 2 * (kBlock + simdjson::SIMDJSON_PADDING) && have < kBlock) {
      buf.resize(kBlock + simdjson::SIMDJSON_PADDING);
      buf.shrink_to_fit();
    }
  }
  ::close(fd);
}

void FleetReader::read_tree(const std::string& dir) {
  std::error_code ec;
  const auto st = fs::status(dir, ec);
  if (ec || !fs::exists(st)) throw std::invalid_argument(dir + ": no such file or directory");
  if (!fs::is_directory(st)) {
    read_file(dir);
    return;
  }
  std::vector<std::string> files;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    if (it->path().extension() == ".ndjson") files.push_back(it->path().string());
  }
  if (ec) out_.unreadable.push_back(dir + ": " + ec.message());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) read_file(f);
}

}  // namespace gpucost::fleet
