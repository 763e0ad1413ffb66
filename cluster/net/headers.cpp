#include "net/headers.hpp"

#include <cctype>

namespace superstep::net {

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

header_map with_tracing_headers(header_map headers, const std::optional<trace_context>& current) {
  if (!current) return headers;
  for (auto& [name, text] : current->to_headers()) {
    auto given = headers.find(name);
    if (name == "baggage" && given != headers.end())
      given->second += "," + text;
    else
      headers[name] = text;
  }
  return headers;
}

value run_config_with_headers(const value& config, const header_map& headers) {
  header_map by_lower;
  for (const auto& [name, text] : headers) by_lower[lower(name)] = text;
  object cfg = config.is_object() ? config.as_object() : object{};
  const value* conf_in = cfg.find("configurable");
  object conf = conf_in && conf_in->is_object() ? conf_in->as_object() : object{};
  bool exposed = false;
  for (const auto& [name, text] : by_lower)
    if (name.starts_with("x-") && name != "x-api-key" && !conf.find(name)) {
      conf.set(name, text);
      exposed = true;
    }
  if (exposed) cfg.set("configurable", value(std::move(conf)));
  value out(std::move(cfg));
  if (auto caller = trace_context::from_headers(by_lower)) out = caller->in(out);
  return out;
}

}  // namespace superstep::net
