#include "gpucost/ingest/ingest.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <condition_variable>
#include <exception>
#include <iterator>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "gpucost/ingest/decompress.hpp"
#include "gpucost/ingest/detect.hpp"
#include "gpucost/parallel.hpp"
#include "gpucost/text.hpp"
#include "ingest/chunked_parse.hpp"
#include "ingest/prompt_filter.hpp"

namespace fs = std::filesystem;

namespace gpucost {

namespace {

// Splits `kern.log.2.gz` (or `.zst`, `.xz`) into stem `kern.log` and rotation 2 (0 when not
// rotated, -1 for the live file so that it sorts last).
void rotation_parts(std::string_view name, std::string_view& stem, long& rotation) {
  std::string_view s = name;
  for (std::string_view ext : {".gz", ".zst", ".xz"})
    if (s.size() > ext.size() && s.ends_with(ext)) s.remove_suffix(ext.size());
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
  std::unique_ptr<FileSink> sink;  // null when reading the file failed:
  bool out_of_memory = false;      // for want of memory,
  std::string failed;              // or this exception's what()
};

// A tar archive (POSIX ustar or GNU tar: "ustar" at byte 257 of its first 512-byte header). Its
// members are logs too, but read as one stream their lines would count beside the same lines
// unpacked (a `syslog.2.gz` that is really a .tar.gz): the archive is skipped and named.
bool starts_tar_archive(LineSource& src) {
  constexpr std::size_t kMagicAt = 257;
  constexpr std::string_view kMagic = "ustar";
  std::string head;
  const bool tar = src.read_raw(kMagicAt + kMagic.size(), head) == kMagicAt + kMagic.size() &&
                   std::string_view(head).substr(kMagicAt) == kMagic;
  return src.rewind() && tar;
}

// A file to be parsed in chunks where it qualifies (chunked_parse.hpp).
struct Chunking {
  const std::string& path;
  const EventRecognizer& recognizer;
  ChunkPlanOptions options;
};

// The problem that a source's error() is: its archive's damage, named by its format; a limit the
// archive asked to exceed (xz dictionary, zstd window); else a file that could not be read.
Problem read_problem(const LineSource& src) {
  switch (src.failure()) {
    case DecompressFailure::kLimit: return Problem::decompression_limit;
    case DecompressFailure::kDamaged:
      switch (src.compression()) {
        case Compression::kGzip: return Problem::truncated_gzip;
        case Compression::kZstd: return Problem::truncated_zstd;
        case Compression::kXz: return Problem::truncated_xz;
        case Compression::kNone: break;
      }
      break;
    case DecompressFailure::kNone: break;
  }
  return Problem::unreadable_file;
}

void parse_source(LineSource& src, FileSink& sink, FormatId forced, const Chunking* chunking = nullptr) {
  FileDiagnostics& d = sink.diagnostics();
  FormatId fmt = forced;
  bool message_first = false;
  if (fmt == FormatId::unknown && starts_tar_archive(src)) {
    sink.file_problem(Problem::unknown_format,
                      "a tar archive (ustar header at byte 257), whatever its name says: not read; unpack it into "
                      "the input directory to analyze its logs");
    return;
  }
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
      if (!src.error().empty()) sink.file_problem(read_problem(src), src.error());
      return;
    }
    if (!src.rewind()) {
      sink.file_problem(Problem::unreadable_file, "cannot rewind after format detection");
      return;
    }
    message_first = det.message_first;
    if (det.message_first)
      d.notes.push_back(
          "no log layout fits the lines as they stand: each is read from where its log part starts (after "
          "`kernel: `, at a [monotonic] stamp or at NVRM:), as when a pager cut the headers at the left margin");
    if (det.kernel_lines_in_text)
      d.notes.push_back(fmt::format(
          "no log layout fits the first {} lines, but {} of them hold kernel messages: read as dmesg, the text "
          "around them as unrecognized messages (a paste inside a post)",
          det.lines_scored, det.kernel_lines_in_text));
  }
  d.format = fmt;
  sink.set_format(fmt);
  const LogFormat* f = find_format(fmt);
  if (!f) {
    sink.file_problem(Problem::unknown_format, "format not available");
    return;
  }
  ChunkedRead chunked;
  if (chunking && !message_first &&
      parse_in_chunks(chunking->path, *f, sink, chunking->recognizer, chunking->options, chunked)) {
    spdlog::info("{}: parsed in {} chunks on {} threads; {} parsed again from the state before them",
                 text::printable(sink.path()), chunked.chunks, chunking->options.threads, chunked.parsed_again);
    d.bytes = chunked.bytes;
  } else {
    PromptFilter lines(src, sink, message_first);
    f->parse(lines, sink);
    d.bytes = src.bytes_read();
    chunked.nul_bytes_skipped = src.nul_bytes_skipped();
  }
  if (const auto n = d.paste_prefixed)
    d.notes.push_back(
        fmt::format("{} line{} read after a paste prefix (quote marks, grep -H file names or line "
                    "numbers, pdsh host names)",
                    n, n == 1 ? "" : "s"));
  if (const auto nul = chunked.nul_bytes_skipped)
    d.notes.push_back(std::to_string(nul) +
                      " NUL bytes skipped at line starts (zero padding that a crash or power loss left in the file)");
  if (!src.error().empty()) sink.file_problem(read_problem(src), src.error());
}

