#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "superstep/core/error.hpp"
#include "superstep/core/value.hpp"
#include "superstep/pregel/channel_name.hpp"

namespace superstep {

/// The error a task ended with: a code and the node's message, and the value the error
/// carries (the Command of a parent_command error), as `superstep::error`.
struct task_error {
  error_code code = error_code::node_error;
  std::string message;
  std::shared_ptr<const value> payload;  ///< shared with the error's: it is immutable

  task_error() = default;
  task_error(error_code c, std::string m, std::shared_ptr<const value> p = nullptr)
      : code(c), message(std::move(m)), payload(std::move(p)) {}
  /// The task error of `e`, its payload kept.
  static task_error of(const error& e) { return {e.code(), e.what(), e.shared_payload()}; }
  /// The error again, to throw: the one `of` was given, as far as its code, message and
  /// payload go.
  error to_error() const { return error(code, message, payload); }
};

/// A field kept behind a pointer and allocated only when it holds something: 8 bytes where a
/// `value` or a list takes 24. Most tasks leave these fields empty, and a step may hold 10^6
/// tasks. It reads as a `T` (an empty one when unset); `edit()` gives a `T` to change in place.
template <class T>
class boxed {
 public:
  boxed() noexcept = default;
  boxed(T v) { set(std::move(v)); }
  boxed(const boxed& o) : p_(o.p_ ? std::make_unique<T>(*o.p_) : nullptr) {}
  boxed(boxed&&) noexcept = default;
  boxed& operator=(const boxed& o) {
    if (this != &o) p_ = o.p_ ? std::make_unique<T>(*o.p_) : nullptr;
    return *this;
  }
  boxed& operator=(boxed&&) noexcept = default;
  boxed& operator=(T v) {
    set(std::move(v));
    return *this;
  }

  const T& get() const noexcept { return p_ ? *p_ : none(); }
  operator const T&() const noexcept { return get(); }
  const T* operator->() const noexcept { return &get(); }
  T& edit() {
    if (!p_) p_ = std::make_unique<T>();
    return *p_;
  }
  /// For a `value`: whether it is null (unset).
  bool is_null() const noexcept { return !p_ || p_->is_null(); }

  // Read like a container (a list, the triggers).
  bool empty() const noexcept { return !p_ || p_->empty(); }
  std::size_t size() const noexcept { return p_ ? p_->size() : 0; }
  template <class U = T>
  auto begin() const noexcept -> decltype(std::declval<const U&>().begin()) {
    return get().begin();
  }
  template <class U = T>
  auto end() const noexcept -> decltype(std::declval<const U&>().end()) {
    return get().end();
  }
  template <class U = T>
  auto operator[](std::size_t i) const -> decltype(std::declval<const U&>()[i]) {
    return get()[i];
  }
  void clear() noexcept { p_.reset(); }
  template <class... A>
  decltype(auto) push_back(A&&... a) {
    return edit().push_back(std::forward<A>(a)...);
  }

 private:
  static const T& none() noexcept {
    static const T empty{};
    return empty;
  }
  void set(T v) {
    if constexpr (std::is_same_v<T, value>)
      p_ = v.is_null() ? nullptr : std::make_unique<T>(std::move(v));
    else
      p_ = v.empty() ? nullptr : std::make_unique<T>(std::move(v));
  }
  std::unique_ptr<T> p_;
};

/// What few tasks carry (a Send's own time limits, answers to interrupts, an interrupt, an
/// error): in one block, allocated when one of them is set (`pregel_task::rare`).
struct task_rare {
  /// The time limits of a PUSH task whose Send gave its own (LangGraph `Send(timeout=...)`),
  /// as `timeout_to_value` encodes them; null: the node's.
  value timeout;
  /// Values answering this task's interrupt() calls, in call order (from Command(resume=...)).
  list resume;
  /// The interrupts the task raised ({"value", "id"}), when it was interrupted.
  list interrupts;
  std::optional<task_error> error;
  /// Set when the node failed (after its retries) and its error handler ran instead: the
  /// node's error. Set before the task runs (a resume after the handler failed), the node is
  /// skipped and the handler runs again.
  std::optional<task_error> handled_error;

  bool empty() const noexcept {
    return timeout.is_null() && resume.empty() && interrupts.empty() && !error && !handled_error;
  }
};

/// One unit of work in a superstep (LangGraph `PregelExecutableTask`), as plain data that can
/// travel to whichever process runs it. (Its fields are ordered to leave no padding: a
/// step of a big fan-out holds one per Send, 128 bytes each.)
struct pregel_task {
  std::string id;
  std::uint32_t node = 0;  ///< index into pregel_graph::nodes
  bool push = false;       ///< PUSH (from a Send) or PULL (triggered by channels)
  bool done = false;       ///< filled in by execution
  /// Restored from writes saved before an interruption; not run again.
  bool cached = false;
  /// Its node's name (the process's one copy of it).
  actors::channel_name name;
  std::uint64_t push_index = 0;
  boxed<std::vector<std::string>> triggers;
  value input;

  // Filled in by execution:
  std::vector<std::pair<std::string, value>> writes;
  boxed<value> output;  ///< what the node returned, for `updates` streams and metadata
  /// The rarely set fields, read as `rare->timeout` (empty ones when none is set); set them
  /// with the setters, which allocate the block only for a value that is not empty.
  boxed<task_rare> rare;

  void set_timeout(value v) { set(&task_rare::timeout, std::move(v)); }
  void set_resume(list l) { set(&task_rare::resume, std::move(l)); }
  void set_interrupts(list l) { set(&task_rare::interrupts, std::move(l)); }
  void set_error(std::optional<task_error> e) { set(&task_rare::error, std::move(e)); }
  void set_handled_error(std::optional<task_error> e) {
    set(&task_rare::handled_error, std::move(e));
  }

 private:
  template <class F>
  void set(F task_rare::*field, F v) {
    if (rare.empty()) {
      task_rare r;
      r.*field = std::move(v);
      if (!r.empty()) rare = std::move(r);
      return;
    }
    rare.edit().*field = std::move(v);
    if (rare->empty()) rare.clear();
  }
};

// A fan-out holds one task per Send (10^6 on the head at once): what it costs is part of the
// head's memory budget (docs/channel_actors.md). A field more belongs in `task_rare` unless
// most tasks set it.
static_assert(sizeof(void*) != 8 || sizeof(pregel_task) <= 128,
              "pregel_task grew past 128 bytes: put a rarely set field in task_rare");

/// A step's tasks, as the run keeps them. A deque, not a vector: a fan-out's 10^6 tasks
/// (128 bytes each) are allocated four at a time (libstdc++'s 512-byte blocks), in the memory
/// the step's freed Sends left (`algo::prepare_next_tasks`), where one 128 MB block would take
/// new pages from the system.
/// Batches of tasks sent to node actors stay vectors.
using task_list = std::deque<pregel_task>;

/// Orders tasks as LangGraph applies writes: PULL tasks by node name, then PUSH tasks by index.
bool task_path_less(const pregel_task& a, const pregel_task& b) noexcept;

}  // namespace superstep
