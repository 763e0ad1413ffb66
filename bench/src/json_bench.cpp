// superstep_json_bench: our JSON parser (value::parse_json) against the packaged ones a user
// would suggest (nlohmann-json, simdjson), measured the way superstep uses JSON: text in,
// superstep::value out. The packaged parsers build their own document; turning it into a
// value is part of what replacing ours would cost, so it is timed too ("+ to value"), and
// their parse alone is shown beside it. Serializing (value::to_json against nlohmann's dump)
// is the other direction.
//
// usage: superstep_json_bench [--runs N]   (prints a table: median, min and max per workload)
#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "superstep/core/value.hpp"

using namespace superstep;

namespace {

// A graph state as runs stream and store it: chat messages with metadata, numbers, nested
// lists; `n` messages.
value messages_state(std::size_t n, std::mt19937& rng) {
  std::uniform_int_distribution<int> len(20, 400);
  list messages;
  for (std::size_t i = 0; i < n; ++i) {
    std::string content;
    int l = len(rng);
    for (int c = 0; c < l; ++c) content += static_cast<char>('a' + (rng() % 26));
    if (i % 7 == 0) content += " \"quoted\" \\ and \u00e9\n";
    messages.push_back(object{{"type", i % 2 ? "ai" : "human"},
                              {"content", content},
                              {"id", "msg-" + std::to_string(i)},
                              {"usage", object{{"input_tokens", static_cast<std::int64_t>(l)},
                                               {"output_tokens", 17},
                                               {"cost", 0.000125 * l}}},
                              {"tool_calls", list{}}});
  }
  return object{{"messages", value(std::move(messages))}, {"step", 42}, {"done", false}};
}

// A map-reduce's numbers: a list of n integers and doubles.
value numbers(std::size_t n, std::mt19937& rng) {
  list out;
  for (std::size_t i = 0; i < n; ++i)
    out.push_back(i % 2 ? value(static_cast<std::int64_t>(rng())) : value(rng() / 3.0));
  return object{{"results", value(std::move(out))}};
}

value from_nlohmann(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::null: return value();
    case nlohmann::json::value_t::boolean: return value(j.get<bool>());
    case nlohmann::json::value_t::number_integer: return value(j.get<std::int64_t>());
    case nlohmann::json::value_t::number_unsigned:
      return value(static_cast<std::int64_t>(j.get<std::uint64_t>()));
    case nlohmann::json::value_t::number_float: return value(j.get<double>());
    case nlohmann::json::value_t::string: return value(j.get_ref<const std::string&>());
    case nlohmann::json::value_t::array: {
      list l;
      l.reserve(j.size());
      for (const auto& x : j) l.push_back(from_nlohmann(x));
      return value(std::move(l));
    }
    case nlohmann::json::value_t::object: {
      object o;
      o.reserve(j.size());
      for (const auto& [k, x] : j.items()) o.set(k, from_nlohmann(x));
      return value(std::move(o));
    }
    default: return value();
  }
}

value from_simdjson(simdjson::dom::element e) {
  switch (e.type()) {
    case simdjson::dom::element_type::NULL_VALUE: return value();
    case simdjson::dom::element_type::BOOL: return value(bool(e));
    case simdjson::dom::element_type::INT64: return value(int64_t(e));
    case simdjson::dom::element_type::UINT64: return value(static_cast<std::int64_t>(uint64_t(e)));
    case simdjson::dom::element_type::DOUBLE: return value(double(e));
    case simdjson::dom::element_type::STRING: return value(std::string(std::string_view(e)));
    case simdjson::dom::element_type::ARRAY: {
      list l;
      for (auto x : simdjson::dom::array(e)) l.push_back(from_simdjson(x));
      return value(std::move(l));
    }
    case simdjson::dom::element_type::OBJECT: {
      object o;
      for (auto field : simdjson::dom::object(e))
        o.set(std::string(field.key), from_simdjson(field.value));
      return value(std::move(o));
    }
  }
  return value();
}

struct timing {
  double median, min, max;  // microseconds per call
};

timing measure(int runs, std::size_t reps, const std::function<void()>& f) {
  std::vector<double> us;
  f();  // warm up
  for (int r = 0; r < runs; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < reps; ++i) f();
    auto t1 = std::chrono::steady_clock::now();
    us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / reps);
  }
  std::sort(us.begin(), us.end());
  return {us[us.size() / 2], us.front(), us.back()};
}

void row(const std::string& workload, const std::string& who, timing t, std::size_t bytes) {
  std::printf("%-22s %-26s %12.1f %12.1f %12.1f %10.0f\n", workload.c_str(), who.c_str(), t.median,
              t.min, t.max, bytes / t.median);  // bytes per µs = MB/s
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 7;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: superstep_json_bench [--runs N]\n");
      return 2;
    }
  }
  std::mt19937 rng(7);
  struct doc {
    std::string name;
    std::string text;
    std::size_t reps;
  };
  std::vector<doc> docs = {
      {"small input (100 B)", R"({"subjects": ["cats", "dogs", "owls"], "n": 3})", 20000},
      {"state, 20 messages", messages_state(20, rng).to_json(), 2000},
      {"state, 5000 messages", messages_state(5000, rng).to_json(), 10},
      {"10^5 numbers", numbers(100000, rng).to_json(), 5},
  };
  std::printf("JSON text -> superstep::value, %d runs each; microseconds per document\n", runs);
  std::printf("%-22s %-26s %12s %12s %12s %10s\n", "document", "parser", "median", "min", "max",
              "MB/s");
  simdjson::dom::parser sj;
  std::size_t sink = 0;  // keeps the parses that return nothing we use from being dropped
  for (const auto& d : docs) {
    value expect = value::parse_json(d.text);
    if (!(from_nlohmann(nlohmann::json::parse(d.text)) == expect) ||
        !(from_simdjson(sj.parse(d.text)) == expect)) {
      std::fprintf(stderr, "the parsers disagree on %s\n", d.name.c_str());
      return 1;
    }
    row(d.name, "superstep", measure(runs, d.reps, [&] { (void)value::parse_json(d.text); }),
        d.text.size());
    row(d.name, "nlohmann + to value",
        measure(runs, d.reps, [&] { (void)from_nlohmann(nlohmann::json::parse(d.text)); }),
        d.text.size());
    row(d.name, "nlohmann (own document)",
        measure(runs, d.reps,
                [&] {
                  nlohmann::json j = nlohmann::json::parse(d.text);
                  sink += j.size();
                }),
        d.text.size());
    row(d.name, "simdjson + to value",
        measure(runs, d.reps, [&] { (void)from_simdjson(sj.parse(d.text)); }), d.text.size());
    row(d.name, "simdjson (own document)",
        measure(runs, d.reps,
                [&] {
                  auto doc = sj.parse(d.text);
                  sink += doc.error() == simdjson::SUCCESS;
                }),
        d.text.size());
  }
  std::printf("\nsuperstep::value -> JSON text\n");
  for (const auto& d : docs) {
    value v = value::parse_json(d.text);
    nlohmann::json j = nlohmann::json::parse(d.text);
    row(d.name, "superstep to_json", measure(runs, d.reps, [&] { (void)v.to_json(); }),
        d.text.size());
    row(d.name, "nlohmann dump", measure(runs, d.reps, [&] { (void)j.dump(); }), d.text.size());
  }
  return sink == 0 ? 0 : 0;
}
