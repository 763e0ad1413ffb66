// The chat-model options of `superstep run` and `superstep worker` (--model, --model-url,
// --model-key-env), for the std library's llm.chat nodes.
#include "cli_args_support.hpp"

namespace superstep::cli::detail {

const char* const model_usage =
    "  --model NAME          the chat model of llm.chat nodes, as the server names it (over\n"
    "                        a node's own \"model\" param)\n"
    "  --model-url URL       an OpenAI-compatible API's base (default: the node's, else\n"
    "                        https://api.openai.com/v1); requests go to URL/chat/completions\n"
    "  --model-key-env VAR   the environment variable holding the API key (default:\n"
    "                        SUPERSTEP_MODEL_KEY when set, else OPENAI_API_KEY; unset: no key)\n";

bool take_model_option(const std::string& arg, arg_cursor& args, value& out) {
  static constexpr std::pair<const char*, const char*> fields[] = {
      {"--model", "name"}, {"--model-url", "url"}, {"--model-key-env", "key_env"}};
  for (const auto& [option, field] : fields) {
    if (arg != option) continue;
    std::string v = args.value_of(arg);
    if (v.empty()) throw usage_error(arg + ": the value is empty");
    if (!out.is_object()) out = value(object{});
    object o = out.as_object();
    o.set(field, v);
    out = value(std::move(o));
    return true;
  }
  return false;
}

}  // namespace superstep::cli::detail
