#pragma once

// A projection's queue of LangGraph's v3 event streaming (`langgraph.stream.StreamChannel`):
// what a stream transformer pushes and a consumer drains.

#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "superstep/core/error.hpp"
#include "superstep/core/value.hpp"

namespace superstep {

class stream_mux;

/// Anything a stream transformer exposes in its projection (`stream_transformer::init`):
/// stream channels, and whatever else a transformer wants to publish (a promise, a counter).
/// The mux wires, closes and fails the stream channels among them.
class stream_projection {
 public:
  virtual ~stream_projection() = default;
};

/// What every stream_channel<T> shares, whatever its item type: name, lifecycle, subscription
/// and the mux's wiring.
///
/// Not thread-safe: a channel lives on the consumer's thread, the one that pumps the run
/// (graph_run_stream.hpp), as LangGraph's caller-driven pump.
class stream_channel_base : public stream_projection {
 public:
  /// `name`: when set, a stream_mux that finds the channel in a projection forwards every
  /// push into its main log as a protocol event, method "<name>" for a native transformer's
  /// channel and "custom:<name>" for others. Unset: a local channel, seen only by whoever
  /// iterates it.
  explicit stream_channel_base(std::optional<std::string> name = std::nullopt)
      : name_(std::move(name)) {}

  const std::optional<std::string>& name() const noexcept { return name_; }

  /// Marks the channel complete: its consumer gets what is buffered, then the end.
  /// Idempotent; a failed channel stays failed.
  void close() noexcept { closed_ = true; }
  /// Marks the channel failed: its consumer gets what is buffered, then `err` thrown.
  void fail(std::exception_ptr err) noexcept {
    error_ = std::move(err);
    closed_ = true;
  }
  bool closed() const noexcept { return closed_; }
  /// The error the channel failed with; null while open or when closed normally.
  const std::exception_ptr& error() const noexcept { return error_; }
  /// Whether a consumer holds the channel (a cursor, a tee, or an interleave).
  bool subscribed() const noexcept { return subscribed_; }
  /// Items buffered for the consumer (0 while nobody subscribed: pushes are not kept).
  virtual std::size_t size() const noexcept = 0;
  /// Whether the items can be forwarded as protocol event data (T is convertible to value).
  virtual bool forwards_values() const noexcept = 0;

  /// Takes the single subscription. Throws `superstep::error` (invalid_argument) when the
  /// channel already has a subscriber ("use tee(n) for fan-out"). Cursors, tees and
  /// interleaves call it; a test may call it to make pushes count without a cursor.
  void subscribe() {
    if (subscribed_)
      throw superstep::error(
          error_code::invalid_argument,
          "stream_channel" + label() + " already has a subscriber; use tee(n) for fan-out");
    subscribed_ = true;
  }
  /// Gives the subscription back (an interleave ending).
  void unsubscribe() noexcept { subscribed_ = false; }

  // Wiring, by stream_mux and the run streams (LangGraph's `_bind_mux`, `_wire`,
  // `_request_more`); transformers do not call these.

  /// The mux whose push counter stamps this channel's items (for `interleave`).
  void bind_mux(stream_mux* mux) noexcept { mux_ = mux; }
  /// The forward of a named channel: called with each pushed item, subscribed or not.
  void wire(std::function<void(const value&)> forward) { wire_ = std::move(forward); }
  bool wired() const noexcept { return static_cast<bool>(wire_); }
  /// The pump a cursor calls when the buffer is empty: true when it produced an event.
  void set_pump(std::function<bool()> pump) { pump_ = std::move(pump); }

 protected:
  std::string label() const { return name_ ? " '" + *name_ + "'" : std::string(); }
  std::uint64_t next_stamp() noexcept;
  /// Asks the pump for one more event; false when there is no pump or it produced none.
  bool request_more() { return pump_ && pump_(); }

  std::optional<std::string> name_;
  bool closed_ = false;
  bool subscribed_ = false;
  std::exception_ptr error_;
  stream_mux* mux_ = nullptr;
  std::function<void(const value&)> wire_;
  std::function<bool()> pump_;
};

template <class T>
class stream_cursor;
template <class T>
class stream_tee;
template <class Source, class T>
class stream_iterator;

/// A single-consumer queue drained as it is read (LangGraph `StreamChannel`).
///
/// `push` appends an item only while a consumer is subscribed (lazy subscribe: nothing piles
/// up for a projection nobody reads) and, on a named channel the mux wired, forwards it to
/// the main log either way. Items leave the buffer as the consumer reads them, and the
/// consumer's reads pump the run one event at a time, so a subscribed channel holds what one
/// event produced at most. One subscriber: `subscribe()`/`begin()` a second time throws; use
/// `tee(n)` for fan-out. The stream_mux closes or fails every channel of its projections when
/// the run ends; a transformer needs not.
///
/// Not thread-safe (see stream_channel_base).
template <class T>
class stream_channel : public stream_channel_base {
 public:
  using stream_channel_base::stream_channel_base;

  /// Appends `item` (when subscribed) and forwards it (when wired). Throws
  /// `superstep::error` (invalid_argument) when the channel is closed and subscribed.
  void push(T item) {
    if (subscribed_) {
      if (closed_)
        throw superstep::error(error_code::invalid_argument,
                               "cannot push to a closed stream_channel" + label());
      items_.emplace_back(next_stamp(), std::move(item));
      if (wire_) {
        if constexpr (std::is_convertible_v<const T&, value>) wire_(value(items_.back().second));
      }
      return;
    }
    if (wire_) {
      if constexpr (std::is_convertible_v<const T&, value>) wire_(value(item));
    }
  }

