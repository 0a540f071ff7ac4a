#include "gpucost/ingest/ingest.hpp"

#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <stdexcept>
#include <system_error>
#include <thread>

#include "gpucost/text.hpp"

namespace fs = std::filesystem;

namespace gpucost {

namespace {

// Splits `kern.log.2.gz` into stem `kern.log` and rotation 2 (0 when not rotated, -1 for the
// live file so that it sorts last).
void rotation_parts(std::string_view name, std::string_view& stem, long& rotation) {
  std::string_view s = name;
  if (s.size() > 3 && s.substr(s.size() - 3) == ".gz") s.remove_suffix(3);
  const auto dot = s.rfind('.');
  if (dot != std::string_view::npos && dot + 1 < s.size()) {
    const auto num = text::to_int<long>(s.substr(dot + 1));
    if (num && *num >= 0 && s.size() - dot - 1 <= 4) {
      stem = s.substr(0, dot);
      rotation = *num;
      return;
    }
  }
  stem = s;
  rotation = -1;
}

TimeNs mtime_of(const struct stat& st) {
  // A modification time outside the years of log stamps (a broken clock, an odd archive) is no
  // time at all; in nanoseconds it could not even be held.
  constexpr std::int64_t kMin = days_from_civil(kMinStampYear, 1, 1) * 86400;
  constexpr std::int64_t kMax = days_from_civil(kMaxStampYear + 1, 1, 1) * 86400;
  if (st.st_mtim.tv_sec < kMin || st.st_mtim.tv_sec >= kMax) return kNoTime;
  return static_cast<TimeNs>(st.st_mtim.tv_sec) * kNsPerSec + st.st_mtim.tv_nsec;
}

struct Job {
  InputFile file;
  std::unique_ptr<FileSink> sink;
};

// The file's lines as a format sees them: pasted shell prompt lines are taken out here, counted
// as prompts and turned into hints (FileSink::prompt), so that no format reads them as data.
class PromptFilter final : public LineSource {
 public:
  PromptFilter(LineSource& inner, FileSink& sink) : inner_(inner), sink_(sink) {}
  bool next(Line& line) override {
    while (inner_.next(line)) {
      if (!parse_shell_prompt(line.text)) return true;
      sink_.line_read(line);
      sink_.prompt(line);
    }
    return false;
  }
  std::size_t read_raw(std::size_t n, std::string& out) override { return inner_.read_raw(n, out); }
  bool rewind() override { return inner_.rewind(); }
  const std::string& error() const noexcept override { return inner_.error(); }
  std::uint64_t bytes_read() const noexcept override { return inner_.bytes_read(); }
  std::uint64_t nul_bytes_skipped() const noexcept override { return inner_.nul_bytes_skipped(); }

