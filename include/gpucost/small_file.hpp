#pragma once
/// \file small_file.hpp
/// Files that are read whole (--config, --presets, --patterns, --catalog, --fx): each has a size cap, and only a
/// regular file is read, so a FIFO cannot block the run and /dev/zero cannot fill the memory.

#ifndef GPUCOST_LAYER_BASE
#error "gpucost_base header: include it only in gpucost_base or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstddef>
#include <string>

namespace gpucost {

/// Caps of the files read whole (documented in docs/robustness.md). Real ones are a few KB.
inline constexpr std::size_t kMaxConfigFileBytes = 1 << 20;    ///< --config
inline constexpr std::size_t kMaxPresetsFileBytes = 4 << 20;   ///< each --presets
inline constexpr std::size_t kMaxPatternsFileBytes = 1 << 20;  ///< --patterns
inline constexpr std::size_t kMaxCatalogFileBytes = 64 << 20;  ///< each --catalog (a cloud's whole offer list)
inline constexpr std::size_t kMaxFxFileBytes = 1 << 20;         ///< --fx

/// The bytes of the regular file `path`, at most `max_bytes` of them. Throws std::invalid_argument
/// naming `what` (`--config`) when the file cannot be opened, is not a regular file (a FIFO, a
/// device, a directory: never read, and opened without blocking) or is larger than max_bytes.
std::string read_small_file(const std::string& path, std::size_t max_bytes, const std::string& what);

}  // namespace gpucost
