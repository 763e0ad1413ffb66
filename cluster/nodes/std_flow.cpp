// The `std` nodes with effects or routing (sleep, fail, interrupt, emit, goto) and the std
// routers (send_each, route).
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

#include "nodes/std_support.hpp"
#include "superstep/checkpoint/store.hpp"
#include "superstep/pregel/send.hpp"

namespace superstep::cluster::detail {

namespace {

// State of one registration of the library, shared by the functions it made.
//
// std.fail counts attempts in the graph's store when it has one, under namespace
// ("std", "fail", thread) and the node's name, so the count survives restarts as GRAPH_SPEC.md
// asks; without a store (a worker of a cluster, for now) in memory here.
struct std_library_state {
  std::mutex mutex;  // one count at a time per process (Sends of one node may run together)
  std::map<std::pair<std::string, std::string>, std::int64_t> attempts;  // (thread, node)

  std::int64_t next_attempt(storage::store* store, std::string thread, std::string node) {
    std::lock_guard lock(mutex);
    if (!store) return ++attempts[{std::move(thread), std::move(node)}];
    // Labels cannot hold '.' (or be empty): the thread id is escaped, one to one.
    std::string label = thread.empty() ? "%" : "";
    for (char c : thread) label += c == '.' ? "%2E" : c == '%' ? "%25" : std::string(1, c);
    const storage::namespace_path ns{"std", "fail", label};
    std::int64_t n = 0;
    if (auto it = store->get(ns, node)) {
      const value& a = it->v.get("attempts");
      if (a.is_int()) n = a.as_int();
    }
    storage::put_index no_index;
    no_index.enabled = false;  // a counter: nothing to search by meaning
    store->put(ns, node, object{{"attempts", n + 1}}, no_index);
    return n + 1;
  }
};

std::string thread_of(const node_context& ctx) {
  const value& id = ctx.configurable("thread_id");
  if (id.is_null()) return "";
  return id.is_string() ? id.as_string() : id.to_json();
}

node_function make_sleep(const value& params) {
  function_params p(params, {"ms", "update"});
  std::int64_t ms = p.integer("ms");
  if (ms < 0) p.fail("ms", "must not be negative");
  value update = p.any_or_null("update");
  return [ms, update](const value&, node_context& ctx) {
    // In slices, so that a task with a timeout stops at it (node_context::check_timeout).
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    for (auto now = std::chrono::steady_clock::now(); now < until;
         now = std::chrono::steady_clock::now()) {
      ctx.check_timeout();
      std::this_thread::sleep_for(
          std::min<std::chrono::steady_clock::duration>(until - now, std::chrono::milliseconds(5)));
    }
    ctx.check_timeout();
    return update;
  };
}

node_factory fail_factory(std::shared_ptr<std_library_state> state) {
  return [state](const value& params) -> node_function {
    function_params p(params, {"times", "update", "message"});
    std::int64_t times = p.integer("times");
    if (times < 0) p.fail("times", "must not be negative");
    value update = p.any_or_null("update");
    std::string message = p.string_or("message", "");
    return [state, times, update, message](const value&, node_context& ctx) -> value {
      std::int64_t attempt =
          state->next_attempt(ctx.store(), thread_of(ctx), std::string(ctx.node()));
      if (attempt > times) return update;
      fail_run("std.fail", message.empty() ? "attempt " + std::to_string(attempt) + " of " +
                                                 std::to_string(times) + " fails on purpose"
                                           : message);
    };
  };
}

node_function make_interrupt(const value& params) {
  function_params p(params, {"value", "to"});
  std::string to = p.string("to");
  value question = p.any_or_null("value");
  return [to, question](const value&, node_context& ctx) -> value {
    return object{{to, ctx.interrupt(question)}};
  };
}

node_function make_emit(const value& params) {
  function_params p(params, {"data", "update"});
  value data = p.any("data");
  value update = p.any_or_null("update");
  return [data, update](const value&, node_context& ctx) {
    ctx.emit_custom(data);
    return update;
  };
}

node_function make_goto(const value& params) {
  function_params p(params, {"goto", "update"});
  command c;
  for (auto& node : p.strings("goto")) c.go_to.emplace_back(std::move(node));
  c.update = p.any_or_null("update");
  value cmd = make_command(c);
  return [cmd](const value&, node_context&) { return cmd; };
}

router_function make_send_each(const value& params) {
  function_params p(params, {"key", "items", "node", "as", "timeout"});
  std::string node = p.string("node");
  std::string as = p.string_or("as", "item");
  // Each Send's own timeout (LangGraph `Send(timeout=...)`), as timeout_to_value writes it.
  std::optional<timeout_policy> timeout;
  if (p.has("timeout")) try {
      timeout = timeout_from_value(p.any("timeout"));
    } catch (const error& e) {
      p.fail("timeout", e.what());
    }
  auto make = [node, timeout](value arg) {
    return timeout ? make_send(node, std::move(arg), *timeout) : make_send(node, std::move(arg));
  };
  if (p.has("key") == p.has("items")) p.fail("key", "give exactly one of 'key' and 'items'");
  if (p.has("items")) {
    std::int64_t n = p.integer("items");
    if (n < 0) p.fail("items", "must not be negative");
    return [make, as, n](const value&, node_context&) -> value {
      list sends;
      sends.reserve(static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i) sends.push_back(make(object{{as, i}}));
      return value(std::move(sends));
    };
  }
  std::string key = p.string("key");
  return [make, as, key](const value& state, node_context&) -> value {
    const value& items = input_field("std.send_each", state, key);
    if (!items.is_list())
      fail_run("std.send_each",
               "'" + key + "' is " + std::string(kind_name(items.kind())) + ", not a list",
               error_code::type_error);
    list sends;
    sends.reserve(items.as_list().size());
    for (const value& item : items.as_list()) sends.push_back(make(object{{as, item}}));
    return value(std::move(sends));
  };
}

bool less_than(const value& a, const value& b) {
  if (a.is_number() && b.is_number()) return a.as_double() < b.as_double();
  if (a.is_string() && b.is_string()) return a.as_string() < b.as_string();
  fail_run("std.route",
           "cannot compare " + std::string(kind_name(a.kind())) + " with " +
               std::string(kind_name(b.kind())),
           error_code::type_error);
}

router_function make_route(const value& params) {
  function_params p(params, {"key", "equals", "less_than", "then", "else"});
  std::string key = p.string("key");
  if (p.has("equals") == p.has("less_than"))
    p.fail("equals", "give exactly one of 'equals' and 'less_than'");
  bool equals = p.has("equals");
  value operand = equals ? p.any("equals") : p.any("less_than");
  value then = p.string("then"), otherwise = p.string("else");
  return [key, equals, operand, then, otherwise](const value& state, node_context&) {
    if (!state.is_object()) input_field("std.route", state, key);  // throws: not an object
    const value& v = state.get(key);
    bool yes = equals ? v == operand : less_than(v, operand);
    return yes ? then : otherwise;
  };
}

}  // namespace

void register_std_flow(function_registry& registry) {
  auto state = std::make_shared<std_library_state>();
  registry.add_node("std.sleep", make_sleep);
  registry.add_node("std.fail", fail_factory(state));
  registry.add_node("std.interrupt", make_interrupt);
  registry.add_node("std.emit", make_emit);
  registry.add_node("std.goto", make_goto);
  registry.add_router("std.send_each", make_send_each);
  registry.add_router("std.route", make_route);
}

}  // namespace superstep::cluster::detail
