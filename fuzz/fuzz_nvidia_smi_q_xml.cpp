// Fuzz target: any bytes parsed as an `nvidia-smi -q -x` XML report.
#include "fuzz_common.hpp"

GPUCOST_FUZZ_FORMAT(nvidia_smi_q_xml)
