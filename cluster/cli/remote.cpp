// A command given --head (`superstep submit`, `superstep state --head ...`): it travels to
// the head, which runs it on its database and workers; its lines come back and are printed.
#include <unistd.h>

#include <caf/io/middleman.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

#include "cli/args_support.hpp"
#include "cli/log.hpp"
#include "cli/processes.hpp"
#include "cli/progress_line.hpp"
#include "net/auth.hpp"
#include "net/protocol.hpp"
#include "net/remote_store.hpp"
#include "net/transport.hpp"
#include "ops/data_dir.hpp"
#include "ops/operations.hpp"
#include "ops/support.hpp"
#include "superstep/actors/caf_runtime.hpp"
#include "superstep/cluster/graph_spec.hpp"
#include "superstep/core/error.hpp"

namespace superstep::cli {

using namespace superstep::net;

namespace {

// A client's connection to a head: its own small actor system, joined to the gate.
struct head_connection {
  std::unique_ptr<actors::runtime> rt;
  std::unique_ptr<link_transport> transport;
  gate_actor gate;
  std::unique_ptr<caf::scoped_actor> self;

  head_connection(const std::string& address, const std::string& key_file, const tls_args& tls) {
    std::string host;
    std::uint16_t port = 0;
    detail::parse_address("--head", address, host, port);
    detail::check_tls(tls);
    std::optional<std::string> key;
    if (!key_file.empty()) key = read_key_file(key_file);
    rt = std::make_unique<actors::runtime>(cluster_runtime(1));
    auto& sys = system();
    link_options links;
    links.key = key;
    links.tls = tls;
    links.log = [](const std::string& text) { log_warning(text); };
    transport = std::make_unique<link_transport>(sys, std::move(links));
    auto linked = transport->connect(host, port, connect_timeout);
    // A head that took the connection but did not finish its handshake (a burst of clients,
    // a flood of connections, a machine short of CPU) is busy, not gone: ask again three
    // times, 0.1, 0.3 and 0.9 s later, then say so (not when it refused us, nor when nobody
    // listens).
    using cut = link_connect_result::handshake_cut;
    auto pause = std::chrono::milliseconds(100);
    for (int attempt = 1; !linked.actor && linked.cut != cut::none && attempt < 4;
         ++attempt, pause *= 3) {
      log_warning("connecting to the head again: " + linked.error);
      std::this_thread::sleep_for(pause);
      linked = transport->connect(host, port, connect_timeout);
    }
    if (!linked.actor && linked.cut == cut::busy)
      throw error(error_code::unavailable, "head busy: the head at " + address +
                                               " took the connection but did not finish its "
                                               "handshake (" +
                                               linked.error + "); try again");
    if (!linked.actor && linked.cut == cut::closed)
      throw error(error_code::unavailable,
                  "cannot reach the head at " + address + ": " + linked.error +
                      " (it closed the link in its handshake: it is busy, try again, or it "
                      "refused this client's certificate)");
    if (!linked.actor)
      throw error(linked.refused ? error_code::unauthorized : error_code::unavailable,
                  "cannot reach the head at " + address + ": " + linked.error);
    gate = gate_of(linked.actor);
    self = std::make_unique<caf::scoped_actor>(sys);
    // The link is up, so the head is there: a hello unanswered within join_gate's short
    // timeout means a busy machine (many clients starting at once on few cores), not a dead
    // head. Ask again, three times in all, before giving up.
    for (int attempt = 1;; ++attempt) {
      try {
        join_gate(*self, gate, key);
        break;
      } catch (const error& e) {
        if (e.code() != error_code::unavailable || attempt == 3) throw;
        log_warning(std::string("asking the head again: ") + e.what());
      }
    }
  }
  ~head_connection() {
    self.reset();  // before its actor system
    gate = gate_actor();
    transport.reset();
  }
  caf::actor_system& system() { return rt->internals().system; }
};

}  // namespace

int run_on_head(const command& cmd) {
  const thread_args& where = *where_of(cmd);
  if (where.data_dir != default_data_dir)
    throw usage_error("--data: not with --head (the head keeps the data)");
  if (!where.plugins.empty())
    throw usage_error("--plugin: not with --head (workers load node libraries)");
  // The client reads its own files; the head gets values (net/request.hpp).
  std::optional<value> spec;
  if (!where.graph_path.empty())
    spec = cluster::read_spec_file(where.graph_path);  // names the file
  command named = cmd;
  if (auto* run = std::get_if<run_args>(&named); run && run->where.thread.empty())
    run->where.thread = ops::new_thread_id();  // the head needs the thread, as `run` makes up
  client_request req = make_client_request(named, std::move(spec));
  (void)encode_request(req);  // what cannot be sent fails here, with its reason
  head_connection head(where.head, where.key_file, where.tls);
  auto& sys = head.system();
  auto& self = *head.self;
  const gate_actor& gate = head.gate;
  std::optional<std::string> refusal;
  std::string failure;
  self->request(gate, answer_timeout, request_atom::value, req)
      .receive([&](std::string& why) { refusal = std::move(why); },
               [&](caf::error& e) { failure = sys.render(e); });
  if (!failure.empty()) throw error(error_code::unavailable, "the head did not answer: " + failure);
  if (refusal && !refusal->empty())  // busy, shutting down, not admitted, malformed
    throw error(error_code::unavailable, "the head refused the request: " + *refusal);
  self->monitor(gate);

  progress_line progress(where.progress, ::isatty(STDERR_FILENO));
  int status = -1;
  while (status < 0) {
    self->receive(
        [&](line_atom, const std::string& line) {
          progress.end();
          std::string out = line + "\n";
          std::fwrite(out.data(), 1, out.size(), stdout);
          std::fflush(stdout);
        },
        [&](note_atom, const std::string& text) {
          progress.end();
          std::fprintf(stderr, "note: %s\n", text.c_str());
        },
        [&](progress_atom, std::int64_t step, std::uint64_t done, std::uint64_t total) {
          progress.show(step, done, total);
        },
        [&](finished_atom, std::int32_t s, const std::string& why) {
          progress.end();
          if (!why.empty()) std::fprintf(stderr, "error: %s\n", why.c_str());
          status = s;
        },
        [&](caf::down_msg&) {
          progress.end();
          std::fprintf(stderr, "error: lost the head at %s before the command ended\n",
                       where.head.c_str());
          status = exit_failed;
        });
  }
  return status;
}

int run_store_on_head(const store_args& args) {
  head_connection head(args.head, args.key_file, args.tls);
  auto& sys = head.system();
  auto& self = *head.self;
  const gate_actor& gate = head.gate;
  remote_store store([&](const std::string& op, const value& a) -> value {
    value answer;
    std::string failure;
    self->request(gate, answer_timeout, store_atom::value, op, a)
        .receive([&](value& v) { answer = std::move(v); },
                 [&](caf::error& e) { failure = sys.render(e); });
    if (!failure.empty())
      throw error(error_code::unavailable, "the head did not answer: " + failure);
    throw_if_store_error(answer);
    return answer;
  });
  return ops::run_store_with(store, args, ops::detail::print_line);
}

}  // namespace superstep::cli
