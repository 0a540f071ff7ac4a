#pragma once
/// \file records.hpp
/// What ingest extracts from the logs, one header per concept under records/: the event table
/// and its kinds (events.hpp), the log formats (formats.hpp), the GPU sample table and its
/// metrics (samples.hpp), the process table (processes.hpp), time stamps and boot anchors
/// (stamps.hpp), GPU devices (devices.hpp), profiler summaries (profiler.hpp) and host power
/// samples (host_power.hpp). This header
/// includes them all; a file that needs one concept includes its header.

#ifndef GPUCOST_LAYER_BASE
#error "gpucost_base header: include it only in gpucost_base or a layer above it (docs/architecture.md, Layers)"
#endif

#include "gpucost/records/devices.hpp"  // IWYU pragma: export
#include "gpucost/records/events.hpp"  // IWYU pragma: export
#include "gpucost/records/formats.hpp"  // IWYU pragma: export
#include "gpucost/records/host_power.hpp"  // IWYU pragma: export
#include "gpucost/records/processes.hpp"  // IWYU pragma: export
#include "gpucost/records/profiler.hpp"  // IWYU pragma: export
#include "gpucost/records/samples.hpp"  // IWYU pragma: export
#include "gpucost/records/stamps.hpp"  // IWYU pragma: export
