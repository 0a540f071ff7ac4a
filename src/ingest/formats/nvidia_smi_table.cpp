// `nvidia-smi` with no options: the box-drawn table people paste into every GPU issue thread.
// Its GPU rows become GpuDevices (index, name, PCI address, power cap, memory, driver version),
// the rows of its "MIG devices" block the GPU's MIG devices (GPU, GI and CI ids, device, memory;
// issue 38). The Processes block is structure: it is accepted and not read (pmon has the same
// facts with a time). The table is one instant with no interval, so it gives no GPU samples.
// Layouts: the 80-column table of drivers up to R525 and the wider one of R530 and later (R570
// widened the Bus-Id cell again); real pastes in tests/data/mig (SOURCES.md).
#include <array>
#include <cmath>

#include "gpucost/text.hpp"
#include "ingest/formats/formats.hpp"
#include "ingest/formats/nvidia_smi_common.hpp"
#include "ingest/formats/nvidia_smi_mig.hpp"

namespace gpucost::formats {
namespace {

// GPUs kept per file, and MIG devices per GPU: the caps of the other device readers.
constexpr std::size_t kMaxGpus = 256;
constexpr std::size_t kMaxMigPerGpu = 16;
constexpr std::size_t kMaxCells = 8;

// The cells of a `| a | b | c |` row (without the outer bars), or 0 when the line is not one.
std::size_t split_cells(std::string_view line, std::array<std::string_view, kMaxCells>& cells) {
  line = text::trim(line);
  if (line.size() < 3 || line.front() != '|' || line.back() != '|') return 0;
  line = line.substr(1, line.size() - 2);
  std::size_t n = 0;
  while (n < kMaxCells) {
    const auto bar = line.find('|');
    cells[n++] = line.substr(0, bar);
    if (bar == std::string_view::npos) break;
    line.remove_prefix(bar + 1);
  }
  return n;
}

// A rule of the table: `+----+----+`, `|====+====|`, `|----+----|`.
bool is_rule(std::string_view line) {
  line = text::trim(line);
  if (line.size() < 3 || (line.front() != '+' && line.front() != '|')) return false;
  for (const char c : line)
    if (c != '+' && c != '-' && c != '=' && c != '|') return false;
  return true;
}

// The leading unsigned integer of s and s past it; false when s does not start with a digit.
bool leading_int(std::string_view& s, int& v) {
  std::size_t n = 0;
  long long r = 0;
  while (n < s.size() && text::is_digit(s[n]) && n < 9) r = r * 10 + (s[n++] - '0');
  if (n == 0) return false;
  v = static_cast<int>(r);
  s.remove_prefix(n);
  return true;
}

// `26MiB / 81920MiB`: the total, in MiB.
std::optional<double> memory_total(std::string_view cell) {
  const auto slash = cell.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  std::string_view total = text::trim(cell.substr(slash + 1));
  if (total.size() < 4 || total.substr(total.size() - 3) != "MiB") return std::nullopt;
  double v = 0;
  if (!nvsmi::parse_number(total.substr(0, total.size() - 3), v)) return std::nullopt;
  return v;
}

// `42W / 300W` at the end of the second cell of a GPU's second row: the cap, in W.
std::optional<double> power_cap(std::string_view cell) {
  const auto slash = cell.rfind('/');
  if (slash == std::string_view::npos) return std::nullopt;
  std::string_view cap = text::trim(cell.substr(slash + 1));
  if (cap.size() < 2 || cap.back() != 'W') return std::nullopt;
  double v = 0;
  if (!nvsmi::parse_number(cap.substr(0, cap.size() - 1), v)) return std::nullopt;
  return v;
}

// `Driver Version: 535.104.05` (or R610's `KMD Version:`) in the header row.
std::string_view driver_version(std::string_view row) {
  for (std::string_view key : {std::string_view("Driver Version:"), std::string_view("KMD Version:")}) {
    const auto at = row.find(key);
    if (at == std::string_view::npos) continue;
    std::string_view v = text::ltrim(row.substr(at + key.size()));
    return v.substr(0, v.find(' '));
  }
  return {};
}

// The first row of a GPU: `   0  NVIDIA A100 80G...  On   ` | ` 00000000:31:00.0 Off ` | ...
struct GpuRow {
  int index = -1;
  std::string_view name, bus;
};
std::optional<GpuRow> gpu_row(const std::array<std::string_view, kMaxCells>& cells, std::size_t n) {
  if (n != 3) return std::nullopt;
  std::string_view first = text::ltrim(cells[0]);
  GpuRow g;
  if (!leading_int(first, g.index) || first.empty() || first[0] != ' ') return std::nullopt;
  std::string_view name = text::trim(first);
  // The persistence mode closes the cell: `On` or `Off` (on Windows the driver model, `WDDM` or `TCC`).
  const auto last = name.rfind(' ');
  if (last == std::string_view::npos) return std::nullopt;
  const std::string_view mode = name.substr(last + 1);
  if (mode != "On" && mode != "Off" && mode != "WDDM" && mode != "TCC") return std::nullopt;
  name = text::rtrim(name.substr(0, last));
  if (name.size() > 3 && name.substr(name.size() - 3) == "...") name.remove_suffix(3);
  g.name = name;
  std::string_view bus = text::ltrim(cells[1]);
  bus = bus.substr(0, bus.find(' '));
  if (bus.find(':') == std::string_view::npos) return std::nullopt;
  g.bus = bus;
  return g;
}

// A row of the MIG devices block: `  1    3   0   0  ` | `  14366MiB / 19968MiB ` | ...
struct MigRow {
  int gpu = -1, gi = -1, ci = -1, device = -1;
  std::optional<double> memory_mib;
};
std::optional<MigRow> mig_row(const std::array<std::string_view, kMaxCells>& cells, std::size_t n) {
  if (n < 2) return std::nullopt;
  std::string_view ids = cells[0];
  MigRow m;
  for (int* v : {&m.gpu, &m.gi, &m.ci, &m.device}) {
    ids = text::ltrim(ids);
    if (!leading_int(ids, *v)) return std::nullopt;
  }
  if (!text::trim(ids).empty()) return std::nullopt;
  m.memory_mib = memory_total(cells[1]);
  return m;
}

enum class Block { kNone, kGpus, kMig, kProcesses };

// Real lines of the format, with what the parser makes of them (tests/unit/format_samples_test.cpp).
constexpr FormatSample kSamples[] = {
    {"nvidia-smi.txt", "tests/data/mig/smi-table-gpus-mig-enabled-a100-520-excerpt.txt",
     R"smp(+-----------------------------------------------------------------------------+
| NVIDIA-SMI 520.61.05    Driver Version: 520.61.05    CUDA Version: 11.8     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|                               |                      |               MIG M. |
|===============================+======================+======================|
|   0  NVIDIA A100 80G...  On   | 00000000:31:00.0 Off |                   On |
| N/A   30C    P0    42W / 300W |     26MiB / 81920MiB |     N/A      Default |
|                               |                      |              Enabled |
+-------------------------------+----------------------+----------------------+
|   1  NVIDIA A100 80G...  On   | 00000000:B1:00.0 Off |                   On |
| N/A   38C    P0    45W / 300W |     26MiB / 81920MiB |     N/A      Default |
|                               |                      |              Enabled |
)smp",
     2},
    {"nvidia-smi.txt", "tests/data/mig/smi-table-mig-devices-block-a100-excerpt.txt",
     R"smp(+-----------------------------------------------------------------------------+
| MIG devices:                                                                |
+------------------+----------------------+-----------+-----------------------+
| GPU  GI  CI  MIG |         Memory-Usage |        Vol|         Shared        |
|      ID  ID  Dev |           BAR1-Usage | SM     Unc| CE  ENC  DEC  OFA  JPG|
|                  |                      |        ECC|                       |
|==================+======================+===========+=======================|
|  1    3   0   0  |  14366MiB / 19968MiB | 28      0 |  2   0    1    0    0 |
|                  |      4MiB / 32767MiB |           |                       |
+------------------+----------------------+-----------+-----------------------+
|  1    5   0   1  |   9826MiB / 19968MiB | 28      0 |  2   0    1    0    0 |
|                  |      2MiB / 32767MiB |           |                       |
+------------------+----------------------+-----------+-----------------------+
)smp",
     2},
};

