// Fuzz target: any bytes parsed as `nvidia-smi -q` report (also inside nvidia-bug-report.log).
#include "fuzz_common.hpp"

GPUCOST_FUZZ_FORMAT(nvidia_smi_q)
