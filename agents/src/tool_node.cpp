// LangGraph's ToolNode (langgraph/prebuilt/tool_node.py): parse the input, run each call
// (validate, inject, call, handle errors), normalize the answers, combine them.
#include "superstep/agents/tool_node.hpp"

#include <algorithm>
#include <atomic>
#include <memory>
#include <thread>
#include <typeinfo>
#include <utility>

#include "argument_check.hpp"
#include "python_format.hpp"
#include "superstep/agents/messages.hpp"
#include "superstep/checkpoint/constants.hpp"
#include "superstep/core/error.hpp"
#include "superstep/pregel/send.hpp"

namespace superstep::agents {

namespace {

// Errors that are the run's, not the tool's (LangGraph's GraphBubbleUp and friends).
bool bubbles_up(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const error& err) {
    switch (err.code()) {
      case error_code::interrupted:
      case error_code::parent_command:
      case error_code::run_cancelled:
      case error_code::drained:
      case error_code::cancelled:
      case error_code::node_timeout: return true;
      default: return false;
    }
  } catch (...) {
    return false;
  }
}

// The block types a tool message's content may be made of (LangChain's
// TOOL_MESSAGE_BLOCK_TYPES); any other answer is written as JSON.
bool is_content_blocks(const value& v) {
  if (!v.is_list()) return false;
  for (const value& b : v.as_list()) {
    const value& type = b.get("type");
    if (!b.is_object() || !type.is_string()) return false;
    const std::string& t = type.as_string();
    if (t != "text" && t != "image_url" && t != "image" && t != "json" && t != "search_result" &&
        t != "custom_tool_call_output" && t != "document" && t != "file")
      return false;
  }
  return true;
}

// LangGraph's msg_content_output.
value content_of(const value& output) {
  if (output.is_string() || is_content_blocks(output)) return output;
  return value(detail::python_json(output));
}

bool is_tool_message(const value& v) { return message_type(v) == "tool"; }

value with_content(const value& message) {
  object m = message.as_object();
  m.set("content", content_of(message.get("content")));
  return value(std::move(m));
}

// The `tools` stream of one tool call (LangGraph's StreamToolCallHandler: tool-started as the
// tool is invoked, tool-finished or tool-error as it ends; the runtime's emit_output_delta in
// between). Nothing is built unless the run streams `tools`.
class call_events {
 public:
  call_events(tool_runtime& runtime, const tool_call& call)
      : runtime_(runtime),
        call_(call),
        on_(runtime.node() && runtime.node()->streams(stream_mode::tools)) {}

  void started(const std::string& tool_name, const value& input) const {
    if (!on_) return;
    runtime_.node()->emit_tool_event(object{{"event", "tool-started"},
                                            {"tool_call_id", call_.id},
                                            {"tool_name", tool_name},
                                            {"input", input}});
  }
  void finished(const value& output) const {
    if (!on_) return;
    runtime_.node()->emit_tool_event(
        object{{"event", "tool-finished"}, {"tool_call_id", call_.id}, {"output", output}});
  }
  void failed(const std::exception_ptr& e) const {
    if (!on_) return;
    std::string message;
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& ex) {
      message = ex.what();
    } catch (...) {
      message = "unknown exception";
    }
    runtime_.node()->emit_tool_event(
        object{{"event", "tool-error"}, {"tool_call_id", call_.id}, {"message", message}});
  }

 private:
  tool_runtime& runtime_;
  const tool_call& call_;
  bool on_;
};

// Sets the runtime's output-delta writer for the tool function's call.
struct in_call {
  explicit in_call(bool& flag) : flag_(flag) { flag_ = true; }
  ~in_call() { flag_ = false; }
  bool& flag_;
};

[[noreturn]] void invalid_input(const std::string& why) {
  throw error(error_code::invalid_argument, "tool node: " + why);
}

[[noreturn]] void invalid_answer(const std::string& why) {
  throw error(error_code::invalid_update, why);
}

}  // namespace

