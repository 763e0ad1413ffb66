// The default serializer: a value as a Cap'n Proto message (core/schema/value.capnp).

#include <kj/exception.h>

#include <string>
#include <utility>
#include <vector>

#include "superstep/core/capnp_value.hpp"
#include "superstep/core/error.hpp"
#include "superstep/storage/serializer.hpp"

namespace superstep::storage {

namespace {

class capnp_serializer final : public serializer {
 public:
  std::string_view name() const noexcept override { return "capnp"; }

  std::string dumps(const value& v) const override {
    try {
      return capnp_value::encode(v);
    } catch (const error& e) {
      throw error(e.code(), std::string("capnp serializer: ") + e.what());
    }
  }

  value loads(std::string_view bytes) const override {
    const auto fail = [&](const std::string& why) {
      return error(error_code::storage_error, "capnp serializer: unreadable value (" +
                                                  std::to_string(bytes.size()) + " bytes): " + why);
    };
    try {
      return capnp_value::decode(bytes);
    } catch (const error& e) {
      throw fail(e.what());
    }
  }
};

}  // namespace

std::shared_ptr<const serializer> make_capnp_serializer() {
  return std::make_shared<const capnp_serializer>();
}

}  // namespace superstep::storage
