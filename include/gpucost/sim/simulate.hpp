#pragma once
/// \file simulate.hpp
/// `gpucost simulate`: writes the log directory of a machine that trains a model, in the formats
/// the real tools print (dmon.log, dmesg.txt, kern.log + rotated ones, syslog, journal.json,
/// ps.txt, nvidia-smi-q.txt), with truth.json holding what was injected and the true values of
/// the contract features. Same options, same bytes. See docs/simulate.md.

#ifndef GPUCOST_LAYER_SIM
#error "gpucost_sim header: include it only in gpucost_sim or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpucost/sim/world.hpp"

namespace gpucost::sim {

/// What simulate() wrote.
struct SimResult {
  std::vector<std::pair<std::string, std::uint64_t>> files;  ///< name and size, truth.json last
  std::uint64_t total_bytes = 0;
  double hours = 0;  ///< the simulated span (computed from --size when given)
  double noise = 1;  ///< the noise factor (computed from --size when --hours is given too)
};

/// Writes the directory options.out_dir (created when missing; files of earlier runs that this
/// scenario does not write are removed). Throws std::runtime_error when a file cannot be
/// written, std::invalid_argument for bad options.
SimResult simulate(const SimOptions& options);

/// Generates everything but writes nothing: the bytes each file would have (used to size a
/// corpus for --size; the same code path as simulate(), so the count is exact).
SimResult measure(const SimOptions& options);

/// Parses a size: `1G`, `100M`, `512k`, `1.5GiB`, `2MB`, `1000000` (k/M/G/T are powers of 1024).
/// Throws std::invalid_argument.
std::uint64_t parse_size(std::string_view s);

}  // namespace gpucost::sim
