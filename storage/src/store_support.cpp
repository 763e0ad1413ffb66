#include "superstep/storage/store_support.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <optional>
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

// The steps of a text path (LangGraph's `tokenize_path`): names split at '.', and "[...]" and
// "{...}" groups kept whole with their brackets (nested brackets included).
std::vector<std::string_view> path_steps(std::string_view path) {
  std::vector<std::string_view> steps;
  std::size_t name_start = 0;
  const auto end_name = [&](std::size_t at) {
    if (at > name_start) steps.push_back(path.substr(name_start, at - name_start));
  };
  for (std::size_t i = 0; i < path.size();) {
    const char c = path[i];
    if (c == '[' || c == '{') {
      end_name(i);
      const char close = c == '[' ? ']' : '}';
      std::size_t depth = 1, j = i + 1;
      for (; j < path.size() && depth > 0; ++j) {
        if (path[j] == c) ++depth;
        if (path[j] == close) --depth;
      }
      steps.push_back(path.substr(i, j - i));
      i = name_start = j;
      continue;
    }
    if (c == '.') {
      end_name(i);
      name_start = i + 1;
    }
    ++i;
  }
  end_name(path.size());
  return steps;
}

// The text of a value found at the end of a path: a string as is, null nothing, anything
// else its JSON.
void add_text(const value& v, std::vector<std::string>& out) {
  if (v.is_null()) return;
  out.push_back(v.is_string() ? v.as_string() : v.to_json());
}

// An index "[n]" or "[-n]" (from the end) into `size` items; nullopt when it is not a
// number or out of range.
std::optional<std::size_t> list_index(std::string_view index, std::size_t size) {
  const bool negative = !index.empty() && index[0] == '-';
  if (negative) index.remove_prefix(1);
  if (index.empty() || index.size() > 18) return std::nullopt;
  long long n = 0;
  for (char c : index) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  if (negative) n = static_cast<long long>(size) - n;
  if (n < 0 || n >= static_cast<long long>(size)) return std::nullopt;
  return static_cast<std::size_t>(n);
}

// Appends the texts at `steps[pos...]` below `v` to `out` (LangGraph's `get_text_at_path`):
// "[i]", "[-i]" and "[*]" index lists, "*" takes every member of an object or list,
// "{a,b.c}" takes each listed field path of an object, a name takes that member. A step
// that does not fit the value yields nothing.
void collect(const value& v, const std::vector<std::string_view>& steps, std::size_t pos,
             std::vector<std::string>& out) {
  if (pos == steps.size()) return add_text(v, out);
  const std::string_view step = steps[pos];
  if (step.front() == '[' && step.back() == ']' && step.size() >= 2) {
    if (!v.is_list()) return;
    const std::string_view index = step.substr(1, step.size() - 2);
    const auto& items = v.as_list();
    if (index == "*") {
      for (const auto& x : items) collect(x, steps, pos + 1, out);
    } else if (const auto i = list_index(index, items.size())) {
      collect(items[*i], steps, pos + 1, out);
    }
    return;
  }
  if (step.front() == '{' && step.back() == '}' && step.size() >= 2) {
    if (!v.is_object()) return;
    std::string_view fields = step.substr(1, step.size() - 2);
    while (true) {
      const auto comma = fields.find(',');
      std::string_view field = fields.substr(0, comma);
      while (!field.empty() && field.front() == ' ') field.remove_prefix(1);
      while (!field.empty() && field.back() == ' ') field.remove_suffix(1);
      // Each field is a path of member names from here.
      const value* at = &v;
      const auto names = path_steps(field);
      for (const auto name : names) {
        at = at->is_object() ? at->find(name) : nullptr;
        if (!at) break;
      }
      if (at && !names.empty()) add_text(*at, out);
      if (comma == std::string_view::npos) break;
      fields.remove_prefix(comma + 1);
    }
    return;
  }
  if (step == "*") {
    if (v.is_object())
      for (const auto& [_, member] : v.as_object()) collect(member, steps, pos + 1, out);
    if (v.is_list())
      for (const auto& x : v.as_list()) collect(x, steps, pos + 1, out);
    return;
  }
  if (!v.is_object()) return;
  if (const value* member = v.find(step)) collect(*member, steps, pos + 1, out);
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
    if (path.starts_with("$.")) path.remove_prefix(2);
    if (path.empty() || path == "$") {
      texts.push_back(v.to_json());
      continue;
    }
    collect(v, path_steps(path), 0, texts);
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
