// Fuzz target: any bytes parsed as journalctl -o export (KEY=value records).
#include "fuzz_common.hpp"

GPUCOST_FUZZ_FORMAT(journal_export)
