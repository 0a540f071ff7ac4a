#pragma once
/// \file table.hpp
/// Columnar buffers that join the stages: a Table is a shared int64 nanosecond timestamp column
/// plus typed, nullable columns. Strings that repeat (GPU ids, process names, idents) are
/// dictionary-coded; free text lives in one arena per column. Modelled on DuckDB's DataChunk:
/// columns are contiguous arrays with a validity mask, appended to without per-row allocation.
/// The pieces live in table/: dictionary, validity, packed_ints, packed_floats, column, table.

#ifndef GPUCOST_LAYER_BASE
#error "gpucost_base header: include it only in gpucost_base or a layer above it (docs/architecture.md, Layers)"
#endif

#include <unordered_map>  // not used here any more; kept for includers that relied on it

#include "gpucost/table/table.hpp"  // IWYU pragma: export
