#include "gpucost/ingest/format.hpp"

#include "ingest/formats/formats.hpp"

namespace gpucost {

std::span<const LogFormat* const> all_formats() {
  static const LogFormat* const kAll[] = {
#define GPUCOST_X(name, family, sample_priority, traits, hints, desc) &formats::name##_format(),
      GPUCOST_FORMATS(GPUCOST_X)
#undef GPUCOST_X
  };
  return kAll;
}

const LogFormat* find_format(FormatId id) {
  const auto i = static_cast<std::size_t>(id);
  return i < kFormatCount ? all_formats()[i] : nullptr;
}

}  // namespace gpucost
