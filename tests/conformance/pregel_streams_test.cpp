// Streams, checkpoint metadata, channel values and the store inside nodes
// (libs/langgraph/tests/test_pregel.py, test_checkpoint_metadata to test_add_sequence, and the
// stream writer and subgraph streaming tests).
#include <atomic>

#include "stream_support.hpp"
#include "superstep/channels/ephemeral_value.hpp"
#include "superstep/channels/last_value.hpp"
#include "superstep/checkpoint/store.hpp"
#include "superstep/core/error.hpp"
#include "superstep/pregel/pregel.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

using texts = std::vector<std::string>;

std::string s(const value& v) { return v.is_string() ? v.as_string() : v.to_json(); }

value message(const char* type, const char* content) {
  object m;
  m.set("type", type);
  m.set("content", content);
  return value(std::move(m));
}

}  // namespace

// libs/langgraph/tests/test_pregel.py::test_checkpoint_metadata: every checkpoint of a run
// carries the run's configurable keys (and config metadata), with or without a breakpoint, and
// LangGraph's current fields: source, step, parents, no `writes`. The agent and its tool are
// plain functions here (the LangGraph test's chat model only supplies a tool call, then an
// answer).
BOOST_AUTO_TEST_CASE(test_checkpoint_metadata) {
  auto shared_saver = saver();
  const auto build = [&](std::vector<std::string> interrupt_before) {
    state_graph b;
    b.add_key("messages", "append");
    b.add_node("agent", [](const value& st, node_context&) -> value {
      const bool asked = st.get("messages").as_list().size() == 1;
      return object{{"messages", value::array({asked ? "tool_call" : "answer"})}};
    });
    b.add_node("tools", [](const value&, node_context&) -> value {
      return object{{"messages", value::array({"result for query"})}};
    });
    b.set_entry_point("agent");
    b.add_conditional_edges(
        "agent",
        [](const value& st, node_context&) -> value {
          return st.get("messages").as_list().back() == value("tool_call") ? "continue" : "exit";
        },
        {{"continue", "tools"}, {"exit", "__end__"}});
    b.add_edge("tools", "agent");
    compile_options o = opts();
    o.checkpointer = shared_saver;
    o.interrupt_before = std::move(interrupt_before);
    return b.compile(o);
  };
  auto app = build({});
  auto app_w_interrupt = build({"tools"});

  const value out = app->invoke(
      object{{"messages", value::array({"what is weather in sf"})}},
      object{{"configurable",
              object{{"thread_id", "1"}, {"test_config_1", "foo"}, {"test_config_2", "bar"}}},
             {"metadata", object{{"run_label", "first"}, {"test_config_1", "from metadata"}}}});
  BOOST_TEST(out.get("messages").to_json() ==
             R"(["what is weather in sf","tool_call","result for query","answer"])");

  const checkpoint_config thread_1{"1", "", ""};
  const value latest = metadata_to_value(shared_saver->get_tuple(thread_1)->metadata);
  BOOST_TEST(latest.get("test_config_1") == value("from metadata"));  // metadata merges first
  BOOST_TEST(latest.get("test_config_2") == value("bar"));
  const auto all_1 = shared_saver->list(thread_1, {});
  BOOST_TEST(all_1.size() == 5u);  // input, then __start__, agent, tools, agent
  for (const auto& t : all_1) {
    const value m = metadata_to_value(t.metadata);
    BOOST_TEST(m.get("test_config_1") == value("from metadata"));
    BOOST_TEST(m.get("test_config_2") == value("bar"));
    BOOST_TEST(m.get("run_label") == value("first"));
    BOOST_TEST(!m.find("thread_id"));  // the checkpoint's own coordinates stay out
    BOOST_TEST(!m.find("writes"));
    BOOST_TEST(m.as_object().size() == 6u, m.to_json());  // source, step, parents + the three
  }

  const value config_2 =
      object{{"configurable",
              object{{"thread_id", "2"}, {"test_config_3", "foo"}, {"test_config_4", "bar"}}}};
  app_w_interrupt->invoke(object{{"messages", value::array({"what is weather in sf"})}}, config_2);
  const checkpoint_config thread_2{"2", "", ""};
  value m2 = metadata_to_value(shared_saver->get_tuple(thread_2)->metadata);
  BOOST_TEST(m2.get("test_config_3") == value("foo"));
  BOOST_TEST(m2.get("test_config_4") == value("bar"));
  app_w_interrupt->invoke(value(), config_2);
  m2 = metadata_to_value(shared_saver->get_tuple(thread_2)->metadata);
  BOOST_TEST(m2.get("test_config_3") == value("foo"));
  BOOST_TEST(m2.get("test_config_4") == value("bar"));
  for (const auto& t : shared_saver->list(thread_2, {})) {
    const value m = metadata_to_value(t.metadata);
    BOOST_TEST(m.get("test_config_3") == value("foo"));
    BOOST_TEST(m.get("test_config_4") == value("bar"));
  }
}

