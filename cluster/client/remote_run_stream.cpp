// superstep::remote_run_stream: a remote run read event by event (remote_graph::stream_events),
// its answers (the head's, or a LangGraph Server's events) read by a thread of its own, and its
// abort through remote_graph::cancel.
#include "superstep/cluster/remote_run_stream.hpp"

#include <condition_variable>
#include <deque>
#include <future>
#include <thread>

#include "client/remote_graph_impl.hpp"

namespace superstep {

using namespace remote_detail;

// What a remote_run_stream shares with the thread reading the head's answers.
struct remote_run_stream::state {
  remote_graph graph;
  net::client_request request;
  std::vector<stream_mode> requested;
  std::string thread;
  std::string run_id;

  mutable std::mutex m;
  std::condition_variable changed;
  bool entered = false;
  bool closed = false;
  std::deque<value> lines;  // the head's lines not read yet
  bool ended = false;       // the head answered `finished` (or the link was lost)
  std::exception_ptr failure;
  value output;
  // The actor reading the answers, and the connection it lives on (kept while it is told to
  // stop); the thread it runs on.
  caf::actor reader;
  std::shared_ptr<void> reader_link;
  std::thread reading;
  // With a url: the run's HTTP request, and what ends its transfer from another thread.
  std::optional<http_run_request> http_request;
  std::shared_ptr<transfer_stop> http_stop;

  explicit state(remote_graph g) : graph(std::move(g)) {}

