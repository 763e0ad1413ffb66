// An example node library: build it as a shared object and give it to a worker with
// `superstep worker --join HOST:PORT --plugin build/examples/libtext_nodes.so`. Specs then
// name its functions ("fn": "text.upper"). examples/specs/shout.json uses them. It also has an
// embedder for the store: `superstep store ... --plugin LIB --embedder text.letters --dims 26`,
// and a tool for llm.chat and tools.run nodes ("tools": ["word_count"]).
#include <cctype>
#include <string>
#include <vector>

#include "superstep/cluster/plugin.hpp"

namespace {

using superstep::node_context;
using superstep::object;
using superstep::value;

std::string param(const value& params, const char* name, const char* fallback) {
  const value& v = params.get(name);
  if (v.is_null()) return fallback;
  if (!v.is_string())
    throw superstep::error(superstep::error_code::invalid_spec,
                           std::string("params.") + name + " must be a string");
  return v.as_string();
}

}  // namespace

SUPERSTEP_PLUGIN(registry) {
  // text.upper: {to: upper(state[from])}; as a Send target, the Send argument is the state.
  registry.add_node("text.upper", [](const value& params) {
    std::string from = param(params, "from", "text"), to = param(params, "to", "text");
    bool wrap = param(params, "wrap", "") == "list";
    return [from, to, wrap](const value& state, node_context&) -> value {
      const value& v = state.get(from);
      if (!v.is_string())
        throw superstep::error(superstep::error_code::node_error,
                               "text.upper: state." + from + " is not a string");
      std::string s = v.as_string();
      for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      value out = wrap ? value(superstep::list{value(s)}) : value(s);
      return object{{to, out}};
    };
  });
  // text.length: {to: length(state[from])}.
  registry.add_node("text.length", [](const value& params) {
    std::string from = param(params, "from", "text"), to = param(params, "to", "length");
    return [from, to](const value& state, node_context&) -> value {
      const value& v = state.get(from);
      return object{{to, static_cast<std::int64_t>(v.is_string() ? v.as_string().size() : 0)}};
    };
  });
  // text.letters: an embedder whose vector of a text counts its letters a-z, so texts that
  // share letters are near. A toy; a real one would call a model.
  registry.add_embedder("text.letters", [](const value& params) -> superstep::storage::embed_fn {
    if (params.get("dims") != value(26))
      throw superstep::error(superstep::error_code::invalid_argument,
                             "text.letters: dims must be 26");
    return [](const std::vector<std::string>& texts) {
      std::vector<std::vector<float>> out;
      for (const auto& text : texts) {
        std::vector<float> counts(26, 0.0f);
        for (unsigned char c : text) {
          if (c >= 'A' && c <= 'Z') c = static_cast<unsigned char>(c - 'A' + 'a');
          if (c >= 'a' && c <= 'z') counts[c - 'a'] += 1;
        }
        out.push_back(std::move(counts));
      }
      return out;
    };
  });
  // word_count: a tool models may call, by name, in llm.chat and tools.run nodes.
  superstep::agents::tool words;
  words.name = "word_count";
  words.description = "Counts the words of a text.";
  words.parameters = value::parse_json(
      R"({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})");
  words.function = [](const value& args, superstep::agents::tool_runtime&) -> value {
    const std::string text = args.get("text").is_string() ? args.get("text").as_string() : "";
    std::int64_t n = 0;
    bool in_word = false;
    for (unsigned char c : text) {
      const bool space = std::isspace(c) != 0;
      if (!space && !in_word) ++n;
      in_word = !space;
    }
    return value(n);
  };
  registry.add_tool(std::move(words));
}
