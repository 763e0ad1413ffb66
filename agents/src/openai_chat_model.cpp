// The OpenAI-compatible chat model (openai_chat_model.hpp): requests, answers, event streams
// and retries. The transfer itself is http_post.cpp's.
#include "superstep/agents/openai_chat_model.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <thread>
#include <utility>

#include "http_post.hpp"
#include "superstep/agents/messages.hpp"
#include "superstep/core/error.hpp"

namespace superstep::agents {

namespace {

constexpr std::size_t shown_body_chars = 300;

// The message of an error body: OpenAI's {"error": {"message"}}, {"error": "..."},
// {"message"} or {"detail"} of other servers, or else the start of the body.
std::string error_detail(const std::string& body) {
  try {
    const value doc = value::parse_json(body);
    const value& e = doc.get("error");
    for (const value* m : {&e.get("message"), &e, &doc.get("message"), &doc.get("detail")})
      if (m->is_string() && !m->as_string().empty()) return m->as_string();
  } catch (const error&) {
    // not JSON: show the text itself
  }
  if (body.empty()) return "(empty body)";
  std::string shown = body.substr(0, shown_body_chars);
  for (char& ch : shown)
    if (static_cast<unsigned char>(ch) < 0x20) ch = ' ';
  return body.size() > shown_body_chars ? shown + "..." : shown;
}

bool retryable_status(long status) {
  return status == 408 || status == 409 || status == 429 || status >= 500;
}

// An assembled streamed answer: content and tool calls by index, as LangChain adds chunks.
struct stream_assembly {
  std::string id;
  bool id_from_server = false;
  std::string content;
  struct call {
    std::string id, name, arguments;
  };
  std::map<std::int64_t, call> calls;
  value usage;
  value finish_reason;
  std::string model_name;
  std::size_t events = 0;  // data events read
};

value usage_of(const value& usage) {
  if (!usage.is_object()) return value();
  const auto count = [&](std::string_view k) {
    const value& v = usage.get(k);
    return v.is_int() ? v.as_int() : std::int64_t(0);
  };
  usage_metadata u{count("prompt_tokens"), count("completion_tokens"), count("total_tokens")};
  if (u.total_tokens == 0) u.total_tokens = u.input_tokens + u.output_tokens;
  return u.to_value();
}

class openai_chat_model final : public chat_model {
 public:
  explicit openai_chat_model(openai_chat_options o) : o_(std::move(o)) {
    const auto invalid = [](const std::string& why) {
      throw error(error_code::invalid_argument, "openai chat model: " + why);
    };
    if (o_.base_url.empty()) invalid("the base_url is empty");
    if (o_.model.empty()) invalid("the model is empty");
    if (o_.timeout.count() <= 0) invalid("the timeout must be positive");
    if (o_.max_retries < 0) invalid("max_retries must not be negative");
    if (!o_.extra.is_null() && !o_.extra.is_object()) invalid("extra must be an object");
    while (o_.base_url.size() > 1 && o_.base_url.back() == '/') o_.base_url.pop_back();
    url_ = o_.base_url + "/chat/completions";
    if (o_.api_key) {
      key_ = *o_.api_key;
    } else if (!o_.key_env.empty() && o_.keys) {
      if (auto k = o_.keys(o_.key_env)) key_ = std::move(*k);
    }
    where_ = "openai chat model (" + o_.base_url + ", model " + o_.model + ")";
  }

  std::string describe() const override { return where_; }

 protected:
  value generate(const list& messages, const chat_options& options) const override {
    const std::string body = request(messages, options, false).to_json();
    return completion_message(post_with_retries(body, nullptr).body);
  }

  value generate_stream(const list& messages, const chat_options& options,
                        const chunk_callback& on_chunk) const override {
    const std::string body = request(messages, options, true).to_json();
    stream_assembly all;
    all.id = "run-" + detail::random_uuid();
    std::string pending;   // bytes of an event not yet complete
    std::size_t scan = 0;  // no event of `pending` ends before this: each byte is scanned once
    std::string raw;       // the answer's start, until an event shows it is a stream
    bool done = false;
    const auto on_data = [&](std::string_view data) {
      if (all.events == 0 && raw.size() < (std::size_t(1) << 20)) raw.append(data);
      pending.reserve(pending.size() + data.size());
      for (char c : data)
        if (c != '\r') pending += c;  // events may end in CRLF pairs
      std::size_t begin = 0;
      for (std::size_t end;
           (end = pending.find("\n\n", std::max(scan, begin))) != std::string::npos;) {
        if (!done)
          read_event(std::string_view(pending).substr(begin, end - begin), all, on_chunk, done);
        begin = end + 2;
      }
      pending.erase(0, begin);  // once per piece received, not once per event
      scan = pending.empty() ? 0 : pending.size() - 1;  // a '\n' may end it, the next one's start
    };
    post_with_retries(body, on_data);
    if (!pending.empty() && !done && all.events > 0) {
      std::string event = std::move(pending);
      read_event(event, all, on_chunk, done);
    }
    if (all.events == 0) {
      // A server that does not stream answers the request whole.
      if (raw.find("\"choices\"") == std::string::npos)
        fail(error_code::protocol_error,
             "the streamed answer holds no server-sent events: " + error_detail(raw));
      value message = completion_message(raw);
      if (on_chunk) {
        object chunk = message.as_object();
        chunk.set("type", "AIMessageChunk");
        on_chunk(value(std::move(chunk)));
      }
      return message;
    }
    return assembled(all);
  }

