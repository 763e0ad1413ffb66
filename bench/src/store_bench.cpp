// superstep_store_bench: the long-term store's put, get and filtered-search rates on both
// backends, and semantic search through the HNSW index against exact search (recall@10 and
// query latency) on random vectors. Prints a table; `make bench-store` runs it.
//
//   superstep_store_bench [--items N] [--vectors N] [--dims D] [--queries Q] [--runs R]
//                         [--dir PATH] [--m M] [--ef-construction E] [--ef-search E]
//
// Rates are medians over R runs (each on a fresh store); latencies are over Q queries.
// RocksDB runs without fsync (rocksdb_store_options::sync = false): the figures are the
// store's, not the disk's.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "superstep/storage/store_memory.hpp"
#include "superstep/storage/store_rocksdb.hpp"

namespace {

using namespace superstep;
using namespace superstep::storage;
namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

struct options {
  std::size_t items = 100000, vectors = 100000, dims = 384, queries = 200;
  int runs = 3;
  std::size_t m = 16, ef_construction = 200, ef_search = 100;
  std::string dir = (fs::temp_directory_path() / "superstep-store-bench").string();
};

double seconds_since(clock_type::time_point start) {
  return std::chrono::duration<double>(clock_type::now() - start).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[std::min(v.size() - 1, static_cast<std::size_t>(p * v.size()))];
}

void row(const std::string& backend, const std::string& what, const std::string& figure,
         const std::string& note = "") {
  std::printf("%-9s %-36s %18s  %s\n", backend.c_str(), what.c_str(), figure.c_str(), note.c_str());
  std::fflush(stdout);
}

std::string rate(double per_second) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f /s", per_second);
  return buf;
}

std::string ms(double seconds) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f ms", seconds * 1e3);
  return buf;
}

// A fresh store of `backend` ("memory" or "rocksdb") in an emptied `dir`.
std::shared_ptr<store> fresh(const std::string& backend, const options& o,
                             std::optional<index_config> index = std::nullopt) {
  if (backend == "memory") {
    if (index) return std::make_shared<memory_store>(std::move(*index));
    return std::make_shared<memory_store>();
  }
  fs::remove_all(o.dir);
  rocksdb_store_options ro;
  ro.index = std::move(index);
  ro.sync = false;
  return rocksdb_store::open(o.dir, std::move(ro));
}

namespace_path ns_of(std::size_t i) { return {"user" + std::to_string(i % 100), "memories"}; }

// put, get and filtered search on `o.items` items without an index.
void plain_rates(const std::string& backend, const options& o) {
  std::vector<double> puts, gets, prefix_searches, full_searches;
  std::mt19937_64 gen(42);
  for (int run = 0; run < o.runs; ++run) {
    auto s = fresh(backend, o);
    auto start = clock_type::now();
    for (std::size_t i = 0; i < o.items; ++i)
      s->put(ns_of(i), "k" + std::to_string(i),
             object{{"group", static_cast<std::int64_t>(i % 10)},
                    {"n", static_cast<std::int64_t>(i)},
                    {"text", "memory number " + std::to_string(i)}});
    puts.push_back(double(o.items) / seconds_since(start));

    std::uniform_int_distribution<std::size_t> pick(0, o.items - 1);
    start = clock_type::now();
    for (std::size_t j = 0; j < o.items; ++j) {
      const std::size_t i = pick(gen);
      if (!s->get(ns_of(i), "k" + std::to_string(i), false)) std::abort();
    }
    gets.push_back(double(o.items) / seconds_since(start));

    // One user's namespace (1% of the items), filter on a field, first page.
    constexpr int prefix_queries = 200;
    start = clock_type::now();
    for (int q = 0; q < prefix_queries; ++q) {
      search_options so;
      so.ns_prefix = {"user" + std::to_string(q % 100)};
      so.filter = object{{"group", static_cast<std::int64_t>(q % 10)},
                         {"n", object{{"$gte", std::int64_t{0}}}}};
      so.refresh_ttl = false;
      if (s->search(so).size() != 10) std::abort();
    }
    prefix_searches.push_back(prefix_queries / seconds_since(start));

    // Every namespace: the filter runs over all items.
    constexpr int full_queries = 10;
    start = clock_type::now();
    for (int q = 0; q < full_queries; ++q) {
      search_options so;
      so.filter = object{{"group", static_cast<std::int64_t>(q % 10)}};
      so.refresh_ttl = false;
      if (s->search(so).size() != 10) std::abort();
    }
    full_searches.push_back(full_queries / seconds_since(start));
  }
  const std::string n = std::to_string(o.items);
  row(backend, "put (" + n + " items)", rate(median(puts)));
  row(backend, "get (random keys)", rate(median(gets)));
  row(backend, "search: 1 namespace + filter, limit 10", rate(median(prefix_searches)),
      "queries; 1% of the items under the prefix");
  row(backend, "search: filter over all, limit 10", rate(median(full_searches)), "queries");
}

// Random vectors: item i's text is "v<i>", query j's is "q<j>"; the embedder looks them up.
struct vector_table {
  std::vector<std::vector<float>> items, queries;

  vector_table(const options& o) {
    std::mt19937_64 gen(7);
    std::normal_distribution<float> normal;
    const auto make = [&](std::size_t n) {
      std::vector<std::vector<float>> out(n, std::vector<float>(o.dims));
      for (auto& v : out)
        for (float& x : v) x = normal(gen);
      return out;
    };
    items = make(o.vectors);
    queries = make(o.queries);
  }

