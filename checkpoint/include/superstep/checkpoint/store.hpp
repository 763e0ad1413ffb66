#pragma once

// The long-term memory store (LangGraph `BaseStore`): items under hierarchical namespaces
// that outlive threads, with filters and semantic search.

#include <chrono>
#include <cstddef>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "superstep/core/value.hpp"

namespace superstep::storage {

/// Turns texts into one vector each, in order (LangGraph's `embed` in an index
/// configuration). May throw; the store then stores nothing.
using embed_fn = std::function<std::vector<std::vector<float>>(const std::vector<std::string>&)>;

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
  /// Similarity to the query of a semantic search, higher is nearer, by the index's
  /// `distance_type`; absent otherwise.
  std::optional<double> score;
};

/// Arguments of `store::search` (LangGraph `SearchOp`).
struct search_options {
  /// Items whose namespace starts with these labels; empty means every namespace.
  namespace_path ns_prefix;
  /// Conditions on the value's fields, all of which must hold; a field with '.' is a path into
  /// nested objects ("user.access-level"), as in LangGraph's SQLite and Postgres stores. A field
  /// maps to a value (equality; an object compares field by field, a list element by element) or to
  /// an object of operators {"$eq"|"$ne"|"$gt"|"$gte"|"$lt"|"$lte": operand}. The ordering
  /// operators compare numbers with numbers and strings with strings; any other pair does
  /// not match. An unknown operator is an invalid_argument error naming it.
  object filter;
  /// Natural-language query for semantic search; ignored by a store without an index. An
  /// empty query is no query (as in LangGraph, where "" is falsy).
  std::optional<std::string> query;
  std::size_t limit = 10, offset = 0;
  /// Whether to restart the TTL of the items returned; nullopt: the store's
  /// `ttl_config::refresh_on_read`. Items without a TTL are unaffected.
  std::optional<bool> refresh_ttl;

  bool operator==(const search_options&) const = default;
};

/// Arguments of `store::list_namespaces` (LangGraph `ListNamespacesOp`).
struct list_namespaces_options {
  /// Namespaces starting (ending) with these labels; "*" matches any one label.
  namespace_path prefix, suffix;
  /// Truncates namespaces to their first `max_depth` labels, then removes duplicates.
  std::optional<std::size_t> max_depth;
  std::size_t limit = 100, offset = 0;

  bool operator==(const list_namespaces_options&) const = default;
};

/// How `put` indexes an item for semantic search (LangGraph's `index` argument).
struct put_index {
  /// false: do not embed this item (a query finds it after every embedded item, with no
  /// score).
  bool enabled = true;
  /// Fields to embed instead of the store's configured ones.
  std::optional<std::vector<std::string>> fields;
};

/// How semantic search compares a query's vector with an item's (LangGraph's
/// `distance_type`, as its Postgres store scores it). Scores are similarities: higher is
/// nearer, and a search returns the highest first.
enum class distance_type {
  /// Cosine similarity, in [-1, 1] (0 when either vector is zero).
  cosine,
  /// The dot product of the vectors as the embedder made them (no normalization): equal to
  /// cosine for unit vectors, and ranks by length too otherwise.
  inner_product,
  /// The Euclidean distance between the vectors, negated (0 for equal vectors, below 0
  /// otherwise).
  l2,
};

/// The name of `d`: "cosine", "inner_product" or "l2" (as LangGraph spells them).
[[nodiscard]] const char* distance_type_name(distance_type d) noexcept;

/// The distance type named `name` (see `distance_type_name`); throws `superstep::error`
/// (invalid_argument) naming `name` and the valid names otherwise.
[[nodiscard]] distance_type parse_distance_type(std::string_view name);

