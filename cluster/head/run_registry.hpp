#pragma once

// The runs a head's clients started, by thread and run id: what a client's cancel request
// reaches (LangGraph's `runs.cancel(thread_id, run_id)` names both), and the clients waiting
// for a cancelled run to end (`wait=True`).

#include <caf/all.hpp>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "superstep/core/error.hpp"
#include "superstep/pregel/run_control.hpp"

namespace superstep::net {

/// Thread-safe.
class run_registry {
 public:
  /// Called (outside the registry's lock) for each client waiting for a run's end once it
  /// ended: the client, the thread and the run id.
  using ended_fn =
      std::function<void(const caf::actor&, const std::string& thread, const std::string& run)>;

  explicit run_registry(ended_fn told_ended) : told_ended_(std::move(told_ended)) {}

  /// A run's place in the registry, with a run_control of its own, from construction until
  /// destroyed; then the clients waiting for its end are told.
  class registration {
   public:
    /// Throws error(thread_busy) when `thread` has a run `run_id` registered already.
    registration(run_registry& r, std::string thread, std::string run_id)
        : r_(r), key_(std::move(thread), std::move(run_id)) {
      std::lock_guard lock(r_.m_);
      if (!r_.runs_.emplace(key_, entry{control_, {}}).second)
        throw error(error_code::thread_busy, "thread '" + key_.first + "' already has a run '" +
                                                 key_.second + "' on this head");
    }
    ~registration() {
      std::vector<caf::actor> waiters;
      {
        std::lock_guard lock(r_.m_);
        auto it = r_.runs_.find(key_);
        waiters = std::move(it->second.waiters);
        r_.runs_.erase(it);
      }
      for (const auto& client : waiters) r_.told_ended_(client, key_.first, key_.second);
    }
    registration(const registration&) = delete;
    registration& operator=(const registration&) = delete;

    /// What the run is given to be cancelled through.
    const std::shared_ptr<run_control>& control() const noexcept { return control_; }

   private:
    run_registry& r_;
    std::pair<std::string, std::string> key_;
    std::shared_ptr<run_control> control_ = std::make_shared<run_control>();
  };

  /// Asks run `run_id` of `thread` to stop (run_control::request_cancel with `reason`); a
  /// `waiter` (not null) is told once the run has ended. False, and nothing done, when the
  /// thread has no such run.
  bool cancel(const std::string& thread, const std::string& run_id, const std::string& reason,
              const caf::actor& waiter = caf::actor()) {
    std::shared_ptr<run_control> control;
    {
      std::lock_guard lock(m_);
      auto it = runs_.find({thread, run_id});
      if (it == runs_.end()) return false;
      control = it->second.control;
      if (waiter) it->second.waiters.push_back(waiter);
    }
    control->request_cancel(reason);
    return true;
  }

 private:
  struct entry {
    std::shared_ptr<run_control> control;
    std::vector<caf::actor> waiters;
  };
  ended_fn told_ended_;
  std::mutex m_;
  std::map<std::pair<std::string, std::string>, entry> runs_;
};

}  // namespace superstep::net
