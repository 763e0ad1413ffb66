#pragma once

// An embedder that calls an OpenAI-compatible HTTP embeddings endpoint (OpenAI itself, or a
// server speaking its API: vLLM, llama.cpp, Ollama, LiteLLM, ...).

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>

#include "superstep/core/key_source.hpp"
#include "superstep/storage/embedder.hpp"

namespace superstep::storage {

/// Where and how `make_openai_embedder` asks for embeddings.
struct openai_embedder_options {
  /// The endpoint; http or https.
  std::string url = "https://api.openai.com/v1/embeddings";
  /// The request's "model".
  std::string model = "text-embedding-3-small";
  /// The length every vector must have; 0: not checked here (the store checks its own dims).
  std::size_t dims = 0;
  /// Ask for `dims` in the request ("dimensions": text-embedding-3 models shorten their
  /// vectors on request; older models and many servers refuse the field). Needs `dims`.
  bool send_dims = false;
  /// The API key; nullopt: the key `keys` has by name (key_env), asked when the embedder is
  /// made. The caller supplies the key: this library reads no environment variable (the
  /// `superstep` program passes `keys` reading its environment).
  std::optional<std::string> api_key;
  /// The name of the key in `keys` (an environment variable's, for the program). Empty:
  /// SUPERSTEP_EMBEDDINGS_KEY, or else OPENAI_API_KEY, or else no key (servers on a private
  /// network often need none). Named: `keys` must have that key, not empty.
  std::string key_env;
  /// Where keys are found by name (none: no key by name).
  key_source keys;
  /// Texts per request: more texts are sent in several requests, in order.
  std::size_t batch = 256;
  /// The time limit of one request, connecting included.
  std::chrono::milliseconds timeout{30000};
};

/// An embedder that POSTs {"model": M, "input": [texts...]} (and "dimensions": N with
/// `send_dims`) as JSON to `url`, with "Authorization: Bearer KEY" when it has a key, and
/// returns `data[i].embedding` ordered by `data[i].index`.
///
/// Throws `superstep::error` with invalid_argument when made with bad options (empty url or
/// model, batch or timeout 0, send_dims without dims, a named key_env that `keys` lacks).
/// Calls throw `superstep::error` naming the endpoint and what went wrong, never the key:
///  - unavailable: the endpoint cannot be reached (connection refused, no such host, no
///    answer within the timeout), or answered HTTP 408, 429 or 5xx;
///  - unauthorized: HTTP 401 or 403;
///  - invalid_argument: any other status but 200 (each with the status and the server's
///    error message, or the start of its body), or a vector whose length is not `dims`;
///  - protocol_error: a body that is not JSON, or without one embedding of numbers per text.
///
/// The embedder may be called from several threads at once; idle connections are kept for
/// the next call. Proxies follow libcurl's environment variables (https_proxy, no_proxy).
embed_fn make_openai_embedder(openai_embedder_options options);

}  // namespace superstep::storage