void merge(IngestResult& out, Diagnostics& diag, InputFile file, FileSink& sink) {
  IngestResult& r = sink.output();
  // The file's tables are whole: the huge pages they grew in give back what they do not use.
  r.samples.trim();
  r.events.trim();
  r.processes.trim();
  // Moved, not copied, into an empty table (the common case: one file of each kind). A table
  // without rows may have been let go (FileSink::release_empty_tables): it has nothing to add.
  if (r.samples.rows()) out.samples.append(std::move(r.samples));
  if (r.events.rows()) out.events.append(std::move(r.events));
  if (r.processes.rows()) out.processes.append(std::move(r.processes));
  // A journal keeps an anchor for most of its kernel lines: the file's anchors are moved whole
  // into an empty list, else appended as a range (room made once per file, and geometrically:
  // thousands of small files do not copy the list once each).
  if (out.anchors.empty())
    out.anchors = std::move(r.anchors);
  else
    out.anchors.insert(out.anchors.end(), std::make_move_iterator(r.anchors.begin()),
                       std::make_move_iterator(r.anchors.end()));
  for (auto& d : r.devices) out.devices.push_back(std::move(d));
  for (auto& p : r.profiles) out.profiles.push_back(p);
  for (auto& h : r.host_power) out.host_power.push_back(std::move(h));
  if (r.manifest && !out.manifest) out.manifest = std::move(r.manifest);
  for (const auto& z : r.zone_evidence) out.zone_evidence.push_back(z);
  FileDiagnostics& fd = sink.diagnostics();
  file.format = fd.format;
  out.bytes += fd.bytes;
  out.lines += fd.lines;
  out.files.push_back(std::move(file));
  diag.files.push_back(std::move(fd));
}

// Every regular file under `input` (or `input` itself), sorted with rotated logs oldest first;
// what cannot be read as a file (a FIFO, a device, a broken link, an unreadable directory) goes
// to `skipped`, with why.
void list_input_files(const fs::path& input, std::vector<InputFile>& files, std::vector<FileDiagnostics>& skipped) {
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
          spdlog::debug("not following directory link {}", text::printable(rel));
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
}

