#pragma once
/// \file fleet.hpp
/// `gpucost fleet DIR`: reads every `*.ndjson` per-job row under DIR (docs/fleet.md; written by
/// `gpucost analyze --format ndjson`, e.g. from a Slurm epilog) and the job summaries that the
/// epilog keeps in Slurm's AdminComment (`sacct -P -o JobID,User,Partition,AdminComment`), keeps
/// one row per row key (a copied file counts once), and sums the kept rows per job, user, node
/// and GPU model, and for the whole fleet. A row is held as its values and interned identifiers
/// (about 200 bytes) until `finish()`, so that a newer copy of it can replace it. A malformed or
/// implausible line is counted (with file:line and a named reason for the first ones) and
/// skipped, never fatal.

#ifndef GPUCOST_LAYER_FLEET
#error "gpucost_fleet header: include it only in gpucost_fleet or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstddef>
#include <cstdint>
#include <iosfwd>
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
/// and costs come from the GPU rows; incidents and Xid events per machine from the node rows; a
/// job summary read from the scheduler gives both. Allocated = busy + idle + unmeasured (the
/// allocated time no sample covers); effective <= busy.
struct Totals {
  std::uint64_t gpu_rows = 0, node_rows = 0;
  Sum allocated_gpu_hours, busy_gpu_hours, idle_gpu_hours, unmeasured_gpu_hours, sampled_gpu_hours,
      effective_gpu_hours, energy_kwh;
  Sum local_cost, idle_cost, cloud_cost;
  Sum xid_events, incidents, gpu_lost_s;
};

/// One line that was refused: `kind` names the reason (`not_json`, `not_a_row`, `bad_field`,
/// `negative`, `out_of_range`, `key_too_long`, `line_too_long`), `reason` says it in words.
struct RowProblem {
  std::string file;
  std::uint64_t line = 0;
  std::string kind;
  std::string reason;
};

/// A row dropped because another row had its key: where it was, and the row kept instead.
struct Duplicate {
  std::string file;
  std::uint64_t line = 0;
  std::string kept_file;
  std::uint64_t kept_line = 0;
};

/// How rows are grouped.
enum class Group { kJob, kUser, kNode, kGpuModel };

/// Everything `gpucost fleet` reports.
struct FleetSummary {
  std::unordered_map<std::string, Totals> by_job, by_user, by_node, by_model;
  Totals fleet;
  std::uint64_t files = 0, lines = 0, blank_lines = 0, rows = 0, malformed = 0, duplicates = 0, summaries = 0;
  std::uint64_t bytes = 0;
  std::vector<RowProblem> problems;         ///< the first kMaxProblems refused lines
  std::map<std::string, std::uint64_t> refused;  ///< refused lines per RowProblem::kind (all of them)
  std::vector<Duplicate> duplicate_rows;    ///< the first kMaxProblems dropped duplicates
  std::set<std::string> currencies;    ///< of the rows' costs; more than one: costs are not summed
  std::set<std::string> cloud_offers;  ///< the rows' cloud presets
  std::map<std::int64_t, std::uint64_t> schema_versions;  ///< rows per schema_version
  std::vector<std::string> unreadable;  ///< files that could not be opened or read, with why

  const std::unordered_map<std::string, Totals>& group(Group g) const noexcept;
};

/// Refused lines and duplicates kept with their file:line (all are counted).
inline constexpr std::size_t kMaxProblems = 50;

/// The longest identifier (cluster, job id, step, user, host, GPU model, GPU UUID or bus id,
/// window stamp, currency) a row may carry: Linux user names are at most 32 bytes, host names
/// 64, GPU UUIDs and MIG UUIDs under 50, Slurm job ids under 32. A longer one refuses the row
/// (`key_too_long`), so that hostile rows cannot make the per-key maps grow without bound.
inline constexpr std::size_t kMaxKeyBytes = 256;

/// The largest measurement a row may carry (hours, kWh, counts, seconds, costs): a GPU held for
/// a century is 876 600 h; 1e15 of any currency is beyond any budget. Rows above it are refused
/// (`out_of_range`), so that no number of rows can overflow a sum to infinity.
inline constexpr double kMaxMeasurement = 1e15;

/// The schema of the rows' `effective_gpu_hours` that this reader trusts: version 1 rows computed
/// it as allocated x effective utilization, counting unmeasured time as work, so their effective
/// hours and cloud cost are read as unknown.
inline constexpr std::int64_t kHonestEffectiveSchema = 2;

/// The stable key of a row: cluster, job id, job step, host, row kind, the GPU (UUID or MIG UUID,
/// else PCI bus id, else index) and the window, joined by the unit separator 0x1F.
std::string row_key(std::string_view cluster, std::string_view job, std::string_view step, std::string_view host,
                    std::string_view row, std::string_view gpu, std::string_view window_start,
                    std::string_view window_end);

/// Text for a terminal or a log: control bytes (C0 with tab, DEL, raw and UTF-8-encoded C1) and
/// bytes that are not UTF-8 become `\xHH` escapes, a backslash becomes `\\`; other UTF-8 is kept.
/// (text::printable leaves a lone 0x9B, CSI on 8-bit terminals, raw; this is the fleet's until the
/// ground floor has one that does not.)
std::string escape_control(std::string_view s);

/// Reads rows into a summary; call `finish()` once after the last one.
class FleetReader {
 public:
  explicit FleetReader(FleetSummary& out);
  ~FleetReader();
  FleetReader(const FleetReader&) = delete;
  FleetReader& operator=(const FleetReader&) = delete;
  /// Reads every `*.ndjson` file under dir (recursively, sorted, symlinked directories not
  /// followed); a regular file is read itself. Throws std::invalid_argument when dir does not exist.
  void read_tree(const std::string& dir);
  /// Reads one file (1 MiB blocks; a line longer than 16 MiB is malformed).
  void read_file(const std::string& path);
  /// Adds one line (no newline) of file `path` at line number `line_no` (copied: any buffer).
  void add_line(std::string_view line, const std::string& path, std::uint64_t line_no);
  /// Reads `sacct -P -o JobID,User,Partition,AdminComment` output (header optional): every
  /// gpucost job summary in an AdminComment is a row (docs/fleet.md); other text is ignored.
  /// `name` stands for the input in file:line (a path, or `-` for stdin).
  void read_sacct(std::istream& in, const std::string& name);
  /// Adds one line of sacct output.
  void add_sacct_line(std::string_view line, const std::string& name, std::uint64_t line_no);
  /// Sums the kept rows (one per key) into the summary.
  void finish();

 private:
  /// add_line for a line followed by at least SIMDJSON_PADDING readable bytes (parsed in place).
  void add_padded_line(std::string_view line, const std::string& path, std::uint64_t line_no);
  void problem(const std::string& path, std::uint64_t line_no, std::string_view kind, std::string reason);
  FleetSummary& out_;
  struct State;
  std::unique_ptr<State> state_;
};

/// Output formats of `gpucost fleet`.
enum class FleetFormat { kTable, kCsv, kJson, kHtml };

/// Renders the summary; `top` limits the keys of each group in the table and the HTML page (0 =
/// all; CSV and JSON always list all), sorted by idle cost, then allocated hours, then key.
std::string render_fleet(const FleetSummary& s, FleetFormat format, std::size_t top);

}  // namespace gpucost::fleet
