// Reading the per-job rows: 1 MiB blocks, lines found with memchr, each line parsed in place by
// simdjson (the block keeps SIMDJSON_PADDING readable bytes after every line), checked, and
// kept as a HeldRow under its row key (a later copy of a key is a duplicate: the newer stays);
// finish() sums the kept rows per key. Identifiers and file names are interned once.
#include <fcntl.h>
#include <fmt/format.h>
#include <simdjson.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <istream>
#include <stdexcept>
#include <system_error>

#include "gpucost/fleet/fleet.hpp"
#include "gpucost/fleet/job_summary.hpp"
#include "gpucost/text/utf8.hpp"

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

// The measurements of a row, in this order (kFieldNames). finish() adds from a GPU row the
// first ten and gpu_lost_s, from a node row the Xid events and incidents (its hours are its GPU
// rows' again), from a job summary all of them.
enum Field : unsigned {
  kAllocated, kBusy, kIdle, kUnmeasured, kSampled, kEffective, kEnergy, kLocalCost, kIdleCost, kCloudCost,
  kXid, kIncidents, kLost, kFieldCount
};
constexpr std::string_view kFieldNames[kFieldCount] = {
    "allocated_gpu_hours", "busy_gpu_hours", "idle_gpu_hours", "unmeasured_gpu_hours", "sampled_gpu_hours",
    "effective_gpu_hours", "energy_kwh", "local_cost", "idle_cost", "cloud_cost", "xid_events", "incidents",
    "gpu_lost_s"};
constexpr Sum Totals::*kFieldSums[kFieldCount] = {
    &Totals::allocated_gpu_hours, &Totals::busy_gpu_hours, &Totals::idle_gpu_hours, &Totals::unmeasured_gpu_hours,
    &Totals::sampled_gpu_hours, &Totals::effective_gpu_hours, &Totals::energy_kwh, &Totals::local_cost,
    &Totals::idle_cost, &Totals::cloud_cost, &Totals::xid_events, &Totals::incidents, &Totals::gpu_lost_s};

// One kept row: its values and interned identifiers, until finish() sums it.
struct HeldRow {
  double value[kFieldCount] = {};
  std::uint32_t known = 0;  // bit i: value[i] was given
  std::uint32_t job = 0, user = 0, host = 0, model = 0, file = 0;
  std::uint64_t line = 0;
  std::uint32_t gpus = 0;  // GPU rows: 1; node rows: 0; a summary: the GPUs it covers
  enum Kind : std::uint8_t { kGpu, kNode, kSummary } kind = kGpu;
  char stamp[32] = {};  // last_record as written (RFC 3339, one fixed form: compared as text)
};

}  // namespace

std::string row_key(std::string_view cluster, std::string_view job, std::string_view step, std::string_view host,
                    std::string_view row, std::string_view gpu, std::string_view window_start,
                    std::string_view window_end) {
  std::string k;
  k.reserve(cluster.size() + job.size() + step.size() + host.size() + row.size() + gpu.size() +
            window_start.size() + window_end.size() + 7);
  for (std::string_view part : {cluster, job, step, host, row, gpu, window_start}) (k += part) += '\x1f';
  k += window_end;
  return k;
}

std::string escape_control(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const text::Utf8Char u = text::decode_utf8(s, i);
    const bool control = u.length == 0 || c < 0x20 || c == 0x7f || (u.code_point >= 0x80 && u.code_point < 0xa0);
    if (!control) {
      if (c == '\\') out += '\\';
      out.append(s.substr(i, u.length));
      i += u.length;
      continue;
    }
    // A UTF-8-encoded C1 character is shown byte by byte too: each byte is what a terminal sees.
    const std::size_t n = u.length ? u.length : 1;
    for (std::size_t j = 0; j < n; ++j) out += fmt::format("\\x{:02x}", static_cast<unsigned char>(s[i + j]));
    i += n;
  }
  return out;
}

struct FleetReader::State {
  simdjson::dom::parser dom;
  std::vector<HeldRow> rows;
  std::unordered_map<std::string, std::uint32_t> by_key;  // row key -> index in rows
  std::vector<std::string> names;                          // interned identifiers and file names
  std::unordered_map<std::string, std::uint32_t> name_ids;
  std::string key;  // reused per row

  std::uint32_t intern(std::string_view s) {
    key.assign(s);
    auto it = name_ids.find(key);
    if (it != name_ids.end()) return it->second;
    const auto id = static_cast<std::uint32_t>(names.size());
    names.push_back(key);
    name_ids.emplace(key, id);
    return id;
  }
};

FleetReader::FleetReader(FleetSummary& out) : out_(out) {}
FleetReader::~FleetReader() = default;

