// Fuzz target: any bytes parsed as kern.log/syslog: BSD `Mmm dd hh:mm:ss host ident:` or RFC 3339 stamps.
#include "fuzz_common.hpp"

GPUCOST_FUZZ_FORMAT(syslog)
