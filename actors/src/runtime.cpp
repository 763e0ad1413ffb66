#include <algorithm>
#include <caf/io/middleman.hpp>
#include <caf/policy/work_stealing.hpp>
#include <caf/scheduler/coordinator.hpp>
#include <thread>

#include "superstep/actors/caf_runtime.hpp"
#include "superstep/actors/channel_actor.hpp"
#include "superstep/actors/protocol.hpp"

namespace superstep::actors {

/// CAF's work-stealing scheduler, whose workers do not look up the actor id of each job they
/// resume. CAF's own worker loop does, for its logger's per-thread actor id, with a
/// `dynamic_cast` from `resumable` to `abstract_actor` that it makes even when the logger is
/// quiet (the packaged library is built with logging compiled in): about 1,100 instructions
/// per activation, a tenth of a chain step's. Only the worker loop differs (below).
struct lean_work_stealing : caf::policy::work_stealing {};

}  // namespace superstep::actors

/// The worker loop of `lean_work_stealing`: CAF's own (caf/scheduler/worker.hpp, 0.17), less
/// the logger's actor id.
template <>
void caf::scheduler::worker<superstep::actors::lean_work_stealing>::run() {
  CAF_SET_LOGGER_SYS(&system());
  for (;;) {
    auto job = policy_.dequeue(this);
    policy_.before_resume(this, job);
    auto res = job->resume(this, max_throughput_);
    policy_.after_resume(this, job);
    switch (res) {
      case resumable::resume_later:
        // The job stays in the loop: the worker keeps its reference.
        policy_.resume_job_later(this, job);
        break;
      case resumable::done:
        policy_.after_completion(this, job);
        intrusive_ptr_release(job);
        break;
      case resumable::awaiting_message:
        // Enqueued again when a message comes; that takes a new reference.
        intrusive_ptr_release(job);
        break;
      case resumable::shutdown_execution_unit:
        policy_.after_completion(this, job);
        policy_.before_shutdown(this);
        return;
    }
  }
}

namespace superstep::actors {

namespace {

caf::actor_system_config& configure(caf::actor_system_config& cfg, unsigned threads,
                                    const runtime_options& options) {
  register_message_types(cfg);
  if (options.network) {
    cfg.load<caf::io::middleman>();
    // A lost peer is noticed by its connection closing; heartbeats catch a silent one.
    cfg.set("middleman.heartbeat-interval", caf::timespan{std::chrono::seconds(1)});
    cfg.set("middleman.connection-timeout", caf::timespan{std::chrono::seconds(10)});
  }
  // After the middleman: a layer above may add modules that need it (TLS).
  if (options.configure) options.configure(cfg);
  cfg.set("scheduler.max-threads", static_cast<size_t>(threads));
  // A scheduler module loaded here replaces the one the actor system would make.
  cfg.load<caf::scheduler::coordinator<lean_work_stealing>>();
  cfg.set("logger.verbosity", caf::atom("quiet"));
  // Idle workers skip the phase where they sleep in 50 us slices that a new message cannot
  // interrupt (about 300 us each on a VM): after spinning briefly they wait on a condition
  // variable, which enqueueing signals. Measured here: a 10-node chain 15 -> 7 us per step.
  cfg.set("work-stealing.moderate-poll-attempts", size_t{0});
  return cfg;
}

unsigned resolve_threads(unsigned requested) {
  if (requested) return requested;
  return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace

runtime::impl::impl(unsigned n, const runtime_options& options)
    : system(configure(cfg, n, options)), threads(n) {}

runtime::runtime(runtime_options options)
    : impl_(std::make_unique<impl>(resolve_threads(options.threads), options)) {}

runtime::~runtime() = default;

unsigned runtime::threads() const noexcept { return impl_->threads; }

void register_message_types(caf::actor_system_config& cfg) {
  cfg.add_message_type<task_batch>("superstep.task_batch");
  cfg.add_message_type<task_batch_done>("superstep.task_batch_done");
  cfg.add_message_type<pending_writes>("superstep.pending_writes");
  cfg.add_message_type<result_part>("superstep.result_part");
  cfg.add_message_type<stream_chunk>("superstep.stream_chunk");
  cfg.add_message_type<channel_writes>("superstep.channel_writes");
  cfg.add_message_type<step_prepare>("superstep.step_prepare");
  cfg.add_message_type<step_vote>("superstep.step_vote");
  cfg.add_message_type<channel_push>("superstep.channel_push");
  cfg.add_message_type<channel_placement>("superstep.channel_placement");
}

}  // namespace superstep::actors
