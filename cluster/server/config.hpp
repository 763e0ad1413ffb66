#pragma once

// superstep.json, the server's configuration, shaped like LangGraph's langgraph.json:
//   {"graphs": {"agent": "./agent.json", "chat": {"spec": {...}}},
//    "plugins": ["./nodes.so"],
//    "http": {"cors": {"allow_origins": ["*"]}, "max_body_mb": 64},
//    "env": {"OPENAI_API_KEY": "..."} or "env": "./.env"}
// A graph is the path of a graph spec (relative to the file), or a spec given inline.

#include <map>
#include <string>
#include <vector>

#include "superstep/core/value.hpp"

namespace superstep::server {

struct server_config {
  /// Graph name -> its spec, in name order (the system assistants are made in this order).
  std::map<std::string, value> graphs;
  /// Node libraries to load before the graphs (paths resolved against the file's folder).
  std::vector<std::string> plugins;
  /// Origins a browser may call from (CORS); "*" for any. Empty: any (the API is on loopback
  /// by default, as LangGraph's dev server).
  std::vector<std::string> cors_origins = {"*"};
  std::size_t max_body = 64u << 20;
  /// "env": variables given as an object or as a .env file (NAME=VALUE lines): the keys the
  /// graphs name (a model's or an embedder's `key_env`) and the server's LANGGRAPH_CONFIG (the
  /// system assistants' configs), looked up after the caller's key source (serve_config), so
  /// that a variable set where the server starts wins, as with LangGraph's CLI.
  std::map<std::string, std::string> env;
  /// Where the file was (for messages).
  std::string source;
};

/// Reads `path`; throws superstep::error (invalid_spec) naming the file and the key that is
/// wrong, or (not_found) when a graph's spec file is missing.
server_config read_server_config(const std::string& path);

/// A configuration of graphs given as NAME=SPEC.json pairs on the command line.
server_config config_of_graphs(const std::vector<std::pair<std::string, std::string>>& graphs);

}  // namespace superstep::server
