// Runs the generator: plans the world, streams the current boot hour by hour through the
// writers (planned messages merged with noise, in time order), writes the GPU samples, ps
// snapshots and nvidia-smi -q, then truth.json. With --size it first measures the bytes per
// simulated hour without writing, then picks the span that hits the target.
#include "gpucost/sim/simulate.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include "gpucost/sim/truth.hpp"
#include "gpucost/text.hpp"
#include "sim/noise.hpp"
#include "sim/writers.hpp"

namespace gpucost::sim {

namespace {

namespace fs = std::filesystem;

constexpr const char* kAllFiles[] = {"dmon.log", "dmesg.txt", "kern.log", "kern.log.1", "kern.log.2.gz", "syslog",
                                     "journal.json", "ps.txt", "nvidia-smi-q.txt", "truth.json"};

SimResult generate(const World& w, const std::string& dir) {
  const bool write = !dir.empty();
  auto open = [&](const char* name, bool gz = false) {
    return std::make_unique<OutFile>(write ? (fs::path(dir) / name).string() : std::string(), gz);
  };
  Truth truth(w);
  std::vector<std::pair<std::string, std::unique_ptr<OutFile>>> files;

  // Previous boots: only the rotated kern.log files know them.
  {
    auto older = open("kern.log.2.gz", true);
    auto old = open("kern.log.1");
    KernLogWriter k2(w, *older, 2), k1(w, *old, 1);
    for (const auto& r : w.scheduled) {
      if (r.boot == 0) continue;
      (r.boot == 1 ? k1 : k2).add(r);
      truth.add_record(r);
    }
    files.emplace_back("kern.log.2.gz", std::move(older));
    files.emplace_back("kern.log.1", std::move(old));
  }

  auto dmesg = open("dmesg.txt");
  auto kern = open("kern.log");
  auto journal = open("journal.json");
  std::unique_ptr<OutFile> syslog = w.has_syslog ? open("syslog") : nullptr;
  DmesgWriter dmesg_w(*dmesg);
  KernLogWriter kern_w(w, *kern, 0);
  JournalJsonWriter journal_w(w, *journal);
  std::unique_ptr<SyslogWriter> syslog_w = syslog ? std::make_unique<SyslogWriter>(w, *syslog) : nullptr;
  Noise noise(w);
  std::vector<LogRecord> batch;
  std::size_t next = 0;
  const TimeNs begin = w.boots.front().wall;
  for (TimeNs from = begin; from < w.span_end; from += kNsPerHour) {
    const TimeNs to = std::min(from + kNsPerHour, w.span_end);
    batch.clear();
    while (next < w.scheduled.size() && w.scheduled[next].ts < to) {
      const LogRecord& r = w.scheduled[next++];
      if (r.boot == 0 && r.ts >= begin) batch.push_back(r);
    }
    noise.generate(from, to, batch);
    std::stable_sort(batch.begin(), batch.end(), [](const LogRecord& a, const LogRecord& b) { return a.ts < b.ts; });
    for (const auto& r : batch) {
      if (r.dest & kToDmesg) dmesg_w.add(r);
      if (r.dest & kToKernLog) kern_w.add(r);
      if ((r.dest & kToSyslog) && syslog_w) syslog_w->add(r);
      if (r.dest & kToJournal) journal_w.add(r);
      truth.add_record(r);
      if (r.daemon && r.daemon->ident == "CRON") truth.add_cron();
    }
  }
  files.emplace_back("dmesg.txt", std::move(dmesg));
  files.emplace_back("kern.log", std::move(kern));
  if (syslog) files.emplace_back("syslog", std::move(syslog));
  files.emplace_back("journal.json", std::move(journal));

  if (w.has_dmon) {
    auto dmon = open("dmon.log");
    write_dmon(w, *dmon, truth);
    files.emplace_back("dmon.log", std::move(dmon));
    auto q = open("nvidia-smi-q.txt");
    write_smi_q(w, *q);
    files.emplace_back("nvidia-smi-q.txt", std::move(q));
  }
  auto ps = open("ps.txt");
  write_ps(w, *ps);
  files.emplace_back("ps.txt", std::move(ps));

  SimResult result;
  result.hours = static_cast<double>(w.span_end - begin) / static_cast<double>(kNsPerHour);
  result.noise = w.options.noise;
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [name, f] : files) {
    f->close();
    truth.add_file(name, f->bytes());
    result.files.emplace_back(name, f->bytes());
    result.total_bytes += f->bytes();
  }
  auto t = open("truth.json");
  t->buf() = truth.json();
  t->close();
  result.files.emplace_back("truth.json", t->bytes());
  result.total_bytes += t->bytes();
  return result;
}

/// Bytes the corpus of `o` would have (generated, not written).
double measured_bytes(SimOptions o) {
  o.size_bytes = 0;
  return static_cast<double>(measure(o).total_bytes);
}

/// The noise factor whose corpus, over the span asked for, has about `target` bytes: bytes grow
/// linearly with the noise, so two measurements fix the line.
double noise_for_size(const SimOptions& o, std::uint64_t target) {
  auto bytes = [&](double noise) {
    SimOptions m = o;
    m.noise = noise;
    return measured_bytes(m);
  };
  const double n1 = 1, n2 = 11;
  const double b1 = bytes(n1), b2 = bytes(n2);
  const double slope = std::max(1.0, (b2 - b1) / (n2 - n1));
  return std::max(1.0, std::round((n1 + (static_cast<double>(target) - b1) / slope) * 100.0) / 100.0);
}

/// The span (hours, to the second) whose corpus has about `target` bytes.
double hours_for_size(const SimOptions& o, std::uint64_t target) {
  auto bytes = [&](double h) {
    SimOptions m = o;
    m.hours = h;
    return measured_bytes(m);
  };
  const double h1 = 2, h2 = 6;
  const double b1 = bytes(h1), b2 = bytes(h2);
  const double slope = std::max(1.0, (b2 - b1) / (h2 - h1));
  const double fixed = b1 - slope * h1;  // boot, previous boots, -q: independent of the span
  auto round_s = [](double h) { return std::max(0.25, std::round(h * 3600.0) / 3600.0); };
  double h = round_s((static_cast<double>(target) - fixed) / slope);
  if (h > h2) {  // refine once on the variable part: per-hour rates drift a little with the span
    const double b = bytes(h);
    if (b > fixed) h = round_s(h * (static_cast<double>(target) - fixed) / (b - fixed));
  }
  return h;
}

}  // namespace

