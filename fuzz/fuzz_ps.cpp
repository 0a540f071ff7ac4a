// Fuzz target: any bytes parsed as `ps aux` / `ps -eo ...` snapshots, with `### gpucost-ps <RFC 3339>` markers.
#include "fuzz_common.hpp"

GPUCOST_FUZZ_FORMAT(ps)
