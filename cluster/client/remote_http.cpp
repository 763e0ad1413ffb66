// remote_graph over the LangGraph Server HTTP API (client/remote_http.hpp): the calls as
// LangGraph's RemoteGraph makes them, the events of runs as the head's lines, and the API's
// answers as superstep's values.
#include "client/remote_http.hpp"

#include <cctype>

#include "client/remote_graph_values.hpp"
#include "superstep/cluster/remote_graph.hpp"

namespace superstep::remote_detail {

namespace {

// A path segment with what is not unreserved percent-encoded (RFC 3986).
std::string escape(const std::string& segment) {
  static const char hex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : segment) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

std::string lowercase(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

error error_of_event(const value& data) {
  if (data.is_string()) return error(error_code::node_error, data.as_string());
  const std::string kind = string_at(data, "error");
  std::string message = string_at(data, "message");
  if (message.empty()) message = kind.empty() ? data.to_json() : kind;
  // The classes LangGraph Server names (and `superstep serve` gives our codes).
  static const std::pair<std::string_view, error_code> classes[] = {
      {"GraphRecursionError", error_code::graph_recursion},
      {"InvalidUpdateError", error_code::invalid_update},
      {"EmptyChannelError", error_code::empty_channel},
      {"NodeTimeoutError", error_code::node_timeout},
      {"TimeoutError", error_code::step_timeout},
      {"CancelledError", error_code::cancelled},
      {"ValueError", error_code::invalid_argument},
  };
  for (const auto& [name, code] : classes)
    if (kind == name) return error(code, message);
  return error(error_code::node_error, message);
}

namespace {

checkpoint_config checkpoint_of(const value& c) {
  return checkpoint_config{string_at(c, "thread_id"), string_at(c, "checkpoint_ns"),
                           string_at(c, "checkpoint_id")};
}

}  // namespace

state_snapshot snapshot_of_thread_state(const value& v, const std::string& thread) {
  if (!v.is_object())
    throw error(error_code::protocol_error, "the server sent a state that is not an object");
  state_snapshot s;
  s.values = v.get("values");
  if (v.get("next").is_list())
    for (const auto& n : v.get("next").as_list())
      if (n.is_string()) s.next.push_back(n.as_string());
  const value& cp = v.get("checkpoint");
  s.config = cp.is_object() ? checkpoint_of(cp) : checkpoint_config{thread, "", ""};
  if (s.config.thread_id.empty()) s.config.thread_id = thread;
  s.metadata = v.get("metadata");
  s.created_at = string_at(v, "created_at");
  if (v.get("parent_checkpoint").is_object())
    s.parent_config = checkpoint_of(v.get("parent_checkpoint"));
  if (v.get("tasks").is_list())
    for (const auto& t : v.get("tasks").as_list()) {
      snapshot_task task;
      task.id = string_at(t, "id");
      task.name = string_at(t, "name");
      if (t.get("error").is_string()) task.error = t.get("error").as_string();
      if (t.get("interrupts").is_list()) task.interrupts = t.get("interrupts").as_list();
      task.result = t.get("result");
      if (t.get("state").is_object())
        task.state = std::make_shared<const state_snapshot>(
            snapshot_of_thread_state(t.get("state"), thread));
      else if (t.get("checkpoint").is_object())
        task.state_config = checkpoint_of(t.get("checkpoint"));
      s.tasks.push_back(std::move(task));
    }
  return s;
}

http_api::http_api(std::string graph_id, const remote_graph_options& options)
    : graph_id_(std::move(graph_id)),
      url_(options.url),
      connect_timeout_(options.connect_timeout),
      answer_timeout_(options.answer_timeout) {
  const std::size_t scheme = url_.find("://");
  const std::string kind = scheme == std::string::npos ? "" : lowercase(url_.substr(0, scheme));
  if ((kind != "http" && kind != "https") || scheme + 3 >= url_.size() || url_[scheme + 3] == '/' ||
      url_.find_first_of(" \t\r\n") != std::string::npos)
    throw error(error_code::invalid_argument,
                "remote_graph: the url is http://HOST[:PORT] or https://HOST[:PORT], not '" +
                    options.url + "'");
  while (url_.back() == '/') url_.pop_back();
  if (!options.key_file.empty() || options.tls || !options.tls_cert.empty() ||
      !options.tls_key.empty() || !options.tls_ca.empty())
    throw error(error_code::invalid_argument,
                "remote_graph: key_file and the tls options are a head's; a server at a url "
                "takes https:// (checked against the system's authorities) and api_key");
  if (options.api_key.find_first_of("\r\n") != std::string::npos)
    throw error(error_code::invalid_argument, "remote_graph: an api_key with a line break");
  for (const auto& [name, v] : options.headers)
    if ((name + v).find_first_of("\r\n") != std::string::npos)
      throw error(error_code::invalid_argument,
                  "remote_graph: the header '" + name + "' has a line break");
  // The SDK's: x-api-key from the key, then the headers given (which win).
  if (!options.api_key.empty()) headers_["x-api-key"] = options.api_key;
  for (const auto& [name, v] : options.headers) headers_[lowercase(name)] = v;
}

std::vector<std::string> http_api::header_lines(const net::header_map& extra) const {
  net::header_map all = headers_;
  for (const auto& [name, v] : extra) all[lowercase(name)] = v;
  std::vector<std::string> lines{"Content-Type: application/json",
                                 "Expect:", "User-Agent: superstep"};
  // "Name;" is libcurl's way to send a header without a value ("Name:" would drop it).
  for (const auto& [name, v] : all) lines.push_back(v.empty() ? name + ";" : name + ": " + v);
  return lines;
}

namespace {

std::vector<std::string> split_event_name(const std::string& name) {
  std::vector<std::string> parts;
  for (std::size_t start = 0;;) {
    const std::size_t bar = name.find('|', start);
    parts.push_back(name.substr(start, bar == std::string::npos ? bar : bar - start));
    if (bar == std::string::npos) return parts;
    start = bar + 1;
  }
}

bool is_stream_mode(const std::string& name) {
  for (int m = 0; m <= static_cast<int>(last_stream_mode); ++m)
    if (stream_mode_name(static_cast<stream_mode>(m)) == name) return true;
  return false;
}

}  // namespace

value http_api::call(const char* method, const std::string& path, const value* body) const {
  std::string text;
  if (body) text = body->to_json();
  const http_answer a =
      http_exchange(handles_, method, url_ + path, body ? &text : nullptr, header_lines({}),
                    connect_timeout_, answer_timeout_, nullptr, nullptr);
  check_answer(a, url_, std::string(method) + " " + path, answer_timeout_);
  if (a.body.find_first_not_of(" \t\r\n") == std::string::npos) return value();
  try {
    return value::parse_json(a.body);
  } catch (const error& e) {
    throw error(error_code::protocol_error, "the server at " + url_ + " answered " + method + " " +
                                                path + " with what is not JSON: " + e.what());
  }
}

http_run_request http_api::run_request(const net::run_args& a, const std::string& thread,
                                       net::header_map headers) const {
  http_run_request r;
  r.thread = thread;
  r.path = thread.empty() ? "/runs/stream" : "/threads/" + escape(thread) + "/runs/stream";
  r.headers = std::move(headers);
  object body;
  body.set("assistant_id", graph_id_);
  if (a.input) body.set("input", *a.input);
  if (a.resume || a.update) {
    object command;
    if (a.resume) command.set("resume", *a.resume);
    if (a.update) command.set("update", *a.update);
    body.set("command", value(std::move(command)));
  }
  body.set("config", a.config.is_object() ? a.config : value(object{}));
  if (!a.context.is_null()) body.set("context", a.context);
  // The API's names (LangGraph's _get_stream_modes: messages as messages-tuple), and values
  // always: the run's output is its last values.
  list modes;
  bool values = false;
  for (stream_mode m : a.modes) {
    values = values || m == stream_mode::values;
    modes.push_back(m == stream_mode::messages ? std::string("messages-tuple")
                                               : std::string(stream_mode_name(m)));
  }
  if (!values) modes.push_back("values");
  body.set("stream_mode", value(std::move(modes)));
  body.set("stream_subgraphs", a.subgraphs);
  for (const auto& [key, nodes] : {std::pair{"interrupt_before", &a.interrupt_before},
                                   {"interrupt_after", &a.interrupt_after}})
    if (*nodes) {
      list names;
      for (const auto& n : **nodes) names.push_back(n);
      body.set(key, value(std::move(names)));
    }
  if (!thread.empty()) body.set("if_not_exists", "create");
  r.body = value(std::move(body));
  return r;
}

void http_api::stream_run(const http_run_request& request,
                          const std::function<void(value)>& on_line,
                          const std::function<void(const std::string&)>& on_run_id,
                          transfer_stop* stop) const {
  const std::string body = request.body.to_json();
  std::vector<std::string> lines = header_lines(request.headers);
  lines.push_back("Accept: text/event-stream");
  value last_values;
  list interrupts;
  bool interrupted = false;
  bool ended = false;
  sse_parser parser([&](sse_event ev) {
    if (ended) return;
    value data;
    if (!ev.data.empty()) try {
        data = value::parse_json(ev.data);
      } catch (const error& e) {
        throw error(error_code::protocol_error, "the server at " + url_ + " sent an event '" +
                                                    ev.event + "' that is not JSON: " + e.what());
      }
    if (ev.event == "metadata") {
      if (on_run_id && data.get("run_id").is_string()) on_run_id(data.get("run_id").as_string());
      return;
    }
    if (ev.event == "error") throw error_of_event(data);
    if (ev.event == "end") {
      ended = true;
      return;
    }
    // "mode" at the top level, "mode|ns1|ns2" inside subgraphs; other events are not ours.
    std::vector<std::string> parts = split_event_name(ev.event);
    if (!is_stream_mode(parts.front())) return;
    list ns(parts.begin() + 1, parts.end());
    if (ns.empty() && parts.front() == "values") last_values = data;
    if (ns.empty() && parts.front() == "updates" && data.is_object())
      if (const value* ints = data.find("__interrupt__")) {
        interrupted = true;
        if (ints->is_list())
          for (const auto& i : ints->as_list()) interrupts.push_back(i);
      }
    on_line(value(object{{"type", parts.front()}, {"ns", value(std::move(ns))}, {"data", data}}));
  });
  const std::function<void(std::string_view)> on_data = [&](std::string_view b) { parser.feed(b); };
  const http_answer a =
      http_exchange(handles_, "POST", url_ + request.path, &body, lines, connect_timeout_,
                    std::chrono::milliseconds(0), &on_data, stop);
  if (stop && stop->stopped()) return;
  check_answer(a, url_, "POST " + request.path, std::chrono::milliseconds(0));
  parser.finish();
  on_line(value(object{{"type", interrupted ? "interrupt" : "output"},
                       {"data", last_values},
                       {"interrupts", value(std::move(interrupts))}}));
}

state_snapshot http_api::get_state(const std::string& thread, const std::string& checkpoint_id,
                                   bool subgraphs) const {
  std::string path = "/threads/" + escape(thread) + "/state";
  if (!checkpoint_id.empty()) path += "/" + escape(checkpoint_id);
  if (subgraphs) path += "?subgraphs=true";
  return snapshot_of_thread_state(call("GET", path, nullptr), thread);
}

std::vector<state_snapshot> http_api::get_state_history(const std::string& thread,
                                                        const list_options& options) const {
  object body;
  body.set("limit", static_cast<std::int64_t>(options.limit ? *options.limit : 10));
  if (options.before && !options.before->checkpoint_id.empty())
    body.set("before", options.before->checkpoint_id);
  if (!options.filter.empty()) body.set("metadata", value(options.filter));
  const value b(std::move(body));
  const std::string path = "/threads/" + escape(thread) + "/history";
  const value states = call("POST", path, &b);
  if (!states.is_list())
    throw error(error_code::protocol_error,
                "the server at " + url_ + " answered POST " + path + " with what is not a list");
  std::vector<state_snapshot> out;
  for (const auto& s : states.as_list()) out.push_back(snapshot_of_thread_state(s, thread));
  return out;
}

checkpoint_config http_api::update_state(const std::string& thread,
                                         const std::string& checkpoint_id, const value& values,
                                         const std::optional<std::string>& as_node) const {
  object body;
  body.set("values", values);
  if (as_node) body.set("as_node", *as_node);
  if (!checkpoint_id.empty()) body.set("checkpoint_id", checkpoint_id);
  const value b(std::move(body));
  const std::string path = "/threads/" + escape(thread) + "/state";
  const value answer = call("POST", path, &b);
  if (!answer.get("checkpoint").is_object())
    throw error(error_code::protocol_error,
                "the server at " + url_ + " answered POST " + path + " without a checkpoint");
  checkpoint_config c = checkpoint_of(answer.get("checkpoint"));
  if (c.thread_id.empty()) c.thread_id = thread;
  return c;
}

graph_description http_api::get_graph(int xray) const {
  std::string path = "/assistants/" + escape(graph_id_) + "/graph";
  if (xray > 0) path += "?xray=" + std::to_string(xray);
  return description_of(call("GET", path, nullptr));
}

void http_api::cancel(const std::string& thread, const std::string& run_id, bool wait) const {
  (void)call("POST",
             "/threads/" + escape(thread) + "/runs/" + escape(run_id) +
                 "/cancel?wait=" + (wait ? "1" : "0") + "&action=interrupt",
             nullptr);
}

}  // namespace superstep::remote_detail
