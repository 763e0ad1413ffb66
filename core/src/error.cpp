#include "superstep/core/error.hpp"

#include "superstep/core/value.hpp"

namespace superstep {

namespace {

error carrying(error_code code, value payload) {
  std::string message = payload.to_json();
  return error(code, message, std::make_shared<const value>(std::move(payload)));
}

}  // namespace

error error::parent_command(value command) {
  return carrying(error_code::parent_command, std::move(command));
}

error error::interrupt(value interrupts) {
  return carrying(error_code::interrupted, std::move(interrupts));
}

}  // namespace superstep
