#pragma once

// A connection to a Redis server (hiredis, Debian's libhiredis-dev 0.14), shared by
// `redis_saver` and `redis_store`.

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace superstep::storage {

/// Where a Redis server is and how to log in: `redis://[user:password@]host[:port][/db]`
/// (`redis://:password@host` for a password without a user name).
struct redis_url {
  std::string host = "127.0.0.1";
  int port = 6379;
  std::string user, password;
  int db = 0;

  /// "host:port" (and "/db" when it is not 0), never the password: what errors name.
  [[nodiscard]] std::string server() const;

  /// Parses `url`. Throws `superstep::error` (invalid_argument) naming what is wrong: another
  /// scheme, a bad port or db, and `rediss://`, which Debian's hiredis 0.14 cannot speak (it
  /// has no TLS: reach a TLS server through a local tunnel such as stunnel).
  static redis_url parse(std::string_view url);
};

/// How a `redis_connection` connects.
struct redis_options {
  redis_url url;
  /// Connecting (each attempt) and every command wait at most this long.
  std::chrono::milliseconds connect_timeout{2000};
  std::chrono::milliseconds command_timeout{10000};
};

/// One reply of the server (RESP2).
struct redis_reply {
  enum class kind { nil, status, error, integer, string, array };
  kind type = kind::nil;
  long long integer = 0;
  std::string str;  ///< string, status and error replies
  std::vector<redis_reply> elements;

  [[nodiscard]] bool is_nil() const noexcept { return type == kind::nil; }
};

/// A command: its arguments, binary-safe.
using redis_command = std::vector<std::string>;

/// A connection to one server, safe to share between threads (one command or pipeline at a
/// time). A broken connection (the server restarted, a timeout) is reopened once per call
/// and the call retried: every command the savers send is idempotent or a transaction. An
/// error reply, or a second failure, throws `superstep::error` (storage_error) naming the
/// server, the command and what went wrong, never the password.
class redis_connection {
 public:
  /// Connects (and logs in and selects the db). Throws storage_error when the server cannot
  /// be reached or refuses the login.
  explicit redis_connection(redis_options options);
  ~redis_connection();
  redis_connection(const redis_connection&) = delete;
  redis_connection& operator=(const redis_connection&) = delete;

  /// Runs one command.
  redis_reply command(const redis_command& cmd);

  /// Sends every command, then reads every reply: one round trip. An error reply throws
  /// (after every reply is read).
  std::vector<redis_reply> pipeline(const std::vector<redis_command>& cmds);

  /// The commands in MULTI/EXEC, pipelined: they apply atomically. The replies of the
  /// commands (EXEC's array).
  std::vector<redis_reply> transaction(const std::vector<redis_command>& cmds);

  /// Who `owner` ("redis_saver") names in errors, with the server: "redis_saver (redis at
  /// 127.0.0.1:6379)".
  void set_owner(std::string owner);

  [[nodiscard]] const redis_url& url() const noexcept { return options_.url; }

 private:
  struct context_deleter {
    void operator()(void* c) const noexcept;
  };
  void connect();
  std::vector<redis_reply> run(const std::vector<redis_command>& cmds);
  [[noreturn]] void fail(const std::string& command, const std::string& why) const;

  redis_options options_;
  std::string owner_ = "redis";
  std::mutex mutex_;
  std::unique_ptr<void, context_deleter> context_;
};

/// A part of a Redis key with '%' and ':' escaped ("%25", "%3A"), so that keys joined with ':'
/// split back unambiguously.
std::string redis_key_part(std::string_view part);

}  // namespace superstep::storage
