#pragma once

// Internal: the `messages` stream's messages from node outputs (LangGraph's
// StreamMessagesHandler on_chain_start / on_chain_end, langgraph/pregel/_messages.py).
//
// Tasks run wherever the run puts them (threads, node actors, nested graphs), but all their
// stream events reach the top-level sink in the order they happen. So a task reports what
// it saw and what it returned as internal `messages` events, and the top-level run's filter
// (`dedupe_messages`) keeps the run-wide set of message ids already seen and turns them into
// the events the caller gets:
//  - {"__messages_seen__": [id, ...]}: ids of the messages in a task's input (swallowed);
//  - [message, metadata, true]: a message of a node's output, streamed as [message, metadata]
//    unless its id was seen;
//  - [chunk, metadata]: a chunk from `emit_message`, streamed as is; its id is now seen.

#include "superstep/pregel/stream.hpp"

namespace superstep::detail {

class task_context;

/// A random uuid4 ("xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx"): a message's or a run's fresh id.
std::string fresh_uuid4();

/// Reports the ids of the messages in the task's input (its state's values, and the messages
/// in lists among them). No-op unless the run streams `messages`.
void note_input_messages(task_context& ctx, const value& input);

/// Reports `ids` as seen (the same internal event as `note_input_messages`).
void note_messages_seen(task_context& ctx, list ids);

/// The node's output with a fresh id (a random uuid4) in each message it returns without one,
/// as LangGraph's handler gives them before the node's writes are applied, so the state keeps
/// the id the stream showed. The output itself unless the run streams `messages`.
value with_message_ids(const task_context& ctx, const value& output);

/// Streams the messages found in a node's output: a message, a list of them, a state update's
/// values (and lists among them), a Command's update, or a list of Commands and updates.
void emit_output_messages(task_context& ctx, const value& output);

/// The top-level run's sink: `sink` behind the filter described above.
stream_sink dedupe_messages(const stream_sink& sink);

}  // namespace superstep::detail
