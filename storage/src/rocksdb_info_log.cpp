#include "rocksdb_info_log.hpp"

#include <fcntl.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <ctime>
#include <filesystem>

namespace superstep::storage {

namespace {

class file_info_log final : public rocksdb::Logger {
 public:
  explicit file_info_log(const std::string& path)
      : fd_(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644)) {}
  ~file_info_log() override {
    if (fd_ >= 0) ::close(fd_);
  }
  file_info_log(const file_info_log&) = delete;
  file_info_log& operator=(const file_info_log&) = delete;

  using rocksdb::Logger::Logv;
  void Logv(const char* format, va_list ap) override {
    if (fd_ < 0 || failed_.load(std::memory_order_relaxed)) return;
    char line[1024];
    timeval now{};
    ::gettimeofday(&now, nullptr);
    std::tm t{};
    ::gmtime_r(&now.tv_sec, &t);
    int n = static_cast<int>(std::strftime(line, sizeof line, "%Y/%m/%d-%H:%M:%S", &t));
    n += std::snprintf(line + n, sizeof line - static_cast<std::size_t>(n), ".%06ld ",
                       static_cast<long>(now.tv_usec));
    const int body =
        std::vsnprintf(line + n, sizeof line - static_cast<std::size_t>(n), format, ap);
    if (body > 0) n = std::min<int>(n + body, static_cast<int>(sizeof line) - 1);
    line[n++] = '\n';
    // One write per line: O_APPEND keeps concurrent lines whole.
    if (::write(fd_, line, static_cast<std::size_t>(n)) != n)
      failed_.store(true, std::memory_order_relaxed);
  }

 private:
  int fd_;
  std::atomic<bool> failed_{false};
};

class silent_info_log final : public rocksdb::Logger {
 public:
  using rocksdb::Logger::Logv;
  void Logv(const char*, va_list) override {}
};

}  // namespace

std::shared_ptr<rocksdb::Logger> make_info_log(const std::string& dir) {
  const std::filesystem::path log = std::filesystem::path(dir) / "LOG";
  std::error_code ec;
  std::filesystem::rename(log, std::filesystem::path(dir) / "LOG.old", ec);  // none yet: fine
  return std::make_shared<file_info_log>(log.string());
}

std::shared_ptr<rocksdb::Logger> make_silent_info_log() {
  return std::make_shared<silent_info_log>();
}

}  // namespace superstep::storage
