#include "run_context.hpp"

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

void run_task(const pregel_graph& g, pregel_task& task, task_context& ctx) noexcept {
  try {
    const pregel_node& node = g.nodes[task.node];
    task.writes.reserve(node.writers.size() + 1);
    value out = node.fn ? node.fn(task.input, ctx) : task.input;
    for (const auto& w : node.writers) w(out, ctx);
    task.output = std::move(out);
  } catch (const error& e) {
    task.writes.clear();
    if (e.code() == error_code::interrupted) {
      // Not a failure: the task waits for a resume value. The values it was given so far are
      // kept, so the re-run answers the same interrupt() calls the same way.
      task.interrupts.push_back(value::parse_json(e.what()));
      if (!task.resume.empty()) task.writes.emplace_back(std::string(RESUME), value(task.resume));
    } else {
      task.error = task_error{e.code(), e.what()};
    }
  } catch (const std::exception& e) {
    task.writes.clear();
    task.error = task_error{error_code::node_error, e.what()};
  } catch (...) {
    task.writes.clear();
    task.error = task_error{error_code::node_error, "unknown exception"};
  }
  task.done = true;
}

}  // namespace superstep::detail
