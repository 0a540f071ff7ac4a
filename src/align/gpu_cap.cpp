// One directory is one machine: the GPUs its samples and reports may name are bounded, as each
// file's are.
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "align/internal.hpp"

namespace gpucost::align_detail {

std::uint64_t cap_gpus_per_directory(Table& sa, std::vector<GpuDevice>& devices, Diagnostics& diag) {
  const Column& gpus = sa.column(sample_col::gpu);
  std::vector<std::int64_t> seen;
  for (std::size_t r = 0; r < sa.rows(); ++r)
    if (gpus.is_valid(r)) seen.push_back(gpus.get_int(r));
  for (const GpuDevice& d : devices)
    if (d.index) seen.push_back(*d.index);
  std::sort(seen.begin(), seen.end());
  seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
  std::uint64_t dropped_rows = 0;
  std::size_t dropped_devices = 0;
  if (seen.size() > kMaxGpusPerDirectory) {
    const std::int64_t last_kept = seen[kMaxGpusPerDirectory - 1];
    std::vector<std::uint32_t> keep;
    keep.reserve(sa.rows());
    for (std::size_t r = 0; r < sa.rows(); ++r)
      if (!gpus.is_valid(r) || gpus.get_int(r) <= last_kept) keep.push_back(static_cast<std::uint32_t>(r));
    dropped_rows = sa.rows() - keep.size();
    sa.permute(keep);
    const auto before = devices.size();
    std::erase_if(devices, [&](const GpuDevice& d) { return d.index && *d.index > last_kept; });
    dropped_devices = before - devices.size();
    diag.notes.push_back(fmt::format(
        "the logs name {} GPU indices, more than one machine has ({} are read per directory, as per file): the {} "
        "sample rows and {} reports of the {} GPUs at index {} and above were left out (analyze each machine's "
        "logs in a directory of its own)",
        seen.size(), kMaxGpusPerDirectory, dropped_rows, dropped_devices, seen.size() - kMaxGpusPerDirectory,
        seen[kMaxGpusPerDirectory]));
  }
  // Reports without an index count by what names them (UUID, PCI address, product).
  std::set<std::string> named;
  const auto before = devices.size();
  std::erase_if(devices, [&](const GpuDevice& d) {
    if (d.index) return false;
    const std::string& key = !d.uuid.empty() ? d.uuid : !d.pci_bus.empty() ? d.pci_bus : d.name;
    if (named.count(key)) return false;
    if (named.size() >= kMaxGpusPerDirectory) return true;
    named.insert(key);
    return false;
  });
  if (devices.size() < before)
    diag.notes.push_back(
        fmt::format("{} reports of GPUs without an index beyond the {} one directory may name were "
                    "left out",
                    before - devices.size(), kMaxGpusPerDirectory));
  return dropped_rows;
}

}  // namespace gpucost::align_detail
