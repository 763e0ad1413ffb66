// scripted_openai_server --script FILE [--port N]: serves the replies of FILE (a JSON list, see
// scripted_openai_server.hpp) as an OpenAI-compatible chat-completions server on 127.0.0.1,
// prints its base url, and runs until SIGINT or SIGTERM.
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "agents/scripted_openai_server.hpp"
#include "superstep/core/error.hpp"

int main(int argc, char** argv) {
  std::string script_path;
  unsigned long port = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--script" && i + 1 < argc) {
      script_path = argv[++i];
    } else if (arg == "--port" && i + 1 < argc) {
      try {
        port = std::stoul(argv[++i]);
      } catch (const std::exception&) {
        port = 70000;
      }
      if (port > 65535) {
        std::cerr << "scripted_openai_server: --port must be 0 to 65535\n";
        return 2;
      }
    } else {
      std::cerr << "usage: scripted_openai_server --script FILE [--port N]\n";
      return 2;
    }
  }
  if (script_path.empty()) {
    std::cerr << "usage: scripted_openai_server --script FILE [--port N]\n";
    return 2;
  }
  std::ifstream in(script_path);
  if (!in) {
    std::cerr << "scripted_openai_server: cannot read " << script_path << "\n";
    return 1;
  }
  std::stringstream text;
  text << in.rdbuf();
  superstep::value script;
  try {
    script = superstep::value::parse_json(text.str());
  } catch (const superstep::error& e) {
    std::cerr << "scripted_openai_server: " << script_path << " is not JSON: " << e.what() << "\n";
    return 1;
  }
  if (!script.is_list()) {
    std::cerr << "scripted_openai_server: " << script_path << " must hold a list of replies\n";
    return 1;
  }
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);  // before the server's thread starts
  try {
    superstep::test::scripted_openai_server server(script.as_list(),
                                                   static_cast<std::uint16_t>(port));
    std::cout << server.base_url() << std::endl;
    int signal = 0;
    sigwait(&signals, &signal);
  } catch (const std::exception& e) {
    std::cerr << "scripted_openai_server: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
