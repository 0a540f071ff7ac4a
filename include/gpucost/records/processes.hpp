#pragma once
/// \file processes.hpp
/// The process table (ps snapshots, nvidia-smi pmon): its columns (process_col) and schema.

#ifndef GPUCOST_LAYER_BASE
#error "gpucost_base header: include it only in gpucost_base or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstddef>

#include "gpucost/records/stamps.hpp"  // process_col::wall_kind
#include "gpucost/table.hpp"

namespace gpucost {

// Aligned by hand: clang-format leaves the columns alone.
// clang-format off
/// Columns of the process table (ps snapshots, nvidia-smi pmon).
namespace process_col {
enum : std::size_t {
  ts_ns = 0,
  wall_kind,
  wall_raw_ns,
  file,
  line,
  snapshot,     ///< snapshot ordinal within the file
  user,         ///< (dict)
  pid,
  cpu_pct,      ///< %CPU (ps)
  mem_pct,      ///< %MEM (ps)
  vsz_kib,
  rss_kib,
  stat,         ///< (dict) process state letters
  command,      ///< (dict) command line as printed
  gpu,          ///< GPU index (pmon), null for ps
  gpu_sm_pct,   ///< SM % used by this process (pmon)
  gpu_mem_pct,  ///< memory % used by this process (pmon)
  count_
};
}
// clang-format on

/// Makes an empty table with the process schema.
Table make_process_table();

}  // namespace gpucost
