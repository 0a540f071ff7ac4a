// Fuzz target: any bytes parsed as journalctl short/short-iso/short-precise/-monotonic/-unix.
#include "fuzz_common.hpp"

GPUCOST_FUZZ_FORMAT(journal_short)
