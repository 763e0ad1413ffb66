#include "memory_file.hpp"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "superstep/core/error.hpp"

namespace superstep::storage {

namespace {

[[noreturn]] void fail(const std::string& what) {
  throw error(error_code::storage_error, "memory_file: " + what + ": " + std::strerror(errno));
}

}  // namespace

memory_file::memory_file() : fd_(memfd_create("superstep", MFD_CLOEXEC)) {
  if (fd_ < 0) fail("memfd_create");
}

memory_file::~memory_file() { ::close(fd_); }

std::string memory_file::path() const { return "/proc/self/fd/" + std::to_string(fd_); }

void memory_file::write(std::string_view bytes) {
  if (::ftruncate(fd_, 0) != 0) fail("ftruncate");
  for (std::size_t done = 0; done < bytes.size();) {
    const auto n = ::pwrite(fd_, bytes.data() + done, bytes.size() - done, off_t(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("write");
    done += std::size_t(n);
  }
}

std::string memory_file::read() const {
  struct stat st {};
  if (::fstat(fd_, &st) != 0) fail("fstat");
  std::string bytes(std::size_t(st.st_size), '\0');
  for (std::size_t done = 0; done < bytes.size();) {
    const auto n = ::pread(fd_, bytes.data() + done, bytes.size() - done, off_t(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("read");
    done += std::size_t(n);
  }
  return bytes;
}

}  // namespace superstep::storage
