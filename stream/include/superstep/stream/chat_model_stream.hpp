#pragma once

// One chat model call as LangGraph's v3 messages projection yields it (LangChain's
// `ChatModelStream`): the call's v2 message protocol events (message_events.hpp) dispatched
// in, and typed projections read out: the text deltas, the tool calls, the assembled output
// message, done or failed.

#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "superstep/core/value.hpp"
#include "superstep/stream/stream_channel.hpp"

namespace superstep {

/// A chat model call's stream (LangChain `ChatModelStream`). The messages transformer
/// (stream_transformers.hpp) makes one per model call at message-start and dispatches the
/// call's events into it; a node's returned whole message becomes one already finished.
///
/// Every projection keeps what it got, so it can be read after the fact (LangChain's
/// projections replay too), and a read past what has arrived asks the pump for more: the run
/// stream's, so reading one stream drives the run (LangChain `set_request_more`). Without a
/// pump (a stream dispatched by hand), a read past the end ends.
///
/// Not thread-safe: it lives on the thread reading the run stream. Always held by shared_ptr.
class chat_model_stream : public std::enable_shared_from_this<chat_model_stream> {
 public:
  /// A replaying cursor over one projection: `next()` gives the next item, pumping the run
  /// while the stream is open and has nothing new; nullopt once the stream finished (or
  /// nothing more can come); throws the stream's error after the items before it.
  template <class T>
  class cursor {
   public:
    cursor(std::shared_ptr<chat_model_stream> s, const std::vector<T>* items)
        : s_(std::move(s)), items_(items) {}
    std::optional<T> next() {
      for (;;) {
        if (pos_ < items_->size()) return (*items_)[pos_++];
        if (s_->error_) std::rethrow_exception(s_->error_);
        if (s_->done_ || !s_->request_more()) return std::nullopt;
      }
    }
    stream_iterator<cursor, T> begin() { return stream_iterator<cursor, T>(this); }
    std::default_sentinel_t end() const noexcept { return {}; }

   private:
    std::shared_ptr<chat_model_stream> s_;
    const std::vector<T>* items_;
    std::size_t pos_ = 0;
  };

  /// `ns`: the namespace of the graph that made the call; `node`: the node that made it (the
  /// event metadata's langgraph_node); `message_id`: message-start's.
  chat_model_stream(std::vector<std::string> ns, std::optional<std::string> node,
                    std::optional<std::string> message_id);

  const std::vector<std::string>& ns() const noexcept { return ns_; }
  const std::optional<std::string>& node() const noexcept { return node_; }
  const std::optional<std::string>& message_id() const noexcept { return message_id_; }

  /// Takes one protocol event of the call (LangChain `dispatch`). A block's data is read from
  /// "content_block", or from the wire protocol's "delta" / "content" (a "text-delta" is a
  /// text delta); message-start's id from "message_id" or "id"; an {"event": "error",
  /// "message"} fails the stream (later events are ignored). Throws `superstep::error`
  /// (invalid_argument) naming the event when it is not an object with a string "event", is
  /// a second message-start, comes after message-finish, or has a block without an integer
  /// "index" or an object block. Other event kinds are kept and not projected.
  void dispatch(const value& event);
  /// Ends the stream with `err` (the run failed while the call was open): its cursors throw it
  /// after their items, `output()` throws it. Ignored once the stream finished or failed.
  void fail(std::exception_ptr err) noexcept;

  /// message-finish arrived.
  bool done() const noexcept { return done_; }
  /// The error the stream failed with, or null.
  const std::exception_ptr& error() const noexcept { return error_; }

  /// The events dispatched so far, in order (LangChain `_events`).
  const std::vector<value>& events_so_far() const noexcept { return events_; }
  /// The text deltas so far, in order (LangChain's text projection's deltas).
  const std::vector<std::string>& text_deltas_so_far() const noexcept { return text_deltas_; }

  /// Every event of the call (LangChain `iter(stream)`), replayed from the first.
  cursor<value> events() { return {shared_from_this(), &events_}; }
  /// The text deltas (LangChain `stream.text`), replayed from the first.
  cursor<std::string> text() { return {shared_from_this(), &text_deltas_}; }
  /// The finished tool calls {name, args, id, type: "tool_call"} (LangChain
  /// `stream.tool_calls`), as their blocks finish.
  cursor<value> tool_calls() { return {shared_from_this(), &tool_calls_}; }

  /// The assembled message (LangChain `stream.output`): {"type": "ai", "content": the text,
  /// "tool_calls", "id": message_id, "response_metadata": {"finish_reason"},
  /// "usage_metadata"?}. Pumps the run until the stream finishes; throws its error, or
  /// `superstep::error` (unavailable) when it cannot finish (the run ended with the call open).
  value output();
  /// The text of `output()` (LangChain `stream.output.text`).
  std::string output_text();
  /// message-finish's usage, or null.
  const value& usage() const noexcept { return usage_; }

  /// The pump reads call when they have nothing new (the run stream's): true when it produced
  /// an event. Set by the messages transformer.
  void set_pump(std::function<bool()> pump) { pump_ = std::move(pump); }
  const std::function<bool()>& pump() const noexcept { return pump_; }

 private:
  struct block {
    std::string type;  // "text" or "tool_call_chunk" while open; finished blocks as given
    std::string text;
    value id, name;
    std::string args;
    value finished;  // the content-block-finish block, once it came
  };
  bool request_more() { return pump_ && pump_(); }
  void on_block(const std::string& kind, const value& event);
  std::string label() const;

  std::vector<std::string> ns_;
  std::optional<std::string> node_;
  std::optional<std::string> message_id_;
  bool started_ = false;
  bool done_ = false;
  std::exception_ptr error_;
  std::vector<value> events_;
  std::vector<std::string> text_deltas_;
  std::vector<value> tool_calls_;
  std::map<std::int64_t, block> blocks_;
  value reason_;
  value usage_;
  std::function<bool()> pump_;
};

}  // namespace superstep