std::string tool_call_error_content(const std::exception_ptr& e) {
  std::string repr;
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& ex) {
    repr = type_name(typeid(ex)) + "(" + detail::python_repr(value(ex.what())) + ")";
  } catch (...) {
    repr = "unknown exception";
  }
  return "Error: " + repr + "\n Please fix your mistakes.";
}

tool_error_handler handle_invocation_errors() {
  return [](const std::exception_ptr& e, const tool_call&) -> std::optional<std::string> {
    try {
      std::rethrow_exception(e);
    } catch (const tool_invocation_error& invalid) {
      return std::string(invalid.what());
    } catch (...) {
      return std::nullopt;
    }
  };
}

tool_error_handler handle_all_errors() {
  return [](const std::exception_ptr& e, const tool_call&) -> std::optional<std::string> {
    return tool_call_error_content(e);
  };
}

tool_error_handler handle_errors_with(std::string content) {
  return [content = std::move(content)](const std::exception_ptr&,
                                        const tool_call&) -> std::optional<std::string> {
    return content;
  };
}

tool_node::tool_node(std::vector<tool> tools, tool_node_options options)
    : tools_(std::move(tools)), options_(std::move(options)) {
  for (std::size_t i = 0; i < tools_.size(); ++i) {
    const tool& t = tools_[i];
    if (t.name.empty()) throw error(error_code::invalid_argument, "tool node: a tool needs a name");
    if (!t.function)
      throw error(error_code::invalid_argument, "tool node: tool '" + t.name + "' has no function");
    if (!by_name_.emplace(t.name, i).second)
      throw error(error_code::invalid_argument, "tool node: two tools are named '" + t.name + "'");
  }
  if (options_.messages_key.empty())
    throw error(error_code::invalid_argument, "tool node: messages_key is empty");
}

value tool_node::invoke(const value& input, const tool_node_call& call) const {
  // The calls, the input's kind ("list", "dict", "tool_calls") and the state tools see.
  std::vector<tool_call> calls;
  std::string input_type;
  value state = input;
  const value* messages = nullptr;
  const auto is_call = [](const value& v) { return v.get("type") == value("tool_call"); };
  if (input.is_list() && !input.as_list().empty() && is_call(input.as_list().back())) {
    input_type = "tool_calls";
    for (const value& c : input.as_list()) calls.push_back(tool_call::from_value(c));
    state = value(object{});
  } else if (input.is_list()) {
    input_type = "list";
    messages = &input;
  } else if (input.get("__type") == value("tool_call_with_context")) {
    input_type = "tool_calls";
    calls.push_back(tool_call::from_value(input.get("tool_call")));
    state = input.get("state");
  } else if (const value& m = input.get(options_.messages_key);
             m.is_list() && !m.as_list().empty()) {
    input_type = "dict";
    messages = &m;
  } else {
    invalid_input("no message found in input (expected messages under '" + options_.messages_key +
                  "', a list of messages or of tool calls)");
  }
  if (messages) {
    const list& ms = messages->as_list();
    auto last_ai =
        std::find_if(ms.rbegin(), ms.rend(), [](const value& m) { return is_ai_message(m); });
    if (last_ai == ms.rend()) invalid_input("no AI message found in input");
    calls = tool_calls_of(*last_ai);
  }

  storage::store* store = call.store ? call.store : call.context ? call.context->store() : nullptr;
  std::vector<std::string> names;
  for (const tool& t : tools_) names.push_back(t.name);
  auto interrupts = std::make_shared<std::mutex>();
  std::vector<std::unique_ptr<tool_runtime>> runtimes;
  std::vector<tool_call_request> requests;
  for (const tool_call& c : calls) {
    runtimes.push_back(std::make_unique<tool_runtime>(state, c.id, call.context, store, names));
    runtimes.back()->interrupts_ = interrupts;
    auto it = by_name_.find(c.name);
    requests.push_back(tool_call_request{c, it == by_name_.end() ? nullptr : &tools_[it->second],
                                         runtimes.back().get()});
  }

  std::vector<value> outputs(requests.size());
  std::vector<std::exception_ptr> failures(requests.size());
  const auto run = [&](std::size_t i) {
    try {
      outputs[i] = run_one(requests[i], input_type);
    } catch (...) {
      failures[i] = std::current_exception();
    }
  };
  if (options_.parallel && requests.size() > 1) {
    // A few threads take the calls in turn: a model asking for 3,000 calls costs 16 threads,
    // not 3,000 (as LangGraph's ToolNode maps them over a bounded executor).
    constexpr std::size_t max_threads = 16;
    std::atomic<std::size_t> next{0};
    const auto drain = [&] {
      for (std::size_t i; (i = next.fetch_add(1)) < requests.size();) run(i);
    };
    std::vector<std::jthread> threads;
    for (std::size_t i = 1; i < std::min(requests.size(), max_threads); ++i)
      threads.emplace_back(drain);
    drain();
  } else {
    for (std::size_t i = 0; i < requests.size(); ++i) run(i);
  }
  for (const std::exception_ptr& f : failures)
    if (f) std::rethrow_exception(f);
  return combine(outputs, input_type);
}