const std::unordered_map<std::string, Totals>& FleetSummary::group(Group g) const noexcept {
  switch (g) {
    case Group::kJob: return by_job;
    case Group::kUser: return by_user;
    case Group::kNode: return by_node;
    case Group::kGpuModel: return by_model;
  }
  return by_job;
}

void FleetReader::problem(const std::string& path, std::uint64_t line_no, std::string_view kind, std::string reason) {
  ++out_.malformed;
  ++out_.refused[std::string(kind)];
  if (out_.problems.size() < kMaxProblems) out_.problems.push_back({path, line_no, std::string(kind), std::move(reason)});
}

void FleetReader::add_line(std::string_view line, const std::string& path, std::uint64_t line_no) {
  std::string padded(line.size() + simdjson::SIMDJSON_PADDING, ' ');
  line.copy(padded.data(), line.size());
  add_padded_line(std::string_view(padded.data(), line.size()), path, line_no);
}

namespace {

// Refuses what no real row holds: a negative or absurdly large measurement (kMaxMeasurement).
// JSON has no NaN or infinity, and simdjson refuses numbers beyond a double's range.
const char* implausible(double v) {
  if (!std::isfinite(v)) return "non_finite";
  if (v < 0) return "negative";
  if (v > kMaxMeasurement) return "out_of_range";
  return nullptr;
}

// What a kept row and a newcomer with its key decide: does the newcomer replace it? A row
// with a later last_record is newer; an NDJSON row beats a job summary of the same node and
// window (it has each GPU); on a tie the row read first stays.
bool replaces(const HeldRow& newcomer, const HeldRow& kept) {
  if ((newcomer.kind == HeldRow::kSummary) != (kept.kind == HeldRow::kSummary)) return kept.kind == HeldRow::kSummary;
  return std::strncmp(newcomer.stamp, kept.stamp, sizeof kept.stamp) > 0;
}

// Keeps the row under its key, or counts it as a duplicate of the row kept there.
void keep(FleetSummary& out, std::vector<HeldRow>& rows, std::unordered_map<std::string, std::uint32_t>& by_key,
                 const std::vector<std::string>& names, const std::string& key, const HeldRow& row) {
  auto [it, fresh] = by_key.try_emplace(key, static_cast<std::uint32_t>(rows.size()));
  if (fresh) {
    rows.push_back(row);
    return;
  }
  HeldRow& kept = rows[it->second];
  const bool swap = replaces(row, kept);
  const HeldRow& dropped = swap ? kept : row;
  const HeldRow& stays = swap ? row : kept;
  ++out.duplicates;
  if (out.duplicate_rows.size() < kMaxProblems)
    out.duplicate_rows.push_back({names[dropped.file], dropped.line, names[stays.file], stays.line});
  if (swap) kept = row;
}

}  // namespace

