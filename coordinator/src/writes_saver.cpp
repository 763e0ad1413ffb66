// A run's writes saver: in the coordinator's process, it saves as pending writes the writes
// of task batches that ran in other processes and sent them straight to channel actors there,
// so that those writes reach the checkpointer without passing through the coordinator.
#include <exception>
#include <unordered_map>
#include <utility>

#include "coordinator_state.hpp"

namespace superstep::detail::coord {

namespace {

struct saver_state {
  std::shared_ptr<saver_line> line;
  saved_receiver coordinator;
  // By batch id: the ids of its tasks, as the coordinator sent them.
  std::unordered_map<std::uint64_t, std::vector<std::string>> expected;
};

writes_saver::behavior_type saver_behavior(writes_saver::stateful_pointer<saver_state> self,
                                           std::shared_ptr<saver_line> line,
                                           saved_receiver coordinator) {
  self->state.line = std::move(line);
  self->state.coordinator = std::move(coordinator);
  return {
      [self](expect_atom, std::uint64_t id, std::vector<std::string>& tasks) {
        self->state.expected[id] = std::move(tasks);
      },
      [self](actors::pending_writes& w) {
        auto& st = self->state;
        // Only the batches the coordinator announced, each once, with the tasks it sent.
        auto it = st.expected.find(w.id);
        if (it == st.expected.end()) return;
        std::string why;
        if (w.tasks.size() != it->second.size()) {
          why = "a worker sent the writes of " + std::to_string(w.tasks.size()) +
                " tasks for a batch of " + std::to_string(it->second.size());
        } else {
          for (std::size_t i = 0; i < w.tasks.size() && why.empty(); ++i)
            if (w.tasks[i].id != it->second[i])
              why = "a worker sent the writes of task " + w.tasks[i].id + " instead of " +
                    it->second[i];
        }
        st.expected.erase(it);
        if (why.empty()) {
          std::vector<const pregel_task*> tasks;
          tasks.reserve(w.tasks.size());
          for (const auto& t : w.tasks) tasks.push_back(&t);
          std::lock_guard lock(st.line->m);
          if (!st.line->loop) return;  // the run ended
          try {
            st.line->loop->save_writes_apart(tasks);
          } catch (const std::exception& e) {
            why = e.what();
          }
        }
        self->send(st.coordinator, actors::saved_atom::value, w.id, std::move(why));
      },
  };
}

}  // namespace

writes_saver spawn_writes_saver(caf::actor_system& sys, std::shared_ptr<saver_line> line,
                                saved_receiver coordinator) {
  return sys.spawn(saver_behavior, std::move(line), std::move(coordinator));
}

}  // namespace superstep::detail::coord
