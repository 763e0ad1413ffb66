#include "superstep/storage/store_support.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <string_view>

#include "superstep/core/error.hpp"

namespace superstep::storage::store_support {

namespace {

[[noreturn]] void invalid(const std::string& message) {
  throw error(error_code::invalid_argument, "store: " + message);
}

std::string ns_text(const namespace_path& ns) {
  std::string out = "(";
  for (std::size_t i = 0; i < ns.size(); ++i) {
    if (i) out += ", ";
    out += '"' + ns[i] + '"';
  }
  return out + ")";
}

bool is_operator_object(const value& f) {
  if (!f.is_object()) return false;
  for (const auto& [k, _] : f.as_object())
    if (!k.empty() && k[0] == '$') return true;
  return false;
}

void check_condition(const std::string& field, const value& f) {
  if (!f.is_object()) return;
  if (!is_operator_object(f)) {
    for (const auto& [k, sub] : f.as_object()) check_condition(field + "." + k, sub);
    return;
  }
  static constexpr std::string_view known[] = {"$eq", "$ne", "$gt", "$gte", "$lt", "$lte"};
  for (const auto& [op, _] : f.as_object())
    if (std::find(std::begin(known), std::end(known), op) == std::end(known))
      invalid("unknown filter operator \"" + op + "\" on field \"" + field +
              "\" (expected $eq, $ne, $gt, $gte, $lt or $lte)");
}

// -1, 0, 1, or nullopt when the kinds do not order (only numbers and strings do).
std::optional<int> order(const value& a, const value& b) {
  if (a.is_number() && b.is_number()) {
    const double x = a.as_double(), y = b.as_double();
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  if (a.is_string() && b.is_string()) {
    const int c = a.as_string().compare(b.as_string());
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  return std::nullopt;
}

bool apply_operator(const value& v, const std::string& op, const value& operand) {
  if (op == "$eq") return v == operand;
  if (op == "$ne") return v != operand;
  const auto c = order(v, operand);
  if (!c) return false;
  if (op == "$gt") return *c > 0;
  if (op == "$gte") return *c >= 0;
  if (op == "$lt") return *c < 0;
  return *c <= 0;  // $lte: check_filter let nothing else through
}

bool compare(const value& v, const value& f) {
  if (is_operator_object(f)) {
    for (const auto& [op, operand] : f.as_object())
      if (!apply_operator(v, op, operand)) return false;
    return true;
  }
  if (f.is_object()) {
    if (!v.is_object()) return false;
    for (const auto& [k, sub] : f.as_object())
      if (!compare(v.get(k), sub)) return false;
    return true;
  }
  if (f.is_list()) {
    if (!v.is_list() || v.as_list().size() != f.as_list().size()) return false;
    for (std::size_t i = 0; i < f.as_list().size(); ++i)
      if (!compare(v.as_list()[i], f.as_list()[i])) return false;
    return true;
  }
  return v == f;
}

bool label_matches(const std::string& pattern, const std::string& label) {
  return pattern == "*" || pattern == label;
}

// Appends the values at `path` (after the leading "$." if any) below `v` to `out`.
void collect(const value& v, std::string_view path, std::vector<const value*>& out) {
  if (path.empty()) {
    out.push_back(&v);
    return;
  }
  if (path[0] == '.') path.remove_prefix(1);
  if (path[0] == '[') {
    const auto close = path.find(']');
    if (close == std::string_view::npos || !v.is_list()) return;
    const std::string_view index = path.substr(1, close - 1);
    const std::string_view rest = path.substr(close + 1);
    const auto& items = v.as_list();
    if (index == "*") {
      for (const auto& x : items) collect(x, rest, out);
      return;
    }
    long long i = 0;
    for (char c : index) {
      if (c < '0' || c > '9') return;
      i = i * 10 + (c - '0');
    }
    if (index.empty() || i >= static_cast<long long>(items.size())) return;
    collect(items[static_cast<std::size_t>(i)], rest, out);
    return;
  }
  const auto end = path.find_first_of(".[");
  const std::string_view name = path.substr(0, end);
  const value* member = v.find(name);
  if (!member) return;
  collect(*member, end == std::string_view::npos ? std::string_view{} : path.substr(end), out);
}

}  // namespace

void check_namespace(const namespace_path& ns) {
  if (ns.empty()) invalid("a namespace needs at least one label");
  for (const auto& label : ns) {
    if (label.empty()) invalid("empty label in namespace " + ns_text(ns));
    if (label.find('.') != std::string::npos)
      invalid("label \"" + label + "\" of namespace " + ns_text(ns) + " contains '.'");
  }
}

void check_put_namespace(const namespace_path& ns) {
  check_namespace(ns);
  if (ns.front() == "langgraph")
    invalid("the root label of namespace " + ns_text(ns) + " cannot be \"langgraph\" (reserved)");
}

void check_item(const std::string& key, const value& v) {
  if (key.empty()) invalid("an item key must not be empty");
  if (!v.is_object())
    invalid("the value of item \"" + key + "\" must be an object, not " +
            std::string(kind_name(v.kind())));
}

void check_filter(const object& filter) {
  for (const auto& [field, f] : filter) check_condition(field, f);
}

namespace {

// The value at `field` of `v`: a top-level field, or with '.' a path into nested objects
// ("user.access-level"), as LangGraph's SQLite and Postgres stores read filter keys. Null when
// a step is missing or not an object.
const value& field_value(const value& v, const std::string& field) {
  static const value null;
  if (field.find('.') == std::string::npos) return v.get(field);
  const value* at = &v;
  std::string_view rest = field;
  while (true) {
    const auto dot = rest.find('.');
    if (!at->is_object()) return null;
    const value* next = at->find(rest.substr(0, dot));
    if (!next) return null;
    at = next;
    if (dot == std::string_view::npos) return *at;
    rest.remove_prefix(dot + 1);
  }
}

}  // namespace

bool matches_filter(const value& v, const object& filter) {
  for (const auto& [field, f] : filter)
    if (!compare(field_value(v, field), f)) return false;
  return true;
}

bool has_prefix(const namespace_path& ns, const namespace_path& prefix) {
  return ns.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), ns.begin());
}

bool matches(const namespace_path& ns, const list_namespaces_options& options) {
  if (ns.size() < options.prefix.size() || ns.size() < options.suffix.size()) return false;
  for (std::size_t i = 0; i < options.prefix.size(); ++i)
    if (!label_matches(options.prefix[i], ns[i])) return false;
  const std::size_t skip = ns.size() - options.suffix.size();
  for (std::size_t i = 0; i < options.suffix.size(); ++i)
    if (!label_matches(options.suffix[i], ns[skip + i])) return false;
  return true;
}

std::vector<namespace_path> finish_list(std::vector<namespace_path> namespaces,
                                        const list_namespaces_options& options) {
  if (options.max_depth)
    for (auto& ns : namespaces)
      if (ns.size() > *options.max_depth) ns.resize(*options.max_depth);
  std::sort(namespaces.begin(), namespaces.end());
  namespaces.erase(std::unique(namespaces.begin(), namespaces.end()), namespaces.end());
  const std::size_t begin = std::min(options.offset, namespaces.size());
  const std::size_t end = std::min(namespaces.size(), begin + options.limit);
  return {namespaces.begin() + static_cast<std::ptrdiff_t>(begin),
          namespaces.begin() + static_cast<std::ptrdiff_t>(end)};
}

std::string format_timestamp(long long micros) {
  const std::time_t seconds = static_cast<std::time_t>(micros / 1000000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%06lld+00:00", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, micros % 1000000);
  return buf;
}

long long now_micros() {
  using namespace std::chrono;
  return duration_cast<microseconds>(system_clock::now().time_since_epoch()).count();
}

long long now_micros(const ttl_config& config) {
  if (!config.clock) return now_micros();
  using namespace std::chrono;
  return duration_cast<microseconds>(config.clock().time_since_epoch()).count();
}

void check_ttl(const std::optional<double>& minutes, const std::string& what) {
  if (!minutes) return;
  if (!std::isfinite(*minutes) || *minutes < 0) {
    char shown[32];
    std::snprintf(shown, sizeof shown, "%g", *minutes);
    invalid(what + " must be a finite, non-negative number of minutes, not " + shown);
  }
}

void check_ttl_config(const ttl_config& config) {
  check_ttl(config.default_ttl_minutes, "ttl_config::default_ttl_minutes");
  if (config.sweep_interval && config.sweep_interval->count() <= 0)
    invalid("ttl_config::sweep_interval must be positive, not " +
            std::to_string(config.sweep_interval->count()) + " ms");
}

long long expiry_micros(long long now, const std::optional<double>& minutes) {
  if (!minutes) return never_expires;
  const double expires = static_cast<double>(now) + *minutes * 60e6;
  // Beyond the range of long long (TTLs of some 10^5 years): never, in practice.
  if (expires >= static_cast<double>(never_expires)) return never_expires;
  return static_cast<long long>(expires);
}

std::vector<std::string> texts_to_embed(const value& v, const std::vector<std::string>& fields) {
  std::vector<std::string> texts;
  for (const auto& field : fields) {
    std::string_view path = field;
    if (path == "$") {
      texts.push_back(v.to_json());
      continue;
    }
    if (path.starts_with("$.")) path.remove_prefix(2);
    if (path.empty()) continue;
    std::vector<const value*> found;
    collect(v, path, found);
    for (const value* x : found) texts.push_back(x->is_string() ? x->as_string() : x->to_json());
  }
  return texts;
}

std::vector<std::vector<float>> embed_checked(const index_config& index,
                                              const std::vector<std::string>& texts) {
  if (texts.empty()) return {};
  auto vectors = index.embed(texts);
  if (vectors.size() != texts.size())
    invalid("the embedder returned " + std::to_string(vectors.size()) + " vectors for " +
            std::to_string(texts.size()) + " texts");
  for (const auto& vec : vectors)
    if (vec.size() != index.dims)
      invalid("the embedder returned a vector of dimension " + std::to_string(vec.size()) +
              ", the index expects " + std::to_string(index.dims));
  return vectors;
}

double cosine(const std::vector<float>& a, const std::vector<float>& b) {
  double dot = 0, na = 0, nb = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    dot += double(a[i]) * b[i];
    na += double(a[i]) * a[i];
    nb += double(b[i]) * b[i];
  }
  return na > 0 && nb > 0 ? dot / std::sqrt(na * nb) : 0.0;
}

}  // namespace superstep::storage::store_support
