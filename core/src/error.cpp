#include "superstep/core/error.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

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

error error::node_failure(const std::exception& e) {
  return error(error_code::node_error, e.what(),
               std::make_shared<const value>(object{{"error", exception_class(e)}}));
}

std::string type_name(const std::type_info& type) {
  int status = 0;
  const std::unique_ptr<char, void (*)(void*)> readable(
      abi::__cxa_demangle(type.name(), nullptr, nullptr, &status), std::free);
  return status == 0 && readable ? std::string(readable.get()) : std::string(type.name());
}

std::string exception_class(const std::exception& e) {
  if (const auto* se = dynamic_cast<const error*>(&e)) {
    const value* p = se->payload();
    if (se->code() == error_code::node_error && p && p->is_object() && p->get("error").is_string())
      return p->get("error").as_string();
    return "Error";
  }
  std::string name = type_name(typeid(e));
  name = name.substr(0, name.find('<'));
  if (auto colons = name.rfind("::"); colons != std::string::npos) name = name.substr(colons + 2);
  return name;
}

}  // namespace superstep
