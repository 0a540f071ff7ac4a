// Reads the MIG devices of an `nvidia-smi -L` listing; no regex, one pass over the lines.
#include "ingest/formats/nvidia_smi_mig.hpp"

#include <algorithm>
#include <cmath>

#include "gpucost/text.hpp"

namespace gpucost::ingest {

namespace {

// The digits at the front of s, as a number, and s past them; nullopt when there are none.
std::optional<double> leading_number(std::string_view& s) {
  std::size_t n = 0;
  while (n < s.size() && (text::is_digit(s[n]) || (s[n] == '.' && n > 0))) ++n;
  if (n == 0) return std::nullopt;
  double v = 0, scale = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (s[i] == '.') {
      scale = 1;
      continue;
    }
    if (scale > 0) {
      scale /= 10;
      v += (s[i] - '0') * scale;
    } else {
      v = v * 10 + (s[i] - '0');
    }
  }
  s.remove_prefix(n);
  return v;
}

// `(UUID: X)` in s: X, or empty.
std::string_view uuid_in(std::string_view s) {
  const auto at = s.find("(UUID: ");
  if (at == std::string_view::npos) return {};
  s.remove_prefix(at + 7);
  return s.substr(0, s.find(')'));
}

// The memory size a GPU's name states (`NVIDIA A100-SXM4-80GB`, `NVIDIA A100 80GB PCIe`), in GB.
std::optional<double> name_memory_gb(std::string_view name) {
  for (std::size_t at = name.find("GB"); at != std::string_view::npos; at = name.find("GB", at + 2)) {
    std::size_t b = at;
    while (b > 0 && text::is_digit(name[b - 1])) --b;
    if (b == at) continue;
    std::string_view digits = name.substr(b, at - b);
    if (auto v = leading_number(digits); v && *v > 0) return v;
  }
  return std::nullopt;
}

}  // namespace

double mig_share(double device_memory, double gpu_memory) {
  return std::min(1.0, std::round(device_memory / gpu_memory * 8) / 8);
}

std::optional<ListedGpu> parse_listed_gpu(std::string_view line) {
  line = text::trim(line);
  if (line.substr(0, 4) != "GPU ") return std::nullopt;
  std::string_view rest = line.substr(4);
  const auto index = leading_number(rest);
  if (!index || rest.substr(0, 2) != ": " || *index > 1e6) return std::nullopt;
  rest.remove_prefix(2);
  if (rest.find(" (UUID: ") == std::string_view::npos) return std::nullopt;
  ListedGpu g;
  g.index = static_cast<int>(*index);
  g.name = std::string(text::trim(rest.substr(0, rest.find(" (UUID: "))));
  g.uuid = std::string(uuid_in(rest));
  return g;
}

std::optional<MigListingDevice> parse_listed_mig(std::string_view line, const ListedGpu& gpu) {
  line = text::trim(line);
  if (line.substr(0, 4) != "MIG " || gpu.index < 0) return std::nullopt;
  std::string_view rest = text::trim(line.substr(4));
  MigListingDevice d;
  d.gpu = gpu.index;
  d.gpu_name = gpu.name;
  d.gpu_uuid = gpu.uuid;
  const auto blank = rest.find(' ');
  d.profile = std::string(rest.substr(0, blank));
  std::string_view p = d.profile;
  if (const auto g = leading_number(p); g && p.substr(0, 2) == "g." && *g < 100) {
    d.compute_slices = static_cast<int>(*g);
    p.remove_prefix(2);
    if (const auto gb = leading_number(p)) d.memory_gb = *gb;
  }
  const auto dev = rest.find("Device");
  if (dev == std::string_view::npos) return std::nullopt;
  std::string_view after = text::trim(rest.substr(dev + 6));
  if (const auto i = leading_number(after); i && *i < 1e6) d.device = static_cast<int>(*i);
  d.uuid = std::string(uuid_in(after));
  const auto gpu_gb = name_memory_gb(gpu.name);
  if (gpu_gb && d.memory_gb > 0) d.share = mig_share(d.memory_gb, *gpu_gb);
  return d;
}

std::vector<MigListingDevice> parse_mig_listing(std::string_view text) {
  std::vector<MigListingDevice> out;
  std::optional<ListedGpu> gpu;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    if (auto g = parse_listed_gpu(line)) {
      gpu = std::move(g);
    } else if (gpu) {
      if (auto d = parse_listed_mig(line, *gpu)) out.push_back(std::move(*d));
    }
  }
  return out;
}

}  // namespace gpucost::ingest
