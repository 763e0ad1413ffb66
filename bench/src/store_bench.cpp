// superstep_store_bench: the long-term store's put, get and filtered-search rates on both
// backends, and semantic search through the HNSW index against exact search (recall@10 and
// query latency) on three datasets of vectors (store_datasets.hpp). Prints a table;
// `make bench-store` runs it.
//
//   superstep_store_bench [--items N] [--vectors N] [--dims D] [--queries Q] [--runs R]
//                         [--datasets uniform,clustered,text] [--backends memory,rocksdb]
//                         [--plain yes|no] [--build-threads T]
//                         [--m M] [--ef-construction E] [--ef-search E1,E2,...]
//                         [--clusters C] [--latent-dims L] [--spread S] [--noise N]
//                         [--exact-queries Q] [--distance cosine|inner_product|l2] [--dir PATH]
//
// Rates are medians over R runs (each on a fresh store). ANN latencies are medians over Q
// queries, R times (the median of the runs' medians and their range), recall@10 is against
// the exact nearest neighbours computed by brute force (and checked against the store's exact
// search on the first --exact-queries queries). --ef-search sweeps the search breadth on
// one built index; without it the store's default. RocksDB runs without fsync
// (rocksdb_store_options::sync = false): the figures are the store's, not the disk's.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "store_datasets.hpp"
#include "superstep/storage/store_memory.hpp"
#include "superstep/storage/store_rocksdb.hpp"
#include "superstep/storage/store_support.hpp"

namespace {

using namespace superstep;
using namespace superstep::storage;
namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

struct options {
  std::size_t items = 100000, exact_queries = 20;
  int runs = 3;
  bool plain = true;
  std::vector<std::string> datasets = {"uniform", "clustered", "text"};
  /// Stores of the semantic-search rows ("memory", "rocksdb").
  std::vector<std::string> backends = {"memory", "rocksdb"};
  /// index_config::ann_build_threads; unset: its default.
  std::optional<std::size_t> build_threads;
  bench::dataset_options data;
  /// HNSW parameters; unset: index_config's defaults. Several ef_search values are a sweep.
  std::optional<std::size_t> m, ef_construction;
  std::vector<std::size_t> ef_search;
  /// index_config::distance of the semantic-search rows.
  distance_type distance = distance_type::cosine;
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

// The exact top 10 of every query by the similarity of `distance`, computed here without the
// store (the store's exact search is checked against it): float scores (dot products with
// normalized items for cosine) pick 32 candidates, double-precision similarities (as the
// store's) rank them.
struct ground_truth {
  std::vector<std::vector<std::size_t>> nearest;  // per query, best first
  std::vector<std::vector<double>> scores;
};

double norm_of(const std::vector<float>& v) {
  double n = 0;
  for (float x : v) n += double(x) * x;
  return std::sqrt(n);
}

float dot_float(const float* a, const float* b, std::size_t n) {
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (std::size_t l = 0; l < 8; ++l) acc[l] += a[i + l] * b[i + l];
  float sum = 0;
  for (; i < n; ++i) sum += a[i] * b[i];
  for (float x : acc) sum += x;
  return sum;
}

float l2_float(const float* a, const float* b, std::size_t n) {
  float sum = 0;
  for (std::size_t i = 0; i < n; ++i) sum += (a[i] - b[i]) * (a[i] - b[i]);
  return sum;
}

ground_truth exact_neighbours(const bench::dataset& d, distance_type distance) {
  const auto& items = *d.item_vectors;
  std::vector<std::vector<float>> unit(items.size());
  std::vector<double> norms(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    norms[i] = norm_of(items[i]);
    unit[i] = items[i];
    if (norms[i] > 0 && distance == distance_type::cosine)
      for (float& x : unit[i]) x = static_cast<float>(x / norms[i]);
  }
  ground_truth truth;
  constexpr std::size_t candidates = 32;
  std::vector<std::pair<float, std::size_t>> approx(items.size());
  for (const auto& q : *d.query_vectors) {
    for (std::size_t i = 0; i < items.size(); ++i)
      approx[i] = {distance == distance_type::l2 ? -l2_float(q.data(), unit[i].data(), q.size())
                                                 : dot_float(q.data(), unit[i].data(), q.size()),
                   i};
    const std::size_t c = std::min(candidates, approx.size());
    std::partial_sort(approx.begin(), approx.begin() + c, approx.end(), std::greater<>());
    std::vector<std::pair<double, std::size_t>> exact;
    for (std::size_t j = 0; j < c; ++j) {
      const auto i = approx[j].second;
      exact.emplace_back(store_support::similarity(distance, q, items[i]), i);
    }
    std::stable_sort(exact.begin(), exact.end(), std::greater<>());
    exact.resize(std::min<std::size_t>(10, exact.size()));
    truth.nearest.emplace_back();
    truth.scores.emplace_back();
    for (const auto& [score, i] : exact) {
      truth.nearest.back().push_back(i);
      truth.scores.back().push_back(score);
    }
  }
  return truth;
}

struct query_run {
  std::vector<std::vector<item>> found;
  std::vector<double> latency;
};

query_run run_queries(store& s, const bench::dataset& d, std::size_t queries) {
  query_run r;
  for (std::size_t q = 0; q < queries && q < d.query_texts.size(); ++q) {
    search_options so;
    so.query = d.query_texts[q];
    so.limit = 10;
    so.refresh_ttl = false;
    const auto start = clock_type::now();
    auto found = s.search(so);
    r.latency.push_back(seconds_since(start));
    r.found.push_back(std::move(found));
  }
  return r;
}

// recall@10: the share of the true 10 nearest that a run found; an answer whose exact score
// ties the 10th true neighbour's counts (the ground truth could have picked it instead).
double recall(const query_run& r, const ground_truth& truth) {
  std::size_t hits = 0, total = 0;
  for (std::size_t q = 0; q < r.found.size(); ++q) {
    const double tenth = truth.scores[q].back();
    std::size_t found = 0;
    for (const auto& i : r.found[q])
      if (i.score && *i.score >= tenth - 1e-9) ++found;
    hits += std::min(found, truth.scores[q].size());
    total += truth.scores[q].size();
  }
  return total ? double(hits) / double(total) : 0;
}

std::string latency_figure(const std::vector<double>& latency) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "median %s, p90 %s", ms(median(latency)).c_str(),
                ms(percentile(latency, 0.9)).c_str());
  return buf;
}

