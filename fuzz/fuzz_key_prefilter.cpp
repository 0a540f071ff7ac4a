// Fuzz target: the recognizer's key prefilter on any bytes. Every way (portable, the AVX2 and the
// AVX-512 fingerprint where the CPU has them) must find exactly the keys a plain search finds.
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_common.hpp"
#include "ingest/key_prefilter.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // The kernel table's keys, and some with bytes >= 0x80 and repeated bytes.
  static const std::vector<std::string_view> keys = {
      "Xid ", "Cras", "GSP ", "mark", "fall", "rm_i", "nvAs", "A UN", "ERRO", "prob", "API ", "HANG", "chip",
      "rese", "PCIe", "aint", "abov", "spee", "ical", "Adap", "PM: ", "hibe", "Linu", "Kill", "segf", "trap",
      "\xff\xfe\x80\x7f", "aaaa", std::string_view("\0\0\0\0", 4)};
  static const gpucost::KeyPrefilter prefilter(keys);
  const std::string_view t = gpucost::fuzz::as_text(data, size);
  std::uint64_t want = 0;
  for (std::size_t i = 0; i < keys.size(); ++i)
    if (t.find(keys[i]) != std::string_view::npos) want |= std::uint64_t{1} << i;
  FUZZ_CHECK(prefilter.scan(t) == want);
  FUZZ_CHECK(prefilter.scan_portable(t) == want);
  using Way = gpucost::KeyPrefilter::Way;
  for (const Way way : {Way::kAvx2, Way::kAvx512}) FUZZ_CHECK(prefilter.scan_with(way, t) == want);
  return 0;
}
