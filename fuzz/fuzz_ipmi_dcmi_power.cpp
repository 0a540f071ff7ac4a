// Fuzz target: any bytes parsed as `ipmitool dcmi power reading` output, with or without collect-logs.sh's markers.
// Beyond what every parser promises: each host power sample points at a line of the file and
// has a finite, non-negative power.
#include <cmath>

#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpucost;
  IngestResult out;
  Diagnostics diag;
  fuzz::fuzz_stage().run_buffer(fuzz::as_text(data, size), "fuzz.log", FormatId::ipmi_dcmi_power, out, diag,
                                1'764'445'845'000'000'000);
  fuzz::check_ingest(out, diag);
  FUZZ_CHECK(diag.files.size() == 1 && diag.files[0].format == FormatId::ipmi_dcmi_power);
  for (const HostPowerSample& h : out.host_power) {
    FUZZ_CHECK(h.file == 0 && h.line >= 1 && h.line <= diag.files[0].lines);
    FUZZ_CHECK(std::isfinite(h.watts) && h.watts >= 0);
    FUZZ_CHECK(h.interval_ns >= 0);
  }
  return 0;
}