// libs/langgraph/tests/test_pregel.py::test_remove_message_via_state_update
BOOST_AUTO_TEST_CASE(test_remove_message_via_state_update) {
  state_graph g;
  g.add_key(std::string(ROOT), "add_messages");  // StateGraph(Annotated[list, add_messages])
  g.add_node("chatbot", [](const value&, node_context&) -> value {
    return value::array({object{{"type", "ai"}, {"content", "Hello! How can I help you"}}});
  });
  g.set_entry_point("chatbot").add_edge("chatbot", "__end__");
  compile_options o = opts_with_saver();
  auto saver = o.checkpointer;
  auto app = g.compile(o);
  const value config = thread("1");
  const value out =
      app->invoke(value::array({object{{"type", "human"}, {"content", "Hi"}}}), config);
  BOOST_TEST_REQUIRE(out.is_list());
  const value last_id = out.as_list().back().get("id");
  BOOST_TEST_REQUIRE(last_id.is_string());
  app->update_state(config, value::array({object{{"type", "remove"}, {"id", last_id}}}));
  const state_snapshot updated = app->get_state(config);
  BOOST_TEST_REQUIRE(updated.values.is_list());
  const list& messages = updated.values.as_list();
  BOOST_TEST(messages.size() == 1u);
  BOOST_TEST(messages.back().get("content") == value("Hi"));

  app->delete_thread("1");
  BOOST_TEST(!saver->get_tuple(checkpoint_config{"1", "", ""}).has_value());
  BOOST_TEST(app->get_state_history(config).empty());
}

// libs/langgraph/tests/test_pregel.py::test_remove_message_from_node
BOOST_AUTO_TEST_CASE(test_remove_message_from_node) {
  state_graph g;
  g.add_key(std::string(ROOT), "add_messages");  // StateGraph(Annotated[list, add_messages])
  g.add_node("chatbot", [](const value&, node_context&) -> value {
    list reply;
    reply.push_back(message("ai", "Hello!"));
    reply.push_back(message("ai", "How can I help you?"));
    return value(std::move(reply));
  });
  g.add_node("delete_messages", [](const value& st, node_context&) -> value {
    const list& m = st.as_list();
    object remove;
    remove.set("type", "remove");
    remove.set("id", m[m.size() - 2].get("id"));
    list update;
    update.push_back(value(std::move(remove)));
    return value(std::move(update));
  });
  g.set_entry_point("chatbot").add_edge("chatbot", "delete_messages");
  g.add_edge("delete_messages", "__end__");
  const value out =
      g.compile(opts())->invoke(value::array({object{{"type", "human"}, {"content", "Hi"}}}));
  BOOST_TEST_REQUIRE(out.is_list());
  const list& messages = out.as_list();
  BOOST_TEST(messages.size() == 2u);
  BOOST_TEST(messages.back().get("content") == value("How can I help you?"));
}