node_function tool_node::as_node() const {
  auto self = std::make_shared<const tool_node>(*this);
  return [self](const value& state, node_context& ctx) {
    return self->invoke(state, tool_node_call{&ctx, nullptr});
  };
}

value tool_node::run_one(const tool_call_request& request, const std::string& input_type) const {
  if (!options_.wrap_tool_call) return execute(request, input_type);
  try {
    return options_.wrap_tool_call(request, [this, &input_type](const tool_call_request& r) {
      return execute(r, input_type);
    });
  } catch (...) {
    const std::exception_ptr e = std::current_exception();
    if (bubbles_up(e) || !options_.handle_tool_errors) throw;
    std::optional<std::string> content = options_.handle_tool_errors(e, request.tool_call);
    if (!content) throw;
    return tool_message(*content, request.tool_call.id, request.tool_call.name, "error");
  }
}

value tool_node::execute(const tool_call_request& request, const std::string& input_type) const {
  const tool_call& call = request.tool_call;
  if (!request.tool) {
    std::string names;
    for (const tool& t : tools_) names += (names.empty() ? "" : ", ") + t.name;
    return tool_message("Error: " + call.name + " is not a valid tool, try one of [" + names + "].",
                        call.id, call.name, "error");
  }
  const tool& t = *request.tool;
  tool_runtime& runtime = *request.runtime;

  // What the tool node injects (LangGraph's _inject_tool_args): before the tool's own errors
  // are handled, so a state or store that is missing fails the node.
  object injected;
  if (!t.injected_state.empty()) {
    value state = runtime.state();
    if (state.is_list()) {
      const std::string& first = t.injected_state.begin()->second;
      const bool messages_only =
          (t.injected_state.size() == 1 && first == options_.messages_key) || first.empty();
      if (!messages_only) {
        std::string fields;
        for (const auto& [arg, field] : t.injected_state)
          if (!field.empty()) fields += (fields.empty() ? "" : ", ") + field;
        invalid_input("tool '" + t.name + "' requires graph state dict as input." +
                      (fields.empty() ? "" : " State should contain fields " + fields + "."));
      }
      state = value(object{{options_.messages_key, state}});
    }
    for (const auto& [arg, field] : t.injected_state) {
      if (field.empty()) {
        injected.set(arg, state);
      } else if (const value* v = state.is_object() ? state.find(field) : nullptr) {
        injected.set(arg, *v);
      } else {
        invalid_input("tool '" + t.name + "' reads state key '" + field + "' (argument '" + arg +
                      "'), which the state lacks");
      }
    }
  }
  if (t.injected_store && !runtime.store())
    invalid_input("cannot inject the store into tool '" + t.name +
                  "': compile the graph with a store");

  // The model's arguments without any it sent for injected ones (it must not forge them): the
  // tool's input as the `tools` stream shows it (LangChain's filtered tool input).
  object args;
  if (call.args.is_object())
    for (const auto& [k, v] : call.args.as_object()) {
      const bool hidden =
          t.injected_state.count(k) ||
          std::find(t.injected_args.begin(), t.injected_args.end(), k) != t.injected_args.end();
      if (!hidden) args.set(k, v);
    }
  const call_events events(runtime, call);
  events.started(t.name, value(args));
  try {
    value response;
    try {
      if (std::vector<std::string> problems = detail::check_arguments(t.parameters, value(args));
          !problems.empty())
        throw tool_invocation_error(t.name, call.args, std::move(problems));
      for (const auto& [k, v] : injected) args.set(k, v);
      try {
        const in_call writer(runtime.in_call_);
        response = t.function(value(std::move(args)), runtime);
      } catch (const tool_exception&) {
        if (!t.handle_tool_error) throw;
        value answer = tool_message(*t.handle_tool_error, call.id, call.name, "error");
        events.finished(answer);
        return answer;
      }
    } catch (...) {
      events.failed(std::current_exception());
      throw;
    }
    // The tool's answer as LangChain's tool run ends with it: a tool message, a Command, or
    // a list of them as returned.
    const auto as_answer = [](const value& r) { return as_command(r) || is_tool_message(r); };
    const bool answers =
        as_answer(response) ||
        (response.is_list() && !response.as_list().empty() &&
         std::all_of(response.as_list().begin(), response.as_list().end(), as_answer));
    events.finished(answers ? response : tool_message(content_of(response), call.id, call.name));
    return normalize(response, call, input_type);
  } catch (...) {
    const std::exception_ptr e = std::current_exception();
    if (bubbles_up(e) || !options_.handle_tool_errors) throw;
    std::optional<std::string> content = options_.handle_tool_errors(e, call);
    if (!content) throw;
    return tool_message(*content, call.id, call.name, "error");
  }
}

