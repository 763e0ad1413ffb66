// The chat-model options of `superstep run`, `head` and `worker` (--model, --model-url,
// --model-key-env), for the std library's llm.chat nodes.
#include "cli/args_support.hpp"

namespace superstep::cli::detail {

void add_model_options(CLI::App& app, value& out, const std::string& group) {
  auto field = [&](const char* option, const char* value_name, const char* help, const char* name) {
    add_value(
        app, option, value_name, help,
        [&out, option, name](const std::string& v) {
          if (v.empty()) throw usage_error(std::string(option) + ": the value is empty");
          object o = out.is_object() ? out.as_object() : object{};
          o.set(name, v);
          out = value(std::move(o));
        },
        group);
  };
  field("--model", "NAME",
        "the chat model of llm.chat nodes, as the server names it (over\n"
        "a node's own \"model\" param)",
        "name");
  field("--model-url", "URL",
        "an OpenAI-compatible API's base (default: the node's, else\n"
        "https://api.openai.com/v1); requests go to URL/chat/completions",
        "url");
  field("--model-key-env", "VAR",
        "the environment variable holding the API key (default:\n"
        "SUPERSTEP_MODEL_KEY when set, else OPENAI_API_KEY; unset: no key)",
        "key_env");
}

}  // namespace superstep::cli::detail