// Runs read_job(k) for every k of `order` on `threads` threads and merges each job's sink into
// `out` in file order (jobs' order), as soon as every file before it is read: thousands of small
// files do not all hold their state at once. From `in_file_order` on, `order` is in file order,
// and a file is read only when fewer than kFilesReadAheadPerThread × threads files lie between it
// and the first file not merged yet (those before it wait, read, for their turn): a sink waiting
// to be merged costs its tables' schemas (some 25 KB) whatever its file held, so the wait is
// bounded in files, not in bytes. Rethrows a merge's bad_alloc after the threads end.
template <typename ReadJob>
void read_in_parallel(std::vector<Job>& jobs, const std::vector<std::size_t>& order, std::size_t in_file_order,
                      unsigned threads, ReadJob read_job, IngestResult& out, Diagnostics& diag) {
  std::atomic<std::size_t> next{0};
  std::mutex merge_mutex;
  std::condition_variable merged_more;
  const std::size_t read_ahead = kFilesReadAheadPerThread * std::max(1u, threads);
  std::vector<char> done(jobs.size(), 0);
  std::size_t merged = 0;
  std::exception_ptr merge_error;
  auto merge_ready = [&](std::size_t j) {
    const std::lock_guard lock(merge_mutex);
    done[j] = 1;
    if (merge_error) return;
    const std::size_t merged_before = merged;
    try {
      for (; merged < jobs.size() && done[merged]; ++merged) {
        Job& job = jobs[merged];
        if (!job.sink) {  // the read failed: the file is still listed, with why
          FileDiagnostics d;
          d.path = job.file.path;
          d.mtime_ns = job.file.mtime_ns;
          Diagnostics::record(d, Problem::unreadable_file, 0, 0, {},
                              job.out_of_memory ? "out of memory while reading this file: skipped (the others are read)"
                                                : "internal parser error: " + job.failed);
          out.files.push_back(std::move(job.file));
          diag.files.push_back(std::move(d));
          continue;
        }
        merge(out, diag, std::move(job.file), *job.sink);
        job.sink.reset();  // its tables are merged: free what is left now
      }
      if (merged != merged_before) merged_more.notify_all();  // the threads waiting for their turn
    } catch (...) {  // no memory to merge: the caller gets the error once the threads are done
      merge_error = std::current_exception();
      merged_more.notify_all();
    }
  };
  // Every file before `file` in file order has been taken by a thread that reads it (a thread
  // waits here only before it reads), so the first file not merged is always being read: the
  // wait ends.
  auto wait_for_turn = [&](std::size_t file) {
    std::unique_lock lock(merge_mutex);
    merged_more.wait(lock, [&] { return file < merged + read_ahead || merge_error; });
  };
  // Nothing may leave a worker: an exception out of a thread's function ends the process.
  auto worker = [&]() noexcept {
    for (;;) {
      const std::size_t k = next.fetch_add(1);
      if (k >= order.size()) return;
      if (k >= in_file_order) wait_for_turn(order[k]);
      try {
        read_job(k);
      } catch (const std::bad_alloc&) {
        // What the file filled is let go (its sink), so the other files may still be read.
        jobs[order[k]].sink.reset();
        jobs[order[k]].out_of_memory = true;
      } catch (const std::exception& e) {  // a parser bug must not end the run
        jobs[order[k]].sink.reset();
        try {
          jobs[order[k]].failed = e.what();
        } catch (...) {
          jobs[order[k]].out_of_memory = true;
        }
      }
      merge_ready(order[k]);
    }
  };
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(1, jobs.size())));
  // A container's pids limit (or RLIMIT_NPROC, or no memory for a stack) can refuse a thread:
  // the threads already started share the files, or this thread reads them all.
  std::string refused;
  const unsigned ran = run_on_threads(threads, worker, &refused);
  if (ran < threads)
    diag.notes.push_back(
        fmt::format("read the files on {} thread(s), not {}: the system refused a thread ({})", ran, threads, refused));
  if (merge_error) std::rethrow_exception(merge_error);
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
  list_input_files(input, files, skipped);

  std::vector<Job> jobs(files.size());
  for (std::size_t i = 0; i < files.size(); ++i) jobs[i].file = std::move(files[i]);

  const unsigned threads = options_.threads ? options_.threads : std::max(1u, std::thread::hardware_concurrency());
  // The files that weigh in balancing the threads (at least 1/(8 × threads) of all the text)
  // first, largest first, so that the last thread does not start a big file alone; a rotated
  // archive counts by the text it holds, not its size on disk (decompress.hpp). The others in
  // file order, the order sinks are merged in: a small file's sink is merged soon after it is
  // read (read_in_parallel), and 20 000 small files do not wait all at once.
  std::vector<std::size_t> order(jobs.size());
  std::vector<std::uint64_t> work(jobs.size());
  std::uint64_t total_work = 0;
  for (std::size_t i = 0; i < order.size(); ++i) {
    order[i] = i;
    work[i] = expected_text_bytes(jobs[i].file.abs_path, jobs[i].file.size);
    total_work += work[i];
  }
  const auto weighs = [&](std::size_t i) { return work[i] * 8 * threads >= total_work && work[i] > 0; };
  const auto small_from = std::stable_partition(order.begin(), order.end(), weighs);
  std::stable_sort(order.begin(), small_from, [&](std::size_t a, std::size_t b) { return work[a] > work[b]; });
  const auto in_file_order = static_cast<std::size_t>(small_from - order.begin());

  // File indices continue those already in `out`, so run() can be called for several inputs.
  const auto base = static_cast<std::uint32_t>(out.files.size());
  auto read_job = [&](std::size_t k) {
    Job& job = jobs[order[k]];
    job.sink = std::make_unique<FileSink>(base + static_cast<std::uint32_t>(order[k]), job.file.path,
                                          job.file.mtime_ns, options_.parse, recognizer_);
    std::string err;
    auto src = open_line_source(job.file.abs_path, err, options_.parse.max_line_length);
    if (!src) {
      job.sink->file_problem(Problem::unreadable_file, "cannot open: " + err);
      return;
    }
    job.sink->diagnostics().gzip = is_gzip_file(job.file.abs_path);
    const Chunking chunking{job.file.abs_path, recognizer_,
                            ChunkPlanOptions{threads, options_.chunk_min_file_bytes, options_.chunk_bytes,
                                             options_.parse.max_line_length}};
    parse_source(*src, *job.sink, FormatId::unknown, &chunking);
    job.sink->finish();
    job.sink->release_empty_tables();
  };

  // Sinks are merged in file order: the output is the same for any thread count.
  read_in_parallel(jobs, order, in_file_order, threads, read_job, out, diag);
  for (auto& d : skipped) diag.files.push_back(std::move(d));
}

void IngestStage::run_buffer(std::string_view data, std::string_view name, FormatId format, IngestResult& out,
                             Diagnostics& diag, TimeNs mtime_ns) const {
  const auto index = static_cast<std::uint32_t>(out.files.size());
  FileSink sink(index, std::string(name), mtime_ns, options_.parse, recognizer_);
  auto src = make_buffer_source(data, options_.parse.max_line_length);
  parse_source(*src, sink, format);
  // No FileSink::finish(): a buffer is one paste checked line by line (the format tests), its
  // events only; the last-line marks are for directories, which align reads whole.
  InputFile f;
  f.path = std::string(name);
  f.size = data.size();
  f.mtime_ns = mtime_ns;
  merge(out, diag, std::move(f), sink);
}

}  // namespace gpucost
