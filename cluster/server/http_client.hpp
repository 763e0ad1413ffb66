#pragma once

// A small HTTP client on libevent's evhttp (as the server's HTTP layer): one request, made on
// a loop of its own on the calling thread, for the server's webhooks.

#include <chrono>
#include <string>

namespace superstep::server {

/// POSTs `body` (JSON) to `url` (http:// or https://, the certificate checked against the
/// system's authorities and the host name) and returns the answer's status. Throws
/// `superstep::error` (invalid_argument) for a URL it cannot use, (unavailable) naming the URL
/// when no answer comes within `timeout` or the connection fails.
int http_post_json(const std::string& url, const std::string& body,
                   std::chrono::seconds timeout = std::chrono::seconds(10));

}  // namespace superstep::server