value tool_node::normalize(const value& response, const tool_call& call,
                           const std::string& input_type) const {
  if (as_command(response)) return validate_command(response, call, input_type, true);
  if (is_tool_message(response)) return with_content(response);
  if (response.is_list() && !response.as_list().empty() &&
      std::all_of(response.as_list().begin(), response.as_list().end(),
                  [](const value& r) { return as_command(r) || is_tool_message(r); })) {
    // Exactly one message answering the call, alone or in a Command's update.
    std::size_t terminators = 0;
    for (const value& item : response.as_list()) {
      if (is_tool_message(item)) {
        terminators += item.get("tool_call_id") == value(call.id);
      } else if (const std::optional<command> cmd = as_command(item); cmd->update.is_object()) {
        for (const value& m : to_messages(cmd->update.get(options_.messages_key)))
          terminators += is_tool_message(m) && m.get("tool_call_id") == value(call.id);
      }
    }
    if (terminators != 1)
      invalid_answer("Tool " + call.name + " returned a list with " + std::to_string(terminators) +
                     " messages bound to tool_call_id '" + call.id +
                     "'; expected exactly one terminating ToolMessage.");
    list out;
    for (const value& item : response.as_list())
      out.push_back(as_command(item) ? validate_command(item, call, input_type, false)
                                     : with_content(item));
    return value(std::move(out));
  }
  return tool_message(content_of(response), call.id, call.name);
}