void latency_row(const std::string& backend, const std::string& what, const query_run& r) {
  row(backend, what + " (" + std::to_string(r.latency.size()) + " queries)",
      latency_figure(r.latency));
}

// ANN searches at the store's current ef_search, `runs` times over every query: the median
// of the runs' medians (their range in brackets), the pooled p90 and recall@10.
void ann_rows(const std::string& backend, store& s, const bench::dataset& d,
              const ground_truth& truth, std::size_t ef, int runs) {
  std::vector<double> medians, pooled;
  double r = 0;
  for (int run = 0; run < runs; ++run) {
    const auto result = run_queries(s, d, d.query_texts.size());
    medians.push_back(median(result.latency));
    pooled.insert(pooled.end(), result.latency.begin(), result.latency.end());
    if (run == 0) r = recall(result, truth);
  }
  char buf[160];
  std::snprintf(buf, sizeof buf, "median %s (%s-%s), p90 %s, recall@10 %.4f",
                ms(median(medians)).c_str(),
                ms(*std::min_element(medians.begin(), medians.end())).c_str(),
                ms(*std::max_element(medians.begin(), medians.end())).c_str(),
                ms(percentile(pooled, 0.9)).c_str(), r);
  row(backend, "ANN search, ef_search " + std::to_string(ef), buf,
      std::to_string(runs) + " x " + std::to_string(d.query_texts.size()) + " queries");
}

// Mean score of a query to its 1st and 10th nearest items and to a random item: how far
// apart neighbours are, the index's difficulty.
void describe(const bench::dataset& d, const ground_truth& truth, distance_type distance) {
  double first = 0, tenth = 0, random = 0;
  for (const auto& s : truth.scores) {
    first += s.front();
    tenth += s.back();
  }
  std::mt19937_64 gen(3);
  std::uniform_int_distribution<std::size_t> item(0, d.item_vectors->size() - 1),
      query(0, d.query_vectors->size() - 1);
  constexpr int pairs = 10000;
  for (int p = 0; p < pairs; ++p)
    random += store_support::similarity(distance, (*d.query_vectors)[query(gen)],
                                        (*d.item_vectors)[item(gen)]);
  char buf[128];
  std::snprintf(buf, sizeof buf, "1st %.3f, 10th %.3f, random item %.3f",
                first / double(truth.scores.size()), tenth / double(truth.scores.size()),
                random / pairs);
  row(d.name, std::string(distance_type_name(distance)) + " of a query to its neighbours", buf,
      "means");
}