 private:
  [[noreturn]] void fail(error_code code, const std::string& why) const {
    std::string message = where_ + ": " + why;
    // A server may quote the key it refused; it is never shown.
    if (!key_.empty())
      for (auto at = message.find(key_); at != std::string::npos; at = message.find(key_, at))
        message.replace(at, key_.size(), "***");
    throw error(code, message);
  }

  // The AI message of a whole (not streamed) completion.
  value completion_message(const std::string& body) const {
    value doc;
    try {
      doc = value::parse_json(body);
    } catch (const error& e) {
      fail(error_code::protocol_error, std::string("the answer is not JSON: ") + e.what());
    }
    static const value none;
    const value& choice = doc.get("choices").is_list() && !doc.get("choices").as_list().empty()
                              ? doc.get("choices").as_list()[0]
                              : none;
    if (!choice.get("message").is_object())
      fail(error_code::protocol_error,
           "the answer has no choices[0].message: " + error_detail(body));
    value message;
    try {
      message = from_openai_message(choice.get("message"));
    } catch (const error& e) {
      fail(error_code::protocol_error, std::string("choices[0].message: ") + e.what());
    }
    object m = message.as_object();
    if (doc.get("id").is_string()) m.set("id", doc.get("id"));
    if (value u = usage_of(doc.get("usage")); !u.is_null()) m.set("usage_metadata", u);
    m.set(
        "response_metadata",
        object{{"finish_reason", choice.get("finish_reason")},
               {"model_name", doc.get("model").is_string() ? doc.get("model") : value(o_.model)}});
    return value(std::move(m));
  }

  value request(const list& messages, const chat_options& options, bool stream) const {
    object r{{"model", o_.model}, {"messages", to_openai_messages(messages)}};
    if (!options.tools.empty()) {
      list tools;
      for (const tool_spec& t : options.tools) tools.push_back(t.to_openai());
      r.set("tools", value(std::move(tools)));
    }
    if (const value& choice = options.tool_choice; !choice.is_null()) {
      if (!choice.is_string())
        fail(error_code::invalid_argument, "tool_choice must be a string, got " + choice.to_json());
      const std::string& c = choice.as_string();
      if (c == "auto" || c == "none" || c == "required") {
        r.set("tool_choice", c);
      } else if (c == "any") {
        r.set("tool_choice", "required");
      } else {
        const bool known = std::any_of(options.tools.begin(), options.tools.end(),
                                       [&](const tool_spec& t) { return t.name == c; });
        if (!known)
          fail(error_code::invalid_argument,
               "tool_choice '" + c + "' is not auto, none, required, any or a bound tool");
        r.set("tool_choice", object{{"type", "function"}, {"function", object{{"name", c}}}});
      }
    }
    if (options.response_format)
      r.set("response_format",
            object{{"type", "json_schema"},
                   {"json_schema", object{{"name", options.response_format->name},
                                          {"schema", options.response_format->schema},
                                          {"strict", options.response_format->strict}}}});
    if (stream) {
      r.set("stream", true);
      if (o_.stream_usage) r.set("stream_options", object{{"include_usage", true}});
    }
    for (const value* extra : {&o_.extra, &options.extra})
      if (extra->is_object())
        for (const auto& [k, v] : extra->as_object()) r.set(k, v);
    return value(std::move(r));
  }

  // POSTs `body`, retrying as the options say. With `on_data`, a 200 answer's bytes go to it as
  // they arrive (the returned body is then empty) and no retry follows once some have.
  detail::http_answer post_with_retries(
      const std::string& body, const std::function<void(std::string_view)>& on_data) const {
    std::vector<std::string> headers{"Content-Type: application/json"};
    if (!key_.empty()) headers.push_back("Authorization: Bearer " + key_);
    const int attempts = o_.max_retries + 1;
    for (int attempt = 1;; ++attempt) {
      detail::http_answer answer =
          detail::http_post(pool_, url_, headers, body, o_.timeout, on_data);
      const bool last = attempt == attempts;
      const std::string tries =
          attempt > 1 ? " (after " + std::to_string(attempt) + " attempts)" : "";
      if (!answer.transport_error.empty()) {
        if (answer.bad_url)
          fail(error_code::invalid_argument, "bad url: " + answer.transport_error);
        if (last || answer.streamed) fail(error_code::unavailable, answer.transport_error + tries);
      } else if (answer.status == 200) {
        return answer;
      } else if (!retryable_status(answer.status) || last) {
        const error_code code = answer.status == 401 || answer.status == 403
                                    ? error_code::unauthorized
                                : retryable_status(answer.status) ? error_code::unavailable
                                                                  : error_code::invalid_argument;
        fail(code,
             "HTTP " + std::to_string(answer.status) + ": " + error_detail(answer.body) + tries);
      }
      std::chrono::milliseconds wait = o_.initial_backoff * (1LL << std::min(attempt - 1, 20));
      if (answer.retry_after) wait = *answer.retry_after;
      std::this_thread::sleep_for(std::min(wait, o_.max_backoff));
    }
  }

