#include "superstep/storage/redis_client.hpp"

#include <hiredis/hiredis.h>
#include <sys/time.h>

#include <cctype>
#include <charconv>
#include <cstring>

#include "superstep/core/error.hpp"

namespace superstep::storage {

namespace {

[[noreturn]] void bad_url(std::string_view url, const std::string& why) {
  // The URL may hold a password: name only what precedes its '@'-part when there is one.
  std::string shown(url);
  if (auto at = shown.rfind('@'); at != std::string::npos)
    shown = shown.substr(0, shown.find("://") + 3) + "...@" + shown.substr(at + 1);
  throw error(error_code::invalid_argument, "bad Redis URL '" + shown + "': " + why);
}

std::string percent_decode(std::string_view in, std::string_view url) {
  std::string out;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '%') {
      out += in[i];
      continue;
    }
    unsigned v = 0;
    if (i + 2 >= in.size() ||
        std::from_chars(in.data() + i + 1, in.data() + i + 3, v, 16).ptr != in.data() + i + 3)
      bad_url(url, "a '%' not followed by two hex digits");
    out += static_cast<char>(v);
    i += 2;
  }
  return out;
}

int parse_number(std::string_view s, std::string_view url, const char* what, int max) {
  int v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size() || v < 0 || v > max)
    bad_url(url, std::string("the ") + what + " '" + std::string(s) + "' is not a number in 0.." +
                     std::to_string(max));
  return v;
}

redis_reply convert(const redisReply* r) {
  redis_reply out;
  switch (r->type) {
    case REDIS_REPLY_STATUS:
      out.type = redis_reply::kind::status;
      out.str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_ERROR:
      out.type = redis_reply::kind::error;
      out.str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_INTEGER:
      out.type = redis_reply::kind::integer;
      out.integer = r->integer;
      break;
    case REDIS_REPLY_STRING:
      out.type = redis_reply::kind::string;
      out.str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_ARRAY:
      out.type = redis_reply::kind::array;
      out.elements.reserve(r->elements);
      for (std::size_t i = 0; i < r->elements; ++i) out.elements.push_back(convert(r->element[i]));
      break;
    default: out.type = redis_reply::kind::nil;
  }
  return out;
}

timeval to_timeval(std::chrono::milliseconds ms) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(ms.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((ms.count() % 1000) * 1000);
  return tv;
}

// A connection-level failure (not an error reply): the context is unusable afterwards.
struct broken {
  std::string command, why;
};

}  // namespace

std::string redis_url::server() const {
  std::string out = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  out += ":" + std::to_string(port);
  if (db != 0) out += "/" + std::to_string(db);
  return out;
}

redis_url redis_url::parse(std::string_view url) {
  redis_url out;
  std::string_view rest = url;
  if (rest.substr(0, 9) == "rediss://")
    bad_url(url,
            "rediss:// (TLS) is not supported: Debian 12's hiredis 0.14 has no TLS. Use redis:// "
            "to a server on a trusted network, or a local TLS tunnel (stunnel, spiped) to it");
  if (rest.substr(0, 8) != "redis://") bad_url(url, "it must start with redis://");
  rest.remove_prefix(8);
  if (auto at = rest.rfind('@'); at != std::string_view::npos) {
    std::string_view login = rest.substr(0, at);
    rest.remove_prefix(at + 1);
    if (auto colon = login.find(':'); colon != std::string_view::npos) {
      out.user = percent_decode(login.substr(0, colon), url);
      out.password = percent_decode(login.substr(colon + 1), url);
    } else {
      // redis://secret@host: a password alone, as redis-cli -u reads it.
      out.password = percent_decode(login, url);
    }
  }
  std::string_view hostport = rest.substr(0, rest.find('/'));
  if (auto slash = rest.find('/'); slash != std::string_view::npos) {
    std::string_view db = rest.substr(slash + 1);
    if (!db.empty()) out.db = parse_number(db, url, "db", 1 << 20);
  }
  std::string_view port;
  if (!hostport.empty() && hostport.front() == '[') {
    auto close = hostport.find(']');
    if (close == std::string_view::npos) bad_url(url, "an IPv6 host without its ']'");
    out.host = std::string(hostport.substr(1, close - 1));
    std::string_view after = hostport.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') bad_url(url, "something other than ':port' after the host");
      port = after.substr(1);
      if (port.empty()) bad_url(url, "an empty port");
    }
  } else if (auto colon = hostport.rfind(':'); colon != std::string_view::npos) {
    out.host = std::string(hostport.substr(0, colon));
    port = hostport.substr(colon + 1);
    if (port.empty()) bad_url(url, "an empty port");
  } else {
    out.host = std::string(hostport);
  }
  if (out.host.empty()) bad_url(url, "no host");
  if (!port.empty()) out.port = parse_number(port, url, "port", 65535);
  if (out.port == 0) bad_url(url, "port 0");
  return out;
}

void redis_connection::context_deleter::operator()(void* c) const noexcept {
  redisFree(static_cast<redisContext*>(c));
}

redis_connection::redis_connection(redis_options options) : options_(std::move(options)) {
  std::lock_guard lock(mutex_);
  connect();
}

redis_connection::~redis_connection() = default;

void redis_connection::set_owner(std::string owner) {
  std::lock_guard lock(mutex_);
  owner_ = std::move(owner);
}

