// Fuzz target: any bytes parsed as acpid's own log (/var/log/acpid).
#include "fuzz_common.hpp"

GPUCOST_FUZZ_FORMAT(acpid)