// libs/langgraph/tests/test_pregel.py::test_channel_values: an ephemeral input channel is not
// in the saved checkpoint.
BOOST_AUTO_TEST_CASE(test_channel_values) {
  pregel_graph g;
  g.channels = {{"ephemeral", std::make_shared<channels::ephemeral_value>("ephemeral")},
                {"input", std::make_shared<channels::last_value>("input")},
                {"output", std::make_shared<channels::last_value>("output")}};
  g.nodes.push_back(subscribe_node(
      "one", {"input"}, [](const value& x, node_context&) -> value { return x; }, {"output"}));
  g.input_channels = {"input", "ephemeral"};
  g.output_channels = {"output"};
  g.output_single = true;
  runtime_options ro;
  ro.checkpointer = saver();
  ro.mode = mode();
  auto app = std::make_shared<pregel>(std::move(g), ro);
  app->invoke(object{{"input", 1}, {"ephemeral", "meow"}}, thread("1"));
  const auto tuple = ro.checkpointer->get_tuple(checkpoint_config{"1", "", ""});
  BOOST_TEST_REQUIRE(tuple.has_value());
  const auto& saved = tuple->checkpoint.channel_values;
  BOOST_TEST(saved.size() == 2u);
  BOOST_TEST(!saved.count("ephemeral"));
  BOOST_TEST((saved.count("input") && saved.at("input") == value(1)));
  BOOST_TEST((saved.count("output") && saved.at("output") == value(1)));
}

// libs/langgraph/tests/test_pregel.py::test_store_injected (one thread per batch entry, M = 1)
BOOST_AUTO_TEST_CASE(test_store_injected) {
  const std::string doc_id = "doc-1";
  const storage::namespace_path ns = {"foo-uid", "bar"};
  const std::size_t n = 50;
  const auto node = [&](std::optional<std::size_t> i) -> node_function {
    return [i, doc_id, ns](const value& st, node_context& ctx) -> value {
      BOOST_REQUIRE(ctx.store());
      const std::string thread_id = s(ctx.configurable("thread_id"));
      const bool mine = i && (thread_id == "thread-1" || thread_id == "thread-2");
      ctx.store()->put(
          mine ? ns : storage::namespace_path{"foo_" + std::to_string(i.value_or(0)), "bar"},
          doc_id,
          object{{"some-key", "this-is-a-val"},
                 {"from_thread", thread_id},
                 {"some_val", st.get("count")}});
      return object{{"count", 1}};
    };
  };
  state_graph g;
  g.add_key("count", "add");
  g.add_node("node", node(std::nullopt)).add_edge("__start__", "node");
  for (std::size_t i = 0; i < n; ++i) {
    g.add_node("node_" + std::to_string(i), node(i));
    g.add_edge("__start__", "node_" + std::to_string(i));
  }
  compile_options o = opts_with_saver();
  o.store = store();
  auto st = o.store;
  auto graph = g.compile(o);
  const auto doc = [&] { return st->get(ns, doc_id).value().v; };
  const auto found = [&] {
    storage::search_options so;
    so.ns_prefix = ns;
    return st->search(so).size();
  };

  BOOST_TEST(graph->invoke(object{{"count", 0}}, thread("thread-1")).to_json() ==
             R"({"count":51})");
  BOOST_TEST(doc().to_json() ==
             R"({"some-key":"this-is-a-val","from_thread":"thread-1","some_val":0})");
  BOOST_TEST(found() == 1u);
  BOOST_TEST(graph->invoke(object{{"count", 0}}, thread("thread-1")).to_json() ==
             R"({"count":102})");
  BOOST_TEST(doc().to_json() ==
             R"({"some-key":"this-is-a-val","from_thread":"thread-1","some_val":51})");
  BOOST_TEST(found() == 1u);
  BOOST_TEST(graph->invoke(object{{"count", 0}}, thread("thread-2")).to_json() ==
             R"({"count":51})");
  BOOST_TEST(doc().to_json() ==
             R"({"some-key":"this-is-a-val","from_thread":"thread-2","some_val":0})");
  BOOST_TEST(found() == 1u);
}