 private:
  LineSource& inner_;
  FileSink& sink_;
};

void parse_source(LineSource& src, FileSink& sink, FormatId forced) {
  FileDiagnostics& d = sink.diagnostics();
  FormatId fmt = forced;
  if (fmt == FormatId::unknown) {
    const Detection det = detect_format(src, sink.path());
    d.score = det.score;
    d.runner_up = det.runner_up;
    d.runner_up_score = det.runner_up_score;
    fmt = det.format;
    if (fmt == FormatId::unknown) {
      // Count what was there, so the report says how much was skipped (prompt lines as prompts).
      src.rewind();
      Line l;
      PromptFilter lines(src, sink);
      while (lines.next(l)) sink.line_read(l);
      if (det.lines_scored == 0 && src.error().empty()) {
        d.notes.emplace_back(d.prompts ? "nothing but pasted shell prompt lines (no command output)"
                                       : "empty file (no non-blank lines)");
      } else {
        sink.file_problem(Problem::unknown_format,
                          det.lines_scored == 0
                              ? std::string("no readable lines")
                              : "first " + std::to_string(det.lines_scored) +
                                    " lines match no known format (best: " +
                                    std::string(format_name(det.runner_up)) + ")");
      }
      d.bytes = src.bytes_read();
      if (!src.error().empty()) sink.file_problem(Problem::truncated_gzip, src.error());
      return;
    }
    if (!src.rewind()) {
      sink.file_problem(Problem::unreadable_file, "cannot rewind after format detection");
      return;
    }
  }
  d.format = fmt;
  sink.set_format(fmt);
  const LogFormat* f = find_format(fmt);
  if (!f) {
    sink.file_problem(Problem::unknown_format, "format not available");
    return;
  }
  PromptFilter lines(src, sink);
  f->parse(lines, sink);
  d.bytes = src.bytes_read();
  if (const auto nul = src.nul_bytes_skipped())
    d.notes.push_back(std::to_string(nul) +
                      " NUL bytes skipped at line starts (zero padding that a crash or power loss left in the file)");
  if (!src.error().empty()) {
    const bool gz = d.gzip;
    sink.file_problem(gz ? Problem::truncated_gzip : Problem::unreadable_file, src.error());
  }
}

void merge(IngestResult& out, Diagnostics& diag, InputFile file, FileSink& sink) {
  IngestResult& r = sink.output();
  // Moved, not copied, into an empty table (the common case: one file of each kind).
  out.samples.append(std::move(r.samples));
  out.events.append(std::move(r.events));
  out.processes.append(std::move(r.processes));
  for (auto& a : r.anchors) out.anchors.push_back(std::move(a));
  for (auto& d : r.devices) out.devices.push_back(std::move(d));
  for (auto& p : r.profiles) out.profiles.push_back(p);
  if (r.manifest && !out.manifest) out.manifest = std::move(r.manifest);
  for (const auto& z : r.zone_evidence) out.zone_evidence.push_back(z);
  FileDiagnostics& fd = sink.diagnostics();
  file.format = fd.format;
  out.bytes += fd.bytes;
  out.lines += fd.lines;
  out.files.push_back(std::move(file));
  diag.files.push_back(std::move(fd));
}

}  // namespace

bool rotation_order_less(std::string_view a, std::string_view b) {
  const auto slash_a = a.rfind('/'), slash_b = b.rfind('/');
  const std::string_view dir_a = slash_a == std::string_view::npos ? "" : a.substr(0, slash_a);
  const std::string_view dir_b = slash_b == std::string_view::npos ? "" : b.substr(0, slash_b);
  if (dir_a != dir_b) return dir_a < dir_b;
  std::string_view stem_a, stem_b;
  long rot_a = 0, rot_b = 0;
  rotation_parts(a.substr(slash_a == std::string_view::npos ? 0 : slash_a + 1), stem_a, rot_a);
  rotation_parts(b.substr(slash_b == std::string_view::npos ? 0 : slash_b + 1), stem_b, rot_b);
  if (stem_a != stem_b) return stem_a < stem_b;
  // Oldest first: higher rotation numbers are older; the live file (-1) is newest.
  const long ka = rot_a < 0 ? -1 : rot_a, kb = rot_b < 0 ? -1 : rot_b;
  if (ka != kb) return ka > kb;
  return a < b;
}

IngestStage::IngestStage(IngestOptions options) : options_(std::move(options)) {
  if (!options_.patterns_file.empty()) {
    const std::string err = recognizer_.load_file(options_.patterns_file);
    if (!err.empty()) throw std::runtime_error(err);
  }
}

void IngestStage::run(const fs::path& input, IngestResult& out, Diagnostics& diag) const {
  std::vector<InputFile> files;
  std::vector<FileDiagnostics> skipped;
  std::error_code ec;
  auto consider = [&](const fs::path& p, const std::string& rel) {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) {
      FileDiagnostics d;
      d.path = rel;
      Diagnostics::record(d, Problem::not_regular_file, 0, 0, {},
                          std::string("cannot stat (broken link or loop?): ") + std::strerror(errno));
      skipped.push_back(std::move(d));
      return;
    }
    if (S_ISDIR(st.st_mode)) return;
    if (!S_ISREG(st.st_mode)) {
      FileDiagnostics d;
      d.path = rel;
      const char* what = S_ISFIFO(st.st_mode) ? "FIFO" : S_ISSOCK(st.st_mode) ? "socket"
                         : (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) ? "device file" : "special file";
      Diagnostics::record(d, Problem::not_regular_file, 0, 0, {}, std::string(what) + ": skipped without reading");
      skipped.push_back(std::move(d));
      return;
    }
    InputFile f;
    f.path = rel;
    f.abs_path = p.string();
    f.size = static_cast<std::uint64_t>(st.st_size);
    f.mtime_ns = mtime_of(st);
    files.push_back(std::move(f));
  };

