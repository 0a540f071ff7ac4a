// Fuzz target: any bytes parsed as `nvidia-smi dmon` (any -s selection, -o D/T/DT).
#include "fuzz_common.hpp"

GPUCOST_FUZZ_FORMAT(dmon)