void fill(store& s, const bench::dataset& d) {
  for (std::size_t i = 0; i < d.item_texts.size(); ++i)
    s.put({"docs", std::to_string(i % 16)}, "d" + std::to_string(i),
          object{{"t", d.item_texts[i]}});
}

std::size_t agreeing(const query_run& r, const ground_truth& truth) {
  std::size_t same = 0;
  for (std::size_t q = 0; q < r.found.size(); ++q) {
    std::vector<std::string> keys;
    for (const auto& i : r.found[q]) keys.push_back(i.key);
    std::vector<std::string> expected;
    for (auto i : truth.nearest[q]) expected.push_back("d" + std::to_string(i));
    same += keys == expected;
  }
  return same;
}

void rocksdb_semantic(const options& o, const bench::dataset& d, const ground_truth& truth,
                      const index_config& ann, const std::vector<std::size_t>& sweep);

std::string hnsw_params(const index_config& c) {
  return "HNSW M=" + std::to_string(c.ann_m) +
         ", ef_construction=" + std::to_string(c.ann_ef_construction);
}

void semantic(const options& o, const std::string& name) {
  auto start = clock_type::now();
  const auto d = bench::make_dataset(name, o.data);
  const auto truth = exact_neighbours(d, o.distance);
  std::printf(
      "\n# %s: %s; %zu items x %zu dims, %zu queries (generated and ground truth in %.1f s)\n",
      d.name.c_str(), d.description.c_str(), d.item_texts.size(), o.data.dims, d.query_texts.size(),
      seconds_since(start));
  describe(d, truth, o.distance);

  index_config ann{o.data.dims, d.embed, {"t"}};
  ann.distance = o.distance;
  if (o.m) ann.ann_m = *o.m;
  if (o.ef_construction) ann.ann_ef_construction = *o.ef_construction;
  if (o.build_threads) ann.ann_build_threads = *o.build_threads;
  index_config exact = ann;
  exact.ann = false;

  // memory: exact search (checked against the ground truth), then the ANN index.
  {
    auto reference = fresh("memory", o, exact);
    fill(*reference, d);
    const auto r = run_queries(*reference, d, o.exact_queries);
    latency_row("memory", "exact search, limit 10", r);
    if (agreeing(r, truth) != r.found.size()) {
      std::fprintf(stderr, "exact search disagrees with the ground truth on %zu of %zu queries\n",
                   r.found.size() - agreeing(r, truth), r.found.size());
      std::exit(1);
    }
  }
  std::vector<std::size_t> sweep = o.ef_search;
  if (sweep.empty()) sweep.push_back(ann.ann_ef_search);
  const auto runs_on = [&](const std::string& backend) {
    return std::find(o.backends.begin(), o.backends.end(), backend) != o.backends.end();
  };
  if (runs_on("memory")) {
    start = clock_type::now();
    auto s = std::make_shared<memory_store>(ann);
    fill(*s, d);
    row("memory", "put with ANN index", rate(double(d.item_texts.size()) / seconds_since(start)),
        hnsw_params(ann));
    for (auto ef : sweep) {
      s->set_ann_ef_search(ef);
      ann_rows("memory", *s, d, truth, ef, o.runs);
    }
  }

  if (runs_on("rocksdb")) rocksdb_semantic(o, d, truth, ann, sweep);
}

