#include "http_post.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <exception>
#include <random>

#include "superstep/core/error.hpp"

namespace superstep::agents::detail {

namespace {

// An answer larger than this is not a chat completion we can use.
constexpr std::size_t max_body_bytes = std::size_t(64) << 20;

void init_curl_once() {
  // curl_global_init is not thread-safe on every libcurl; once per process, before any handle.
  static std::once_flag once;
  std::call_once(once, [] {
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
      throw error(error_code::internal, "chat model: libcurl could not be initialized");
  });
}

struct transfer {
  CURL* curl = nullptr;
  http_answer* answer = nullptr;
  const std::function<void(std::string_view)>* on_data = nullptr;
  std::exception_ptr failure;  // thrown by on_data
  bool too_large = false;
  std::size_t streamed_bytes = 0;  // of a streamed answer, so far
};

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto* t = static_cast<transfer*>(user);
  const std::size_t n = size * count;
  long status = 0;
  curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &status);
  if (status == 200 && *t->on_data) {
    // A streamed answer is capped as a whole one: a server streaming without end stops here.
    t->streamed_bytes += n;
    if (t->streamed_bytes > max_body_bytes) {
      t->too_large = true;
      return 0;
    }
    try {
      t->answer->streamed = true;
      (*t->on_data)(std::string_view(data, n));
    } catch (...) {
      t->failure = std::current_exception();
      return 0;  // libcurl stops with CURLE_WRITE_ERROR
    }
    return n;
  }
  if (t->answer->body.size() + n > max_body_bytes) {
    t->too_large = true;
    return 0;
  }
  t->answer->body.append(data, n);
  return n;
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto* t = static_cast<transfer*>(user);
  const std::size_t n = size * count;
  std::string_view line(data, n);
  constexpr std::string_view name = "retry-after:";
  if (line.size() > name.size()) {
    bool match = true;
    for (std::size_t i = 0; i < name.size() && match; ++i)
      match = std::tolower(static_cast<unsigned char>(line[i])) == name[i];
    if (match) {
      std::string_view v = line.substr(name.size());
      while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
      // Held at a day: a longer wait is no use to a caller, and 10^20 seconds in milliseconds
      // overflows (the wait is capped by max_backoff afterwards in any case).
      constexpr long long longest = 24LL * 3600;
      long long seconds = 0;
      std::size_t digits = 0;
      while (digits < v.size() && std::isdigit(static_cast<unsigned char>(v[digits]))) {
        seconds = std::min(longest, seconds * 10 + (v[digits] - '0'));
        ++digits;
      }
      // An HTTP date instead of seconds is not honoured: the back-off applies.
      if (digits > 0) t->answer->retry_after = std::chrono::milliseconds(seconds * 1000);
    }
  }
  return n;
}

struct slist_cleanup {
  void operator()(curl_slist* l) const noexcept { curl_slist_free_all(l); }
};

}  // namespace

handle_pool::handle_pool() = default;

handle_pool::~handle_pool() {
  for (void* h : idle_) curl_easy_cleanup(static_cast<CURL*>(h));
}

void* handle_pool::take() {
  {
    std::lock_guard lock(mutex_);
    if (!idle_.empty()) {
      void* h = idle_.back();
      idle_.pop_back();
      return h;
    }
  }
  init_curl_once();
  CURL* h = curl_easy_init();
  if (!h) throw error(error_code::internal, "chat model: curl_easy_init failed");
  return h;
}

void handle_pool::give_back(void* handle) {
  curl_easy_reset(static_cast<CURL*>(handle));  // forgets the call's options, keeps connections
  std::lock_guard lock(mutex_);
  if (idle_.size() < 4) {
    idle_.push_back(handle);
    return;
  }
  curl_easy_cleanup(static_cast<CURL*>(handle));
}

http_answer http_post(handle_pool& pool, const std::string& url,
                      const std::vector<std::string>& headers, const std::string& body,
                      std::chrono::milliseconds timeout,
                      const std::function<void(std::string_view)>& on_data) {
  http_answer answer;
  std::unique_ptr<curl_slist, slist_cleanup> header_list;
  for (const std::string& line :
       {std::string("Accept: application/json, text/event-stream"), std::string("Expect:")}) {
    curl_slist* l = curl_slist_append(header_list.get(), line.c_str());
    if (!l) throw error(error_code::internal, "chat model: out of memory");
    static_cast<void>(header_list.release());
    header_list.reset(l);
  }
  for (const std::string& line : headers) {
    curl_slist* l = curl_slist_append(header_list.get(), line.c_str());
    if (!l) throw error(error_code::internal, "chat model: out of memory");
    static_cast<void>(header_list.release());
    header_list.reset(l);
  }
  CURL* c = static_cast<CURL*>(pool.take());
  transfer t{c, &answer, &on_data, nullptr, false, 0};
  char detail[CURL_ERROR_SIZE] = {0};
  const long timeout_ms = static_cast<long>(timeout.count());
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, header_list.get());
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &t);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, detail);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);  // timeouts without SIGALRM, safe in threads
  curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
  curl_easy_setopt(c, CURLOPT_USERAGENT, "superstep");
  const CURLcode done = curl_easy_perform(c);
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &answer.status);
  if (done == CURLE_OK) {
    pool.give_back(c);  // only a handle that finished cleanly keeps its connection
  } else {
    curl_easy_cleanup(c);
  }
  if (t.failure) std::rethrow_exception(t.failure);
  if (done != CURLE_OK) {
    const std::string why = detail[0] ? detail : curl_easy_strerror(done);
    switch (done) {
      case CURLE_OPERATION_TIMEDOUT:
        answer.transport_error =
            "no answer within " + std::to_string(timeout_ms) + " ms (" + why + ")";
        break;
      case CURLE_COULDNT_CONNECT:
      case CURLE_COULDNT_RESOLVE_HOST:
      case CURLE_COULDNT_RESOLVE_PROXY: answer.transport_error = "cannot connect: " + why; break;
      case CURLE_URL_MALFORMAT:
      case CURLE_UNSUPPORTED_PROTOCOL:
        answer.transport_error = why;
        answer.bad_url = true;
        break;
      default:
        answer.transport_error = t.too_large ? "the answer is larger than " +
                                                   std::to_string(max_body_bytes >> 20) + " MiB"
                                             : "the request failed: " + why;
    }
  }
  return answer;
}

std::string random_uuid() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  std::uint64_t hi = rng(), lo = rng();
  hi = (hi & ~0xF000ULL) | 0x4000ULL;
  lo = (lo & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL;
  static const char hex[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 32; ++i) {
    if (i == 8 || i == 12 || i == 16 || i == 20) out += '-';
    const std::uint64_t word = i < 16 ? hi : lo;
    out += hex[(word >> (4 * (15 - i % 16))) & 15];
  }
  return out;
}

}  // namespace superstep::agents::detail
