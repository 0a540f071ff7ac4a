#pragma once
/// \file timeline_writer.hpp
/// `gpucost timeline`: each distinct event once, in time order, as JSON Lines or CSV.

#ifndef GPUCOST_LAYER_REPORT
#error "gpucost_report header: include it only in gpucost_report or a layer above it (docs/architecture.md, Layers)"
#endif

#include <string>

#include "gpucost/align/timeline.hpp"
#include "gpucost/report/output.hpp"

namespace gpucost {

/// Timeline output formats.
enum class TimelineFormat { kJsonl, kCsv };

/// Writes the events of a timeline; stops early (returning the status) when the output closes.
WriteStatus write_timeline(const Timeline& t, TimelineFormat format, Output& out);

/// The CSV header of the timeline (also the JSON Lines keys, in order).
inline constexpr const char* kTimelineCsvHeader =
    "ts,ts_ns,source,format,file,line,kind,code,gpu,pid,process,ident,text,approximate,seen_in,repeat";

}  // namespace gpucost