// rocksdb: puts (the index is made on the first semantic search), searches, reopening (the
// index saved in the database is loaded), then exact search on the same database.
void rocksdb_semantic(const options& o, const bench::dataset& d, const ground_truth& truth,
                      const index_config& ann, const std::vector<std::size_t>& sweep) {
  const std::size_t n = d.item_texts.size();
  auto start = clock_type::now();
  auto s = fresh("rocksdb", o, ann);
  fill(*s, d);
  row("rocksdb", "put (index not built yet)", rate(double(n) / seconds_since(start)));
  search_options first;
  first.query = d.query_texts.front();
  start = clock_type::now();
  (void)s->search(first);
  const double built = seconds_since(start);
  const std::size_t threads = ann.ann_build_threads
                                  ? ann.ann_build_threads
                                  : std::max(1u, std::thread::hardware_concurrency());
  row("rocksdb", "first semantic search: build + save", ms(built),
      rate(double(n) / built) + " items; " + std::to_string(threads) + " threads, " +
          hnsw_params(ann));
  auto* rocks = static_cast<rocksdb_store*>(s.get());
  for (auto ef : sweep) {
    rocks->set_ann_ef_search(ef);
    ann_rows("rocksdb", *s, d, truth, ef, o.runs);
  }
  start = clock_type::now();
  s.reset();
  row("rocksdb", "close", ms(seconds_since(start)));
  rocksdb_store_options ro;
  ro.index = ann;
  ro.sync = false;
  start = clock_type::now();
  s = rocksdb_store::open(o.dir, ro);
  (void)s->search(first);
  row("rocksdb", "reopen, first semantic search", ms(seconds_since(start)),
      "loads the saved index");
  s.reset();
  ro.index = ann;
  ro.index->ann = false;
  s = rocksdb_store::open(o.dir, ro);
  latency_row("rocksdb", "exact search, limit 10", run_queries(*s, d, o.exact_queries));
  s.reset();
  fs::remove_all(o.dir);
}

// "a,b,c" -> {"a", "b", "c"}
std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> out;
  std::size_t begin = 0;
  while (begin <= list.size()) {
    const auto end = std::min(list.find(',', begin), list.size());
    if (end > begin) out.push_back(list.substr(begin, end - begin));
    begin = end + 1;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  try {
    for (int i = 1; i + 1 < argc; i += 2) {
      const std::string flag = argv[i], arg = argv[i + 1];
      if (flag == "--items") {
        o.items = std::stoul(arg);
      } else if (flag == "--vectors") {
        o.data.items = std::stoul(arg);
      } else if (flag == "--dims") {
        o.data.dims = std::stoul(arg);
      } else if (flag == "--queries") {
        o.data.queries = std::stoul(arg);
      } else if (flag == "--exact-queries") {
        o.exact_queries = std::stoul(arg);
      } else if (flag == "--runs") {
        o.runs = std::stoi(arg);
      } else if (flag == "--datasets") {
        o.datasets = split(arg);
        for (const auto& d : o.datasets)
          if (d != "uniform" && d != "clustered" && d != "text")
            throw std::invalid_argument("no dataset " + d + " (uniform, clustered or text)");
      } else if (flag == "--backends") {
        o.backends = split(arg);
      } else if (flag == "--build-threads") {
        o.build_threads = std::stoul(arg);
      } else if (flag == "--plain") {
        o.plain = arg == "yes";
      } else if (flag == "--dir") {
        o.dir = arg;
      } else if (flag == "--m") {
        o.m = std::stoul(arg);
      } else if (flag == "--ef-construction") {
        o.ef_construction = std::stoul(arg);
      } else if (flag == "--ef-search") {
        o.ef_search.clear();
        for (const auto& ef : split(arg)) o.ef_search.push_back(std::stoul(ef));
      } else if (flag == "--distance") {
        o.distance = parse_distance_type(arg);
      } else if (flag == "--clusters") {
        o.data.clusters = std::stoul(arg);
      } else if (flag == "--latent-dims") {
        o.data.latent_dims = std::stoul(arg);
      } else if (flag == "--spread") {
        o.data.spread = std::stod(arg);
      } else if (flag == "--noise") {
        o.data.noise = std::stod(arg);
      } else {
        std::fprintf(stderr, "superstep_store_bench: unknown option %s\n", flag.c_str());
        return 2;
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "superstep_store_bench: bad option value (%s)\n", e.what());
    return 2;
  }
  std::printf("%-9s %-36s %18s  %s\n", "backend", "workload", "figure", "note");
  if (o.plain) {
    plain_rates("memory", o);
    plain_rates("rocksdb", o);
    fs::remove_all(o.dir);
  }
  for (const auto& name : o.datasets) semantic(o, name);
  return 0;
}
