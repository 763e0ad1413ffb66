#pragma once

// Running the `superstep` program from the CLI suites: scratch folders, shell quoting, and a
// run that captures stdout, stderr and the exit status.
#include <sys/wait.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "superstep/core/value.hpp"

namespace superstep::test {

namespace fs = std::filesystem;

/// The program under test. tests/CMakeLists.txt defines SUPERSTEP_BIN for cli_test; the other
/// suites find the program where the build puts it, beside the tests folder.
inline std::string superstep_bin() {
#ifdef SUPERSTEP_BIN
  return SUPERSTEP_BIN;
#else
  fs::path self = fs::read_symlink("/proc/self/exe");
  return (self.parent_path().parent_path() / "cluster" / "superstep").string();
#endif
}

/// What a run of the program printed, and how it ended.
struct cli_result {
  int status = -1;  ///< the exit status; -1 when it did not exit normally
  std::string out;
  std::string err;

  /// Each stdout line, parsed as JSON.
  std::vector<value> lines() const {
    std::vector<value> v;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);) v.push_back(value::parse_json(line));
    return v;
  }
  /// The last stdout line, parsed (null when there is none).
  value last() const {
    auto v = lines();
    return v.empty() ? value() : v.back();
  }
};

/// A scratch folder, removed at the end of a test.
struct scratch {
  scratch()
      : dir(fs::temp_directory_path() /
            ("superstep_cli_test_" + std::to_string(::getpid()) + "_" + std::to_string(++count))) {
    fs::create_directories(dir);
  }
  ~scratch() { fs::remove_all(dir); }
  scratch(const scratch&) = delete;
  scratch& operator=(const scratch&) = delete;

  std::string write(const std::string& name, const std::string& text) const {
    fs::path p = dir / name;
    std::ofstream(p) << text;
    return p.string();
  }
  std::string path(const std::string& name) const { return (dir / name).string(); }

  fs::path dir;
  static inline int count = 0;
};

/// `s` quoted for the shell.
inline std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

/// The path of examples/specs/<name>.json, quoted.
inline std::string example(const std::string& name) {
  return quote(std::string(SUPERSTEP_EXAMPLE_SPECS) + "/" + name + ".json");
}

/// Runs `superstep <args>` (already shell-quoted) in a scratch working directory, so the
/// default data folder (.superstep) is the scratch's, with SUPERSTEP_AES_KEY set to `aes_key`
/// (unset when empty), and captures its output and exit status.
inline cli_result run_cli(const std::string& args, const std::string& aes_key = "") {
  scratch s;
  fs::path err = s.dir / "stderr";
  std::string env = aes_key.empty() ? "env -u SUPERSTEP_AES_KEY "
                                    : "env SUPERSTEP_AES_KEY=" + quote(aes_key) + " ";
  std::string cmd = "cd " + quote(s.dir.string()) + " && " + env + quote(superstep_bin()) + " " +
                    args + " 2>" + quote(err.string());
  cli_result r;
  FILE* p = ::popen(cmd.c_str(), "r");
  BOOST_REQUIRE(p != nullptr);
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) r.out.append(buf, n);
  int status = ::pclose(p);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(err);
  std::ostringstream e;
  e << in.rdbuf();
  r.err = e.str();
  return r;
}

}  // namespace superstep::test
