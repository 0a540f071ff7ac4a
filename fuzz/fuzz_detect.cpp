// Fuzz target: any bytes through format detection, then parsed as whatever detection picked.
// Input that starts with the magic of gzip, zstd or xz is also written to a memory file and read
// the way real files are (open_line_source decompresses it on the fly, decompress.hpp): damaged
// streams, concatenated members and frames.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <string>

#include "fuzz_common.hpp"
#include "gpucost/ingest/decompress.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpucost;
  fuzz::parse_and_check(data, size, FormatId::unknown);
  const Compression c = detect_compression(
      std::string_view(reinterpret_cast<const char*>(data), std::min(size, kCompressionMagicBytes)));
  if (c != Compression::kNone) {
    const int fd = ::memfd_create("fuzz.log.z", MFD_CLOEXEC);
    FUZZ_CHECK(fd >= 0);
    FUZZ_CHECK(::write(fd, data, size) == static_cast<ssize_t>(size));
    IngestResult out;
    Diagnostics diag;
    fuzz::fuzz_stage().run("/proc/self/fd/" + std::to_string(fd), out, diag);
    ::close(fd);
    fuzz::check_ingest(out, diag);
    FUZZ_CHECK(diag.files.size() == 1);
    FUZZ_CHECK(diag.files[0].gzip == (c == Compression::kGzip));
  }
  return 0;
}
