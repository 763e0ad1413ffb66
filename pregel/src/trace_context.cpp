#include "superstep/pregel/trace_context.hpp"

#include <cctype>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <vector>

#include "stream_messages.hpp"
#include "superstep/core/error.hpp"

namespace superstep {

namespace {

constexpr const char* trace_header = "langsmith-trace";
constexpr const char* baggage_header = "baggage";
constexpr std::string_view metadata_item = "langsmith-metadata=";
// "%Y%m%dT%H%M%S" and six digits of microseconds, then 'Z': the time part of a segment.
constexpr std::size_t time_part = 22;

// A dotted-order segment for `run_id` started now.
std::string segment(const std::string& run_id) {
  const auto now = std::chrono::system_clock::now();
  const auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count();
  const std::time_t secs = static_cast<std::time_t>(micros / 1000000);
  std::tm utc{};
  gmtime_r(&secs, &utc);
  char buf[32];
  std::size_t n = std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%S", &utc);
  std::snprintf(buf + n, sizeof buf - n, "%06lldZ", static_cast<long long>(micros % 1000000));
  return buf + run_id;
}

std::string percent_encoded(const std::string& text) {
  static const char hex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

error bad_header(const char* name, const std::string& text, const std::string& why) {
  return error(error_code::invalid_argument,
               std::string("header ") + name + " '" + text + "': " + why);
}

std::string percent_decoded(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    const int hi = i + 2 < text.size() ? hex_digit(text[i + 1]) : -1;
    const int lo = i + 2 < text.size() ? hex_digit(text[i + 2]) : -1;
    if (hi < 0 || lo < 0) throw bad_header(baggage_header, text, "a bad percent escape");
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

// The metadata of a baggage header's "langsmith-metadata" item; an empty object without one.
value metadata_of_baggage(const std::string& baggage) {
  for (std::size_t at = 0; at <= baggage.size();) {
    std::size_t end = baggage.find(',', at);
    if (end == std::string::npos) end = baggage.size();
    std::string item = baggage.substr(at, end - at);
    item.erase(0, item.find_first_not_of(' '));
    if (item.starts_with(metadata_item)) {
      value m;
      try {
        m = value::parse_json(percent_decoded(item.substr(metadata_item.size())));
      } catch (const error& e) {
        throw bad_header(baggage_header, baggage, std::string("metadata: ") + e.what());
      }
      if (!m.is_object()) throw bad_header(baggage_header, baggage, "metadata not an object");
      return m;
    }
    at = end + 1;
  }
  return object{};
}

const std::string& string_field(const value& v, const char* key) {
  const value* f = v.find(key);
  if (!f || !f->is_string())
    throw error(error_code::invalid_argument,
                std::string("config trace: '") + key + "' is not a string: " + v.to_json());
  return f->as_string();
}

}  // namespace

trace_context trace_context::start(std::string run_id, value metadata) {
  if (run_id.empty()) run_id = detail::fresh_uuid4();
  if (!metadata.is_object())
    throw error(error_code::invalid_argument,
                "trace_context: the metadata is not an object: " + metadata.to_json());
  trace_context t;
  t.trace_id = run_id;
  t.dotted_order = segment(run_id);
  t.run_id = std::move(run_id);
  t.metadata = std::move(metadata);
  return t;
}

trace_context trace_context::child(std::string id) const {
  trace_context t;
  t.trace_id = trace_id;
  t.parent_run_id = run_id;
  t.dotted_order = dotted_order + "." + segment(id);
  t.run_id = std::move(id);
  t.metadata = metadata;
  return t;
}

std::map<std::string, std::string> trace_context::to_headers() const {
  return {{trace_header, dotted_order},
          {baggage_header, std::string(metadata_item) + percent_encoded(metadata.to_json())}};
}

std::optional<trace_context> trace_context::from_headers(
    const std::map<std::string, std::string>& headers) {
  auto it = headers.find(trace_header);
  if (it == headers.end()) return std::nullopt;
  const std::string& order = it->second;
  trace_context t;
  t.dotted_order = order;
  std::vector<std::string> ids;
  for (std::size_t at = 0; at <= order.size();) {
    std::size_t end = order.find('.', at);
    if (end == std::string::npos) end = order.size();
    const std::string part = order.substr(at, end - at);
    if (part.size() <= time_part || part[time_part - 1] != 'Z' || part[8] != 'T')
      throw bad_header(trace_header, order,
                       "segment '" + part + "' is not <%Y%m%dT%H%M%S microseconds>Z<run id>");
    ids.push_back(part.substr(time_part));
    at = end + 1;
  }
  t.trace_id = ids.front();
  t.run_id = ids.back();
  if (ids.size() > 1) t.parent_run_id = ids[ids.size() - 2];
  if (auto b = headers.find(baggage_header); b != headers.end())
    t.metadata = metadata_of_baggage(b->second);
  return t;
}

value trace_context::to_value() const {
  return object{{"trace_id", trace_id},
                {"run_id", run_id},
                {"parent_run_id", parent_run_id},
                {"dotted_order", dotted_order},
                {"metadata", metadata}};
}

std::optional<trace_context> trace_context::of(const value& config) {
  const value* v = config.is_object() ? config.find("trace") : nullptr;
  if (!v || v->is_null()) return std::nullopt;
  if (!v->is_object())
    throw error(error_code::invalid_argument, "config trace is not an object: " + v->to_json());
  trace_context t;
  t.trace_id = string_field(*v, "trace_id");
  t.run_id = string_field(*v, "run_id");
  t.parent_run_id = string_field(*v, "parent_run_id");
  t.dotted_order = string_field(*v, "dotted_order");
  t.metadata = v->get("metadata").is_object() ? v->get("metadata") : value(object{});
  return t;
}

value trace_context::in(const value& config) const {
  object cfg = config.is_object() ? config.as_object() : object{};
  cfg.set("trace", to_value());
  return value(std::move(cfg));
}

}  // namespace superstep
