#include "superstep/coordinator/pregel.hpp"

#include <algorithm>
#include <mutex>
#include <set>

#include "run_context.hpp"
#include "superstep/coordinator/algo.hpp"
#include "superstep/coordinator/constants.hpp"
#include "superstep/coordinator/task_executor.hpp"
#include "superstep/core/error.hpp"
#include "superstep/core/ids.hpp"

namespace superstep {

struct pregel::impl {
  algo::graph_index index;
};

namespace {

void validate(const pregel_graph& g) {
  auto need_channel = [&](const std::string& ch, const std::string& what) {
    if (!g.channels.count(ch))
      throw error(error_code::invalid_graph, what + " names unknown channel '" + ch + "'");
  };
  std::set<std::string> names;
  for (const auto& n : g.nodes) {
    if (!names.insert(n.name).second)
      throw error(error_code::invalid_graph, "duplicate node '" + n.name + "'");
    if (n.triggers.empty())
      throw error(error_code::invalid_graph, "node '" + n.name + "' has no trigger channels");
    for (const auto& t : n.triggers) need_channel(t, "node '" + n.name + "'");
    for (const auto& r : n.reads) need_channel(r, "node '" + n.name + "'");
    if (n.single_read && n.reads.size() != 1)
      throw error(error_code::invalid_graph, "node '" + n.name + "' reads one channel but names " +
                                                 std::to_string(n.reads.size()));
  }
  if (g.input_channels.empty())
    throw error(error_code::invalid_graph, "graph has no input channels");
  for (const auto& c : g.input_channels) need_channel(c, "input");
  for (const auto& c : g.output_channels) need_channel(c, "output");
  for (const auto* list : {&g.interrupt_before, &g.interrupt_after})
    for (const auto& n : *list)
      if (n != "*" && !names.count(n))
        throw error(error_code::invalid_graph, "interrupt names unknown node '" + n + "'");
}

std::uint32_t mode_bits(const std::vector<stream_mode>& modes) {
  std::uint32_t bits = 0;
  for (auto m : modes) bits |= 1u << static_cast<unsigned>(m);
  return bits;
}

// What a task contributes to `updates` streams and checkpoint metadata: its writes to output
// channels (the raw writes, before reducers), or null.
value task_update(const pregel_graph& g, const pregel_task& t) {
  if (g.output_single) {
    for (auto it = t.writes.rbegin(); it != t.writes.rend(); ++it)
      if (it->first == g.output_channels.front()) return it->second;
    return value();
  }
  object o;
  for (const auto& [ch, v] : t.writes)
    if (std::find(g.output_channels.begin(), g.output_channels.end(), ch) !=
        g.output_channels.end())
      o.set(ch, v);
  if (o.empty()) return value();
  return value(std::move(o));
}

value writes_to_value(const pregel_task& t) {
  list l;
  l.reserve(t.writes.size());
  for (const auto& [ch, v] : t.writes) l.push_back(value::array({ch, v}));
  return value(std::move(l));
}

value triggers_value(const pregel_task& t) {
  list l;
  for (const auto& tr : t.triggers) l.emplace_back(tr);
  return value(std::move(l));
}

// One run of a graph: the loop of LangGraph's SyncPregelLoop driven to completion.
class run_loop {
 public:
  run_loop(const pregel& graph, const algo::graph_index& index, task_executor& executor,
           detail::run_shared& shared)
      : p_(graph), g_(graph.graph()), index_(index), executor_(executor), shared_(shared) {}

