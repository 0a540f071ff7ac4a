// Fuzz target: any bytes parsed as `nvidia-smi --query-gpu=... --format=csv` (also `column -t` aligned).
#include "fuzz_common.hpp"

GPUCOST_FUZZ_FORMAT(query_gpu_csv)
