#pragma once

// The pieces of the store's contract every backend shares: argument checks, filters,
// namespace matching, timestamps, TTLs, the texts to embed and the similarity of vectors.

#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "superstep/checkpoint/store.hpp"
#include "superstep/core/value.hpp"

namespace superstep::storage::store_support {

/// Throws invalid_argument unless `ns` is non-empty with non-empty labels without '.'.
void check_namespace(const namespace_path& ns);

/// `check_namespace`, and the root label is not "langgraph" (reserved, as LangGraph's public
/// `put` rejects it; batches may still write there, as LangGraph's do).
void check_put_namespace(const namespace_path& ns);

/// Throws invalid_argument unless `key` is non-empty and `v` is an object.
void check_item(const std::string& key, const value& v);

/// Throws invalid_argument naming the first unknown "$" operator of `filter`.
void check_filter(const object& filter);

/// Whether `v` (an item's value) passes `filter` (checked by `check_filter`).
bool matches_filter(const value& v, const object& filter);

/// Whether `ns` starts with `prefix` (plain labels, no wildcard).
bool has_prefix(const namespace_path& ns, const namespace_path& prefix);

/// Whether `ns` matches the prefix and suffix of `options` ("*" matches any label).
bool matches(const namespace_path& ns, const list_namespaces_options& options);

/// Applies max_depth, removes duplicates, sorts and pages `namespaces`.
std::vector<namespace_path> finish_list(std::vector<namespace_path> namespaces,
                                        const list_namespaces_options& options);

/// A UTC ISO 8601 timestamp with microseconds, for `micros` since the Unix epoch.
std::string format_timestamp(long long micros);

/// Microseconds since the Unix epoch, now.
long long now_micros();

/// Microseconds since the Unix epoch by `config.clock` (system_clock when it is empty).
long long now_micros(const ttl_config& config);

/// The expiry of an item that never expires: later than any clock reading.
inline constexpr long long never_expires = std::numeric_limits<long long>::max();

/// Throws invalid_argument naming `what` (such as "the TTL of item \"k\"") unless `minutes`
/// is absent or finite and not negative.
void check_ttl(const std::optional<double>& minutes, const std::string& what);

/// Throws invalid_argument unless `config`'s default TTL passes `check_ttl` and its sweep
/// interval, if any, is positive.
void check_ttl_config(const ttl_config& config);

/// When an item put or refreshed at `now` with a TTL of `minutes` expires (microseconds since
/// the epoch, saturating); `never_expires` without a TTL.
long long expiry_micros(long long now, const std::optional<double>& minutes);

/// Whether an item with `expires` (from `expiry_micros`) has expired at `now`.
inline bool expired(long long expires, long long now) { return expires <= now; }

/// Whether a search's `query` asks for semantic search: given and not empty (LangGraph's
/// stores test `op.query` for truth, so "" is no query).
inline bool is_query(const std::optional<std::string>& query) { return query && !query->empty(); }

/// Whether reads under `config` skip an item with `expires` at `now`: expired, and the store
/// omits expired items (`ttl_config::omit_expired`).
inline bool hidden(long long expires, long long now, const ttl_config& config) {
  return config.omit_expired && expired(expires, now);
}

/// A read's `refresh_ttl`, or the store's default when it gives none.
inline bool refresh_on_read(const std::optional<bool>& refresh_ttl, const ttl_config& config) {
  return refresh_ttl.value_or(config.refresh_on_read);
}

/// The texts at `fields` of `v`, in order (see `index_config::fields`).
std::vector<std::string> texts_to_embed(const value& v, const std::vector<std::string>& fields);

/// Calls `embed` on `texts`; throws invalid_argument unless it returns one vector of `dims`
/// floats per text.
std::vector<std::vector<float>> embed_checked(const index_config& index,
                                              const std::vector<std::string>& texts);

/// Cosine similarity; 0 when either vector is zero.
double cosine(const std::vector<float>& a, const std::vector<float>& b);

/// The score of `b` for query `a` under `d` (see `distance_type`), computed in double.
double similarity(distance_type d, const std::vector<float>& a, const std::vector<float>& b);

/// The best `similarity` of `query` to any of `vectors` (LangGraph scores an item by its
/// best-matching field); nullopt when there are none.
std::optional<double> best_similarity(distance_type d, const std::vector<float>& query,
                                      const std::vector<std::vector<float>>& vectors);

}  // namespace superstep::storage::store_support
