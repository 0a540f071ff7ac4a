// Fuzz target: any bytes parsed as journalctl -o json (one object per line).
#include "fuzz_common.hpp"

GPUCOST_FUZZ_FORMAT(journal_json)
