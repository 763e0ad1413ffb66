#include "run_context.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <random>
#include <thread>

#include "superstep/channels/reducer.hpp"
#include "superstep/coordinator/constants.hpp"
#include "superstep/core/error.hpp"
#include "superstep/core/ids.hpp"

namespace superstep::detail {

void run_shared::emit(stream_mode m, value data) const {
  if (!sink || !wants(m)) return;
  stream_event ev{ns, m, std::move(data)};
  std::lock_guard lock(*sink_mutex);
  (*sink)(ev);
}

std::string join_ns(const std::vector<std::string>& ns) {
  std::string out;
  for (std::size_t i = 0; i < ns.size(); ++i) out += (i ? "|" : "") + ns[i];
  return out;
}

std::string interrupt_id(std::string_view checkpoint_ns, std::string_view task_id) {
  std::string key(checkpoint_ns);
  key.append(1, '\0').append(task_id);
  static const char hex[] = "0123456789abcdef";
  std::string id;
  for (std::uint64_t seed : {11u, 12u}) {
    std::uint64_t h = stable_hash(key, seed);
    for (int i = 15; i >= 0; --i) id += hex[(h >> (4 * i)) & 15];
  }
  return id;
}

value task_context::interrupt(value v) {
  const std::size_t call = interrupt_calls_++;
  if (call < task_.resume.size()) return task_.resume[call];
  throw error(
      error_code::interrupted,
      value(object{{"value", std::move(v)}, {"id", interrupt_id(run_.checkpoint_ns, task_.id)}})
          .to_json());
}

void task_context::emit_custom(value data) { run_.emit(stream_mode::custom, std::move(data)); }

void task_context::emit_message(value chunk) {
  if (!run_.wants(stream_mode::messages)) return;
  object meta{{"langgraph_step", step_},
              {"langgraph_node", task_.name},
              {"langgraph_triggers",
               [&] {
                 list l;
                 if (task_.push) l.emplace_back(std::string(PUSH));
                 for (const auto& t : task_.triggers) l.emplace_back(t);
                 return value(std::move(l));
               }()},
              {"langgraph_checkpoint_ns", run_.checkpoint_ns},
              {"langgraph_task_id", task_.id}};
  run_.emit(stream_mode::messages, value::array({std::move(chunk), value(std::move(meta))}));
}

value task_context::push_message(value message, std::string_view state_key) {
  message = channels::as_message(message);
  const value* id = message.find("id");
  if (!id || !id->is_string())
    throw error(error_code::invalid_argument,
                "Message ID is required: push_message got " + message.to_json());
  emit_message(message);
  if (!state_key.empty()) write(std::string(state_key), message);
  return message;
}

std::optional<value> task_context::fresh_read(const std::string& channel) {
  auto it = channels_.find(channel);
  if (it == channels_.end()) return std::nullopt;
  std::vector<value> mine;
  for (const auto& [ch, v] : task_.writes)
    if (ch == channel) mine.push_back(v);
  if (mine.empty()) {
    if (!it->second->is_available()) return std::nullopt;
    return it->second->get();
  }
  auto copy = it->second->copy();
  copy->update(mine);
  if (!copy->is_available()) return std::nullopt;
  return copy->get();
}

namespace {

bool retried_by_default(const error& e) {
  return e.code() == error_code::node_error || e.code() == error_code::storage_error;
}

// Waits before the next attempt, as LangGraph's runner does.
void back_off(const retry_policy& p, std::int64_t attempt) {
  double ms = p.initial_interval_ms * std::pow(p.backoff, static_cast<double>(attempt - 1));
  ms = std::min(ms, p.max_interval_ms);
  if (p.jitter) {
    thread_local std::mt19937_64 rng{std::random_device{}()};
    ms += std::uniform_real_distribution<double>(0, ms / 2)(rng);
  }
  std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(ms));
}

// One attempt: the node function, then its writers. Throws what the node throws.
void attempt(const pregel_node& node, pregel_task& task, task_context& ctx) {
  task.writes.clear();
  task.writes.reserve(node.writers.size() + 1);
  ctx.reset_attempt();
  value out;
  try {
    out = node.fn ? node.fn(task.input, ctx) : task.input;
  } catch (const error& e) {
    // A graph the node function invoked returned a Command for its parent: the Command is
    // this node's, applied to this graph (LangGraph's ParentCommand caught by the runner).
    // A Command.PARENT this node returns itself is thrown by its writers below and leaves
    // this graph.
    if (e.code() != error_code::parent_command) throw;
    out = value::parse_json(e.what());
  }
  for (const auto& w : node.writers) w(out, ctx);
  task.output = std::move(out);
}

}  // namespace

void run_task(const pregel_graph& g, pregel_task& task, task_context& ctx) noexcept {
  const pregel_node& node = g.nodes[task.node];
  const std::int64_t attempts =
      node.retry ? std::max<std::int64_t>(1, node.retry->max_attempts) : 1;
  for (std::int64_t n = 1;; ++n) {
    std::optional<error> failure;
    try {
      attempt(node, task, ctx);
      break;
    } catch (const error& e) {
      failure = e;
    } catch (const std::exception& e) {
      failure = error(error_code::node_error, e.what());
    } catch (...) {
      failure = error(error_code::node_error, "unknown exception");
    }
    task.writes.clear();
    if (failure->code() == error_code::interrupted) {
      // Not a failure: the task waits for a resume value. The values it was given so far are
      // kept, so the re-run answers the same interrupt() calls the same way.
      task.interrupts.push_back(value::parse_json(failure->what()));
      if (!task.resume.empty()) task.writes.emplace_back(std::string(RESUME), value(task.resume));
      break;
    }
    const bool retry =
        n < attempts && failure->code() != error_code::parent_command &&
        (node.retry->retry_on ? node.retry->retry_on(*failure) : retried_by_default(*failure));
    if (!retry) {
      task.error = task_error{failure->code(), failure->what()};
      break;
    }
    back_off(*node.retry, n);
  }
  task.done = true;
}

}  // namespace superstep::detail

namespace superstep {

value node_context::push_message(value, std::string_view) {
  throw error(error_code::invalid_argument, "push_message: this node context cannot write state");
}

}  // namespace superstep
