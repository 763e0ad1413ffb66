// The embedder of an OpenAI-compatible HTTP endpoint (see embedder_openai.hpp), through
// libcurl.
#include "superstep/storage/embedder_openai.hpp"

#include <curl/curl.h>

#include <cstdlib>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "superstep/core/error.hpp"
#include "superstep/core/value.hpp"

namespace superstep::storage {

namespace {

// A body larger than this is not an answer to a request of at most `batch` texts we can use.
constexpr std::size_t max_body_bytes = std::size_t(256) << 20;
// How much of a body that is not an OpenAI-style error an error message shows.
constexpr std::size_t shown_body_chars = 300;

struct curl_cleanup {
  void operator()(CURL* c) const noexcept { curl_easy_cleanup(c); }
};
using curl_handle = std::unique_ptr<CURL, curl_cleanup>;

struct slist_cleanup {
  void operator()(curl_slist* l) const noexcept { curl_slist_free_all(l); }
};
using header_list = std::unique_ptr<curl_slist, slist_cleanup>;

void init_curl_once() {
  // curl_global_init is not thread-safe on every libcurl; once per process, before any handle.
  static std::once_flag once;
  std::call_once(once, [] {
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
      throw error(error_code::internal, "openai embedder: libcurl could not be initialized");
  });
}

// Handles between calls. An idle handle keeps its connection open, so consecutive calls skip
// the TCP and TLS handshakes; calls at the same time each take their own.
class handle_pool {
 public:
  curl_handle take() {
    {
      std::lock_guard lock(mutex_);
      if (!idle_.empty()) {
        curl_handle h = std::move(idle_.back());
        idle_.pop_back();
        return h;
      }
    }
    init_curl_once();
    curl_handle h(curl_easy_init());
    if (!h) throw error(error_code::internal, "openai embedder: curl_easy_init failed");
    return h;
  }
  void give_back(curl_handle h) {
    curl_easy_reset(h.get());  // forgets the call's options (pointers into it), keeps connections
    std::lock_guard lock(mutex_);
    if (idle_.size() < max_idle) idle_.push_back(std::move(h));
  }

 private:
  static constexpr std::size_t max_idle = 4;
  std::mutex mutex_;
  std::vector<curl_handle> idle_;
};

struct body_sink {
  std::string text;
  bool too_large = false;
};

std::size_t append_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto* sink = static_cast<body_sink*>(user);
  const std::size_t n = size * count;
  if (sink->text.size() + n > max_body_bytes) {
    sink->too_large = true;
    return 0;  // libcurl stops with CURLE_WRITE_ERROR
  }
  sink->text.append(data, n);
  return n;
}

// The key `keys` has by `name`, or empty.
std::string key_named(const key_source& keys, const std::string& name) {
  if (!keys) return {};
  return keys(name).value_or(std::string());
}

std::string key_by_name(const key_source& keys, const std::string& key_env) {
  if (!key_env.empty()) {
    std::string key = key_named(keys, key_env);
    if (key.empty())
      throw error(error_code::invalid_argument,
                  "openai embedder: the environment variable " + key_env +
                      " (key_env) that should hold the API key is not set");
    return key;
  }
  for (const char* name : {"SUPERSTEP_EMBEDDINGS_KEY", "OPENAI_API_KEY"})
    if (std::string key = key_named(keys, name); !key.empty()) return key;
  return {};
}

class openai_embedder {
 public:
  explicit openai_embedder(openai_embedder_options o) : o_(std::move(o)) {
    const auto invalid = [](const std::string& why) {
      throw error(error_code::invalid_argument, "openai embedder: " + why);
    };
    if (o_.url.empty()) invalid("the url is empty");
    if (o_.model.empty()) invalid("the model is empty");
    if (o_.batch == 0) invalid("batch must be at least 1");
    if (o_.timeout.count() <= 0) invalid("the timeout must be positive");
    if (o_.send_dims && o_.dims == 0) invalid("send_dims needs dims");
    key_ = o_.api_key ? *o_.api_key : key_by_name(o_.keys, o_.key_env);
    where_ = "openai embedder (" + o_.url + ", model " + o_.model + ")";
  }

