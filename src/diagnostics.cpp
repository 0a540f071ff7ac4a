#include "gpucost/diagnostics.hpp"

#include "gpucost/text.hpp"

namespace gpucost {

namespace {
struct ProblemInfo {
  std::string_view name, desc;
};
constexpr ProblemInfo kProblems[] = {
#define GPUCOST_X(name, desc) {#name, desc},
    GPUCOST_PROBLEMS(GPUCOST_X)
#undef GPUCOST_X
};
}  // namespace

std::string_view problem_name(Problem p) noexcept { return kProblems[static_cast<std::size_t>(p)].name; }
std::string_view problem_description(Problem p) noexcept {
  return kProblems[static_cast<std::size_t>(p)].desc;
}

bool problem_is_error(Problem p) noexcept {
  switch (p) {
    case Problem::time_backwards:
    case Problem::untimed_line:
    case Problem::events_dropped:
    case Problem::not_regular_file:
    case Problem::unknown_format:
    case Problem::spoofed_kernel_ident:  // the line was read; it only is not the kernel's
    case Problem::implausible_time:      // the line is kept, placed by its boot's monotonic time when it can be
    // counter_reset: the line was read; only one power sample from it is missing.
    case Problem::counter_reset:
    case Problem::too_many_devices:      // counted; what a machine can have is kept
      return false;
    default:
      return true;
  }
}

namespace {
// Problems of the file as a whole (line 0), not of lines: they count no rejected line.
bool is_whole_file_problem(Problem p) noexcept {
  return p == Problem::unreadable_file || p == Problem::truncated_gzip || p == Problem::truncated_zstd ||
         p == Problem::truncated_xz || p == Problem::decompression_limit;
}
}  // namespace

std::uint64_t FileDiagnostics::rejected() const noexcept {
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < kProblemCount; ++i) {
    const auto p = static_cast<Problem>(i);
    if (problem_is_error(p) && !is_whole_file_problem(p))
      n += problems[i];
  }
  return n;
}

void Diagnostics::record(FileDiagnostics& f, Problem p, std::uint64_t line, std::uint64_t offset,
                         std::string_view line_text, std::string_view reason) {
  auto& count = f.problems[static_cast<std::size_t>(p)];
  if (count < kSamplesPerKind) {
    f.samples.push_back(ProblemSample{p, line, offset, text::excerpt(line_text), std::string(reason)});
  }
  ++count;
}

std::uint64_t Diagnostics::total_lines() const noexcept {
  std::uint64_t n = 0;
  for (const auto& f : files) n += f.lines - f.blank - f.prompts;
  return n;
}

std::uint64_t Diagnostics::total_rejected() const noexcept {
  std::uint64_t n = 0;
  for (const auto& f : files) n += f.rejected();
  return n;
}

std::uint64_t Diagnostics::total(Problem p) const noexcept {
  std::uint64_t n = 0;
  for (const auto& f : files) n += f.problems[static_cast<std::size_t>(p)];
  return n;
}

double Diagnostics::error_rate() const noexcept {
  const auto lines = total_lines();
  return lines == 0 ? 0.0 : static_cast<double>(total_rejected()) / static_cast<double>(lines);
}

std::size_t Diagnostics::usable_files() const noexcept {
  std::size_t n = 0;
  for (const auto& f : files)
    if (f.format != FormatId::unknown && !format_has(f.format, kTraitNotALog) && f.accepted > 0) ++n;
  return n;
}

}  // namespace gpucost
