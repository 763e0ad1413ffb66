#pragma once

// The head's store for nodes running on workers: each call travels to the head as an
// operation name and its arguments (a value), and comes back as a value (CAF-free).

#include <functional>
#include <string>

#include "superstep/checkpoint/store.hpp"

namespace superstep::net {

/// Runs one operation ("put", "get", "remove", "search", "list_namespaces", "sweep") with
/// `args` on `store` and returns its result; on the head. Throws superstep::error for bad
/// arguments (protocol_error) or the store's own errors.
value run_store_op(storage::store& store, const std::string& op, const value& args);

/// How a worker reaches the head: sends (op, args), returns the result or throws the error
/// the head answered with.
using store_call = std::function<value(const std::string& op, const value& args)>;

/// A store whose every operation is run by the head's store (the same API as a local one).
class remote_store final : public storage::store {
 public:
  explicit remote_store(store_call call) : call_(std::move(call)) {}

  void put(const storage::namespace_path& ns, const std::string& key, value v,
           storage::put_index index = {}, storage::put_ttl ttl = {}) override;
  [[nodiscard]] std::optional<storage::item> get(const storage::namespace_path& ns,
                                                 const std::string& key,
                                                 std::optional<bool> refresh_ttl = {}) override;
  void remove(const storage::namespace_path& ns, const std::string& key) override;
  [[nodiscard]] std::vector<storage::item> search(const storage::search_options& options) override;
  [[nodiscard]] std::vector<storage::namespace_path> list_namespaces(
      const storage::list_namespaces_options& options) override;
  std::size_t sweep() override;

 private:
  store_call call_;
};

/// An item as JSON: {"namespace", "key", "value", "created_at", "updated_at"} (and "score"
/// from a semantic search), as the store messages and `superstep store` print it.
value item_json(const storage::item& it);
/// A namespace as a JSON list of its labels.
value namespace_json(const storage::namespace_path& ns);

/// The answer a head sends for an operation that failed: {"error": {"code", "message"}}.
value store_error_answer(const std::exception& e);

/// Throws the error of an answer made by store_error_answer, if it is one.
void throw_if_store_error(const value& answer);

}  // namespace superstep::net
