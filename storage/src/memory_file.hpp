#pragma once

// A file that lives in memory (Linux memfd_create) with a path that opens it: for libraries
// that only read and write paths, such as hnswlib's saveIndex and loadIndex, when the bytes
// belong somewhere else (a database). Private to the storage library.

#include <string>
#include <string_view>

namespace superstep::storage {

/// An anonymous in-memory file, gone when the object is. Not thread-safe.
class memory_file {
 public:
  /// Throws `superstep::error` (storage_error) when the system cannot make one.
  memory_file();
  ~memory_file();
  memory_file(const memory_file&) = delete;
  memory_file& operator=(const memory_file&) = delete;

  /// A path that opens this file ("/proc/self/fd/N"), in this process only.
  [[nodiscard]] std::string path() const;
  /// Replaces the file's contents with `bytes`; throws storage_error.
  void write(std::string_view bytes);
  /// The file's contents; throws storage_error.
  [[nodiscard]] std::string read() const;

 private:
  int fd_;
};

}  // namespace superstep::storage
