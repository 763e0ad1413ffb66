#pragma once

#include <functional>
#include <span>
#include <string>

#include "superstep/core/value.hpp"

namespace superstep::channels {

/// A binary operator folding updates into a channel value (LangGraph's reducer).
///
/// `binary(current, update)` returns the new value. `fold`, when set, folds a whole step's
/// updates at once; built-in reducers provide it so a step with n writes costs O(n), not
/// O(n^2) (a list append copies the accumulated list once per step, not once per write).
/// Reducers throw `superstep::error` (code invalid_update) on inputs of the wrong kind.
struct reducer {
  std::string name;
  std::function<value(const value& current, const value& update)> binary;
  std::function<value(const value& current, std::span<const value> updates)> fold;

  /// Applies `updates` to `current` with `fold` when present, else `binary` one by one.
  value apply(const value& current, std::span<const value> updates) const;
};

/// The built-in reducers by name: append, add, max, min, merge, add_messages, and
/// messages_delta (add_messages for a delta channel's batches: each write a message or a list
/// of messages, a [role, content] pair being one message; LangGraph's
/// `_messages_delta_reducer`). Every built-in `fold` is batching-invariant (folding two batches
/// in turn equals folding them as one), so each can reduce a delta channel.
/// Returns nullptr for other names.
const reducer* builtin_reducer(std::string_view name);

/// A message as the add_messages reducer takes it: an object as is, a string s as the human
/// message {"type": "human", "content": s}, a [role, content] pair as the message of that role
/// (LangChain's convert_to_messages). Throws `superstep::error` (invalid_update) otherwise.
value as_message(const value& raw);

}  // namespace superstep::channels
