#include "ops/data_dir.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <system_error>

#include "superstep/core/error.hpp"
#include "superstep/core/ids.hpp"
#include "superstep/storage/embedder.hpp"
#include "superstep/storage/redis_records.hpp"
#include "superstep/storage/redis_saver.hpp"
#include "superstep/storage/rocksdb_records.hpp"
#include "superstep/storage/serializer.hpp"
#include "superstep/storage/store_rocksdb.hpp"

namespace superstep::ops {

namespace fs = std::filesystem;

namespace {

constexpr char hex_digits[] = "0123456789abcdef";

std::string to_hex(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out += hex_digits[c >> 4];
    out += hex_digits[c & 15];
  }
  return out;
}

std::string to_hex(std::uint64_t n) {
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, n >>= 4) out[static_cast<std::size_t>(i)] = hex_digits[n & 15];
  return out;
}

[[noreturn]] void fail_io(const std::string& what, const std::string& path) {
  throw error(error_code::storage_error, what + " '" + path + "': " + std::strerror(errno));
}

// Writes `text` to `path` and flushes it to disk.
// Writes `text` to `path`; with `sync`, flushed to disk before it returns (power loss). Without,
// what a killed process wrote stays (the page cache holds it), as the database's log does
// without --fsync.
void write_file(const std::string& path, const std::string& text, bool sync) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail_io("cannot create", path);
  std::size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int saved = errno;
      ::close(fd);
      errno = saved;
      fail_io("cannot write", path);
    }
    done += static_cast<std::size_t>(n);
  }
  if (sync && ::fsync(fd) != 0) {
    int saved = errno;
    ::close(fd);
    errno = saved;
    fail_io("cannot write", path);
  }
  ::close(fd);
}

}  // namespace

bool has_database(const std::string& dir) {
  std::error_code ec;
  return fs::exists(fs::path(dir) / "CURRENT", ec);
}

namespace {

// Opens what `open` opens, telling a writer whose folder another process holds what to do.
template <class Open>
auto open_folder(const std::string& dir, bool read_only, Open open) {
  try {
    return open();
  } catch (const error& e) {
    const int holder = read_only ? 0 : storage::rocksdb_lock_holder(dir);
    const std::string what = e.what();
    if (e.code() == error_code::storage_error && holder == 0 &&
        (what.find("Corruption") != std::string::npos ||
         what.find("is damaged") != std::string::npos))
      throw error(error_code::storage_error, what + " (see 'superstep check --data " + dir +
                                                 "'; 'superstep repair --data " + dir +
                                                 "' salvages what can be read)");
    if (e.code() != error_code::storage_error || holder == 0) throw;
    throw error(error_code::storage_error,
                "the data folder " + dir + " is in use by another process (pid " +
                    std::to_string(holder) +
                    "): one process at a time writes to it. Wait for that one to finish (or stop "
                    "it), or give another --data; state, history and store get/search/namespaces "
                    "can read the folder meanwhile");
  }
}

}  // namespace

namespace {

std::shared_ptr<const storage::serializer> serde_of(const data_options& options) {
  return options.serde ? options.serde : storage::make_capnp_serializer();
}

}  // namespace

data_dir::data_dir(std::string path, data_options options)
    : path_(std::move(path)), options_(std::move(options)), place_(path_) {
  options_.read_only = options_.read_only && has_database(path_);
  if (!options_.index) options_.index = default_store_index();
  if (!options_.saver_url.empty()) {
    storage::redis_saver_options redis;
    redis.serde = serde_of(options_);
    auto saver = storage::redis_saver::open(options_.saver_url, std::move(redis));
    place_ = "redis at " + saver->server();
    saver_ = std::move(saver);
    return;
  }
  storage::rocksdb_saver_options rocksdb;
  rocksdb.sync = options_.fsync;
  rocksdb.read_only = options_.read_only;
  rocksdb.serde = serde_of(options_);
  saver_ = open_folder(path_, options_.read_only,
                       [&] { return storage::rocksdb_saver::open(path_, std::move(rocksdb)); });
}

