// Fuzz target: any bytes parsed as an `nvidia-smi -L` GPU list (MIG devices included).
#include "fuzz_common.hpp"

GPUCOST_FUZZ_FORMAT(nvidia_smi_list)