/// Semantic-search configuration of a store (LangGraph `IndexConfig`).
struct index_config {
  /// Dimension of every vector; an embedder that returns another size is an error.
  std::size_t dims = 0;
  embed_fn embed;
  /// Paths of the texts to embed (LangGraph's `get_text_at_path`): "$" or "" (the whole value
  /// as JSON), "a.b", "a[0]", "a[-1]" (from the end), "a[*]" (every element), "a.*" (every
  /// member), "a.{b,c.d}" (several fields). A string is embedded as is, null not at all,
  /// anything else as its JSON; a missing or malformed path is skipped.
  std::vector<std::string> fields{"$"};
  /// How queries are scored (LangGraph `PostgresIndexConfig.distance_type`). A rocksdb_store
  /// records it with `dims` and `embedder_id` (see there) and refuses to embed under another.
  distance_type distance = distance_type::cosine;
  /// Whether a query searches an approximate-nearest-neighbour index (HNSW) of the vectors
  /// instead of scoring every item. Results have the same shape and exact scores either way;
  /// the ANN index may miss a few of the true nearest items (recall well above 0.9 with the
  /// defaults). false: always exact. The store falls back to exact search by itself when the
  /// index cannot fill the page (a narrow namespace prefix or a filter that rejects most).
  bool ann = true;
  /// HNSW parameters: links per node (memory and recall grow with it), the candidate list
  /// while inserting (build time and graph quality) and while searching (latency and recall;
  /// a search with a larger offset + limit uses that instead). At 10^5 384-dimension vectors
  /// of clustered data ef_search 200 finds 0.998 of the true 10 nearest in ~0.7-0.9 ms, 100
  /// finds 0.99 in ~0.4-0.6 ms (BENCHMARKS.md); the hashing embedder's vectors of sentences
  /// need more (0.84 at 200, 0.90 at 400).
  std::size_t ann_m = 16, ann_ef_construction = 200, ann_ef_search = 200;
  /// Threads that build the index from stored items (a rocksdb_store's first semantic
  /// search); 0: std::thread::hardware_concurrency(). Puts always add to it on their own thread.
  std::size_t ann_build_threads = 0;
  /// What makes the vectors, such as "hashing" or "openai/text-embedding-3-small": vectors of
  /// two embedders (or models) cannot be compared. A rocksdb_store records it with `dims` and
  /// `distance` when it stores its first vector and then refuses to embed with an index that
  /// differs. Empty: only dims and distance are compared. A memory_store ignores it.
  std::string embedder_id{};
};

/// How a store expires items (LangGraph `TTLConfig`), given when the store is made.
///
/// An item with a TTL expires `ttl` minutes after its last put, or after its last read that
/// refreshed it. An expired item is invisible to get, search and list_namespaces at once,
/// whether or not a sweep has deleted it yet (unless `omit_expired` is false); `store::sweep`
/// deletes expired items.
struct ttl_config {
  /// TTL in minutes of a put that does not give one; nullopt: such items never expire.
  std::optional<double> default_ttl_minutes;
  /// Default of `get`'s and `search`'s `refresh_ttl`: whether a read restarts the TTL of the
  /// items it returns.
  bool refresh_on_read = true;
  /// Whether reads skip expired items that no sweep has deleted yet (LangGraph's
  /// `omit_expired`). false: they are read (and a refreshing read restarts their TTL) until a
  /// sweep deletes them, as LangGraph's Postgres store does by default; a put over one still
  /// starts a new created_at.
  bool omit_expired = true;
  /// Period of a background thread that calls `sweep`; nullopt: no thread, expired items stay
  /// on disk (invisible) until `sweep` is called. Must be positive.
  std::optional<std::chrono::milliseconds> sweep_interval;
  /// The store's clock, for expiry and timestamps; empty: std::chrono::system_clock::now.
  /// Tests inject one to move time without sleeping. Called from any thread.
  std::function<std::chrono::system_clock::time_point()> clock;
  /// Called on the sweeper thread after each periodic sweep with the number of items it
  /// deleted, or with the error that stopped it (the thread keeps going). Empty: nothing.
  /// It must not throw: there is no one on that thread to throw to, so it would be dropped.
  std::function<void(std::size_t swept, const std::exception_ptr& failure)> on_sweep;
};

/// The TTL argument of `put` (LangGraph's `ttl`): the store's default when not given, a
/// number of minutes, or std::nullopt for "never expires" (Python's `ttl=None`). Minutes must
/// be finite and not negative; 0 makes an item that is expired at once.
class put_ttl {
 public:
  /// The store's `ttl_config::default_ttl_minutes`.
  put_ttl() = default;
  /// Expires `minutes` after the put.
  put_ttl(double minutes) : given_(true), minutes_(minutes) {}
  /// Never expires.
  put_ttl(std::nullopt_t) : given_(true) {}

  /// Whether no TTL was given, so the store's default applies.
  [[nodiscard]] bool is_default() const noexcept { return !given_; }
  /// The TTL given in minutes; nullopt for "never expires" or when none was given.
  [[nodiscard]] std::optional<double> minutes() const noexcept { return minutes_; }
  /// The TTL in minutes under `config`; nullopt: no expiry.
  [[nodiscard]] std::optional<double> resolve(const ttl_config& config) const {
    return given_ ? minutes_ : config.default_ttl_minutes;
  }

 private:
  bool given_ = false;
  std::optional<double> minutes_;
};

/// A `store::batch` operation reading the item at (ns, key) (LangGraph `GetOp`).
struct get_op {
  namespace_path ns;
  std::string key;
  /// nullopt: the store's `ttl_config::refresh_on_read`.
  std::optional<bool> refresh_ttl;

  bool operator==(const get_op&) const = default;
};

/// A `store::batch` operation storing an item (LangGraph `PutOp` with a value).
struct put_op {
  namespace_path ns;
  std::string key;
  value v;
  put_index index;
  put_ttl ttl;
};

