// Fuzz target: any bytes parsed as collect-logs.sh manifest.json.
#include "fuzz_common.hpp"

GPUCOST_FUZZ_FORMAT(manifest)