void FleetReader::add_padded_line(std::string_view line, const std::string& path, std::uint64_t line_no) {
  ++out_.lines;
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
  if (line.find_first_not_of(" \t") == std::string_view::npos) {
    ++out_.blank_lines;
    return;
  }
  if (!state_) state_ = std::make_unique<State>();
  State& st = *state_;
  simdjson::dom::element doc;
  // The caller's buffer has SIMDJSON_PADDING readable bytes after the line: no copy.
  if (auto err = st.dom.parse(line.data(), line.size(), false).get(doc))
    return problem(path, line_no, "not_json", std::string("not JSON: ") + simdjson::error_message(err));
  simdjson::dom::object o;
  if (doc.get(o)) return problem(path, line_no, "not_json", "not a JSON object");
  std::string_view schema, row, cluster, job, step, user, host, model, currency, cloud, uuid, bus, start, end, last;
  if (!text(o, "schema", schema) || schema != kSchema)
    return problem(path, line_no, "not_a_row", "no \"schema\": \"gpucost.job_row\" (not a gpucost per-job row)");
  std::int64_t version = 0;
  if (o.at_key("schema_version").get(version) || version < 1)
    return problem(path, line_no, "not_a_row", "no schema_version (a positive integer)");
  if (!text(o, "row", row) || (row != "gpu" && row != "node"))
    return problem(path, line_no, "not_a_row", "\"row\" is neither \"gpu\" nor \"node\"");
  const std::pair<std::string_view, std::string_view*> ids[] = {
      {"cluster", &cluster},   {"job_id", &job},         {"job_step", &step},   {"user", &user},
      {"host", &host},         {"gpu_model", &model},    {"currency", &currency}, {"cloud_preset", &cloud},
      {"gpu_uuid", &uuid},     {"gpu_pci_bus_id", &bus}, {"window_start", &start}, {"window_end", &end},
      {"last_record", &last}};
  for (const auto& [name, field] : ids) {
    if (!text(o, name, *field))
      return problem(path, line_no, "bad_field", fmt::format("{} is not a string or null", name));
    if (field->size() > kMaxKeyBytes)
      return problem(path, line_no, "key_too_long",
                     fmt::format("{} is {} bytes long (at most {})", name, field->size(), kMaxKeyBytes));
  }
  std::int64_t index = -1;
  {
    simdjson::dom::element e;
    if (!o.at_key("gpu_index").get(e) && !e.is_null() && (e.get(index) || index < 0))
      return problem(path, line_no, "bad_field", "gpu_index is not a non-negative integer or null");
  }

  // Every measurement first, so a refused row adds nothing.
  HeldRow h;
  for (unsigned i = 0; i < kFieldCount; ++i) {
    double storage = 0;
    const double* v = nullptr;
    if (!measure(o, kFieldNames[i], storage, v))
      return problem(path, line_no, "bad_field", fmt::format("{} is not a number or null", kFieldNames[i]));
    if (!v) continue;
    if (const char* why = implausible(*v))
      return problem(path, line_no, why, fmt::format("{} is {} ({})", kFieldNames[i], *v,
                                                     std::string_view(why) == "negative" ? "below 0"
                                                                                         : "above 1e15 or not finite"));
    h.value[i] = *v;
    h.known |= 1u << i;
  }
  // Rows written before unmeasured hours were a column: what the samples do not cover.
  const unsigned alloc_sampled = (1u << kAllocated) | (1u << kSampled);
  if (!(h.known & (1u << kUnmeasured)) && (h.known & alloc_sampled) == alloc_sampled) {
    h.value[kUnmeasured] = std::max(0.0, h.value[kAllocated] - h.value[kSampled]);
    h.known |= 1u << kUnmeasured;
  }
  if (version < kHonestEffectiveSchema) h.known &= ~((1u << kEffective) | (1u << kCloudCost));

  ++out_.rows;
  ++out_.schema_versions[version];
  if (!currency.empty() && (out_.currencies.size() < 16 || out_.currencies.count(std::string(currency))))
    out_.currencies.emplace(currency);
  if (!cloud.empty() && out_.cloud_offers.size() < 16) out_.cloud_offers.emplace(cloud);

  h.kind = row == "gpu" ? HeldRow::kGpu : HeldRow::kNode;
  h.gpus = h.kind == HeldRow::kGpu ? 1 : 0;
  h.job = st.intern(job);
  h.user = st.intern(user);
  h.host = st.intern(host);
  h.model = st.intern(model);
  h.file = st.intern(path);
  h.line = line_no;
  last.copy(h.stamp, std::min(last.size(), sizeof h.stamp));
  std::string gpu;
  if (h.kind == HeldRow::kGpu) {
    if (!uuid.empty()) gpu = uuid;
    else if (!bus.empty()) gpu = fmt::format("pci:{}", bus);
    else if (index >= 0) gpu = fmt::format("index:{}", index);
    else gpu = fmt::format("at:{}:{}", path, line_no);  // no identity: never taken for another GPU's row
  }
  keep(out_, st.rows, st.by_key, st.names, row_key(cluster, job, step, host, row, gpu, start, end), h);
}

void FleetReader::read_sacct(std::istream& in, const std::string& name) {
  ++out_.files;
  std::string line;
  std::uint64_t line_no = 0;
  // Lines are bounded like the NDJSON reader's: what is past kMaxLine is read and dropped.
  for (std::streambuf* buf = in.rdbuf(); buf;) {
    line.clear();
    bool too_long = false;
    int c = 0;
    while ((c = buf->sbumpc()) != std::char_traits<char>::eof() && c != '\n') {
      ++out_.bytes;
      if (line.size() < kMaxLine) line.push_back(static_cast<char>(c));
      else too_long = true;
    }
    if (c == std::char_traits<char>::eof() && line.empty() && !too_long) break;
    ++line_no;
    if (c == '\n') ++out_.bytes;
    if (too_long) {
      ++out_.lines;
      problem(name, line_no, "line_too_long", "line longer than 16 MiB");
    } else {
      add_sacct_line(line, name, line_no);
    }
    if (c == std::char_traits<char>::eof()) break;
  }
}

