// One header, named by GPUCOST_PROBE_HEADER (the layer_* tests in tests/CMakeLists.txt): whether
// this compiles with one layer's flags says whether that layer may include the header.
#include GPUCOST_PROBE_HEADER
