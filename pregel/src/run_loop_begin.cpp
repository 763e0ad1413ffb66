// The run loop starting: its config (limits, durability), the input or a Command, a replay
// or fork of a saved checkpoint, and the input's checkpoint; and a run entered through a
// subgraph's checkpoint.
#include <algorithm>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "superstep/checkpoint/constants.hpp"
#include "superstep/core/error.hpp"
#include "superstep/pregel/run_loop.hpp"
#include "superstep/pregel/send.hpp"

namespace superstep::detail {

void run_loop::begin(const value& given) {
  const value& cfg = shared_.config;
  // A Command as input resumes the thread (resume values, state update, goto) instead of
  // starting it anew: from here on it is treated as "no input".
  std::optional<command> cmd = as_command(given);
  value input = cmd ? value() : given;
  if (const value* rl = cfg.find("recursion_limit")) {
    if (!rl->is_int() || rl->as_int() < 1)
      throw error(error_code::invalid_argument, "recursion_limit must be a positive integer");
    limit_ = rl->as_int();
  }
  if (const value* mc = cfg.find("max_concurrency"); mc && !mc->is_null()) {
    if (!mc->is_int() || mc->as_int() < 0)
      throw error(error_code::invalid_argument,
                  "max_concurrency must be a positive integer, not " + mc->to_json());
    max_concurrency_ = static_cast<std::size_t>(mc->as_int());  // 0, as None: no limit
  }
  if (const value* d = cfg.find("durability"); d && !d->is_null()) {
    const std::string mode = d->is_string() ? d->as_string() : d->to_json();
    if (mode == "async")
      durability_ = durability::async;
    else if (mode == "exit")
      durability_ = durability::exit;
    else if (mode != "sync")
      throw error(error_code::invalid_argument,
                  "durability must be sync, async or exit, not " + d->to_json());
  }
  const bool nested = !shared_.ns.empty();
  bool map_load = false;  // a subgraph's checkpoint named by the run's checkpoint map
  if (saver_) {
    cp_config_ = checkpoint_config_of(cfg, true);
    const std::string asked_ns = cp_config_.checkpoint_ns;
    cp_config_.checkpoint_ns = shared_.checkpoint_ns;
    if (nested) {
      cp_config_.checkpoint_id.clear();  // a subgraph starts from its own latest
      const value& map = cfg.get("configurable").get("checkpoint_map");
      if (const value* id = map.is_object() ? map.find(shared_.checkpoint_ns) : nullptr;
          id && id->is_string()) {
        cp_config_.checkpoint_id = id->as_string();
        map_load = true;
      }
    } else if (!asked_ns.empty()) {
      enter_through_subgraph(asked_ns);
    }
    if (durability_ == durability::async) background_ = start_background_saves(*saver_);
  }

  checkpoint start;
  std::optional<checkpoint_config> loaded_at;  // the checkpoint start is, when saved
  bool stale_delta_writes = false;  // its pending writes include tasks' writes to delta channels
  bool replay_load = false;
  std::int64_t meta_step = -2;
  channel_version version_floor = 0;  // versions this run issues are above it
  if (saver_) {
    const bool time_travel = !cp_config_.checkpoint_id.empty();
    // A subgraph of a replayed run, the first time it runs there: its state as it was at the
    // replay point, and its input applied anew (LangGraph's ReplayState).
    replay_load =
        nested && !map_load && shared_.replay && shared_.replay->first_visit(shared_.checkpoint_ns);
    std::optional<checkpoint_tuple> tuple;
    if (replay_load) {
      list_options before;
      before.before = cp_config_;
      before.before->checkpoint_id = shared_.replay->checkpoint_id();
      before.limit = 1;
      auto found = saver_->list(cp_config_, before);
      if (!found.empty()) tuple = std::move(found.front());
    } else {
      tuple = saver_->get_tuple(cp_config_);
    }
    if (!tuple && time_travel)
      throw error(error_code::not_found, "checkpoint " + cp_config_.checkpoint_id +
                                             " not found in thread " + cp_config_.thread_id);
    if (tuple && shared_.run_slot)  // what a rollback of this run puts back
      shared_.run_slot->set_start(tuple->config, tuple->pending_writes);
    if (tuple) {
      start = std::move(tuple->checkpoint);
      loaded_at = tuple->config;
      delta_counters_ = delta_counters_of(tuple->metadata);
      stale_delta_writes = std::any_of(
          tuple->pending_writes.begin(), tuple->pending_writes.end(), [&](const auto& w) {
            return w.task_id != NULL_TASK_ID && is_delta_channel(index_, w.channel);
          });
      meta_step = tuple->metadata.step;
      stream_meta_ = tuple->metadata;
      if (tuple->parent_config) stream_parent_id_ = tuple->parent_config->checkpoint_id;
      resumed_writes_ = std::move(tuple->pending_writes);
      cp_config_.checkpoint_id = start.id;
      // The run's checkpoints sort after the thread's latest whatever the clock says (set back,
      // or another machine's): the latest is the one loaded, unless this run travels in time.
      if (time_travel)
        detail::ids_after_latest(ids_, *saver_, cp_config_);
      else
        ids_.after(start.id);
      // Versions this run issues must be new to the thread: from an earlier checkpoint the run
      // forks, and the head of a branch that forked before may have lower versions than the
      // branch it left, which stored values under the versions that follow the head's.
      version_floor = saver_->latest_version(cp_config_);
      // Replaying from a past checkpoint re-runs its tasks (their old writes are not reused)
      // and forks: what follows becomes a new branch after that checkpoint.
      replaying_ = time_travel && (given.is_null() || map_load);
      replay_source_ = tuple->metadata.source;
      if (replaying_ && !nested) {
        // The subgraphs of a replay load their state from before the replay point: the
        // checkpoint replayed, or for a fork (source update or fork) the one it was forked from.
        const bool forked = replay_source_ == "update" || replay_source_ == "fork";
        shared_.replay = std::make_shared<replay_state>(
            forked && tuple->parent_config ? tuple->parent_config->checkpoint_id : start.id);
      }
      if (replaying_)  // the writes of no task (a Command's update) still apply
        std::erase_if(resumed_writes_,
                      [](const pending_write& w) { return w.task_id != NULL_TASK_ID; });
      if (nested && shared_.resuming && !replay_load) {
        // The parent re-runs an interrupted task: the subgraph continues where it stopped,
        // its pending interrupt answered with the parent task's latest resume value.
        input = value();
        if (const value* map = resume_map_of(shared_.config); map && has_pending_interrupt()) {
          // The run was resumed by interrupt id: its tasks take the answers to their own
          // interrupts, and ask again for the others.
          resume_ = *map;
          resume_by_id_ = true;
        } else if (!shared_.resume.empty()) {
          // Without a pending interrupt (a fork of the subgraph's own checkpoint), the value is
          // a null resume: it answers the first interrupt() the subgraph raises.
          resume_ = shared_.resume.back();
          resume_by_id_ = false;
        }
      }
    }
  }
  shared_.saver = saver_;
  if (!nested)  // a subgraph keeps its parent's answer
    shared_.resuming = !start.channel_versions.empty() && (given.is_null() || cmd.has_value());
  state_ = algo::restore(g_, std::move(start));
  if (loaded_at) rebuild_delta_channels(state_, index_, saver_, *loaded_at);
  // Exit durability on a new thread: the id of the checkpoint the run's delta writes may need
  // as their parent, taken now so it sorts before the run's checkpoints.
  if (saver_ && !loaded_at && durability_ == durability::exit && !index_.delta_channels.empty())
    exit_stub_id_ = ids_.next();
  state_.max_version = std::max(state_.max_version, version_floor);
  step_ = meta_step + 1;
  stop_ = step_ + limit_ + 1;
  shared_.stop = stop_;

  // A replay re-runs the loaded checkpoint's tasks and new input discards them: their saved
  // writes, which the saver's history of the delta channels includes, are not this run's
  // state, so the run's first checkpoint snapshots every delta channel.
  delta_snapshot_all_ = stale_delta_writes && (replaying_ || !input.is_null());
  if (cmd)
    take_command(*cmd);
  else
    apply_null_writes({});

  const bool resuming = !state_.checkpoint.channel_versions.empty() && input.is_null();
  if (resuming) {
    // Proceed past the previous run's stop: a static interrupt does not fire again.
    auto& seen = state_.checkpoint.versions_seen[std::string(INTERRUPT)];
    for (const auto& [ch, v] : state_.checkpoint.channel_versions) seen[ch] = v;
    unsaved_changes_.seen.insert(std::string(INTERRUPT));
    // A checkpoint update_state made (source update or fork) is a fork already: the replay
    // continues from it without another (LangGraph's _first).
    if (replaying_ && replay_source_ != "update" && replay_source_ != "fork")
      put_checkpoint("fork", nullptr);
    // As LangGraph: resuming emits the state it resumes from. It is also the output when
    // nothing is left to run (a finished thread) or nothing left writes an output channel.
    if (auto out = algo::read_channels(state_.channels, g_.output_channels, g_.output_single)) {
      latest_values_ = *out;
      values_pending_ = false;
    }
    if (shared_.wants(stream_mode::values))
      if (auto streamed = algo::read_channels(state_.channels, *stream_channels_, stream_single_))
        shared_.emit(stream_mode::values, *streamed);
    // LangGraph's loop tells its graph callbacks here, before the first step, subgraphs' too.
    if (shared_.hooks && !shared_.hooks->callbacks.empty()) {
      graph_resume_event event;
      event.checkpoint_id = state_.checkpoint.id;
      event.checkpoint_ns = shared_.ns;
      shared_.hooks->resumed(std::move(event));
    }
  }

  if (input.is_null()) return;
  resumed_writes_.clear();  // new input: the unfinished step of the last checkpoint is discarded
  auto writes = algo::map_input(g_, input);
  if (writes.empty()) {
    std::string names;
    for (const auto& c : g_.input_channels) names += (names.empty() ? "" : ", ") + c;
    throw error(error_code::invalid_argument, "received no input for " + names);
  }
  pregel_task in;
  in.name = std::string(INPUT);
  in.writes = std::move(writes);
  hold_exit_delta_writes(std::string(INPUT), in.writes);
  // The tasks the last checkpoint left to run are discarded: applied with no writes, they mark
  // their triggers seen, so only what the new input triggers runs (LangGraph's _first).
  task_list discarded;
  if (!state_.checkpoint.channel_versions.empty())
    discarded = algo::prepare_next_tasks(g_, index_, state_, nullptr, step_, shared_.checkpoint_ns);
  std::vector<pregel_task*> batch;
  for (auto& t : discarded) batch.push_back(&t);
  batch.push_back(&in);
  auto applied = algo::apply_writes(state_, index_, batch);
  updated_ = std::move(applied.updated_channels);
  have_updated_ = true;
  emit_values_if(updated_);
  // The input's writes are no task's, saved nowhere: the delta channels they wrote (a Pregel
  // graph's input channels) are snapshotted.
  put_checkpoint("input", &applied, delta_snapshots::all_written);
}

void run_loop::enter_through_subgraph(const std::string& ns) {
  // A top-level run given a subgraph's checkpoint (a config from get_state(subgraphs=true) or
  // from update_state on a subgraph): the run starts from the parent checkpoint that subgraph
  // checkpoint belongs to, and the subgraph, when its task runs, from that checkpoint
  // (LangGraph's checkpoint_map: the checkpoint's metadata parents plus itself).
  checkpoint_config at = cp_config_;
  at.checkpoint_ns = ns;
  auto tuple = saver_->get_tuple(at);
  if (!tuple)
    throw error(error_code::not_found, "no checkpoint " + cp_config_.checkpoint_id +
                                           " in namespace '" + ns + "' of thread " +
                                           cp_config_.thread_id);
  object map;
  const value& given = shared_.config.get("configurable").get("checkpoint_map");
  if (given.is_object()) map = given.as_object();
  for (const auto& [parent_ns, id] : tuple->metadata.parents) map.set(parent_ns, id);
  map.set(tuple->config.checkpoint_ns, tuple->config.checkpoint_id);
  const value* root = map.find("");
  if (!root || !root->is_string())
    throw error(error_code::invalid_argument, "checkpoint " + tuple->config.checkpoint_id +
                                                  " of namespace '" + ns +
                                                  "' names no parent checkpoint");
  cp_config_.checkpoint_id = root->as_string();
  object cfg = shared_.config.as_object();
  object conf = shared_.config.get("configurable").as_object();
  conf.set("checkpoint_ns", std::string());
  conf.set("checkpoint_id", cp_config_.checkpoint_id);
  conf.set("checkpoint_map", value(std::move(map)));
  cfg.set("configurable", value(std::move(conf)));
  shared_.config = value(std::move(cfg));
}

}  // namespace superstep::detail
