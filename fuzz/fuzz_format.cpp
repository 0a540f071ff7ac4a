// Fuzz target, one per log format: fuzz/CMakeLists.txt builds this file once per row of
// GPUCOST_FORMATS (records/formats.hpp) with GPUCOST_FUZZ_FORMAT_NAME=<name>. Any bytes are
// parsed as that format and what every parser promises is checked (fuzz_common.hpp).
#include "fuzz_common.hpp"

#ifndef GPUCOST_FUZZ_FORMAT_NAME
#error "fuzz_format.cpp is built by fuzz/CMakeLists.txt with GPUCOST_FUZZ_FORMAT_NAME=<format>"
#endif

GPUCOST_FUZZ_FORMAT(GPUCOST_FUZZ_FORMAT_NAME)
