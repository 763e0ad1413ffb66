#include "rocksdb_clean_close.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>
#include <vector>

#include "superstep/core/error.hpp"
#include "superstep/core/ids.hpp"

namespace superstep::storage {

namespace fs = std::filesystem;

namespace {

constexpr const char* mark_name = "CLEAN-CLOSE";

struct file_state {
  std::string name;
  std::uintmax_t size = 0;
  std::uint64_t hash = 0;  // the MANIFEST's only
};

[[noreturn]] void damaged(const std::string& dir, const std::string& why) {
  throw error(error_code::storage_error, "rocksdb_saver: " + dir + " is damaged: " + why);
}

bool read_file(const fs::path& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  out = s.str();
  return !in.bad();
}

// The files a clean close leaves the database's state in: the MANIFEST that CURRENT names and
// the write-ahead logs.
bool current_files(const std::string& dir, std::vector<file_state>& out) {
  std::string current;
  if (!read_file(fs::path(dir) / "CURRENT", current) || current.empty() || current.back() != '\n')
    return false;
  current.pop_back();
  file_state manifest{current};
  std::string bytes;
  if (!read_file(fs::path(dir) / current, bytes)) return false;
  manifest.size = bytes.size();
  manifest.hash = stable_hash(bytes);
  out.push_back(std::move(manifest));
  std::error_code ec;
  std::vector<file_state> logs;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() != ".log") continue;
    std::error_code size_ec;
    const auto size = it->file_size(size_ec);
    if (size_ec) return false;
    logs.push_back(file_state{it->path().filename().string(), size, 0});
  }
  if (ec) return false;
  std::sort(logs.begin(), logs.end(), [](auto& a, auto& b) { return a.name < b.name; });
  out.insert(out.end(), logs.begin(), logs.end());
  return true;
}

std::string encode(const std::vector<file_state>& files) {
  std::string text;
  for (const auto& f : files)
    text += f.name + ' ' + std::to_string(f.size) + ' ' + std::to_string(f.hash) + '\n';
  return text + "hash " + std::to_string(stable_hash(text)) + '\n';
}

bool sync_path(const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::fsync(fd) == 0;
  ::close(fd);
  return ok;
}

}  // namespace

bool write_clean_close(const std::string& dir) {
  std::vector<file_state> files;
  if (!current_files(dir, files)) return false;
  const std::string text = encode(files);
  const std::string mark = (fs::path(dir) / mark_name).string();
  const std::string temp = mark + ".tmp";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      std::error_code ec;
      fs::remove(temp, ec);
      return false;
    }
  }
  if (!sync_path(temp, O_RDONLY) || std::rename(temp.c_str(), mark.c_str()) != 0) {
    std::error_code ec;
    fs::remove(temp, ec);
    return false;
  }
  return sync_path(dir, O_RDONLY | O_DIRECTORY);
}

void forget_clean_close(const std::string& dir) {
  std::error_code ec;
  if (fs::remove(fs::path(dir) / mark_name, ec)) sync_path(dir, O_RDONLY | O_DIRECTORY);
}

bool verify_clean_close(const std::string& dir) {
  std::string text;
  if (!read_file(fs::path(dir) / mark_name, text)) return false;
  // The mark's own last line hashes the lines before it.
  const std::size_t last = text.rfind("hash ", text.size());
  if (last == std::string::npos || (last != 0 && text[last - 1] != '\n') || text.back() != '\n' ||
      text.substr(last) != "hash " + std::to_string(stable_hash(text.substr(0, last))) + "\n")
    damaged(dir, std::string("its ") + mark_name + " file is not whole");
  std::vector<file_state> now;
  if (!current_files(dir, now))
    damaged(dir, "its CURRENT file or the MANIFEST it names cannot be read");
  std::istringstream lines(text.substr(0, last));
  std::vector<file_state> closed;
  for (file_state f; lines >> f.name >> f.size >> f.hash;) closed.push_back(f);
  if (closed.empty()) damaged(dir, std::string("its ") + mark_name + " file names no MANIFEST");
  // Every writable open starts a new MANIFEST: another MANIFEST that CURRENT names and that
  // exists was made by a program other than ours opening the database (RocksDB's tools, a
  // test), and the mark is stale.
  if (closed.front().name != now.front().name) return false;
  if (closed.front().size != now.front().size || closed.front().hash != now.front().hash)
    damaged(dir, now.front().name + " changed since the database was closed (" +
                     (closed.front().size == now.front().size
                          ? std::string("other bytes")
                          : std::to_string(now.front().size) + " bytes, closed with " +
                                std::to_string(closed.front().size)) +
                     ")");
  for (std::size_t i = 1; i < closed.size(); ++i) {
    auto it = std::find_if(now.begin() + 1, now.end(),
                           [&](const file_state& f) { return f.name == closed[i].name; });
    if (it == now.end()) damaged(dir, "its write-ahead log " + closed[i].name + " is missing");
    if (it->size != closed[i].size)
      damaged(dir, "its write-ahead log " + closed[i].name + " has " + std::to_string(it->size) +
                       " bytes, " + std::to_string(closed[i].size) + " when it was closed");
  }
  return true;
}

}  // namespace superstep::storage