// libs/langgraph/tests/test_pregel.py::test_get_stream_writer
BOOST_AUTO_TEST_CASE(test_get_stream_writer) {
  state_graph g;
  g.add_key("foo");
  g.add_node("my_node", [](const value& st, node_context& ctx) -> value {
    ctx.emit_custom("custom!");
    return st;
  });
  g.add_edge("__start__", "my_node");
  auto graph = g.compile(opts());
  const value input = object{{"foo", "bar"}};
  BOOST_TEST(stream_texts(*graph, input, value(), {stream_mode::custom}) ==
             (texts{R"(() "custom!")"}));
  BOOST_TEST(stream_texts(*graph, input, value(), {stream_mode::values}) ==
                 (texts{R"(() {"foo":"bar"})", R"(() {"foo":"bar"})"}),
             boost::test_tools::per_element());
  recorder r;
  r.with_mode = true;
  stream_options so;
  so.modes = {stream_mode::custom, stream_mode::updates};
  graph->stream(input, value(), so, r.sink());
  BOOST_TEST(
      r.texts() == (texts{R"(custom () "custom!")", R"(updates () {"my_node":{"foo":"bar"}})"}),
      boost::test_tools::per_element());
}

// libs/langgraph/tests/test_pregel.py::test_subgraph_streaming_sync: a node streams the
// messages of a graph it runs itself. The fake chat model's reply comes as its nine chunks;
// as LangChain's, the chunks and the reply carry the model run's id, so the reply the node
// returns is not streamed again.
BOOST_AUTO_TEST_CASE(test_subgraph_streaming_sync) {
  state_graph sb;
  sb.add_key("messages", "add_messages");
  sb.add_node("call_model", [](const value&, node_context& ctx) -> value {
    std::string reply;
    for (const char* token : {"The", " ", "weather", " ", "is", " ", "sunny", " ", "today."}) {
      ctx.emit_message(object{{"type", "AIMessageChunk"}, {"content", token}, {"id", "run-1"}});
      reply += token;
    }
    return object{
        {"messages", value::array({object{{"type", "ai"}, {"content", reply}, {"id", "run-1"}}})}};
  });
  sb.add_edge("__start__", "call_model");
  std::shared_ptr<const pregel> compiled_subgraph = sb.compile(opts());

  state_graph g;
  g.add_key("last_chunk").add_key("num_chunks");
  g.add_node("subgraph", [compiled_subgraph](const value&, node_context& ctx) -> value {
    std::vector<value> chunks;
    std::mutex m;
    stream_options so;
    so.modes = {stream_mode::messages};
    compiled_subgraph->stream(
        object{{"messages", value::array({object{{"type", "human"},
                                                 {"content", "What is the weather in Tokyo?"}}})}},
        ctx.config(), so, [&](const stream_event& e) {
          std::lock_guard lock(m);
          chunks.push_back(e.data.as_list().at(0));
        });
    return object{{"last_chunk", chunks.back()},
                  {"num_chunks", static_cast<std::int64_t>(chunks.size())}};
  });
  g.add_edge("__start__", "subgraph");
  const value result = g.compile(opts())->invoke(object{});
  BOOST_TEST(result.get("last_chunk").get("content") == value("today."));
  BOOST_TEST(result.get("num_chunks") == value(9));
}

