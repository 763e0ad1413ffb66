#pragma once

// The long-term memory store (LangGraph `BaseStore`): items under hierarchical namespaces
// that outlive threads, with filters and semantic search.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "superstep/core/value.hpp"
#include "superstep/storage/embedder.hpp"

namespace superstep::storage {

/// A namespace: a path of labels such as ("user-1", "memories"). Labels are non-empty and
/// contain no '.'; a namespace has at least one label.
using namespace_path = std::vector<std::string>;

/// A stored item (LangGraph `Item`, or `SearchItem` when it carries a score).
struct item {
  namespace_path ns;
  std::string key;
  /// Always an object, as LangGraph's dict values.
  value v;
  /// UTC, ISO 8601 with microseconds ("2026-01-02T03:04:05.000006+00:00"). `created_at`
  /// stays when the item is overwritten; `updated_at` changes on every put.
  std::string created_at, updated_at;
  /// Cosine similarity to the query of a semantic search; absent otherwise.
  std::optional<double> score;
};

/// Arguments of `store::search` (LangGraph `SearchOp`).
struct search_options {
  /// Items whose namespace starts with these labels; empty means every namespace.
  namespace_path ns_prefix;
  /// Conditions on the value's top-level fields, all of which must hold. A field maps to a
  /// value (equality; an object compares field by field, a list element by element) or to an
  /// object of operators {"$eq"|"$ne"|"$gt"|"$gte"|"$lt"|"$lte": operand}. The ordering
  /// operators compare numbers with numbers and strings with strings; any other pair does
  /// not match. An unknown operator is an invalid_argument error naming it.
  object filter;
  /// Natural-language query for semantic search; ignored by a store without an index.
  std::optional<std::string> query;
  std::size_t limit = 10, offset = 0;
};

/// Arguments of `store::list_namespaces` (LangGraph `ListNamespacesOp`).
struct list_namespaces_options {
  /// Namespaces starting (ending) with these labels; "*" matches any one label.
  namespace_path prefix, suffix;
  /// Truncates namespaces to their first `max_depth` labels, then removes duplicates.
  std::optional<std::size_t> max_depth;
  std::size_t limit = 100, offset = 0;
};

/// How `put` indexes an item for semantic search (LangGraph's `index` argument).
struct put_index {
  /// false: do not embed this item (it is stored but never found by a query).
  bool enabled = true;
  /// Fields to embed instead of the store's configured ones.
  std::optional<std::vector<std::string>> fields;
};

/// Semantic-search configuration of a store (LangGraph `IndexConfig`).
struct index_config {
  /// Dimension of every vector; an embedder that returns another size is an error.
  std::size_t dims = 0;
  embed_fn embed;
  /// Paths of the texts to embed: "$" (the whole value as JSON), "a.b", "a[0]", "a[*]".
  /// A string is embedded as is, anything else as its JSON; a missing path is skipped.
  std::vector<std::string> fields{"$"};
};

/// The long-term memory store. Every method is thread-safe; each call is atomic.
///
/// Invalid arguments (a bad namespace, a value that is not an object, an unknown filter
/// operator, an embedding of the wrong dimension) throw `superstep::error` with code
/// invalid_argument naming the offender, and change nothing. Backend failures throw
/// storage_error.
class store {
 public:
  virtual ~store() = default;

  /// Stores `v` (an object) under (ns, key), replacing any item there but keeping its
  /// created_at. With an index configured, embeds the item's fields first.
  virtual void put(const namespace_path& ns, const std::string& key, value v,
                   put_index index = {}) = 0;

  /// The item at (ns, key), if any.
  [[nodiscard]] virtual std::optional<item> get(const namespace_path& ns,
                                                const std::string& key) = 0;

  /// Removes the item at (ns, key) (LangGraph `delete`); removing nothing is not an error.
  virtual void remove(const namespace_path& ns, const std::string& key) = 0;

  /// Items under `options.ns_prefix` that pass the filter, paged by offset and limit.
  ///
  /// Without a query (or without an index): newest `updated_at` first, ties by namespace and
  /// key. This is the order of LangGraph's Postgres store; LangGraph's in-memory store
  /// returns insertion order, which no index can give cheaply.
  /// With a query and an index: highest cosine similarity first (the best of the item's
  /// embedded fields), each item carrying its `score`; items put without an index are not
  /// returned.
  [[nodiscard]] virtual std::vector<item> search(const search_options& options) = 0;

  /// Namespaces that hold at least one item and match the options, in lexicographic order.
  [[nodiscard]] virtual std::vector<namespace_path> list_namespaces(
      const list_namespaces_options& options) = 0;
};

}  // namespace superstep::storage