SimResult measure(const SimOptions& options) {
  const World w = build_world(options);
  return generate(w, std::string());
}

SimResult simulate(const SimOptions& options) {
  if (options.out_dir.empty()) throw std::invalid_argument("--out: an output directory is required");
  if (options.hours < 0 || !std::isfinite(options.hours)) throw std::invalid_argument("--hours must be positive");
  SimOptions o = options;
  if (!(o.noise >= 1) || !std::isfinite(o.noise)) throw std::invalid_argument("--noise must be at least 1");
  if (o.size_bytes > 0) {
    if (o.hours > 0) o.noise = noise_for_size(o, o.size_bytes);
    else o.hours = hours_for_size(o, o.size_bytes);
  }
  std::error_code ec;
  fs::create_directories(o.out_dir, ec);
  if (ec) throw std::runtime_error("cannot create " + o.out_dir + ": " + ec.message());
  const World w = build_world(o);
  SimResult r = generate(w, o.out_dir);
  // Files an earlier run left that this scenario does not write would contradict truth.json.
  for (const char* name : kAllFiles) {
    const bool written = std::any_of(r.files.begin(), r.files.end(), [&](const auto& f) { return f.first == name; });
    if (!written) fs::remove(fs::path(o.out_dir) / name, ec);
  }
  return r;
}

std::uint64_t parse_size(std::string_view s) {
  const std::string_view t = text::trim(s);
  std::size_t i = 0;
  while (i < t.size() && (text::is_digit(t[i]) || t[i] == '.')) ++i;
  const auto number = text::to_double(t.substr(0, i));
  std::string unit = text::to_lower(text::trim(t.substr(i)));
  if (!number || *number <= 0) throw std::invalid_argument("--size: expected a size like 1G or 100M, got '" + std::string(s) + "'");
  if (unit.size() > 1 && unit.back() == 'b') unit.pop_back();          // MB, GB
  if (unit.size() > 1 && unit.back() == 'i') unit.pop_back();          // MiB, GiB
  double mult = 1;
  if (unit.empty() || unit == "b") mult = 1;
  else if (unit == "k") mult = 1024.0;
  else if (unit == "m") mult = 1024.0 * 1024;
  else if (unit == "g") mult = 1024.0 * 1024 * 1024;
  else if (unit == "t") mult = 1024.0 * 1024 * 1024 * 1024;
  else throw std::invalid_argument("--size: unknown unit in '" + std::string(s) + "' (use k, M, G or T)");
  return static_cast<std::uint64_t>(*number * mult);
}

}  // namespace gpucost::sim