// libs/langgraph/tests/test_pregel.py::test_add_sequence (a C++ function has no name: each
// step is named, as LangGraph names a function step after the function)
BOOST_AUTO_TEST_CASE(test_add_sequence) {
  const auto appends = [](std::string item, value bar = value()) -> node_function {
    return [item, bar](const value&, node_context&) -> value {
      object o{{"foo", value::array({item})}};
      if (!bar.is_null()) o.set("bar", bar);
      return o;
    };
  };
  const auto state = [] {
    state_graph g;
    g.add_key("foo", "add").add_key("bar");
    return g;
  };
  const node_function step1 = appends("step1", "baz");
  const node_function step2 = appends("step2");
  const auto refused = [&](std::vector<std::pair<std::string, node_function>> steps,
                           const std::string& why) {
    state_graph g = state();
    try {
      g.add_sequence(std::move(steps));
      BOOST_ERROR("accepted: " << why);
    } catch (const error& e) {
      BOOST_TEST((e.code() == error_code::invalid_graph), e.what());
      BOOST_TEST(std::string(e.what()).find(why) != std::string::npos, e.what());
    }
  };
  refused({}, "at least one node");
  refused({{"step1", step1}, {"step1", step1}}, "'step1' is twice");
  refused({{"foo", step1}, {"foo", step1}}, "'foo'");

  const value empty = object{{"foo", list{}}};
  const auto check = [&](state_graph& g, const std::string& result, texts updates) {
    auto graph = g.compile(opts());
    BOOST_TEST(graph->invoke(empty).to_json() == result);
    BOOST_TEST(stream_texts(*graph, empty, value(), {stream_mode::updates}) == updates,
               boost::test_tools::per_element());
  };

  state_graph unnamed = state();
  unnamed.add_sequence({{"step1", step1}, {"step2", step2}}).add_edge("__start__", "step1");
  check(unnamed, R"({"foo":["step1","step2"],"bar":"baz"})",
        {R"(() {"step1":{"foo":["step1"],"bar":"baz"}})", R"(() {"step2":{"foo":["step2"]}})"});

  state_graph named = state();
  named.add_sequence({{"meow1", step1}, {"meow2", step2}}).add_edge("__start__", "meow1");
  check(named, R"({"foo":["step1","step2"],"bar":"baz"})",
        {R"(() {"meow1":{"foo":["step1"],"bar":"baz"}})", R"(() {"meow2":{"foo":["step2"]}})"});

  state_graph lambdas = state();
  lambdas.add_sequence(
      {{"meow1", appends("foo")}, {"meow2", [](const value& st, node_context&) -> value {
                                     return object{{"bar", s(st.get("foo").as_list()[0]) + "bar"}};
                                   }}});
  lambdas.add_edge("__start__", "meow1");
  check(lambdas, R"({"foo":["foo"],"bar":"foobar"})",
        {R"(() {"meow1":{"foo":["foo"]}})", R"(() {"meow2":{"bar":"foobar"}})"});

  state_graph two = state();
  two.add_sequence({{"a", appends("a")}}).add_sequence({{"b", appends("b")}});
  two.add_edge("__start__", "a").add_edge("a", "b");
  check(two, R"({"foo":["a","b"]})", {R"(() {"a":{"foo":["a"]}})", R"(() {"b":{"foo":["b"]}})"});

  state_graph complex = state();
  complex.add_sequence({{"a", appends("a")}, {"b", appends("b")}});
  complex.add_conditional_edges("b", [](const value& st, node_context&) -> value {
    return st.get("foo").as_list()[0] == value("a") ? "d" : "c";
  });
  complex.add_node("c", appends("c"));
  complex.add_sequence({{"d", appends("d")}, {"e", appends("e")}});
  complex.add_edge("__start__", "a");
  check(complex, R"({"foo":["a","b","d","e"]})",
        {R"(() {"a":{"foo":["a"]}})", R"(() {"b":{"foo":["b"]}})", R"(() {"d":{"foo":["d"]}})",
         R"(() {"e":{"foo":["e"]}})"});
  BOOST_TEST(complex.compile(opts())->invoke(object{{"foo", value::array({"start"})}}).to_json() ==
             R"({"foo":["start","a","b","c"]})");
}