  /// Subscribes and returns the cursor that reads the channel (LangGraph `iter(channel)`).
  /// Throws as `subscribe`.
  stream_cursor<T> cursor() {
    subscribe();
    return stream_cursor<T>(this);
  }
  /// Range-for over the channel: subscribes, then reads to the end (or throws the error the
  /// channel failed with, after the items before it).
  stream_iterator<stream_channel, T> begin() {
    subscribe();
    return stream_iterator<stream_channel, T>(this);
  }
  std::default_sentinel_t end() const noexcept { return {}; }

  /// Subscribes and returns `n` branches that each read every item (LangGraph `tee`). Throws
  /// `superstep::error` (invalid_argument) when n < 1, or as `subscribe`.
  std::vector<stream_tee<T>> tee(std::size_t n = 2);

  /// The next item: from the buffer, else pumped; nullopt at the end (closed, or the pump has
  /// nothing more). Throws the channel's error once the buffer is empty. For the subscriber
  /// (cursors, iterators, tees); `next` is the same.
  std::optional<T> next() { return pull(); }
  std::optional<T> pull() {
    for (;;) {
      if (!items_.empty()) return pop_front();
      if (closed_) {
        if (error_) std::rethrow_exception(error_);
        return std::nullopt;
      }
      if (!request_more()) {
        if (items_.empty() && !closed_) return std::nullopt;
      }
    }
  }

  std::size_t size() const noexcept override { return items_.size(); }
  bool forwards_values() const noexcept override { return std::is_convertible_v<const T&, value>; }
  /// The push stamp of the first buffered item (a mux-wide counter: arrival order across
  /// channels), for `interleave`.
  std::optional<std::uint64_t> front_stamp() const noexcept {
    if (items_.empty()) return std::nullopt;
    return items_.front().first;
  }
  /// Removes and returns the first buffered item; the buffer must not be empty.
  T pop_front() {
    T item = std::move(items_.front().second);
    items_.pop_front();
    return item;
  }

 private:
  std::deque<std::pair<std::uint64_t, T>> items_;
};

/// The input iterator of a cursor or tee branch: holds the current item; advancing pulls the
/// next (which may pump the run, and may throw the run's error).
template <class Source, class T>
class stream_iterator {
 public:
  using value_type = T;
  using difference_type = std::ptrdiff_t;

  stream_iterator() = default;
  explicit stream_iterator(Source* src) : src_(src) { current_ = src_->next(); }
  T& operator*() { return *current_; }
  T* operator->() { return &*current_; }
  stream_iterator& operator++() {
    current_ = src_->next();
    return *this;
  }
  void operator++(int) { ++*this; }
  friend bool operator==(const stream_iterator& it, std::default_sentinel_t) noexcept {
    return !it.current_.has_value();
  }

 private:
  Source* src_ = nullptr;
  std::optional<T> current_;
};

/// The subscriber of one stream_channel (LangGraph's sync cursor). Valid while the channel
/// lives; copies read the same channel.
template <class T>
class stream_cursor {
 public:
  explicit stream_cursor(stream_channel<T>* ch) : ch_(ch) {}
  /// The next item, nullopt at the end; throws the channel's error after its items.
  std::optional<T> next() { return ch_->pull(); }
  stream_iterator<stream_cursor, T> begin() { return stream_iterator<stream_cursor, T>(this); }
  std::default_sentinel_t end() const noexcept { return {}; }

 private:
  stream_channel<T>* ch_;
};

/// One branch of `stream_channel::tee`: its own buffer, filled from the channel as any branch
/// reads past what it has.
template <class T>
class stream_tee {
 public:
  struct shared_state {
    stream_channel<T>* source;
    std::vector<std::deque<T>> buffers;
    bool exhausted = false;
    std::exception_ptr error;
  };
  stream_tee(std::shared_ptr<shared_state> s, std::size_t i) : s_(std::move(s)), i_(i) {}

  /// The next item of this branch, nullopt at the end; throws the channel's error once this
  /// branch has read the items before it.
  std::optional<T> next() {
    auto& buf = s_->buffers[i_];
    for (;;) {
      if (!buf.empty()) {
        T item = std::move(buf.front());
        buf.pop_front();
        return item;
      }
      if (s_->exhausted) {
        if (s_->error) std::rethrow_exception(s_->error);
        return std::nullopt;
      }
      std::optional<T> item;
      try {
        item = s_->source->pull();
      } catch (...) {
        s_->error = std::current_exception();
        s_->exhausted = true;
        continue;
      }
      if (!item) {
        s_->exhausted = true;
        continue;
      }
      for (auto& b : s_->buffers) b.push_back(*item);
    }
  }
  stream_iterator<stream_tee, T> begin() { return stream_iterator<stream_tee, T>(this); }
  std::default_sentinel_t end() const noexcept { return {}; }

 private:
  std::shared_ptr<shared_state> s_;
  std::size_t i_;
};

template <class T>
std::vector<stream_tee<T>> stream_channel<T>::tee(std::size_t n) {
  if (n < 1) throw superstep::error(error_code::invalid_argument, "tee() requires n >= 1");
  subscribe();
  auto s = std::make_shared<typename stream_tee<T>::shared_state>();
  s->source = this;
  s->buffers.resize(n);
  std::vector<stream_tee<T>> branches;
  branches.reserve(n);
  for (std::size_t i = 0; i < n; ++i) branches.emplace_back(s, i);
  return branches;
}

}  // namespace superstep
