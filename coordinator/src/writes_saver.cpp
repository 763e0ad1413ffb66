// A run's writes saver: in the coordinator's process, it takes the results of task batches
// that ran in other processes (whose node actors sent their writes straight to the channel
// actors there), hands the writes for the channel actors in this process on to them, saves
// the writes as pending writes, then answers the coordinator in the node actor's stead with
// the result without the writes' values: those never pass through the coordinator.
#include <exception>
#include <unordered_map>
#include <utility>

#include "coordinator_state.hpp"
#include "superstep/actors/fault_point.hpp"
#include "superstep/actors/result_parts.hpp"

namespace superstep::detail::coord {

namespace {

struct saver_state {
  std::shared_ptr<saver_line> line;
  // By batch id, as the coordinator announced it. A batch never answered (its process died)
  // is forgotten once a later step's batch is announced.
  std::unordered_map<std::uint64_t, batch_expected> expected;
  std::int64_t step = -1;
  // The parts of big results, ahead of the results that close them.
  actors::result_assembly parts;
};

// Names the tasks of `w`, a result of the batch `e` (its outcomes come in the batch's order),
// as their pending writes are saved; false when the result does not hold as many tasks.
bool identify(actors::task_batch_done& w, batch_expected& e) {
  if (w.tasks.size() != e.tasks.size()) return false;
  for (std::size_t i = 0; i < e.tasks.size(); ++i) {
    pregel_task& t = w.tasks[i];
    t.id = std::move(e.tasks[i].id);
    t.name = e.name;
    t.push = e.tasks[i].push;
    t.push_index = e.tasks[i].push_index;
  }
  return true;
}

writes_saver::behavior_type saver_behavior(writes_saver::stateful_pointer<saver_state> self,
                                           std::shared_ptr<saver_line> line) {
  self->state.line = std::move(line);
  return {
      [self](batch_expected& e) {
        auto& st = self->state;
        if (e.step > st.step) {
          st.step = e.step;
          std::erase_if(st.expected, [&](const auto& x) { return x.second.step < e.step; });
          st.parts.keep_if([&](std::uint64_t id) { return st.expected.count(id) != 0; });
        }
        st.expected[e.id] = std::move(e);
      },
      [self](actors::result_part& p) {
        auto& st = self->state;
        if (!st.expected.count(p.batch)) return;  // of no batch it was told of
        try {
          st.parts.add(std::move(p));
        } catch (const std::exception& e) {
          actors::report_protocol_error(e.what());
        }
      },
      [self](actors::pending_writes& w) -> actors::task_batch_done {
        auto& st = self->state;
        // A result that does not match its batch goes on as it is: the coordinator refuses
        // it, naming what is wrong.
        auto it = st.expected.find(w.id);
        if (it == st.expected.end()) return std::move(w);
        batch_expected e = std::move(it->second);
        st.expected.erase(it);
        try {
          st.parts.complete(w);  // when it came in parts
        } catch (const std::exception& x) {
          // Unreadable: its tasks fail with the reason (and so does their step), unsaved.
          actors::task_batch_done failed;
          failed.id = w.id;
          failed.tasks.resize(e.tasks.size());
          for (auto& t : failed.tasks)
            t.set_error(
                task_error{error_code::protocol_error,
                           std::string("the result of its batch cannot be read: ") + x.what()});
          return failed;
        }
        actors::task_batch_done done = std::move(w);
        if (!identify(done, e)) return done;
        actors::fault_point("saver.before_save", e.step);
        // The groups here stage the step while the writes are saved; the step commits only
        // after every result, which comes once its writes are saved.
        hand_on_writes(self, e, done.tasks);
        {
          std::lock_guard lock(st.line->m);
          if (!st.line->loop) return done;  // the run ended
          std::vector<const pregel_task*> tasks;
          tasks.reserve(done.tasks.size());
          for (const auto& t : done.tasks) tasks.push_back(&t);
          try {
            st.line->loop->save_finished_writes(tasks);
          } catch (const std::exception& e) {
            // Not durable: the tasks fail, and so does their step.
            for (auto& t : done.tasks)
              t.set_error(task_error{error_code::unavailable,
                                     std::string("cannot save the task's writes: ") + e.what()});
            return done;
          }
        }
        // Saved: the coordinator gets the channels written, not the values.
        for (auto& t : done.tasks)
          for (auto& write : t.writes) write.second = value();
        return done;
      },
      [](flush_atom) { return true; },
  };
}

}  // namespace

writes_saver spawn_writes_saver(caf::actor_system& sys, std::shared_ptr<saver_line> line) {
  // Its own thread: saving waits on the checkpointer's I/O, which must not hold up a thread of
  // the scheduler every actor shares.
  return sys.spawn<caf::detached>(saver_behavior, std::move(line));
}

}  // namespace superstep::detail::coord
