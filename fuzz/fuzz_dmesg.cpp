// Fuzz target: any bytes parsed as dmesg: raw `[ mono]`, `-T` ctime, `--time-format iso`, `-x`, `-r`.
#include "fuzz_common.hpp"

GPUCOST_FUZZ_FORMAT(dmesg)