  const fs::file_status top = fs::status(input, ec);
  if (fs::is_directory(top)) {
    // Directory symlinks are not followed: that is what keeps a symlink loop from looping.
    fs::recursive_directory_iterator it(input, fs::directory_options::skip_permission_denied, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
      const fs::path& p = it->path();
      // Lexically: fs::relative() would follow a link and name `zero -> /dev/zero` `../../dev/zero`.
      std::string rel = p.lexically_relative(input).generic_string();
      if (rel.empty()) rel = p.generic_string();
      std::error_code sec;
      const auto lst = it->symlink_status(sec);
      if (fs::is_symlink(lst)) {
        const auto target = fs::status(p, sec);
        if (fs::is_directory(target)) {
          spdlog::debug("not following directory link {}", rel);
          continue;
        }
      } else if (fs::is_directory(lst)) {
        // skip_permission_denied steps over a directory it cannot open: say so, not in silence.
        if (::access(p.c_str(), R_OK | X_OK) != 0) {
          FileDiagnostics d;
          d.path = rel + "/";
          Diagnostics::record(d, Problem::unreadable_file, 0, 0, {},
                              std::string("directory cannot be read: ") + std::strerror(errno));
          skipped.push_back(std::move(d));
        }
        continue;
      }
      consider(p, rel);
    }
    if (ec) {
      FileDiagnostics d;
      d.path = input.generic_string();
      Diagnostics::record(d, Problem::unreadable_file, 0, 0, {}, "directory walk stopped: " + ec.message());
      skipped.push_back(std::move(d));
    }
  } else {
    consider(input, input.filename().generic_string());
  }

  std::sort(files.begin(), files.end(),
            [](const InputFile& a, const InputFile& b) { return rotation_order_less(a.path, b.path); });

  std::vector<Job> jobs(files.size());
  for (std::size_t i = 0; i < files.size(); ++i) jobs[i].file = std::move(files[i]);

  // Largest files first so that the last thread does not start a big file alone.
  std::vector<std::size_t> order(jobs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return jobs[a].file.size > jobs[b].file.size; });

  // File indices continue those already in `out`, so run() can be called for several inputs.
  const auto base = static_cast<std::uint32_t>(out.files.size());
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (;;) {
      const std::size_t k = next.fetch_add(1);
      if (k >= order.size()) return;
      Job& job = jobs[order[k]];
      job.sink = std::make_unique<FileSink>(base + static_cast<std::uint32_t>(order[k]), job.file.path,
                                            job.file.mtime_ns, options_.parse, recognizer_);
      std::string err;
      auto src = open_line_source(job.file.abs_path, err, options_.parse.max_line_length);
      if (!src) {
        job.sink->file_problem(Problem::unreadable_file, "cannot open: " + err);
        continue;
      }
      job.sink->diagnostics().gzip = is_gzip_file(job.file.abs_path);
      try {
        parse_source(*src, *job.sink, FormatId::unknown);
      } catch (const std::exception& e) {  // a parser bug must not end the run
        job.sink->file_problem(Problem::unreadable_file, std::string("internal parser error: ") + e.what());
      }
    }
  };
  unsigned threads = options_.threads ? options_.threads : std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(1, jobs.size())));
  if (threads <= 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker);
    for (auto& t : pool) t.join();
  }

  for (auto& job : jobs) {
    merge(out, diag, std::move(job.file), *job.sink);
    job.sink.reset();  // its tables are merged: free what is left now, not after the loop
  }
  for (auto& d : skipped) diag.files.push_back(std::move(d));
}

void IngestStage::run_buffer(std::string_view data, std::string_view name, FormatId format, IngestResult& out,
                             Diagnostics& diag, TimeNs mtime_ns) const {
  const auto index = static_cast<std::uint32_t>(out.files.size());
  FileSink sink(index, std::string(name), mtime_ns, options_.parse, recognizer_);
  auto src = make_buffer_source(data, options_.parse.max_line_length);
  parse_source(*src, sink, format);
  InputFile f;
  f.path = std::string(name);
  f.size = data.size();
  f.mtime_ns = mtime_ns;
  merge(out, diag, std::move(f), sink);
}

}  // namespace gpucost