  // Ends the reading (the head's later lines are dropped) and wakes a waiting `next`.
  // Calls may overlap (close and abort from two threads): one of them joins the thread.
  void shut() noexcept {
    caf::actor r;
    std::thread t;
    {
      std::lock_guard lock(m);
      closed = true;
      r = reader;
      t = std::move(reading);
    }
    if (r) caf::anon_send(r, close_atom::value);
    if (http_stop) http_stop->stop();
    if (t.joinable()) t.join();
    {
      std::lock_guard lock(m);
      reader = caf::actor();
      reader_link.reset();
    }
    changed.notify_all();
  }
};

namespace {

// What the thread reading a run from a LangGraph Server does: the run is taken once the
// stream's `metadata` event names its id.
void read_http(const std::shared_ptr<remote_run_stream::state>& s, std::promise<void>& taken,
               const http_api& api) {
  bool told = false;
  auto push = [&s](value line) {
    {
      std::lock_guard lock(s->m);
      s->lines.push_back(std::move(line));
    }
    s->changed.notify_all();
  };
  auto started = [&](const std::string& run_id) {
    if (told) return;
    {
      std::lock_guard lock(s->m);
      s->run_id = run_id;
    }
    told = true;
    taken.set_value();
  };
  try {
    api.stream_run(*s->http_request, push, started, s->http_stop.get());
    if (!told && s->http_stop->stopped())
      throw error(error_code::invalid_argument, "remote_run_stream: closed before the run started");
    if (!told)
      throw error(error_code::protocol_error,
                  "the server at " + api.url() + " sent no metadata event with the run's id");
  } catch (...) {
    if (!told) {
      taken.set_exception(std::current_exception());
      return;
    }
    std::lock_guard lock(s->m);
    s->failure = std::current_exception();
  }
  {
    std::lock_guard lock(s->m);
    s->ended = true;
  }
  s->changed.notify_all();
}

}  // namespace

remote_run_stream::remote_run_stream(std::shared_ptr<state> s) : state_(std::move(s)) {}
remote_run_stream::remote_run_stream(remote_run_stream&&) noexcept = default;
remote_run_stream& remote_run_stream::operator=(remote_run_stream&& other) noexcept {
  if (this != &other) {
    close();
    state_ = std::move(other.state_);
  }
  return *this;
}
remote_run_stream::~remote_run_stream() { close(); }

void remote_run_stream::enter() {
  state& st = *state_;
  {
    std::lock_guard lock(st.m);
    if (st.closed) throw error(error_code::invalid_argument, "remote_run_stream: closed");
    if (st.entered) throw error(error_code::invalid_argument, "remote_run_stream: entered already");
  }
  auto taken = std::make_shared<std::promise<void>>();
  std::future<void> started = taken->get_future();
  std::thread reading([s = state_, taken] {
    if (s->http_request) return read_http(s, *taken, *s->graph.impl_->http);
    bool told = false;
    try {
      s->graph.impl_->exchange(
          s->request,
          [&s](value line) {
            {
              std::lock_guard lock(s->m);
              s->lines.push_back(std::move(line));
            }
            s->changed.notify_all();
          },
          [&](const caf::actor& reader, std::shared_ptr<connection> link) {
            {
              std::lock_guard lock(s->m);
              s->reader = reader;
              s->reader_link = std::move(link);
            }
            told = true;
            taken->set_value();
          });
    } catch (...) {
      if (!told) {
        taken->set_exception(std::current_exception());
        return;
      }
      std::lock_guard lock(s->m);
      s->failure = std::current_exception();
    }
    {
      std::lock_guard lock(s->m);
      s->ended = true;
    }
    s->changed.notify_all();
  });
  try {
    started.get();
  } catch (...) {
    reading.join();
    std::lock_guard lock(st.m);
    st.closed = true;  // as LangGraph unwinds the SDK thread when run.start raises
    throw;
  }
  std::lock_guard lock(st.m);
  st.reading = std::move(reading);
  st.entered = true;
}

std::optional<stream_event> remote_run_stream::next() {
  state& st = *state_;
  std::unique_lock lock(st.m);
  if (!st.entered) throw error(error_code::invalid_argument, "remote_run_stream: not entered");
  for (;;) {
    st.changed.wait(lock, [&] { return st.closed || !st.lines.empty() || st.ended; });
    if (st.closed) throw error(error_code::invalid_argument, "remote_run_stream: closed");
    if (!st.lines.empty()) {
      value line = std::move(st.lines.front());
      st.lines.pop_front();
      if (is_output_line(line)) {
        st.output = output_of(line);
        continue;
      }
      stream_event ev = event_of(line);
      if (has_mode(st.requested, ev.mode)) return ev;
      continue;
    }
    if (st.failure) std::rethrow_exception(st.failure);
    return std::nullopt;
  }
}

value remote_run_stream::output() {
  while (next()) {
  }
  std::lock_guard lock(state_->m);
  return state_->output;
}

void remote_run_stream::abort() noexcept {
  if (!state_) return;
  state& st = *state_;
  bool cancel = false;
  {
    std::lock_guard lock(st.m);
    if (st.closed) return;
    st.closed = true;
    cancel = st.entered;
  }
  if (cancel) {
    try {
      st.graph.cancel(st.thread, st.run_id);
    } catch (...) {  // LangGraph logs it and closes all the same
    }
  }
  st.shut();
}

void remote_run_stream::close() noexcept {
  if (!state_) return;
  state_->shut();
}

bool remote_run_stream::entered() const noexcept {
  std::lock_guard lock(state_->m);
  return state_->entered;
}

bool remote_run_stream::closed() const noexcept {
  std::lock_guard lock(state_->m);
  return state_->closed;
}

const std::string& remote_run_stream::thread_id() const noexcept { return state_->thread; }

std::string remote_run_stream::run_id() const {
  std::lock_guard lock(state_->m);
  return state_->entered ? state_->run_id : std::string();
}

remote_run_stream remote_graph::stream_events(const value& input, const value& config,
                                              const remote_run_options& options) const {
  if (!config.is_null() && !config.is_object())
    throw error(error_code::invalid_argument, "stream_events: the config is not an object");
  const value merged = impl_->merged(config);
  value sent = sanitize_config(merged);
  std::string thread = impl::take_thread(sent, true, "stream_events");
  auto st = std::make_shared<remote_run_stream::state>(*this);
  st->requested = requested_modes(options);
  net::run_args a = run_request(input, sent, options, st->requested, {}, thread);
  if (impl_->http) {
    // The server names the run (its `metadata` event); a run without a thread goes on a
    // fresh one, created by the run, so that the stream can cancel it by its thread.
    st->http_request =
        impl_->http->run_request(a, thread, run_headers(impl_->options, options, merged));
    st->http_stop = std::make_shared<transfer_stop>();
    st->thread = std::move(thread);
    return remote_run_stream(std::move(st));
  }
  a.run_id = fresh_thread_id();
  st->thread = std::move(thread);
  st->run_id = a.run_id;
  st->request = net::make_client_request(net::command(a), std::nullopt);
  st->request.headers = run_headers(impl_->options, options, merged);
  (void)net::encode_request(st->request);  // what cannot be sent fails here, before enter
  return remote_run_stream(std::move(st));
}

}  // namespace superstep