  value run(const value& input) {
    const value& cfg = shared_.config;
    std::int64_t limit = 25;
    if (const value* rl = cfg.find("recursion_limit")) {
      if (!rl->is_int() || rl->as_int() < 1)
        throw error(error_code::invalid_argument, "recursion_limit must be a positive integer");
      limit = rl->as_int();
    }
    saver_ = p_.checkpointer().get();
    if (saver_ && shared_.ns.empty()) {
      const value& tid = cfg.get("configurable").get("thread_id");
      if (tid.is_null())
        throw error(error_code::invalid_argument,
                    "a graph with a checkpointer needs configurable.thread_id");
      cp_config_.thread_id = tid.is_string() ? tid.as_string() : tid.to_json();
      cp_config_.checkpoint_ns = shared_.checkpoint_ns;
    } else {
      saver_ = nullptr;  // subgraph checkpoints: with the persistence issue
    }

    checkpoint start;
    std::int64_t meta_step = -2;
    if (saver_) {
      if (auto tuple = saver_->get_tuple(cp_config_)) {
        start = std::move(tuple->checkpoint);
        meta_step = tuple->metadata.step;
        cp_config_.checkpoint_id = start.id;
      }
    }
    state_ = algo::restore(g_, std::move(start));
    step_ = meta_step + 1;
    stop_ = step_ + limit + 1;

    const std::unordered_set<std::string>* updated = nullptr;
    if (!input.is_null()) {
      auto writes = algo::map_input(g_, input);
      if (writes.empty()) {
        std::string names;
        for (const auto& c : g_.input_channels) names += (names.empty() ? "" : ", ") + c;
        throw error(error_code::invalid_argument, "received no input for " + names);
      }
      pregel_task in;
      in.name = std::string(INPUT);
      in.writes = std::move(writes);
      std::vector<pregel_task*> batch{&in};
      auto applied = algo::apply_writes(state_, index_, batch);
      updated_ = std::move(applied.updated_channels);
      updated = &updated_;
      emit_values_if(updated_);
      put_checkpoint("input", input, applied.new_versions);
    }

    for (;;) {
      if (step_ > stop_)
        throw error(error_code::graph_recursion,
                    "Recursion limit of " + std::to_string(limit) +
                        " reached without hitting a stop condition. You can increase the limit "
                        "by setting the `recursion_limit` config key.");
      auto tasks =
          algo::prepare_next_tasks(g_, index_, state_, updated, step_, shared_.checkpoint_ns);
      if (tasks.empty()) break;
      if (algo::should_interrupt(state_, g_.interrupt_before, tasks)) break;
      execute(tasks);
      std::vector<pregel_task*> batch;
      batch.reserve(tasks.size());
      for (auto& t : tasks) batch.push_back(&t);
      auto applied = algo::apply_writes(state_, index_, batch);
      updated_ = std::move(applied.updated_channels);
      updated = &updated_;
      emit_values_if(updated_);
      put_checkpoint("loop", step_metadata_writes(batch), applied.new_versions);
      if (algo::should_interrupt(state_, g_.interrupt_after, tasks)) break;
    }
    return latest_values_;
  }

 private:
  void execute(std::vector<pregel_task>& tasks) {
    if (shared_.wants(stream_mode::debug))
      for (const auto& t : tasks)
        shared_.emit(stream_mode::debug,
                     object{{"type", "task"},
                            {"timestamp", now_iso8601()},
                            {"step", step_},
                            {"payload", object{{"id", t.id},
                                               {"name", t.name},
                                               {"input", t.input},
                                               {"triggers", triggers_value(t)}}}});
    const bool updates = shared_.wants(stream_mode::updates);
    const bool debug = shared_.wants(stream_mode::debug);
    executor_.run_batch(tasks.size(), [&](std::size_t i) {
      pregel_task& t = tasks[i];
      detail::task_context ctx(shared_, t, step_, state_.channels);
      detail::run_task(g_, t, ctx);
      if (saver_) save_writes(t);
      if (t.error) return;
      if (updates && !g_.nodes[t.node].hidden)
        shared_.emit(stream_mode::updates, object{{t.name, task_update(g_, t)}});
      if (debug)
        shared_.emit(stream_mode::debug, object{{"type", "task_result"},
                                                {"timestamp", now_iso8601()},
                                                {"step", step_},
                                                {"payload", object{{"id", t.id},
                                                                   {"name", t.name},
                                                                   {"error", value()},
                                                                   {"result", writes_to_value(t)},
                                                                   {"interrupts", list{}}}}});
    });
    // Fail the step with the first error in task-path order, after every task ran.
    const pregel_task* failed = nullptr;
    for (const auto& t : tasks)
      if (t.error && (!failed || task_path_less(t, *failed))) failed = &t;
    if (failed) {
      if (debug)
        shared_.emit(stream_mode::debug,
                     object{{"type", "task_result"},
                            {"timestamp", now_iso8601()},
                            {"step", step_},
                            {"payload", object{{"id", failed->id},
                                               {"name", failed->name},
                                               {"error", failed->error->message},
                                               {"result", list{}},
                                               {"interrupts", list{}}}}});
      throw error(failed->error->code, failed->error->message);
    }
  }

  void save_writes(const pregel_task& t) {
    checkpoint_config cfg = cp_config_;
    cfg.checkpoint_id = state_.checkpoint.id;
    std::string path = t.push ? std::string(PUSH) + "," + std::to_string(t.push_index)
                              : std::string(PULL) + "," + t.name;
    if (t.error)
      saver_->put_writes(cfg, {{std::string(ERROR), value(t.error->message)}}, t.id, path);
    else
      saver_->put_writes(cfg, t.writes, t.id, path);
  }

  value step_metadata_writes(const std::vector<pregel_task*>& tasks) const {
    object o;
    for (const pregel_task* t : tasks) {
      if (g_.nodes[t->node].hidden) continue;
      value u = task_update(g_, *t);
      if (const value* prev = o.find(t->name)) {
        list l = prev->is_list() && o.size() ? prev->as_list() : list{*prev};
        l.push_back(u);
        o.set(t->name, value(std::move(l)));
      } else {
        o.set(t->name, u);
      }
    }
    if (o.empty()) return value();
    return value(std::move(o));
  }

