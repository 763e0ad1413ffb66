#include "nodes/builtin_embedders.hpp"

#include <chrono>
#include <map>

#include "superstep/cluster/function_params.hpp"
#include "superstep/storage/embedder_openai.hpp"

namespace superstep::cluster {

namespace {

std::size_t at_least_one(const function_params& p, std::string_view name, std::int64_t n) {
  if (n <= 0) p.fail(name, "must be at least 1, not " + std::to_string(n));
  return static_cast<std::size_t>(n);
}

std::size_t dims_of(const function_params& p) { return at_least_one(p, "dims", p.integer("dims")); }

storage::embed_fn hashing(const value& params, const key_source&) {
  function_params p(params, {"dims"});
  return storage::make_hashing_embedder(dims_of(p));
}

storage::embed_fn openai(const value& params, const key_source& keys) {
  function_params p(params,
                    {"dims", "model", "url", "key_env", "batch", "timeout_ms", "send_dims"});
  storage::openai_embedder_options o;
  o.dims = dims_of(p);
  o.model = p.string("model");
  o.url = p.string_or("url", o.url);
  o.key_env = p.string_or("key_env", "");
  o.keys = keys;
  o.batch = at_least_one(p, "batch", p.integer_or("batch", static_cast<std::int64_t>(o.batch)));
  o.timeout = std::chrono::milliseconds(
      at_least_one(p, "timeout_ms", p.integer_or("timeout_ms", o.timeout.count())));
  if (const value* send = p.find("send_dims")) {
    if (!send->is_bool())
      p.fail("send_dims", "expected bool, got " + std::string(kind_name(send->kind())));
    o.send_dims = send->as_bool();
  }
  return storage::make_openai_embedder(std::move(o));
}

const std::map<std::string, builtin_embedder_factory, std::less<>>& builtins() {
  static const std::map<std::string, builtin_embedder_factory, std::less<>> all{
      {"hashing", hashing}, {"openai", openai}};
  return all;
}

}  // namespace

const builtin_embedder_factory* builtin_embedder(std::string_view name) noexcept {
  auto it = builtins().find(name);
  return it == builtins().end() ? nullptr : &it->second;
}

std::vector<std::string> builtin_embedder_names() {
  std::vector<std::string> names;
  for (const auto& [name, factory] : builtins()) names.push_back(name);
  return names;
}

}  // namespace superstep::cluster