/// A `store::batch` operation deleting an item (LangGraph `PutOp` with value None).
struct remove_op {
  namespace_path ns;
  std::string key;
};

/// `store::batch` operations searching (LangGraph `SearchOp`) and listing namespaces
/// (LangGraph `ListNamespacesOp`) take the arguments of the methods.
using search_op = search_options;
using list_namespaces_op = list_namespaces_options;

/// One operation of `store::batch` (LangGraph `Op`).
using store_op = std::variant<get_op, put_op, remove_op, search_op, list_namespaces_op>;

/// The result of one operation of `store::batch`: std::monostate for put and remove, the
/// item (if any) for get, the items for search, the namespaces for list_namespaces.
using store_op_result = std::variant<std::monostate, std::optional<item>, std::vector<item>,
                                     std::vector<namespace_path>>;

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
  /// created_at. A namespace whose root label is "langgraph" is reserved (LangGraph's
  /// `InvalidNamespaceError`); `batch` can still write there, as in LangGraph. With an index
  /// configured, embeds the item's fields first. `ttl` sets when the item expires (see `put_ttl`);
  /// an expired item at (ns, key) counts as absent, so a put over it starts a new created_at.
  virtual void put(const namespace_path& ns, const std::string& key, value v, put_index index = {},
                   put_ttl ttl = {}) = 0;

  /// The item at (ns, key), if any and not expired. With `refresh_ttl` (nullopt: the store's
  /// `ttl_config::refresh_on_read`) the item's TTL starts again.
  [[nodiscard]] virtual std::optional<item> get(const namespace_path& ns, const std::string& key,
                                                std::optional<bool> refresh_ttl = {}) = 0;

  /// Removes the item at (ns, key) (LangGraph `delete`); removing nothing is not an error.
  virtual void remove(const namespace_path& ns, const std::string& key) = 0;

  /// Items under `options.ns_prefix` that pass the filter and have not expired, paged by
  /// offset and limit. With `options.refresh_ttl` (nullopt: the store's
  /// `ttl_config::refresh_on_read`) the TTLs of the items returned start again.
  ///
  /// Without a query (or without an index): newest `updated_at` first, ties by namespace and
  /// key. This is the order of LangGraph's Postgres store; LangGraph's in-memory store
  /// returns insertion order, which no index can give cheaply.
  /// With a query and an index: highest similarity first under the index's `distance_type`
  /// (the best of the item's embedded fields), each item carrying its `score`; then the items
  /// with nothing embedded (put with `index=false`, or without text at the index's fields),
  /// newest first, with no score, as LangGraph's in-memory store fills a page with them.
  [[nodiscard]] virtual std::vector<item> search(const search_options& options) = 0;

  /// Namespaces that hold at least one unexpired item and match the options, in
  /// lexicographic order.
  [[nodiscard]] virtual std::vector<namespace_path> list_namespaces(
      const list_namespaces_options& options) = 0;

  /// Deletes the expired items; returns how many. The background sweeper of a store with a
  /// `ttl_config::sweep_interval` calls it too. Reads never need it: they skip expired items.
  virtual std::size_t sweep() = 0;

  /// Runs `ops` in order, one result per operation at the same position (LangGraph
  /// `BaseStore.batch`), with LangGraph's deduplication:
  ///  - a read (get, search, list_namespaces) equal to an earlier read of the batch is not run
  ///    again: it gets the earlier read's result, even if a write between them changed it;
  ///  - of the writes (puts and removes) to one (ns, key), only the last runs, at the position
  ///    of the first.
  /// Every operation is checked before any runs, so a bad one (named by its position, such as
  /// "operation 2 (put)") throws invalid_argument and changes nothing. The batch is not a
  /// transaction: a backend failure part way leaves the operations before it done.
  ///
  /// The default runs the single-operation methods; a backend may do better.
  virtual std::vector<store_op_result> batch(const std::vector<store_op>& ops);

  /// The semantic-search configuration the store was made with (LangGraph's `index_config`):
  /// its dims, embed function, fields, distance type and ANN parameters as given, nullopt
  /// for a store without semantic search. `set_ann_ef_search` does not change it. The
  /// default is nullopt, for stores that do not embed themselves (a cluster worker's store
  /// forwards every call to the head's). Thread-safe: it never changes.
  [[nodiscard]] virtual const std::optional<index_config>& index() const noexcept {
    static const std::optional<index_config> none;
    return none;
  }

 protected:
  /// What the default `batch` runs for a put: `put` without its check of the reserved
  /// "langgraph" root label (LangGraph checks that in the public `put` only, so a batch may
  /// write there). The default calls `put`.
  virtual void put_from_batch(const put_op& op) { put(op.ns, op.key, op.v, op.index, op.ttl); }
};

}  // namespace superstep::storage