  void read_event(std::string_view event, stream_assembly& all, const chunk_callback& on_chunk,
                  bool& done) const {
    std::string data;
    std::size_t at = 0;
    while (at < event.size()) {
      std::size_t end = event.find('\n', at);
      if (end == std::string::npos) end = event.size();
      std::string_view line(event.data() + at, end - at);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (line.starts_with("data:")) {
        line.remove_prefix(5);
        if (line.starts_with(' ')) line.remove_prefix(1);
        if (!data.empty()) data += '\n';
        data.append(line);
      }
      at = end + 1;
    }
    if (data.empty()) return;  // a comment or keep-alive
    ++all.events;
    if (data == "[DONE]") {
      done = true;
      return;
    }
    value chunk;
    try {
      chunk = value::parse_json(data);
    } catch (const error& e) {
      fail(error_code::protocol_error, std::string("a streamed event is not JSON: ") + e.what());
    }
    if (chunk.get("error").is_object() || chunk.get("error").is_string())
      fail(error_code::unavailable, "the stream ended with an error: " + error_detail(data));
    if (chunk.get("id").is_string() && !all.id_from_server) {
      all.id = chunk.get("id").as_string();
      all.id_from_server = true;
    }
    if (chunk.get("model").is_string()) all.model_name = chunk.get("model").as_string();
    object out{{"type", "AIMessageChunk"}, {"content", ""}, {"id", all.id}};
    bool emit = false;
    if (value u = usage_of(chunk.get("usage")); !u.is_null()) {
      all.usage = u;
      out.set("usage_metadata", u);
      emit = true;
    }
    const value& choices = chunk.get("choices");
    if (choices.is_list() && !choices.as_list().empty()) {
      const value& choice = choices.as_list()[0];
      if (!choice.get("finish_reason").is_null()) all.finish_reason = choice.get("finish_reason");
      const value& delta = choice.get("delta");
      if (delta.get("content").is_string() && !delta.get("content").as_string().empty()) {
        all.content += delta.get("content").as_string();
        out.set("content", delta.get("content"));
        emit = true;
      }
      if (delta.get("tool_calls").is_list()) {
        list call_chunks;
        for (const value& c : delta.get("tool_calls").as_list()) {
          const std::int64_t index = c.get("index").is_int() ? c.get("index").as_int() : 0;
          stream_assembly::call& call = all.calls[index];
          const value& fn = c.get("function");
          if (c.get("id").is_string()) call.id = c.get("id").as_string();
          if (fn.get("name").is_string()) call.name += fn.get("name").as_string();
          if (fn.get("arguments").is_string()) call.arguments += fn.get("arguments").as_string();
          object call_chunk;
          call_chunk.set("name", fn.get("name"));
          call_chunk.set("args", fn.get("arguments"));
          call_chunk.set("id", c.get("id"));
          call_chunk.set("index", index);
          call_chunk.set("type", "tool_call_chunk");
          call_chunks.emplace_back(std::move(call_chunk));
        }
        out.set("tool_call_chunks", value(std::move(call_chunks)));
        emit = true;
      }
    }
    if (emit && on_chunk) on_chunk(value(std::move(out)));
  }

  value assembled(const stream_assembly& all) const {
    list calls;
    for (const auto& [index, c] : all.calls)
      calls.push_back(object{{"id", c.id},
                             {"type", "function"},
                             {"function", object{{"name", c.name}, {"arguments", c.arguments}}}});
    object openai{{"role", "assistant"}, {"content", all.content}};
    if (!calls.empty()) openai.set("tool_calls", value(std::move(calls)));
    object m = from_openai_message(value(std::move(openai))).as_object();
    m.set("id", all.id);
    if (!all.usage.is_null()) m.set("usage_metadata", all.usage);
    m.set("response_metadata",
          object{{"finish_reason", all.finish_reason},
                 {"model_name", all.model_name.empty() ? o_.model : all.model_name}});
    return value(std::move(m));
  }

  openai_chat_options o_;
  std::string url_;
  std::string key_;
  std::string where_;
  mutable detail::handle_pool pool_;
};

}  // namespace

std::shared_ptr<const chat_model> make_openai_chat_model(openai_chat_options options) {
  return std::make_shared<openai_chat_model>(std::move(options));
}

}  // namespace superstep::agents