  std::vector<std::vector<float>> embed(const std::vector<std::string>& texts) {
    std::vector<std::vector<float>> out(texts.size());
    for (std::size_t first = 0; first < texts.size(); first += o_.batch) {
      const std::size_t n = std::min(o_.batch, texts.size() - first);
      list input(texts.begin() + static_cast<std::ptrdiff_t>(first),
                 texts.begin() + static_cast<std::ptrdiff_t>(first + n));
      object request{{"model", o_.model}, {"input", value(std::move(input))}};
      if (o_.send_dims) request.set("dimensions", o_.dims);
      read_vectors(post(value(std::move(request)).to_json()), first, n, out);
    }
    return out;
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

  // The body of a 200 answer to POSTing `body`; throws for anything else.
  std::string post(const std::string& body) {
    // Declared before the handle, so that a handle dropped by an error goes first.
    body_sink sink;
    char detail[CURL_ERROR_SIZE] = {0};
    header_list headers;
    const auto add_header = [&](const std::string& line) {
      curl_slist* l = curl_slist_append(headers.get(), line.c_str());
      if (!l) throw error(error_code::internal, "openai embedder: out of memory");
      static_cast<void>(headers.release());
      headers.reset(l);
    };
    add_header("Content-Type: application/json");
    add_header("Accept: application/json");
    add_header("Expect:");  // no "100-continue" round trip before large bodies
    if (!key_.empty()) add_header("Authorization: Bearer " + key_);

    curl_handle h = pool_.take();
    CURL* c = h.get();
    const long timeout_ms = static_cast<long>(o_.timeout.count());
    curl_easy_setopt(c, CURLOPT_URL, o_.url.c_str());
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, append_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, detail);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);         // timeouts without SIGALRM, safe in threads
    curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");  // any compression libcurl decodes
    curl_easy_setopt(c, CURLOPT_USERAGENT, "superstep");
    const CURLcode done = curl_easy_perform(c);
    long status = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    if (done != CURLE_OK) {
      const std::string why = detail[0] ? detail : curl_easy_strerror(done);
      switch (done) {
        case CURLE_OPERATION_TIMEDOUT:
          fail(error_code::unavailable,
               "no answer within " + std::to_string(timeout_ms) + " ms (" + why + ")");
        case CURLE_COULDNT_CONNECT:
        case CURLE_COULDNT_RESOLVE_HOST:
        case CURLE_COULDNT_RESOLVE_PROXY: fail(error_code::unavailable, "cannot connect: " + why);
        case CURLE_URL_MALFORMAT:
        case CURLE_UNSUPPORTED_PROTOCOL: fail(error_code::invalid_argument, "bad url: " + why);
        case CURLE_WRITE_ERROR:
          if (sink.too_large)
            fail(error_code::protocol_error,
                 "the answer is larger than " + std::to_string(max_body_bytes >> 20) + " MiB");
          [[fallthrough]];
        default: fail(error_code::unavailable, "the request failed: " + why);
      }
    }
    pool_.give_back(std::move(h));  // only a handle that finished cleanly
    if (status != 200) {
      const error_code code = status == 401 || status == 403 ? error_code::unauthorized
                              : status == 408 || status == 429 || status >= 500
                                  ? error_code::unavailable
                                  : error_code::invalid_argument;
      fail(code, "HTTP " + std::to_string(status) + ": " + error_detail(sink.text));
    }
    return std::move(sink.text);
  }

  // The message of an error body: OpenAI's {"error": {"message"}}, {"error": "..."},
  // {"message"} or {"detail"} of other servers, or else the start of the body.
  static std::string error_detail(const std::string& body) {
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

  // Puts the `n` vectors of `body` (the answer for texts first..first+n) into `out`.
  void read_vectors(const std::string& body, std::size_t first, std::size_t n,
                    std::vector<std::vector<float>>& out) const {
    value doc;
    try {
      doc = value::parse_json(body);
    } catch (const error& e) {
      fail(error_code::protocol_error, std::string("the answer is not JSON: ") + e.what());
    }
    const value& data = doc.get("data");
    if (!data.is_list())
      fail(error_code::protocol_error, "the answer has no \"data\" list: " + error_detail(body));
    if (data.as_list().size() != n)
      fail(error_code::protocol_error, "the answer has " + std::to_string(data.as_list().size()) +
                                           " embeddings for " + std::to_string(n) + " texts");
    std::vector<bool> seen(n, false);
    for (std::size_t i = 0; i < n; ++i) {
      const value& entry = data.as_list()[i];
      const std::string at = "data[" + std::to_string(i) + "]";
      // Servers that leave "index" out answer in order.
      const value& index = entry.get("index");
      if (!index.is_null() && !index.is_int())
        fail(error_code::protocol_error, at + ".index is not an integer");
      const std::int64_t k = index.is_int() ? index.as_int() : static_cast<std::int64_t>(i);
      if (k < 0 || static_cast<std::size_t>(k) >= n || seen[static_cast<std::size_t>(k)])
        fail(error_code::protocol_error,
             at + ".index " + std::to_string(k) + " is out of range or repeated");
      seen[static_cast<std::size_t>(k)] = true;
      const value& embedding = entry.get("embedding");
      if (!embedding.is_list())
        fail(error_code::protocol_error, at + ".embedding is not a list of numbers");
      std::vector<float>& vec = out[first + static_cast<std::size_t>(k)];
      vec.reserve(embedding.as_list().size());
      for (const value& x : embedding.as_list()) {
        if (!x.is_number())
          fail(error_code::protocol_error,
               at + ".embedding holds a " + std::string(kind_name(x.kind())) + ", not a number");
        vec.push_back(static_cast<float>(x.as_double()));
      }
      if (o_.dims != 0 && vec.size() != o_.dims)
        fail(error_code::invalid_argument,
             "the vector of text " + std::to_string(first + static_cast<std::size_t>(k)) +
                 " has dimension " + std::to_string(vec.size()) + ", the index expects " +
                 std::to_string(o_.dims) +
                 (o_.send_dims ? ""
                               : " (text-embedding-3 models give fewer when asked: send_dims)"));
    }
  }

  openai_embedder_options o_;
  std::string key_;
  std::string where_;
  handle_pool pool_;
};

}  // namespace

embed_fn make_openai_embedder(openai_embedder_options options) {
  auto e = std::make_shared<openai_embedder>(std::move(options));
  return [e](const std::vector<std::string>& texts) { return e->embed(texts); };
}

}  // namespace superstep::storage