value tool_node::validate_command(const value& command_value, const tool_call& call,
                                  const std::string& input_type, bool require_terminator) const {
  command cmd = *as_command(command_value);
  list messages;
  if (cmd.update.is_object()) {
    if (input_type != "dict" && input_type != "tool_calls")
      invalid_answer("Tools can provide a dict in Command.update only when using dict with '" +
                     options_.messages_key + "' key as ToolNode input, got: " +
                     cmd.update.to_json() + " for tool '" + call.name + "'");
    messages = to_messages(cmd.update.get(options_.messages_key));
  } else if (cmd.update.is_list()) {
    if (input_type != "list")
      invalid_answer(
          "Tools can provide a list of messages in Command.update only when using list of "
          "messages as ToolNode input, got: " +
          cmd.update.to_json() + " for tool '" + call.name + "'");
    messages = to_messages(cmd.update);
  } else {
    return command_value;
  }
  if (messages.size() == 1 && message_type(messages[0]) == "remove" &&
      messages[0].get("id") == value(remove_all_messages_id))
    return command_value;
  bool answered = false;
  for (value& m : messages) {
    if (!is_tool_message(m) || m.get("tool_call_id") != value(call.id)) continue;
    object named = m.as_object();
    named.set("name", call.name);
    m = value(std::move(named));
    answered = true;
  }
  if (require_terminator && cmd.graph.empty() && !answered) {
    const std::string example =
        input_type == "dict"
            ? "`Command(update={\"" + options_.messages_key +
                  "\": [ToolMessage(\"Success\", tool_call_id=tool_call_id), ...]}, ...)`"
            : "`Command(update=[ToolMessage(\"Success\", tool_call_id=tool_call_id), ...], ...)`";
    invalid_answer("Expected to have a matching ToolMessage in Command.update for tool '" +
                   call.name + "', got: " + value(messages).to_json() +
                   ". Every tool call (LLM requesting to call a tool) in the message history "
                   "MUST have a corresponding ToolMessage. You can fix it by modifying the tool "
                   "to return " +
                   example + ".");
  }
  if (cmd.update.is_object()) {
    object update = cmd.update.as_object();
    if (update.contains(options_.messages_key)) update.set(options_.messages_key, value(messages));
    cmd.update = value(std::move(update));
  } else {
    cmd.update = value(std::move(messages));
  }
  return make_command(cmd);
}

value tool_node::combine(const std::vector<value>& outputs, const std::string& input_type) const {
  list flat;
  for (const value& o : outputs) {
    if (o.is_list()) {
      for (const value& item : o.as_list()) flat.push_back(item);
    } else {
      flat.push_back(o);
    }
  }
  const bool any_command = std::any_of(flat.begin(), flat.end(),
                                       [](const value& o) { return as_command(o).has_value(); });
  if (!any_command) {
    if (input_type == "list") return value(std::move(flat));
    return object{{options_.messages_key, value(std::move(flat))}};
  }
  list combined;
  std::optional<command> parent;
  for (const value& o : flat) {
    if (auto cmd = as_command(o)) {
      const bool sends_only = cmd->graph == command::parent && !cmd->go_to.empty() &&
                              std::all_of(cmd->go_to.begin(), cmd->go_to.end(),
                                          [](const value& g) { return as_send(g).has_value(); });
      if (!sends_only) {
        combined.push_back(o);
      } else if (parent) {
        parent->go_to.insert(parent->go_to.end(), cmd->go_to.begin(), cmd->go_to.end());
      } else {
        parent = command{};
        parent->graph = command::parent;
        parent->go_to = cmd->go_to;
      }
    } else if (input_type == "list") {
      combined.push_back(value(list{o}));
    } else {
      combined.push_back(object{{options_.messages_key, list{o}}});
    }
  }
  if (parent) combined.push_back(make_command(*parent));
  return value(std::move(combined));
}

std::string tools_condition(const value& state, const std::string& messages_key) {
  const value* last = nullptr;
  if (state.is_list() && !state.as_list().empty()) {
    last = &state.as_list().back();
  } else if (const value& m = state.get(messages_key); m.is_list() && !m.as_list().empty()) {
    last = &m.as_list().back();
  }
  if (!last)
    throw error(error_code::invalid_argument,
                "tools_condition: no messages found in input state under '" + messages_key +
                    "': " + state.to_json().substr(0, 300));
  if (is_ai_message(*last) && !tool_calls_of(*last).empty()) return "tools";
  return std::string(END);
}

router_function tools_condition_router(std::string messages_key) {
  return [messages_key = std::move(messages_key)](const value& state, node_context&) -> value {
    return value(tools_condition(state, messages_key));
  };
}

}  // namespace superstep::agents
