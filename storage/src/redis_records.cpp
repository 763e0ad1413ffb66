// Tables of records on a Redis server (superstep/storage/redis_records.hpp).
#include "superstep/storage/redis_records.hpp"

#include <algorithm>

#include "superstep/core/error.hpp"
#include "superstep/storage/redis_client.hpp"

namespace superstep::storage {

struct redis_records::impl {
  std::string prefix;
  mutable redis_connection conn;

  impl(redis_options options, std::string p) : prefix(std::move(p)), conn(std::move(options)) {
    conn.set_owner("redis_records");
  }

  std::string key_of(std::string_view table) const {
    if (table.empty() || table.find('\0') != std::string_view::npos)
      throw error(error_code::invalid_argument,
                  "redis_records: a table's name is not empty and has no NUL");
    return prefix + ":records:" + redis_key_part(table);
  }
};

std::unique_ptr<redis_records> redis_records::open(const std::string& url,
                                                   const std::string& prefix) {
  if (prefix.empty())
    throw error(error_code::invalid_argument, "redis_records: the key prefix is empty");
  redis_options options;
  options.url = redis_url::parse(url);
  return std::unique_ptr<redis_records>(
      new redis_records(std::make_unique<impl>(std::move(options), prefix)));
}

redis_records::redis_records(std::unique_ptr<impl> impl) : impl_(std::move(impl)) {}
redis_records::~redis_records() = default;

void redis_records::put(std::string_view table, std::string_view key, std::string_view bytes) {
  impl_->conn.command({"HSET", impl_->key_of(table), std::string(key), std::string(bytes)});
}

void redis_records::put_all(const std::vector<record_put>& puts) {
  std::vector<redis_command> cmds;
  cmds.reserve(puts.size());
  for (const record_put& p : puts)
    cmds.push_back({"HSET", impl_->key_of(p.table), std::string(p.key), std::string(p.bytes)});
  impl_->conn.transaction(cmds);
}

bool redis_records::erase(std::string_view table, std::string_view key) {
  return impl_->conn.command({"HDEL", impl_->key_of(table), std::string(key)}).integer > 0;
}

std::vector<std::pair<std::string, std::string>> redis_records::all(
    std::string_view table) const {
  const redis_reply reply = impl_->conn.command({"HGETALL", impl_->key_of(table)});
  if (reply.type != redis_reply::kind::array || reply.elements.size() % 2 != 0)
    throw error(error_code::storage_error,
                "redis_records (redis at " + impl_->conn.url().server() + "): HGETALL " +
                    impl_->key_of(table) + " did not answer field and value pairs");
  std::vector<std::pair<std::string, std::string>> out;
  out.reserve(reply.elements.size() / 2);
  for (std::size_t i = 0; i < reply.elements.size(); i += 2)
    out.emplace_back(reply.elements[i].str, reply.elements[i + 1].str);
  std::sort(out.begin(), out.end());
  return out;
}

void redis_records::clear(std::string_view table) {
  impl_->conn.command({"DEL", impl_->key_of(table)});
}

}  // namespace superstep::storage
