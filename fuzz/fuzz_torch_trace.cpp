// Fuzz target: any bytes parsed as PyTorch profiler Chrome trace JSON (`traceEvents`).
#include "fuzz_common.hpp"

GPUCOST_FUZZ_FORMAT(torch_trace)
