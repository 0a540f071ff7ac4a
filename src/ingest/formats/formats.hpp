#pragma once
// Accessors for the built-in formats (one file each under src/ingest/formats/).

#include "gpucost/ingest/format.hpp"

namespace gpucost::formats {

const LogFormat& dmon_format();
const LogFormat& pmon_format();
const LogFormat& query_gpu_format();
const LogFormat& nvidia_smi_q_format();
const LogFormat& dmesg_format();
const LogFormat& syslog_format();
const LogFormat& journal_short_format();
const LogFormat& journal_json_format();
const LogFormat& journal_export_format();
const LogFormat& ps_format();
const LogFormat& torch_trace_format();
const LogFormat& manifest_format();
const LogFormat& sim_truth_format();

}  // namespace gpucost::formats
