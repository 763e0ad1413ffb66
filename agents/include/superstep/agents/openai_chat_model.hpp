#pragma once

// A chat model speaking the OpenAI chat-completions protocol over HTTP (OpenAI itself, or any
// compatible server: vLLM, llama.cpp, Ollama, LiteLLM, ...).

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "superstep/agents/chat_model.hpp"
#include "superstep/core/key_source.hpp"

namespace superstep::agents {

/// Where and how `make_openai_chat_model` calls the server.
struct openai_chat_options {
  /// The API's base; requests go to base_url + "/chat/completions". http or https.
  std::string base_url = "https://api.openai.com/v1";
  /// The request's "model".
  std::string model;
  /// The API key; nullopt: the key `keys` has by the name `key_env`, asked when the model is
  /// made. The caller supplies the key: this library reads no environment variable (the
  /// `superstep` program passes `keys` reading its environment).
  std::optional<std::string> api_key;
  /// The name of the key in `keys` (an environment variable's, for the program). No such key,
  /// or an empty one: no key is sent (servers on a private network often need none). Empty
  /// name: no key.
  std::string key_env = "OPENAI_API_KEY";
  /// Where the key named `key_env` is found (none: no key by name).
  key_source keys;
  /// The time limit of one attempt, connecting and the whole answer included.
  std::chrono::milliseconds timeout{60000};
  /// Attempts after the first on HTTP 408, 409, 429, 5xx, a connection that fails or an
  /// attempt past `timeout` (never once a streamed answer has started).
  int max_retries = 2;
  /// The wait before the n-th retry: initial_backoff * 2^(n-1), at most max_backoff; a
  /// Retry-After header of the answer (seconds) replaces it, also at most max_backoff.
  std::chrono::milliseconds initial_backoff{500};
  std::chrono::milliseconds max_backoff{8000};
  /// Ask for token counts when streaming ("stream_options": {"include_usage": true}); some
  /// servers refuse the field.
  bool stream_usage = true;
  /// Fields added to every request ("temperature", "seed", ...), an object (null: none).
  value extra;
};

/// A chat model that POSTs {"model", "messages" (to_openai_messages), "tools"?,
/// "tool_choice"?, "response_format"?, "stream"?} to base_url/chat/completions, with
/// "Authorization: Bearer KEY" when it has a key, and reads choices[0].message (or the
/// server-sent events of a streamed answer: content deltas, tool-call argument deltas by index,
/// and the usage chunk) into an AI message whose id is the completion's id.
///
/// Throws `superstep::error` (invalid_argument) when made with bad options (empty base_url or
/// model, timeout not positive, negative retries). Calls throw `superstep::error` naming the
/// endpoint and model and what went wrong, never the key:
///  - unavailable: the server cannot be reached, gives no answer within the timeout, or
///    answers 408/409/429/5xx, after the retries (the message says how many attempts);
///  - unauthorized: HTTP 401 or 403;
///  - invalid_argument: any other status but 200, with the status and the server's error
///    message (OpenAI's {"error": {"message"}}), or the start of its body;
///  - protocol_error: an answer that is not JSON, has no choices[0].message, or a malformed
///    event stream.
/// Safe to call from several threads; idle connections are kept for the next call.
std::shared_ptr<const chat_model> make_openai_chat_model(openai_chat_options options);

}  // namespace superstep::agents
