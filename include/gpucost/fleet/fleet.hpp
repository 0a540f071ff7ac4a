#pragma once
/// \file fleet.hpp
/// `gpucost fleet DIR`: streams every `*.ndjson` per-job row under DIR (docs/fleet.md; written by
/// `gpucost analyze --format ndjson`, e.g. from a Slurm epilog) and sums them per job, user,
/// node and GPU model, and for the whole fleet. Rows are never held: each line is parsed,
/// added to the totals of its keys and dropped, so memory grows with the number of distinct
/// keys, not of rows. A malformed line is counted (with file:line and why for the first ones)
/// and skipped, never fatal.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gpucost::fleet {

/// A sum that remembers how many rows had no value (null), so a total is never silently short.
struct Sum {
  double value = 0;
  std::uint64_t known = 0;    ///< rows that had a value
  std::uint64_t missing = 0;  ///< rows where it was null or absent
  void add(const double* v) noexcept {
    if (v) value += *v, ++known;
    else ++missing;
  }
};

/// Totals of one group of rows (a job, a user, a node, a GPU model, the fleet). Hours, energy
/// and costs come from the GPU rows; incidents and Xid events per machine from the node rows.
struct Totals {
  std::uint64_t gpu_rows = 0, node_rows = 0;
  Sum allocated_gpu_hours, busy_gpu_hours, idle_gpu_hours, sampled_gpu_hours, effective_gpu_hours, energy_kwh;
  Sum local_cost, idle_cost, cloud_cost;
  Sum xid_events, incidents, gpu_lost_s;
};

/// One malformed line.
struct RowProblem {
  std::string file;
  std::uint64_t line = 0;
  std::string reason;
};

/// How rows are grouped.
enum class Group { kJob, kUser, kNode, kGpuModel };

/// Everything `gpucost fleet` reports.
struct FleetSummary {
  std::unordered_map<std::string, Totals> by_job, by_user, by_node, by_model;
  Totals fleet;
  std::uint64_t files = 0, lines = 0, blank_lines = 0, rows = 0, malformed = 0;
  std::uint64_t bytes = 0;
  std::vector<RowProblem> problems;    ///< the first kMaxProblems malformed lines
  std::set<std::string> currencies;    ///< of the rows' costs; more than one: costs are not summed
  std::set<std::string> cloud_offers;  ///< the rows' cloud presets
  std::map<std::int64_t, std::uint64_t> schema_versions;  ///< rows per schema_version
  std::vector<std::string> unreadable;  ///< files that could not be opened or read, with why

  const std::unordered_map<std::string, Totals>& group(Group g) const noexcept;
};

/// Malformed lines kept with their file:line (all are counted).
inline constexpr std::size_t kMaxProblems = 50;

/// Streams rows into a summary.
class FleetReader {
 public:
  explicit FleetReader(FleetSummary& out) : out_(out) {}
  /// Reads every `*.ndjson` file under dir (recursively, sorted, symlinked directories not
  /// followed); a regular file is read itself. Throws std::invalid_argument when dir does not exist.
  void read_tree(const std::string& dir);
  /// Reads one file (1 MiB blocks; a line longer than 16 MiB is malformed).
  void read_file(const std::string& path);
  /// Adds one line (no newline) of file `path` at line number `line_no` (copied: any buffer).
  void add_line(std::string_view line, const std::string& path, std::uint64_t line_no);

 private:
  /// add_line for a line followed by at least SIMDJSON_PADDING readable bytes (parsed in place).
  void add_padded_line(std::string_view line, const std::string& path, std::uint64_t line_no);
  void problem(const std::string& path, std::uint64_t line_no, std::string reason);
  FleetSummary& out_;
  struct Parser;
  std::shared_ptr<Parser> parser_;
};

/// Output formats of `gpucost fleet`.
enum class FleetFormat { kTable, kCsv, kJson, kHtml };

/// Renders the summary; `top` limits the keys of each group in the table and the HTML page (0 =
/// all; CSV and JSON always list all), sorted by idle cost, then allocated hours, then key.
std::string render_fleet(const FleetSummary& s, FleetFormat format, std::size_t top);

}  // namespace gpucost::fleet
