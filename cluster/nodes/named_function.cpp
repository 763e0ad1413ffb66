// Node and router functions that remember the name and params they were made from.
#include "superstep/cluster/named_function.hpp"

#include <memory>

namespace superstep::cluster {

namespace {

// The callable a named function holds: found again by type through std::function::target.
struct named_callable {
  std::shared_ptr<const function_origin> origin;
  node_function fn;
  value operator()(const value& input, node_context& ctx) const { return fn(input, ctx); }
};

}  // namespace

node_function name_function(std::string name, value params, node_function fn) {
  // A function named again keeps its first callable: one indirection at most.
  if (const named_callable* inner = fn.target<named_callable>()) {
    return named_callable{std::make_shared<const function_origin>(
                              function_origin{std::move(name), std::move(params)}),
                          inner->fn};
  }
  return named_callable{
      std::make_shared<const function_origin>(function_origin{std::move(name), std::move(params)}),
      std::move(fn)};
}

const function_origin* origin_of(const node_function& fn) noexcept {
  const named_callable* c = fn.target<named_callable>();
  return c ? c->origin.get() : nullptr;
}

}  // namespace superstep::cluster
