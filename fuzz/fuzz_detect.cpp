// Fuzz target: any bytes through format detection, then parsed as whatever detection picked.
// Input that starts with the gzip magic is also written to a memory file and read the way real
// files are (open_line_source gunzips it on the fly): damaged .gz streams, concatenated members.
#include <sys/mman.h>
#include <unistd.h>

#include <string>

#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpucost;
  fuzz::parse_and_check(data, size, FormatId::unknown);
  if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
    const int fd = ::memfd_create("fuzz.log.gz", MFD_CLOEXEC);
    FUZZ_CHECK(fd >= 0);
    FUZZ_CHECK(::write(fd, data, size) == static_cast<ssize_t>(size));
    IngestResult out;
    Diagnostics diag;
    fuzz::fuzz_stage().run("/proc/self/fd/" + std::to_string(fd), out, diag);
    ::close(fd);
    fuzz::check_ingest(out, diag);
    FUZZ_CHECK(diag.files.size() == 1);
    FUZZ_CHECK(diag.files[0].gzip);
  }
  return 0;
}
