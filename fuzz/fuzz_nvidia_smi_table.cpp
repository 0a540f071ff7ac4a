// Fuzz target: any bytes parsed as the `nvidia-smi` table (GPU rows, MIG devices block).
#include "fuzz_common.hpp"

GPUCOST_FUZZ_FORMAT(nvidia_smi_table)
