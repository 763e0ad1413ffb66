#pragma once

// A directory of its own for one test database, removed at the end.

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>

namespace superstep::test {

struct temp_dir {
  explicit temp_dir(const std::string& prefix = "superstep-test") {
    static std::atomic<int> counter{0};
    path = std::filesystem::temp_directory_path() /
           (prefix + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(path);
  }
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  std::string str() const { return path.string(); }
  std::filesystem::path path;
};

}  // namespace superstep::test
