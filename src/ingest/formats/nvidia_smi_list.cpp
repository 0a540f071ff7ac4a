// `nvidia-smi -L`: one `GPU n: NAME (UUID: GPU-...)` line per GPU, then, on a MIG-enabled GPU, one
// indented `MIG 1g.10gb     Device  0: (UUID: MIG-...)` line per MIG device (issue 38). Each GPU
// becomes a GpuDevice (index, name, UUID) holding its MIG devices; the lines are read by
// nvidia_smi_mig.cpp. Fixtures: tests/data/mig (real pastes, sources in SOURCES.md).
#include "gpucost/text.hpp"
#include "ingest/formats/formats.hpp"
#include "ingest/formats/nvidia_smi_mig.hpp"

namespace gpucost::formats {
namespace {

// GPUs kept per file: the cap of the other device readers (query_gpu.cpp, nvidia_smi_q.cpp).
constexpr std::size_t kMaxGpus = 256;
// MIG devices kept per GPU: an A100 or H100 has at most 7.
constexpr std::size_t kMaxMigPerGpu = 16;

MigDevice mig_device(const ingest::MigListingDevice& d) {
  MigDevice m;
  m.profile = d.profile;
  m.device = d.device;
  m.compute_slices = d.compute_slices;
  m.memory_gb = d.memory_gb;
  m.uuid = d.uuid;
  m.share = d.share;
  return m;
}

// Real lines of the format, with what the parser makes of them (tests/unit/format_samples_test.cpp).
constexpr FormatSample kSamples[] = {
    {"nvidia-smi-L.txt", "tests/data/mig/smi-L-a100-80g-4x1g20gb-then-3-whole.txt",
     R"smp(GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-513536b6-7d19-9063-b049-1e69664bb298)
  MIG 1g.20gb     Device  0: (UUID: MIG-ce861fb0-a248-58ce-a9a8-f9adbc22a66a)
  MIG 1g.20gb     Device  1: (UUID: MIG-a45882f0-9215-5733-a0c1-49286ab31cb5)
  MIG 1g.20gb     Device  2: (UUID: MIG-f00d722c-f4e1-52c9-aa31-750441ae1bfe)
  MIG 1g.20gb     Device  3: (UUID: MIG-930574a9-d43a-5d2b-95da-3e68384c8d6b)
GPU 1: NVIDIA A100-SXM4-80GB (UUID: GPU-d8594bd4-0fc3-8595-e355-7c98138f3b95)
GPU 2: NVIDIA A100-SXM4-80GB (UUID: GPU-5e375e7e-b41f-155b-dcdc-534524c356fc)
GPU 3: NVIDIA A100-SXM4-80GB (UUID: GPU-69ec2344-ebac-b028-f88f-452abb3d7f11)
)smp",
     8},
};

class Format final : public LogFormat {
 public:
  FormatId id() const noexcept override { return FormatId::nvidia_smi_list; }
  std::span<const FormatSample> samples() const noexcept override { return kSamples; }

  // Both line shapes carry nvidia-smi's own `(UUID: GPU-` / `(UUID: MIG-`.
  int score(std::string_view line) const noexcept override {
    const std::string_view t = text::trim(line);
    if (t.substr(0, 4) == "GPU " && text::contains(t, ": ") && text::contains(t, " (UUID: GPU-") && t.back() == ')')
      return 100;
    if (t.substr(0, 4) == "MIG " && text::contains(t, "Device ") && text::contains(t, "(UUID: MIG-") && t.back() == ')')
      return 100;
    return 0;
  }

  void parse(LineSource& src, FileSink& sink) const override {
    Line line;
    std::optional<ingest::ListedGpu> gpu;
    auto& devices = sink.devices();
    const std::size_t first = devices.size();
    while (src.next(line)) {
      sink.line_read(line);
      const std::string_view t = text::rtrim(line.text);
      if (text::is_blank(t)) continue;
      if (auto g = ingest::parse_listed_gpu(t)) {
        gpu.reset();
        if (devices.size() - first >= kMaxGpus) {
          sink.problem(line, Problem::too_many_devices, "more GPUs than a machine has (256): counted, not read");
          continue;
        }
        GpuDevice d;
        d.index = g->index;
        d.name = g->name;
        d.uuid = g->uuid;
        d.file = sink.file_index();
        d.line = line.number;
        devices.push_back(std::move(d));
        gpu = std::move(g);
        sink.accept();
        sink.record();
        continue;
      }
      if (gpu) {
        if (auto m = ingest::parse_listed_mig(t, *gpu)) {
          auto& mig = devices.back().mig_devices;
          if (mig.size() >= kMaxMigPerGpu) {
            sink.problem(line, Problem::too_many_devices, "more MIG devices than a GPU has (16 kept)");
            continue;
          }
          mig.push_back(mig_device(*m));
          sink.accept();
          sink.record();
          continue;
        }
      }
      sink.problem(line, Problem::unparsable_line, "neither a GPU nor a MIG device line of `nvidia-smi -L`");
    }
  }
};

}  // namespace

const LogFormat& nvidia_smi_list_format() {
  static const Format f;
  return f;
}

}  // namespace gpucost::formats