void FleetReader::add_sacct_line(std::string_view line, const std::string& name, std::uint64_t line_no) {
  ++out_.lines;
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
  if (line.empty()) {
    ++out_.blank_lines;
    return;
  }
  // JobID|User|Partition|AdminComment: the comment is the rest of the line (it may hold a '|').
  std::string_view f[3];
  std::string_view rest = line;
  for (auto& part : f) {
    const auto bar = rest.find('|');
    if (bar == std::string_view::npos)
      return problem(name, line_no, "not_sacct", "not JobID|User|Partition|AdminComment (sacct -P -o ...)");
    part = rest.substr(0, bar);
    rest.remove_prefix(bar + 1);
  }
  const std::string_view job = f[0], user = f[1];
  if (job == "JobID" || job.find('.') != std::string_view::npos) return;  // the header; a step (123.batch)
  if (!state_) state_ = std::make_unique<State>();
  State& st = *state_;
  for (std::size_t at = 0; at < rest.size();) {
    auto semi = rest.find(';', at);
    if (semi == std::string_view::npos) semi = rest.size();
    std::string_view segment = rest.substr(at, semi - at);
    at = semi + 1;
    while (!segment.empty() && segment.front() == ' ') segment.remove_prefix(1);
    if (!segment.starts_with(kSummaryTag)) continue;  // what an operator keeps there
    std::string why;
    const auto sum = parse_summary(segment, why);
    if (!sum) return problem(name, line_no, "bad_summary", fmt::format("job summary: {}", why));
    for (std::string_view id : {job, user, std::string_view(sum->host), std::string_view(sum->model),
                                std::string_view(sum->window_start), std::string_view(sum->window_end),
                                std::string_view(sum->currency), std::string_view(sum->cloud)})
      if (id.size() > kMaxKeyBytes)
        return problem(name, line_no, "key_too_long",
                       fmt::format("an identifier is {} bytes long (at most {})", id.size(), kMaxKeyBytes));
    HeldRow h;
    h.kind = HeldRow::kSummary;
    const std::pair<Field, const std::optional<double>*> values[] = {
        {kAllocated, &sum->allocated_gpu_hours}, {kBusy, &sum->busy_gpu_hours},
        {kIdle, &sum->idle_gpu_hours},           {kUnmeasured, &sum->unmeasured_gpu_hours},
        {kEffective, &sum->effective_gpu_hours}, {kEnergy, &sum->energy_kwh},
        {kLocalCost, &sum->local_cost},          {kIdleCost, &sum->idle_cost},
        {kCloudCost, &sum->cloud_cost},          {kXid, &sum->xid_events},
        {kIncidents, &sum->incidents},           {kLost, &sum->gpu_lost_s}};
    for (const auto& [i, v] : values) {
      if (!*v) continue;
      if (const char* bad = implausible(**v))
        return problem(name, line_no, bad, fmt::format("job summary: {} is {}", kFieldNames[i], **v));
      h.value[i] = **v;
      h.known |= 1u << i;
    }
    if (sum->busy_gpu_hours && sum->idle_gpu_hours) {
      h.value[kSampled] = *sum->busy_gpu_hours + *sum->idle_gpu_hours;
      h.known |= 1u << kSampled;
    }
    h.gpus = static_cast<std::uint32_t>(std::min<std::size_t>(sum->gpus, 1u << 16));
    h.job = st.intern(job);
    h.user = st.intern(user);
    h.host = st.intern(sum->host);
    h.model = st.intern(sum->model);
    h.file = st.intern(name);
    h.line = line_no;
    ++out_.rows;
    ++out_.summaries;
    if (!sum->currency.empty() && (out_.currencies.size() < 16 || out_.currencies.count(sum->currency)))
      out_.currencies.insert(sum->currency);
    if (!sum->cloud.empty() && out_.cloud_offers.size() < 16) out_.cloud_offers.insert(sum->cloud);
    // The node row's key: the NDJSON rows of the same node and window, where they are read too, win.
    keep(out_, st.rows, st.by_key, st.names, row_key({}, job, {}, sum->host, "node", {}, sum->window_start,
                                                     sum->window_end), h);
  }
}

void FleetReader::finish() {
  if (!state_) return;
  const State& st = *state_;
  auto add = [&](Totals& t, const HeldRow& r) {
    auto add_field = [&](unsigned i) { (t.*kFieldSums[i]).add(r.known & (1u << i) ? &r.value[i] : nullptr); };
    if (r.kind != HeldRow::kNode) {
      t.gpu_rows += r.gpus;
      for (unsigned i = 0; i < kXid; ++i) add_field(i);
    }
    if (r.kind != HeldRow::kGpu) {
      ++t.node_rows;
      add_field(kXid);
      add_field(kIncidents);
      if (r.kind == HeldRow::kSummary) add_field(kLost);
    }
    if (r.kind == HeldRow::kGpu) add_field(kLost);
  };
  auto group = [&](std::unordered_map<std::string, Totals>& m, std::uint32_t id, const HeldRow& r) {
    const std::string& name = st.names[id];
    auto it = m.find(name.empty() ? std::string("(unknown)") : name);
    if (it == m.end()) it = m.emplace(name.empty() ? std::string("(unknown)") : name, Totals{}).first;
    add(it->second, r);
  };
  for (const HeldRow& r : st.rows) {
    add(out_.fleet, r);
    group(out_.by_job, r.job, r);
    group(out_.by_user, r.user, r);
    group(out_.by_node, r.host, r);
    group(out_.by_model, r.model, r);
  }
  state_.reset();
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
      problem(path, line_no + 1, "line_too_long", "line longer than 16 MiB");
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