  embed_fn embedder() const {
    return [this](const std::vector<std::string>& texts) {
      std::vector<std::vector<float>> out;
      for (const auto& t : texts) {
        const std::size_t i = std::stoul(t.substr(1));
        out.push_back(t[0] == 'v' ? items.at(i) : queries.at(i));
      }
      return out;
    };
  }
};

struct query_run {
  std::vector<std::vector<std::string>> keys;
  std::vector<double> latency;
};

query_run run_queries(store& s, std::size_t queries) {
  query_run r;
  for (std::size_t q = 0; q < queries; ++q) {
    search_options so;
    so.query = "q" + std::to_string(q);
    so.limit = 10;
    so.refresh_ttl = false;
    const auto start = clock_type::now();
    const auto found = s.search(so);
    r.latency.push_back(seconds_since(start));
    std::vector<std::string> keys;
    for (const auto& i : found) keys.push_back(i.key);
    r.keys.push_back(std::move(keys));
  }
  return r;
}

double recall(const query_run& ann, const query_run& exact) {
  std::size_t hits = 0, total = 0;
  for (std::size_t q = 0; q < std::min(ann.keys.size(), exact.keys.size()); ++q) {
    const std::set<std::string> truth(exact.keys[q].begin(), exact.keys[q].end());
    for (const auto& k : ann.keys[q]) hits += truth.count(k);
    total += truth.size();
  }
  return total ? double(hits) / double(total) : 0;
}

void latency_rows(const std::string& backend, const std::string& what, const query_run& r) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "median %s, p90 %s", ms(median(r.latency)).c_str(),
                ms(percentile(r.latency, 0.9)).c_str());
  row(backend, what + " (" + std::to_string(r.latency.size()) + " queries)", buf);
}

void fill(store& s, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    s.put({"docs", std::to_string(i % 16)}, "d" + std::to_string(i),
          object{{"t", "v" + std::to_string(i)}});
}

void semantic(const options& o) {
  const vector_table table(o);
  index_config ann{o.dims, table.embedder(), {"t"}};
  ann.ann_m = o.m;
  ann.ann_ef_construction = o.ef_construction;
  ann.ann_ef_search = o.ef_search;
  index_config exact = ann;
  exact.ann = false;
  const std::string n = std::to_string(o.vectors) + " x " + std::to_string(o.dims);

  // memory: the exact reference, then the ANN store.
  auto reference = fresh("memory", o, exact);
  fill(*reference, o.vectors);
  const auto exact_run = run_queries(*reference, o.queries);
  latency_rows("memory", "exact search, limit 10", exact_run);
  reference.reset();

  auto start = clock_type::now();
  auto s = fresh("memory", o, ann);
  fill(*s, o.vectors);
  row("memory", "put with ANN index (" + n + ")", rate(double(o.vectors) / seconds_since(start)),
      "HNSW M=" + std::to_string(o.m) + ", ef_construction=" + std::to_string(o.ef_construction));
  const auto ann_run = run_queries(*s, o.queries);
  latency_rows("memory", "ANN search, limit 10", ann_run);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", recall(ann_run, exact_run));
  row("memory", "ANN recall@10 vs exact", buf,
      "ef_search=" + std::to_string(o.ef_search) + " (k=64 candidates)");
  s.reset();

  // rocksdb: build, reopen (the index is rebuilt), then exact on the same database.
  start = clock_type::now();
  s = fresh("rocksdb", o, ann);
  fill(*s, o.vectors);
  row("rocksdb", "put with ANN index (" + n + ")", rate(double(o.vectors) / seconds_since(start)));
  const auto rocks_ann = run_queries(*s, o.queries);
  latency_rows("rocksdb", "ANN search, limit 10", rocks_ann);
  std::snprintf(buf, sizeof buf, "%.4f", recall(rocks_ann, exact_run));
  row("rocksdb", "ANN recall@10 vs exact", buf);
  s.reset();
  rocksdb_store_options ro;
  ro.index = ann;
  ro.sync = false;
  start = clock_type::now();
  s = rocksdb_store::open(o.dir, ro);
  row("rocksdb", "reopen: rebuild the ANN index", ms(seconds_since(start)));
  s.reset();
  ro.index = exact;
  s = rocksdb_store::open(o.dir, ro);
  const auto rocks_exact = run_queries(*s, std::min<std::size_t>(o.queries, 30));
  latency_rows("rocksdb", "exact search, limit 10", rocks_exact);
  s.reset();
  fs::remove_all(o.dir);
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], arg = argv[i + 1];
    if (flag == "--items")
      o.items = std::stoul(arg);
    else if (flag == "--vectors")
      o.vectors = std::stoul(arg);
    else if (flag == "--dims")
      o.dims = std::stoul(arg);
    else if (flag == "--queries")
      o.queries = std::stoul(arg);
    else if (flag == "--runs")
      o.runs = std::stoi(arg);
    else if (flag == "--dir")
      o.dir = arg;
    else if (flag == "--m")
      o.m = std::stoul(arg);
    else if (flag == "--ef-construction")
      o.ef_construction = std::stoul(arg);
    else if (flag == "--ef-search")
      o.ef_search = std::stoul(arg);
    else {
      std::fprintf(stderr, "superstep_store_bench: unknown option %s\n", flag.c_str());
      return 2;
    }
  }
  std::printf("%-9s %-36s %18s  %s\n", "backend", "workload", "figure", "note");
  plain_rates("memory", o);
  plain_rates("rocksdb", o);
  fs::remove_all(o.dir);
  semantic(o);
  return 0;
}