std::shared_ptr<storage::record_tables> data_dir::records() const {
  std::lock_guard lock(store_mutex_);
  if (!records_) {
    if (!options_.saver_url.empty())
      records_ = storage::redis_records::open(options_.saver_url);
    else
      records_ = storage::rocksdb_records::open(path_, options_.fsync);
  }
  return records_;
}

std::shared_ptr<storage::store> data_dir::store() const {
  std::lock_guard lock(store_mutex_);
  if (!store_) store_ = open_store(path_, options_);
  return store_;
}

std::shared_ptr<storage::store> open_store(const std::string& dir, data_options options) {
  storage::rocksdb_store_options rocksdb;
  rocksdb.index = options.index ? std::move(*options.index) : default_store_index();
  rocksdb.sync = options.fsync;
  rocksdb.read_only = options.read_only && has_database(dir);
  rocksdb.serde = serde_of(options);
  const bool ro = rocksdb.read_only;
  return open_folder(dir, ro, [&]() -> std::shared_ptr<storage::store> {
    return storage::rocksdb_store::open(dir, std::move(rocksdb));
  });
}

namespace {

constexpr std::size_t default_dims = 384;

}  // namespace

storage::index_config default_store_index() {
  storage::index_config index;
  index.dims = default_dims;
  index.embed = storage::make_hashing_embedder(index.dims);
  index.embedder_id = "hashing";
  return index;
}

storage::index_config store_index(const embedder_args& embedder,
                                  const cluster::function_registry& registry) {
  if (!embedder.given()) return default_store_index();
  storage::index_config index;
  const std::string name = embedder.name.empty() ? "hashing" : embedder.name;
  index.dims = embedder.dims ? embedder.dims : default_dims;
  object params = embedder.params;
  params.set("dims", index.dims);
  index.embed = registry.make_embedder(name, value(params));
  index.embedder_id = name;
  index.distance = embedder.distance.value_or(storage::distance_type::cosine);
  if (const value* model = params.find("model"); model && model->is_string())
    index.embedder_id += "/" + model->as_string();
  return index;
}

checkpoint_tuple data_dir::checkpoint(const std::string& thread_id,
                                      const std::string& checkpoint_id) const {
  if (auto tuple = saver_->get_tuple(checkpoint_config{thread_id, "", checkpoint_id}))
    return std::move(*tuple);
  if (checkpoint_id.empty() || !saver_->get_tuple(checkpoint_config{thread_id, "", ""}))
    throw error(error_code::not_found,
                "thread '" + thread_id + "' has no checkpoints in " + place_);
  throw error(error_code::not_found,
              "checkpoint " + checkpoint_id + " not found in thread " + thread_id);
}

void data_dir::require_thread(const std::string& thread_id) const {
  static_cast<void>(checkpoint(thread_id));
}

void data_dir::require_checkpoint(const std::string& thread_id,
                                  const std::string& checkpoint_id) const {
  static_cast<void>(checkpoint(thread_id, checkpoint_id));
}

std::string data_dir::graph_file(const std::string& thread_id) const {
  // Hex keeps any thread id a valid file name; very long ids are hashed to stay under the
  // file name limit.
  std::string name = thread_id.size() <= 100
                         ? to_hex(thread_id)
                         : "h" + to_hex(stable_hash(thread_id)) + to_hex(stable_hash(thread_id, 1));
  return (fs::path(path_) / "graphs" / (name + ".json")).string();
}

void data_dir::save_graph(const std::string& thread_id, const std::string& spec_path) const {
  std::ifstream in(spec_path, std::ios::binary);
  if (!in) fail_io("cannot read", spec_path);
  std::ostringstream text;
  text << in.rdbuf();
  save_graph_text(thread_id, text.str());
}

