#pragma once
/// \file ingest_result.hpp
/// What the ingest stage hands to align: the files it read and the records it found in them.

#ifndef GPUCOST_LAYER_INGEST
#error "gpucost_ingest header: include it only in gpucost_ingest or a layer above it (docs/architecture.md, Layers)"
#endif

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpucost/records.hpp"
#include "gpucost/table.hpp"
#include "gpucost/table/big_buffer.hpp"

namespace gpucost {

/// One command collect-logs.sh ran (or meant to run), as manifest.json lists it.
struct ManifestCommand {
  std::string cmd;     ///< the command line
  std::string status;  ///< `ok`, `failed` or `skipped`
  std::string reason;  ///< why it failed or was skipped; empty when ok
};

/// What collect-logs.sh wrote about the collection (manifest.json).
struct Manifest {
  std::string host, kernel, driver_version, timezone_name;
  std::optional<TimeNs> utc_offset_ns;  ///< the zone's offset at collection time
  std::string boot_id;
  std::optional<TimeNs> boot_time_ns;   ///< UTC
  std::optional<TimeNs> start_ns, end_ns;  ///< UTC
  std::optional<TimeNs> interval_ns;       ///< sampling interval (dmon -d)
  std::vector<std::string> gpu_names, gpu_bus_ids;
  std::vector<ManifestCommand> commands;  ///< what was collected, what failed and why
  std::uint32_t file = 0;
};

/// One input file as ingest saw it.
struct InputFile {
  std::string path;           ///< relative to the input directory ('/'-separated)
  std::string abs_path;
  std::uint64_t size = 0;     ///< bytes on disk
  TimeNs mtime_ns = kNoTime;
  FormatId format = FormatId::unknown;
};

/// A UTC offset that a source printed (RFC 3339 stamps, journal short-iso): evidence for the zone
/// that the directory's local-time stamps use.
struct ZoneEvidence {
  std::uint32_t file = 0;
  TimeNs offset_ns = 0;
  std::uint64_t count = 0;  ///< lines that printed it
};

/// Boot anchors: a journal keeps one for most of its kernel lines, so the list can run to
/// megabytes; it grows in big_buffer's huge pages.
using BootAnchors = std::vector<BootAnchor, big_buffer::Allocator<BootAnchor>>;

/// Everything ingest found, merged over files in a deterministic order (the sorted file list),
/// whatever the number of threads.
struct IngestResult {
  std::vector<InputFile> files;   ///< index = the `file` column of every table
  Table samples = make_sample_table();
  Table events = make_event_table();
  Table processes = make_process_table();
  BootAnchors anchors;
  std::vector<GpuDevice> devices;
  std::vector<ProfilerSummary> profiles;
  /// Host power samples (RAPL, IPMI DCMI), in file order and each file's line order; ts_ns unset.
  std::vector<HostPowerSample> host_power;
  std::optional<Manifest> manifest;
  std::vector<ZoneEvidence> zone_evidence;
  std::uint64_t bytes = 0;        ///< bytes read (decompressed)
  std::uint64_t lines = 0;
};

}  // namespace gpucost
