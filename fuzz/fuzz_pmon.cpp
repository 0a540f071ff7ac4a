// Fuzz target: any bytes parsed as `nvidia-smi pmon` per-process GPU use.
#include "fuzz_common.hpp"

GPUCOST_FUZZ_FORMAT(pmon)
