// A graph written in C++ that runs on a cluster, without a node library: this program
// registers its own node function (`words.reverse`), builds the graph with it, and
//  - `cluster_worker --spec` prints the graph's spec (export_graph_spec), to submit to a head;
//  - `cluster_worker --join HOST:PORT [--key-file FILE] [--name NAME]` joins that head as a
//    worker offering `words.reverse` (and the std library), until SIGINT or SIGTERM.
//
//   superstep head --listen 127.0.0.1:7000 &
//   ./cluster_worker --join 127.0.0.1:7000 &
//   ./cluster_worker --spec > reverse.json
//   superstep run reverse.json --head 127.0.0.1:7000 --input '{"words": ["abc", "hello"]}'
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstring>
#include <iostream>
#include <string>
#include <thread>

#include "superstep/checkpoint/constants.hpp"
#include "superstep/cluster/function_params.hpp"
#include "superstep/cluster/graph_export.hpp"
#include "superstep/cluster/std_library.hpp"
#include "superstep/cluster/worker.hpp"

using namespace superstep;

namespace {

// words.reverse {"from", "to"}: the string state[from] reversed, appended to `to` as a list.
node_function reverse_words(const value& params) {
  cluster::function_params p(params, {"from", "to"});
  std::string from = p.string("from"), to = p.string("to");
  return [from, to](const value& in, node_context&) -> value {
    std::string s = in.get(from).as_string();
    return object{{to, value::array({std::string(s.rbegin(), s.rend())})}};
  };
}

cluster::function_registry make_registry() {
  cluster::function_registry r;
  cluster::register_std_library(r);
  r.add_node("words.reverse", reverse_words);
  return r;
}

// One `reverse` task per word (std.send_each), each appending its word reversed.
state_graph make_graph(const cluster::function_registry& r) {
  state_graph g;
  g.add_key("words").add_key("reversed", "append");
  g.add_node("reverse", r.make_node("words.reverse",
                                    object{{"from", value("word")}, {"to", value("reversed")}}));
  g.add_conditional_edges(std::string(START),
                          r.make_router("std.send_each", object{{"key", value("words")},
                                                                {"node", value("reverse")},
                                                                {"as", value("word")}}));
  g.add_edge("reverse", std::string(END));
  g.set_input_keys({"words"});
  g.set_output_keys({"reversed"});
  return g;
}

int usage() {
  std::cerr << "usage: cluster_worker --spec\n"
               "       cluster_worker --join HOST:PORT [--key-file FILE] [--name NAME]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  cluster::function_registry registry = make_registry();
  if (argc == 2 && std::strcmp(argv[1], "--spec") == 0) {
    compile_options options;
    options.name = "reverse_words";
    std::cout << cluster::export_graph_spec(make_graph(registry), options).to_json() << "\n";
    return 0;
  }
  cluster::worker_options options;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (i + 1 >= argc) return usage();
    std::string v = argv[++i];
    if (a == "--join") {
      auto colon = v.rfind(':');
      if (colon == std::string::npos) return usage();
      options.host = v.substr(0, colon);
      options.port = static_cast<std::uint16_t>(std::stoi(v.substr(colon + 1)));
    } else if (a == "--key-file") {
      options.key_file = v;
    } else if (a == "--name") {
      options.name = v;
    } else {
      return usage();
    }
  }
  if (options.port == 0) return usage();

  // SIGINT and SIGTERM are blocked in every thread (the worker's inherit the mask) and taken
  // here by sigwait, which then stops the worker.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  try {
    cluster::worker worker(registry, options);
    int status = 0;
    std::thread serving([&] {
      try {
        worker.run();
      } catch (const std::exception& e) {
        std::cerr << "cluster_worker: " << e.what() << "\n";
        status = 1;
        ::kill(::getpid(), SIGTERM);  // wakes sigwait
      }
    });
    int sig = 0;
    sigwait(&stop_signals, &sig);
    worker.stop();
    serving.join();
    std::cerr << "cluster_worker: stopped\n";
    return status;
  } catch (const std::exception& e) {
    std::cerr << "cluster_worker: " << e.what() << "\n";
    return 1;
  }
}
