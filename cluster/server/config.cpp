// superstep.json (server/config.hpp).
#include "server/config.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "superstep/cluster/graph_spec.hpp"
#include "superstep/core/error.hpp"

namespace superstep::server {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void bad(const std::string& file, const std::string& what) {
  throw error(error_code::invalid_spec, file + ": " + what);
}

std::string resolve(const fs::path& base, const std::string& path) {
  fs::path p(path);
  return (p.is_absolute() ? p : base / p).lexically_normal().string();
}

value spec_file(const std::string& file, const std::string& key, const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec))
    throw error(error_code::not_found, file + ": " + key + ": no graph spec at '" + path + "'");
  return cluster::read_spec_file(path);
}

// A .env file's NAME=VALUE lines (blank lines and # comments skipped, an optional `export `,
// values optionally in single or double quotes).
std::map<std::string, std::string> env_file(const std::string& file, const std::string& path) {
  std::ifstream in(path);
  if (!in) throw error(error_code::not_found, file + ": env: cannot read '" + path + "'");
  std::map<std::string, std::string> out;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const auto trim = [](std::string t) {
      const auto first = t.find_first_not_of(" \t\r");
      const auto last = t.find_last_not_of(" \t\r");
      return first == std::string::npos ? std::string() : t.substr(first, last - first + 1);
    };
    line = trim(line);
    if (line.empty() || line[0] == '#') continue;
    if (line.rfind("export ", 0) == 0) line = trim(line.substr(7));
    const auto eq = line.find('=');
    const std::string name = eq == std::string::npos ? "" : trim(line.substr(0, eq));
    if (name.empty())
      bad(file, "env: " + path + ":" + std::to_string(number) + ": expected NAME=VALUE");
    std::string v = trim(line.substr(eq + 1));
    if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front())
      v = v.substr(1, v.size() - 2);
    out[name] = v;
  }
  return out;
}

}  // namespace

server_config read_server_config(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw error(error_code::not_found, "cannot read the server config '" + path + "'");
  std::stringstream text;
  text << in.rdbuf();
  value doc;
  try {
    doc = value::parse_json(text.str());
  } catch (const error& e) {
    bad(path, std::string("not JSON: ") + e.what());
  }
  if (!doc.is_object()) bad(path, "expected an object with \"graphs\"");
  const fs::path base = fs::absolute(path).parent_path();
  server_config config;
  config.source = path;
  for (const auto& [key, v] : doc.as_object()) {
    if (key == "graphs") {
      if (!v.is_object() || v.as_object().empty())
        bad(path, "\"graphs\" must map graph names to spec files");
      for (const auto& [name, g] : v.as_object()) {
        const std::string where = "graphs." + name;
        if (name.empty()) bad(path, "a graph name is empty");
        if (g.is_string()) {
          config.graphs[name] = spec_file(path, where, resolve(base, g.as_string()));
        } else if (g.is_object() && g.find("spec") && g.get("spec").is_object()) {
          config.graphs[name] = g.get("spec");
        } else if (g.is_object() && g.find("path") && g.get("path").is_string()) {
          config.graphs[name] = spec_file(path, where, resolve(base, g.get("path").as_string()));
        } else {
          bad(path, where + ": expected the path of a graph spec, or {\"spec\": {...}}");
        }
      }
    } else if (key == "plugins") {
      if (!v.is_list()) bad(path, "\"plugins\" must be a list of node library paths");
      for (const value& p : v.as_list()) {
        if (!p.is_string()) bad(path, "\"plugins\" must be a list of node library paths");
        config.plugins.push_back(resolve(base, p.as_string()));
      }
    } else if (key == "http") {
      if (!v.is_object()) bad(path, "\"http\" must be an object");
      for (const auto& [hk, hv] : v.as_object()) {
        if (hk == "cors") {
          const value& origins = hv.get("allow_origins");
          if (!hv.is_object() || !origins.is_list())
            bad(path, "http.cors: expected {\"allow_origins\": [ORIGIN, ...]}");
          config.cors_origins.clear();
          for (const value& o : origins.as_list()) {
            if (!o.is_string()) bad(path, "http.cors.allow_origins: origins are strings");
            config.cors_origins.push_back(o.as_string());
          }
        } else if (hk == "max_body_mb") {
          if (!hv.is_int() || hv.as_int() < 1 || hv.as_int() > 4096)
            bad(path, "http.max_body_mb: a number of MiB from 1 to 4096");
          config.max_body = static_cast<std::size_t>(hv.as_int()) << 20;
        } else {
          bad(path, "http: unknown key '" + hk + "' (cors, max_body_mb)");
        }
      }
    } else if (key == "env") {
      if (v.is_string()) {
        config.env = env_file(path, resolve(base, v.as_string()));
      } else if (v.is_object()) {
        for (const auto& [name, text] : v.as_object()) {
          if (name.empty() || !text.is_string())
            bad(path, "env." + name + ": expected a string (a variable's value)");
          config.env[name] = text.as_string();
        }
      } else {
        bad(path, "\"env\" must be an object of variables or the path of a .env file");
      }
    } else if (key == "store" || key == "auth" || key == "$schema" || key == "dependencies" ||
               key == "node_version" || key == "python_version") {
      // Read by LangGraph's tools; the store's index comes from the command line here.
    } else {
      bad(path, "unknown key '" + key + "' (graphs, plugins, http, store)");
    }
  }
  if (config.graphs.empty()) bad(path, "\"graphs\" is missing: name at least one graph");
  return config;
}

server_config config_of_graphs(const std::vector<std::pair<std::string, std::string>>& graphs) {
  server_config config;
  config.source = "the command line";
  for (const auto& [name, path] : graphs)
    config.graphs[name] = spec_file("--graph", name, fs::absolute(path).string());
  return config;
}

}  // namespace superstep::server
