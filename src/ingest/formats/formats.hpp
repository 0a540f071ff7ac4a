#pragma once
// Accessors for the built-in formats, one per row of GPUCOST_FORMATS (records/formats.hpp): the format
// `x` is `formats::x_format()`, defined in its parser file under src/ingest/formats/.

#ifndef GPUCOST_LAYER_INGEST
#error "gpucost_ingest header: include it only in gpucost_ingest or a layer above it (docs/architecture.md, Layers)"
#endif

#include "gpucost/ingest/format.hpp"

namespace gpucost::formats {

#define GPUCOST_X(name, family, sample_priority, traits, hints, desc) const LogFormat& name##_format();
GPUCOST_FORMATS(GPUCOST_X)
#undef GPUCOST_X

}  // namespace gpucost::formats