void redis_connection::fail(const std::string& command, const std::string& why) const {
  throw error(error_code::storage_error,
              owner_ + " (redis at " + options_.url.server() + "): " + command + " failed: " + why);
}

void redis_connection::connect() {
  context_.reset();
  redisContext* c = redisConnectWithTimeout(options_.url.host.c_str(), options_.url.port,
                                            to_timeval(options_.connect_timeout));
  if (!c) fail("connect", "out of memory");
  std::unique_ptr<void, context_deleter> owned(c);
  if (c->err) fail("connect", c->errstr);
  if (redisSetTimeout(c, to_timeval(options_.command_timeout)) != REDIS_OK)
    fail("connect", "cannot set the command timeout");
  redisEnableKeepAlive(c);
  context_ = std::move(owned);
  const auto login = [&](const redis_command& cmd, const char* name) {
    std::vector<redis_reply> r;
    try {
      r = run(cmd.empty() ? std::vector<redis_command>{} : std::vector<redis_command>{cmd});
    } catch (const broken& b) {
      context_.reset();
      fail(name, b.why);
    }
    if (!r.empty() && r.front().type == redis_reply::kind::error) {
      context_.reset();
      fail(name, r.front().str);
    }
  };
  if (!options_.url.password.empty()) {
    redis_command auth{"AUTH"};
    if (!options_.url.user.empty()) auth.push_back(options_.url.user);
    auth.push_back(options_.url.password);
    login(auth, "AUTH");
  }
  if (options_.url.db != 0) login({"SELECT", std::to_string(options_.url.db)}, "SELECT");
}

// Sends `cmds` and reads their replies; throws `broken` when the connection fails.
std::vector<redis_reply> redis_connection::run(const std::vector<redis_command>& cmds) {
  auto* c = static_cast<redisContext*>(context_.get());
  if (!c) throw broken{cmds.empty() ? "" : cmds.front().front(), "not connected"};
  std::vector<const char*> argv;
  std::vector<std::size_t> lens;
  for (const auto& cmd : cmds) {
    argv.clear();
    lens.clear();
    for (const auto& a : cmd) {
      argv.push_back(a.data());
      lens.push_back(a.size());
    }
    if (redisAppendCommandArgv(c, static_cast<int>(argv.size()), argv.data(), lens.data()) !=
        REDIS_OK)
      throw broken{cmd.front(), c->errstr};
  }
  std::vector<redis_reply> out;
  out.reserve(cmds.size());
  for (const auto& cmd : cmds) {
    void* raw = nullptr;
    if (redisGetReply(c, &raw) != REDIS_OK || !raw)
      throw broken{cmd.front(), c->err ? std::string(c->errstr) : "no reply"};
    std::unique_ptr<redisReply, void (*)(void*)> reply(static_cast<redisReply*>(raw),
                                                       freeReplyObject);
    out.push_back(convert(reply.get()));
  }
  return out;
}

std::vector<redis_reply> redis_connection::pipeline(const std::vector<redis_command>& cmds) {
  if (cmds.empty()) return {};
  std::lock_guard lock(mutex_);
  std::vector<redis_reply> out;
  try {
    out = run(cmds);
  } catch (const broken&) {
    // Reopen once and run it all again (the commands are idempotent or one transaction).
    try {
      connect();
      out = run(cmds);
    } catch (const broken& b) {
      context_.reset();
      fail(b.command, b.why);
    }
  }
  for (std::size_t i = 0; i < out.size(); ++i)
    if (out[i].type == redis_reply::kind::error) fail(cmds[i].front(), out[i].str);
  return out;
}

redis_reply redis_connection::command(const redis_command& cmd) {
  return std::move(pipeline({cmd}).front());
}

std::vector<redis_reply> redis_connection::transaction(const std::vector<redis_command>& cmds) {
  if (cmds.empty()) return {};
  std::vector<redis_command> all;
  all.reserve(cmds.size() + 2);
  all.push_back({"MULTI"});
  all.insert(all.end(), cmds.begin(), cmds.end());
  all.push_back({"EXEC"});
  std::vector<redis_reply> replies;
  {
    std::lock_guard lock(mutex_);
    try {
      replies = run(all);
    } catch (const broken&) {
      try {
        connect();
        replies = run(all);
      } catch (const broken& b) {
        context_.reset();
        fail(b.command, b.why);
      }
    }
  }
  // A command the server refused when queued aborts the transaction (EXECABORT).
  for (std::size_t i = 1; i + 1 < replies.size(); ++i)
    if (replies[i].type == redis_reply::kind::error) fail(all[i].front(), replies[i].str);
  redis_reply& exec = replies.back();
  if (exec.type == redis_reply::kind::error) fail("EXEC", exec.str);
  if (exec.type != redis_reply::kind::array) fail("EXEC", "the transaction was aborted");
  for (std::size_t i = 0; i < exec.elements.size(); ++i)
    if (exec.elements[i].type == redis_reply::kind::error)
      fail(cmds[i].front() + " (in a transaction)", exec.elements[i].str);
  return std::move(exec.elements);
}

std::string redis_key_part(std::string_view part) {
  std::string out;
  out.reserve(part.size());
  for (char c : part) {
    if (c == '%')
      out += "%25";
    else if (c == ':')
      out += "%3A";
    else
      out += c;
  }
  return out;
}

}  // namespace superstep::storage
