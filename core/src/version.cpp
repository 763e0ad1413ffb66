#include "superstep/version.hpp"

namespace superstep {

const char* version() noexcept { return SUPERSTEP_VERSION_STRING; }

}  // namespace superstep