void data_dir::save_graph_text(const std::string& thread_id, const std::string& text) const {
  const std::string target = graph_file(thread_id);
  {  // The spec the thread has already (a thread's next run, most often): nothing to write.
    std::ifstream in(target, std::ios::binary);
    if (in) {
      std::string saved((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (saved == text) return;
    }
  }
  std::error_code ec;
  fs::create_directories(fs::path(target).parent_path(), ec);
  if (ec)
    throw error(error_code::storage_error,
                "cannot create '" + fs::path(target).parent_path().string() + "': " + ec.message());
  // Unique per writer: two writers (the head's request threads, or processes) each rename a
  // whole file of their own over the target; the last rename wins.
  const std::string temp = temp_name(target);
  // The new name is a hard link to the folder's one copy of this text (a server's threads
  // share a handful of specs): a directory entry, not a new file, per thread. No spec file is
  // ever written in place, so the copies sharing it never change under a thread. Where links
  // cannot be made, the thread gets a file of its own.
  if (!link_shared_spec(text, temp)) write_file(temp, text, options_.fsync);
  if (std::rename(temp.c_str(), target.c_str()) != 0) {
    int saved = errno;
    std::remove(temp.c_str());
    errno = saved;
    fail_io("cannot write", target);
  }
}

std::string data_dir::temp_name(const std::string& target) {
  static std::atomic<std::uint64_t> writes{0};
  return target + ".tmp" + std::to_string(::getpid()) + "-" + std::to_string(writes.fetch_add(1));
}

bool data_dir::link_shared_spec(const std::string& text, const std::string& link_path) const {
  const fs::path folder = fs::path(path_) / "graphs" / "shared";
  const std::string shared =
      (folder / (to_hex(stable_hash(text)) + to_hex(stable_hash(text, 1)) + ".json")).string();
  // Written (temporary file, renamed over it) unless this process saw it hold `text`: a
  // missing or damaged copy, or one that has as many links as the file system allows
  // (EMLINK), is replaced by a new file; the names linked to the old one keep it.
  auto rewrite = [&] {
    std::error_code ec;
    fs::create_directories(folder, ec);
    const std::string temp = temp_name(shared);
    write_file(temp, text, options_.fsync);
    if (std::rename(temp.c_str(), shared.c_str()) != 0) {
      std::remove(temp.c_str());
      return false;
    }
    return true;
  };
  bool known = false;
  {
    std::lock_guard lock(shared_specs_mutex_);
    known = shared_specs_.count(shared) > 0;
  }
  if (!known) {
    std::ifstream in(shared, std::ios::binary);
    std::string saved;
    if (in) saved.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (!in || saved != text) {
      if (!rewrite()) return false;
    }
  }
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (::link(shared.c_str(), link_path.c_str()) == 0) {
      std::lock_guard lock(shared_specs_mutex_);
      shared_specs_.insert(shared);
      return true;
    }
    if ((errno != EMLINK && errno != ENOENT) || attempt > 0 || !rewrite()) break;
  }
  std::lock_guard lock(shared_specs_mutex_);
  shared_specs_.erase(shared);
  return false;
}

std::optional<std::string> data_dir::saved_graph(const std::string& thread_id) const {
  std::string file = graph_file(thread_id);
  std::error_code ec;
  if (!fs::exists(file, ec)) return std::nullopt;
  return file;
}

void data_dir::forget_graph(const std::string& thread_id) const {
  std::error_code ec;
  fs::remove(graph_file(thread_id), ec);
  fs::remove(exit_run_file(thread_id), ec);
}

std::string data_dir::exit_run_file(const std::string& thread_id) const {
  std::string spec = graph_file(thread_id);
  return spec.substr(0, spec.size() - 5) + ".exit-run";  // without ".json"
}

void data_dir::begin_exit_run(const std::string& thread_id) const {
  const std::string target = exit_run_file(thread_id);
  std::error_code ec;
  fs::create_directories(fs::path(target).parent_path(), ec);
  if (ec)
    throw error(error_code::storage_error,
                "cannot create '" + fs::path(target).parent_path().string() + "': " + ec.message());
  write_file(target, now_iso8601(), options_.fsync);
}

void data_dir::end_exit_run(const std::string& thread_id) const {
  std::error_code ec;
  fs::remove(exit_run_file(thread_id), ec);
}

std::optional<std::string> data_dir::unfinished_exit_run(const std::string& thread_id) const {
  std::ifstream in(exit_run_file(thread_id), std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string new_thread_id() {
  std::random_device rd;
  std::uint64_t a = (std::uint64_t(rd()) << 32) | rd(), b = (std::uint64_t(rd()) << 32) | rd();
  std::string h = to_hex(a) + to_hex(b);
  return h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" + h.substr(16, 4) +
         "-" + h.substr(20);
}

}  // namespace superstep::ops
