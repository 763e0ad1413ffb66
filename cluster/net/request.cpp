#include "net/request.hpp"

#include <kj/exception.h>

#include "net/schema/request.capnp.h"
#include "superstep/core/capnp_message.hpp"
#include "superstep/core/capnp_value.hpp"
#include "superstep/core/error.hpp"

namespace superstep::net {

namespace {

using capnp_io::text;
using capnp_io::text_of;
using Kind = wire::ClientRequest::Kind;
constexpr std::uint16_t format = 1;
constexpr auto code = error_code::protocol_error;

template <class... Fs>
struct overloaded : Fs... {
  using Fs::operator()...;
};

void put(schema::Value::Builder out, const value& v) {
  capnp_value::write(out, v, capnp_value::nesting_limit - 1, code);
}

value get(schema::Value::Reader in) { return capnp_value::read(in, code); }

// The fields of a run; `where` is left for the caller.
void put_run(wire::ClientRequest::Builder out, const net::run_args& a) {
  out.setKind(Kind::RUN);
  if (a.input) {
    out.setHasInput(true);
    put(out.initInput(), *a.input);
  }
  if (a.resume) {
    out.setHasResume(true);
    put(out.initResume(), *a.resume);
  }
  if (a.update) {
    out.setHasUpdate(true);
    put(out.initUpdate(), *a.update);
  }
  out.setCheckpoint(text(a.checkpoint));
  out.setDurability(text(a.durability));
  out.setMultitask(text(a.multitask));
  put(out.initConfig(), a.config);
  auto modes = out.initStreamModes(static_cast<unsigned>(a.modes.size()));
  for (unsigned i = 0; i < a.modes.size(); ++i)
    modes.set(i, text(std::string(stream_mode_name(a.modes[i]))));
  out.setSubgraphs(a.subgraphs);
  put(out.initContext(), a.context);
  out.setRunId(text(a.run_id));
}

net::run_args get_run(wire::ClientRequest::Reader in) {
  net::run_args a;
  if (in.getHasInput()) a.input = get(in.getInput());
  if (in.getHasResume()) a.resume = get(in.getResume());
  if (in.getHasUpdate()) {
    if (!a.resume) throw error(code, "a run with a Command update but no resume value");
    a.update = get(in.getUpdate());
  }
  if (a.input && a.resume) throw error(code, "a run with both an input and a resume value");
  a.checkpoint = text_of(in.getCheckpoint());
  a.durability = text_of(in.getDurability());
  if (!a.durability.empty() && a.durability != "sync" && a.durability != "async" &&
      a.durability != "exit")
    throw error(code, "durability '" + a.durability + "' (expected sync, async or exit)");
  a.multitask = text_of(in.getMultitask());
  if (!a.multitask.empty() && a.multitask != "reject" && a.multitask != "enqueue" &&
      a.multitask != "interrupt" && a.multitask != "rollback")
    throw error(code, "multitask strategy '" + a.multitask +
                          "' (expected reject, enqueue, interrupt or rollback)");
  a.config = get(in.getConfig());
  if (!a.config.is_null() && !a.config.is_object())
    throw error(code, "a config that is not an object");
  for (auto m : in.getStreamModes()) a.modes.push_back(parse_stream_mode(text_of(m)));
  a.subgraphs = in.getSubgraphs();
  a.context = get(in.getContext());
  a.run_id = text_of(in.getRunId());
  return a;
}

const char* const kinds_run = "run, state, history, update, delete, graph, cancel and threads";

// The commands that name no thread.
bool threadless(const net::command& cmd) {
  return std::holds_alternative<net::graph_args>(cmd) ||
         std::holds_alternative<net::threads_args>(cmd);
}

const net::thread_args& where_or_throw(const net::command& cmd) {
  const net::thread_args* where = std::visit(
      [](const auto& a) -> const net::thread_args* {
        if constexpr (requires { a.where; })
          return &a.where;
        else
          return nullptr;
      },
      cmd);
  if (!where) throw net::usage_error(std::string("a head runs ") + kinds_run);
  return *where;
}

}  // namespace

client_request make_client_request(const net::command& cmd, std::optional<value> spec) {
  if (!threadless(cmd) && where_or_throw(cmd).thread.empty())
    throw net::usage_error("a request to a head needs a thread");
  if (const auto* c = std::get_if<net::cancel_args>(&cmd); c && c->run_id.empty())
    throw net::usage_error("a cancel request needs the run's id");
  client_request r;
  r.cmd = cmd;
  r.spec = std::move(spec);
  // Only the thread travels of where the command runs.
  std::visit(
      [&](auto& a) {
        if constexpr (requires { a.where; }) {
          std::string thread = a.where.thread;
          a.where = net::thread_args{};
          a.where.thread = std::move(thread);
        }
      },
      r.cmd);
  return r;
}

std::string encode_request(const client_request& r) {
  capnp_io::bounded_message_builder builder(128);
  auto out = builder.initRoot<wire::ClientRequest>();
  out.setFormat(format);
  if (!std::holds_alternative<net::graph_args>(r.cmd))
    out.setThread(text(where_or_throw(r.cmd).thread));  // threads: empty
  if (r.spec) {
    out.setHasSpec(true);
    put(out.initSpec(), *r.spec);
  }
  out.setGraph(text(r.graph));
  out.setTypedErrors(r.typed_errors);
  auto headers = out.initHeaders(static_cast<unsigned>(r.headers.size()));
  unsigned i = 0;
  for (const auto& [name, v] : r.headers) {
    if (name.empty()) throw error(error_code::invalid_argument, "a header without a name");
    headers[i].setName(text(name));
    headers[i++].setValue(text(v));
  }
  std::visit(
      overloaded{
          [&](const net::run_args& a) { put_run(out, a); },
          [&](const net::state_args& a) {
            out.setKind(Kind::STATE);
            out.setCheckpoint(text(a.checkpoint));
            out.setSubgraphState(a.subgraphs);
          },
          [&](const net::graph_args& a) {
            out.setKind(Kind::GRAPH);
            out.setXray(a.xray);
          },
          [&](const net::history_args& a) {
            out.setKind(Kind::HISTORY);
            if (a.limit) {
              out.setHasLimit(true);
              out.setLimit(*a.limit);
            }
            out.setBefore(text(a.before));
            put(out.initFilter(), value(a.filter));
          },
          [&](const net::update_args& a) {
            out.setKind(Kind::UPDATE);
            put(out.initValues(), a.values);
            if (a.as_node) {
              out.setHasAsNode(true);
              out.setAsNode(text(*a.as_node));
            }
            out.setCheckpoint(text(a.checkpoint));
          },
          [&](const net::delete_args&) { out.setKind(Kind::DELETE); },
          [&](const net::cancel_args& a) {
            out.setKind(Kind::CANCEL);
            out.setRunId(text(a.run_id));
            out.setCancelWait(a.wait);
          },
          [&](const net::threads_args&) { out.setKind(Kind::THREADS); },
          [&](const auto&) { throw net::usage_error(std::string("a head runs ") + kinds_run); },
      },
      r.cmd);
  return capnp_io::message_bytes_for_size(builder, capnp_io::pack_from_bytes);
}

client_request decode_request(std::string_view bytes) {
  client_request r;
  try {
    capnp::ReaderOptions options;
    options.nestingLimit = capnp_value::nesting_limit + 16;
    capnp_io::message_reader reader(bytes, options, code);
    auto in = reader.root<wire::ClientRequest>();
    if (in.getFormat() != format)
      throw error(code, "format " + std::to_string(in.getFormat()) + " (this head reads format " +
                            std::to_string(format) + ")");
    net::thread_args where;
    where.thread = text_of(in.getThread());
    if (where.thread.empty() && in.getKind() != Kind::GRAPH && in.getKind() != Kind::THREADS)
      throw error(code, "no thread");
    if (in.getHasSpec()) r.spec = get(in.getSpec());
    r.graph = text_of(in.getGraph());
    r.typed_errors = in.getTypedErrors();
    for (auto h : in.getHeaders()) {
      std::string name = text_of(h.getName());
      if (name.empty()) throw error(code, "a header without a name");
      if (!r.headers.emplace(name, text_of(h.getValue())).second)
        throw error(code, "header '" + name + "' given twice");
    }
    switch (in.getKind()) {
      case Kind::RUN: {
        net::run_args a = get_run(in);
        a.where = where;
        r.cmd = std::move(a);
        break;
      }
      case Kind::STATE: {
        net::state_args a;
        a.where = where;
        a.checkpoint = text_of(in.getCheckpoint());
        a.subgraphs = in.getSubgraphState();
        r.cmd = std::move(a);
        break;
      }
      case Kind::GRAPH: {
        net::graph_args a;
        a.xray = in.getXray();
        r.cmd = std::move(a);
        break;
      }
      case Kind::HISTORY: {
        net::history_args a;
        a.where = where;
        if (in.getHasLimit()) a.limit = static_cast<std::size_t>(in.getLimit());
        a.before = text_of(in.getBefore());
        value filter = get(in.getFilter());
        if (!filter.is_null() && !filter.is_object())
          throw error(code, "a history filter that is not an object");
        if (filter.is_object()) a.filter = filter.as_object();
        r.cmd = std::move(a);
        break;
      }
      case Kind::UPDATE: {
        net::update_args a;
        a.where = where;
        a.values = get(in.getValues());
        if (in.getHasAsNode()) a.as_node = text_of(in.getAsNode());
        a.checkpoint = text_of(in.getCheckpoint());
        r.cmd = std::move(a);
        break;
      }
      case Kind::DELETE: r.cmd = net::delete_args{where}; break;
      case Kind::CANCEL: {
        net::cancel_args a{where, text_of(in.getRunId()), in.getCancelWait()};
        if (a.run_id.empty()) throw error(code, "a cancel request that names no run");
        r.cmd = std::move(a);
        break;
      }
      case Kind::THREADS: {
        if (!where.thread.empty()) throw error(code, "a threads request that names a thread");
        r.cmd = net::threads_args{};
        break;
      }
      default:
        throw error(code, "command kind " + std::to_string(static_cast<unsigned>(in.getKind())) +
                              " (this head runs " + kinds_run + ")");
    }
  } catch (const kj::Exception& e) {
    throw error(code, std::string("malformed request: ") + e.getDescription().cStr());
  } catch (const error& e) {
    throw error(code, std::string("malformed request: ") + e.what());
  }
  return r;
}

const thread_args* where_of(const command& cmd) {
  return std::visit(overloaded{[](const run_args& a) { return &a.where; },
                               [](const state_args& a) { return &a.where; },
                               [](const history_args& a) { return &a.where; },
                               [](const update_args& a) { return &a.where; },
                               [](const delete_args& a) { return &a.where; },
                               [](const threads_args& a) { return &a.where; },
                               [](const cancel_args& a) { return &a.where; },
                               [](const auto&) -> const thread_args* { return nullptr; }},
                    cmd);
}

}  // namespace superstep::net
