#include "superstep/cluster/plugin.hpp"

#include <dlfcn.h>

#include <algorithm>

#include "superstep/cluster/std_library.hpp"
#include "superstep/core/error.hpp"

namespace superstep::cluster {

namespace {

using entry_fn = int (*)(function_registry*, unsigned, char*, std::size_t);

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw error(error_code::invalid_argument, "cannot load node library '" + path + "': " + why);
}

}  // namespace

void load_plugin(const std::string& path, function_registry& registry) {
  // A path without '/' would make dlopen search the system's library folders.
  std::string file = path.find('/') == std::string::npos ? "./" + path : path;
  void* lib = ::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = ::dlerror();
    fail(path, why ? why : "dlopen failed");
  }
  auto entry = reinterpret_cast<entry_fn>(::dlsym(lib, SUPERSTEP_PLUGIN_ENTRY));
  if (!entry) fail(path, "no entry point " SUPERSTEP_PLUGIN_ENTRY " (see SUPERSTEP_PLUGIN)");
  char message[512] = {0};
  const auto nodes = registry.node_names();
  const auto routers = registry.router_names();
  int filled = -1;
  try {  // an entry point not made by SUPERSTEP_PLUGIN may let anything out
    filled = entry(&registry, SUPERSTEP_PLUGIN_ABI, message, sizeof message);
  } catch (const std::exception& e) {
    fail(path, std::string("its entry point threw: ") + e.what());
  } catch (...) {
    fail(path, "its entry point threw an exception that is not a std::exception");
  }
  switch (filled) {
    case 0: break;
    case 1: fail(path, "built for another version of superstep (plugin ABI mismatch)");
    case 2: fail(path, message);
    default: fail(path, "its entry point failed");
  }
  // "std." names are the std library's: a head runs a graph's input node itself when its
  // routers are all std routers, trusting them to be no user code.
  const auto refuse_std = [&](const std::vector<std::string>& before,
                              const std::vector<std::string>& after, const char* kind) {
    for (const auto& name : after)
      if (is_std_name(name) && !std::binary_search(before.begin(), before.end(), name))
        fail(path, std::string("registers the ") + kind + " '" + name +
                       "': names starting with 'std.' are the std library's");
  };
  refuse_std(nodes, registry.node_names(), "node function");
  refuse_std(routers, registry.router_names(), "router");
}

}  // namespace superstep::cluster