  // The run's output is its latest `values` event, as LangGraph's invoke returns: a step
  // that clears an output channel without writing it does not produce one.
  void emit_values_if(const std::unordered_set<std::string>& updated) {
    bool touched = false;
    for (const auto& c : g_.output_channels)
      if (updated.count(c)) touched = true;
    if (!touched) return;
    auto out = algo::read_channels(state_.channels, g_.output_channels, g_.output_single);
    if (!out) return;
    latest_values_ = *out;
    shared_.emit(stream_mode::values, *out);
  }

  void put_checkpoint(const char* source, value writes,
                      const std::map<std::string, channel_version>& new_versions) {
    checkpoint& cp = state_.checkpoint;
    const std::string parent_id = cp.id;
    cp.id = ids_.next();
    const bool debug = shared_.wants(stream_mode::debug);
    if (saver_ || debug) cp.ts = now_iso8601();
    checkpoint_metadata meta;
    meta.source = source;
    meta.step = step_;
    meta.writes = std::move(writes);
    if (saver_) {
      checkpoint_config parent = cp_config_;
      parent.checkpoint_id = parent_id;
      cp_config_ = saver_->put(parent, cp, meta, new_versions);
    }
    if (debug) {
      auto values = algo::read_channels(state_.channels, g_.output_channels, g_.output_single);
      shared_.emit(
          stream_mode::debug,
          object{{"type", "checkpoint"},
                 {"timestamp", cp.ts},
                 {"step", step_},
                 {"payload",
                  object{{"config",
                          object{{"configurable", object{{"thread_id", cp_config_.thread_id},
                                                         {"checkpoint_ns", shared_.checkpoint_ns},
                                                         {"checkpoint_id", cp.id}}}}},
                         {"values", values ? *values : value()},
                         {"metadata", metadata_to_value(meta)}}}});
    }
    ++step_;
  }

  const pregel& p_;
  const pregel_graph& g_;
  const algo::graph_index& index_;
  task_executor& executor_;
  detail::run_shared& shared_;
  checkpoint_saver* saver_ = nullptr;
  checkpoint_config cp_config_;
  algo::run_state state_;
  std::unordered_set<std::string> updated_;
  value latest_values_;
  std::int64_t step_ = 0;
  std::int64_t stop_ = 0;
  checkpoint_id_generator ids_;
};

}  // namespace

pregel::pregel(pregel_graph graph, std::shared_ptr<checkpoint_saver> checkpointer,
               std::shared_ptr<task_executor> executor)
    : graph_(std::move(graph)),
      checkpointer_(std::move(checkpointer)),
      executor_(std::move(executor)) {
  validate(graph_);
  if (!executor_) executor_ = make_thread_pool_executor();
  auto i = std::make_shared<impl>();
  i->index = algo::graph_index::build(graph_);
  impl_ = std::move(i);
}

pregel::~pregel() = default;

std::shared_ptr<pregel> pregel::with_checkpointer(std::shared_ptr<checkpoint_saver> saver) const {
  return std::make_shared<pregel>(graph_, std::move(saver), executor_);
}

value pregel::invoke(const value& input, const value& config) const {
  return stream(input, config, {}, nullptr);
}

value pregel::stream(const value& input, const value& config, const stream_options& options,
                     const stream_sink& sink) const {
  if (!config.is_null() && !config.is_object())
    throw error(error_code::invalid_argument, "config must be an object");
  std::mutex sink_mutex;
  detail::run_shared shared;
  shared.config = config.is_null() ? value(object{}) : config;
  shared.modes = sink ? mode_bits(options.modes) : 0;
  shared.subgraphs = options.subgraphs;
  shared.sink = sink ? &sink : nullptr;
  shared.sink_mutex = &sink_mutex;
  run_loop loop(*this, impl_->index, *executor_, shared);
  return loop.run(input);
}

value pregel::run_nested(const value& input, node_context& parent) const {
  auto* ctx = dynamic_cast<detail::task_context*>(&parent);
  if (!ctx) throw error(error_code::internal, "run_nested needs the runtime's node context");
  const detail::run_shared& up = ctx->run();
  detail::run_shared shared;
  shared.config = up.config;
  shared.ns = up.ns;
  shared.ns.push_back(ctx->task().name + ":" + ctx->task().id);
  for (std::size_t i = 0; i < shared.ns.size(); ++i)
    shared.checkpoint_ns += (i ? "|" : "") + shared.ns[i];
  // Subgraph events reach the caller only when it asked for subgraphs.
  shared.modes = up.subgraphs ? up.modes : 0;
  shared.subgraphs = up.subgraphs;
  shared.sink = up.sink;
  shared.sink_mutex = up.sink_mutex;
  run_loop loop(*this, impl_->index, *executor_, shared);
  return loop.run(input);
}

}  // namespace superstep