class Format final : public LogFormat {
 public:
  FormatId id() const noexcept override { return FormatId::nvidia_smi_table; }
  std::span<const FormatSample> samples() const noexcept override { return kSamples; }

  int score(std::string_view line) const noexcept override {
    const std::string_view t = text::trim(line);
    if (t.empty() || (t.front() != '|' && t.front() != '+')) return 0;
    if (is_rule(t)) return t.size() >= 40 ? 10 : 0;
    if (text::contains(t, "NVIDIA-SMI ") && (text::contains(t, "Driver Version:") || text::contains(t, "KMD Version:")))
      return 100;
    if (text::contains(t, "Persistence-M") && text::contains(t, "Bus-Id")) return 100;
    if (text::contains(t, "| MIG devices:") || text::contains(t, "GPU  GI  CI  MIG")) return 100;
    std::array<std::string_view, kMaxCells> cells;
    const std::size_t n = split_cells(t, cells);
    if (gpu_row(cells, n)) return 90;
    if (n == 3 && memory_total(cells[1]) && power_cap(cells[0])) return 90;
    if (n >= 4 && mig_row(cells, n)) return 60;
    return 0;
  }

  void parse(LineSource& src, FileSink& sink) const override {
    Line line;
    auto& devices = sink.devices();
    const std::size_t first = devices.size();
    std::string driver;
    Block block = Block::kNone;
    GpuDevice* gpu = nullptr;  // the GPU whose first row was read last
    std::array<std::string_view, kMaxCells> cells;
    auto device_at = [&](int index) -> GpuDevice* {
      for (std::size_t i = first; i < devices.size(); ++i)
        if (devices[i].index == index) return &devices[i];
      return nullptr;
    };
    while (src.next(line)) {
      sink.line_read(line);
      const std::string_view t = text::trim(line.text);
      if (t.empty()) continue;  // counted blank by line_read: not accepted too
      if (is_rule(t)) {
        sink.accept();
        continue;
      }
      if (t.front() != '|') {
        // The clock line nvidia-smi prints above the table (`Mon Dec  7 05:21:03 2026`).
        if (t.size() >= 20 && t.size() <= 32 && text::is_digit(t.back()) && text::contains(t, ":")) {
          sink.accept();
          continue;
        }
        sink.problem(line, Problem::unparsable_line, "not a row of the `nvidia-smi` table");
        continue;
      }
      if (text::contains(t, "NVIDIA-SMI ")) {
        driver = std::string(driver_version(t));
        for (std::size_t i = first; i < devices.size(); ++i)
          if (devices[i].driver_version.empty()) devices[i].driver_version = driver;
        sink.accept();
        continue;
      }
      if (text::contains(t, "Persistence-M") || text::contains(t, "Pwr:Usage/Cap") || text::contains(t, "MIG M.")) {
        block = Block::kGpus;
        sink.accept();
        continue;
      }
      if (text::contains(t, "MIG devices:")) {
        block = Block::kMig;
        sink.accept();
        continue;
      }
      if (text::contains(t, "Processes:")) {
        block = Block::kProcesses;
        sink.accept();
        continue;
      }
      const std::size_t n = split_cells(t, cells);
      if (block == Block::kProcesses || n == 1) {
        // A process row, the block's own headings, or `No running processes found`.
        sink.accept();
        continue;
      }
      if (auto g = gpu_row(cells, n)) {
        block = Block::kGpus;
        gpu = nullptr;
        if (devices.size() - first >= kMaxGpus) {
          sink.problem(line, Problem::too_many_devices, "more GPUs than a machine has (256): counted, not read");
          continue;
        }
        GpuDevice d;
        d.index = g->index;
        d.name = std::string(g->name);
        d.pci_bus = normalize_pci_bus(g->bus);
        d.driver_version = driver;
        d.file = sink.file_index();
        d.line = line.number;
        devices.push_back(std::move(d));
        gpu = &devices.back();
        sink.accept();
        sink.record();
        continue;
      }
      if (block == Block::kGpus && n == 3) {
        // The GPU's second row (fan, temperature, perf state, power / cap; memory) or third (MIG M.).
        if (gpu) {
          if (auto cap = power_cap(cells[0])) gpu->power_limit_w = cap;
          if (auto mem = memory_total(cells[1])) gpu->memory_total_mib = mem;
        }
        sink.accept();
        continue;
      }
      if (block == Block::kMig) {
        if (auto m = mig_row(cells, n)) {
          GpuDevice* parent = device_at(m->gpu);
          if (!parent) {
            if (devices.size() - first >= kMaxGpus) {
              sink.problem(line, Problem::too_many_devices, "more GPUs than a machine has (256): counted, not read");
              continue;
            }
            GpuDevice d;
            d.index = m->gpu;
            d.driver_version = driver;
            d.file = sink.file_index();
            d.line = line.number;
            devices.push_back(std::move(d));
            parent = &devices.back();
            gpu = nullptr;
          }
          if (parent->mig_devices.size() >= kMaxMigPerGpu) {
            sink.problem(line, Problem::too_many_devices, "more MIG devices than a GPU has (16 kept)");
            continue;
          }
          MigDevice mig;
          mig.device = m->device;
          mig.gpu_instance = m->gi;
          mig.compute_instance = m->ci;
          if (m->memory_mib) mig.memory_gb = *m->memory_mib / 1024;
          if (m->memory_mib && parent->memory_total_mib && *parent->memory_total_mib > 0)
            mig.share = ingest::mig_share(*m->memory_mib, *parent->memory_total_mib);
          parent->mig_devices.push_back(std::move(mig));
          sink.accept();
          sink.record();
          continue;
        }
        // Headings of the block and each device's BAR1 row.
        sink.accept();
        continue;
      }
      sink.problem(line, Problem::unparsable_line, "a row of the `nvidia-smi` table outside its GPU and MIG blocks");
    }
  }
};

}  // namespace

const LogFormat& nvidia_smi_table_format() {
  static const Format f;
  return f;
}

}  // namespace gpucost::formats
