// The `add_messages` reducer (LangGraph langgraph/graph/message.py): appends messages, but a
// message whose id matches an existing one replaces it in place, {"type": "remove", "id": X}
// deletes message X, and {"type": "remove", "id": "__remove_all__"} drops everything before it.
//
// Messages are objects with an optional string "id"; a bare string s is the human message
// {"type": "human", "content": s}, a pair [role, content] or an object {"role": role, "content":
// ...} the message of that role. Both the
// current value and each update may be a list of messages or a single one.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "reducer_support.hpp"
#include "superstep/core/ids.hpp"

namespace superstep::channels::detail {

namespace {

constexpr std::string_view reducer_name = "add_messages";
constexpr std::string_view remove_all_id = "__remove_all__";

bool is_remove(const value& message) {
  const value* type = message.find("type");
  return type && type->is_string() && type->as_string() == "remove";
}

const std::string* id_of(const value& message) {
  const value* id = message.find("id");
  if (!id || id->is_null()) return nullptr;
  if (!id->is_string())
    throw_reducer_error(reducer_name, "message id must be a string, got " + kind_of(*id));
  return &id->as_string();
}

// The message type of a (role, content) pair's role, as LangChain's convert_to_messages.
std::string_view type_of_role(const std::string& role) {
  if (role == "human" || role == "user") return "human";
  if (role == "ai" || role == "assistant") return "ai";
  if (role == "system" || role == "developer") return "system";
  if (role == "function" || role == "tool" || role == "remove") return role;
  throw_reducer_error(reducer_name,
                      "unknown message role '" + role +
                          "' (human, user, ai, assistant, system, developer, function, tool)");
}

bool is_role(const std::string& role) {
  for (std::string_view r :
       {"human", "user", "ai", "assistant", "system", "developer", "function", "tool"})
    if (role == r) return true;
  return false;
}

value to_message(const value& raw) {
  if (raw.is_object()) {
    // A {"role": ..., "content": ...} dict (LangChain's convert_to_messages): the message of
    // that role, its other fields kept.
    const value* role = raw.find("role");
    if (!role || raw.find("type")) return raw;
    if (!role->is_string())
      throw_reducer_error(reducer_name, "message role must be a string, got " + kind_of(*role));
    object message{{"type", std::string(type_of_role(role->as_string()))},
                   {"content", raw.find("content") ? *raw.find("content") : value("")}};
    for (const auto& [k, v] : raw.as_object())
      if (k != "role" && k != "content") message.set(k, v);
    return value(std::move(message));
  }
  if (raw.is_string()) return value(object{{"type", "human"}, {"content", raw}});
  // A [role, content] pair (LangChain's ("user", "text") tuple).
  if (raw.is_list() && raw.as_list().size() == 2 && raw.as_list()[0].is_string())
    return value(object{{"type", std::string(type_of_role(raw.as_list()[0].as_string()))},
                        {"content", raw.as_list()[1]}});
  throw_reducer_error(
      reducer_name,
      "expected a message object, string or [role, content] pair, got " + kind_of(raw));
}

// A uuid-formatted id derived from the message and its place in the list: the id of the
// message before it and its position. LangGraph uses random uuid4s; ours are deterministic so
// a replayed step produces the same state. Two live messages cannot get the same id this way:
// order is preserved, so nothing after `previous_id` can already be in the list.
std::string fresh_id(const value& message, std::string_view previous_id, std::size_t position) {
  std::string json = message.to_json();
  std::uint64_t seed = stable_hash(previous_id) ^ (position * 0x9E3779B97F4A7C15ULL);
  std::uint64_t hi = stable_hash(json, seed), lo = stable_hash(json, ~seed);
  hi = (hi & ~0xF000ULL) | 0x8000ULL;                         // version 8 (custom)
  lo = (lo & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL;  // RFC 4122 variant
  static const char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(36);
  for (int i = 0; i < 32; ++i) {
    if (i == 8 || i == 12 || i == 16 || i == 20) out += '-';
    std::uint64_t word = i < 16 ? hi : lo;
    out += hex[(word >> (4 * (15 - i % 16))) & 15];
  }
  return out;
}

// The merged list under construction. Removed messages leave a null slot until the end, so
// replacing and removing by id are O(1) and the whole fold is O(current + updates).
class message_builder {
 public:
  void load(const value& current) {
    for_each(current, [this](const value& raw) { append(identified(raw)); });
  }

  void merge(const value& update) {
    std::span<const value> items = update.is_list() ? std::span<const value>(update.as_list())
                                                    : std::span<const value>(&update, 1);
    std::size_t start = 0;
    for (std::size_t i = 0; i < items.size(); ++i) {
      const std::string* id = is_remove(items[i]) ? id_of(items[i]) : nullptr;
      if (id && *id == remove_all_id) start = i + 1;
    }
    if (start > 0) {
      slots_.clear();
      index_.clear();
      removed_slots_ = 0;
    }
    std::vector<std::string> removed;  // ids removed by this update, unless re-added later in it
    for (const value& raw : items.subspan(start)) {
      value message = identified(raw);
      std::string id = *id_of(message);
      auto it = index_.find(id);
      if (it == index_.end()) {
        if (is_remove(message))
          throw_reducer_error(reducer_name,
                              "cannot remove message with id '" + id + "': no such message");
        append(std::move(message));
      } else if (is_remove(message)) {
        if (!slots_[it->second].is_null()) ++removed_slots_;
        slots_[it->second] = value();
        removed.push_back(std::move(id));
      } else {
        if (slots_[it->second].is_null()) --removed_slots_;
        slots_[it->second] = std::move(message);
      }
    }
    for (const std::string& id : removed)
      if (auto it = index_.find(id); it != index_.end() && slots_[it->second].is_null())
        index_.erase(it);
  }

  value result() && {
    list out;
    out.reserve(index_.size());
    for (value& slot : slots_)
      if (!slot.is_null()) out.push_back(std::move(slot));
    return value(std::move(out));
  }

 private:
  template <class F>
  static void for_each(const value& messages, F f) {
    if (messages.is_list()) {
      for (const value& m : messages.as_list()) f(m);
    } else {
      f(messages);
    }
  }

  // A message without an id gets one from the live messages before it (the last one's id and
  // their count), not from removed slots: so folding two batches one after the other and
  // folding them as one give the same ids (the batching invariance a delta channel needs).
  value identified(const value& raw) {
    value message = to_message(raw);
    if (id_of(message)) return message;
    std::string_view previous;
    for (auto it = slots_.rbegin(); it != slots_.rend(); ++it)
      if (!it->is_null()) {
        previous = *id_of(*it);
        break;
      }
    object with_id = message.as_object();
    with_id.set("id", fresh_id(message, previous, slots_.size() - removed_slots_));
    return value(std::move(with_id));
  }

  void append(value message) {
    std::string id = *id_of(message);
    index_[id] = slots_.size();  // on duplicate ids the last occurrence is the one found
    slots_.push_back(std::move(message));
  }

  std::vector<value> slots_;  // messages are objects, so a null slot marks a removed message
  std::unordered_map<std::string, std::size_t> index_;  // id -> slot
  std::size_t removed_slots_ = 0;                       // null slots in slots_
};

}  // namespace

value add_messages_fold(const value& current, std::span<const value> updates) {
  message_builder merged;
  merged.load(current);
  for (const value& update : updates) merged.merge(update);
  return std::move(merged).result();
}

value messages_delta_fold(const value& current, std::span<const value> writes) {
  message_builder merged;
  merged.load(current);
  for (const value& write : writes) {
    // A [role, content] pair is one message (LangChain's ("user", "hi") tuple), not a list of
    // two: the delta reducer's writes are single messages or lists of them.
    if (write.is_list() && write.as_list().size() == 2 && write.as_list()[0].is_string() &&
        write.as_list()[1].is_string() && is_role(write.as_list()[0].as_string()))
      merged.merge(to_message(write));
    else
      merged.merge(write);
  }
  return std::move(merged).result();
}

}  // namespace superstep::channels::detail

namespace superstep::channels {

value as_message(const value& raw) { return detail::to_message(raw); }

}  // namespace superstep::channels
