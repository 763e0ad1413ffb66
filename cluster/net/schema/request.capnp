# A client's command to a cluster's head (`superstep submit`, `superstep state --head ...`), as
# typed fields. The client parses its own command line and reads its own files (GRAPH.json,
# --input @FILE): what travels are values, never a path or an argument list, so the head
# runs the command from these fields alone and opens no file a client names.
#
# Append-only: never renumber or retype a field; add new fields at the end (an older head
# ignores them, a newer head reads them as their defaults from an older client).
@0xabd16cee8e8dc715;

$import "/capnp/c++.capnp".namespace("superstep::wire");

using Value = import "/value.capnp".Value;

struct ClientRequest {
  format @0 :UInt16;  # 1

  enum Kind {
    run @0;      # also `submit`
    state @1;
    history @2;
    update @3;
    delete @4;
    graph @5;    # the graph's nodes and edges (superstep::remote_graph::get_graph)
    cancel @6;   # cancel the run `runId` of `thread` (LangGraph's runs.cancel)
    threads @7;  # list the head's threads (`superstep threads --head`); no thread
  }
  kind @1 :Kind;
  thread @2 :Text;

  # The graph spec the client read from its GRAPH.json (run, state, history, update).
  hasSpec @3 :Bool;
  spec @4 :Value;

  # run
  hasInput @5 :Bool;
  input @6 :Value;
  hasResume @7 :Bool;
  resume @8 :Value;
  checkpoint @9 :Text;   # also state and update
  durability @10 :Text;  # "", sync, async or exit
  config @11 :Value;     # null or an object
  streamModes @12 :List(Text);
  subgraphs @13 :Bool;

  # history
  hasLimit @14 :Bool;
  limit @15 :UInt64;
  before @16 :Text;
  filter @17 :Value;     # an object (empty: none)

  # update
  values @18 :Value;
  hasAsNode @19 :Bool;
  asNode @20 :Text;

  # run: "" (reject), reject, enqueue, interrupt or rollback (LangGraph's multitask_strategy)
  multitask @21 :Text;

  # Added for superstep::remote_graph (cluster/include/superstep/cluster/remote_graph.hpp).
  # A graph the head serves by name (`superstep head --serve NAME=GRAPH.json`), in place of
  # `spec` (run, state, history, update, graph).
  graph @22 :Text;
  # run: the run's context (LangGraph's `context=`); null: none.
  context @23 :Value;
  # state: each task's subgraph state too (LangGraph's get_state(subgraphs=True)).
  subgraphState @24 :Bool;
  # graph: the depth of subgraphs drawn inside their nodes (LangGraph's xray).
  xray @25 :Int32;
  # The client reads a failure as a numbered code: the head sends it (`failure`) before
  # `finished`. Older clients leave it false and get the text alone.
  typedErrors @26 :Bool;
  # run: the update of a Command(resume=..., update=...) (with hasResume).
  hasUpdate @27 :Bool;
  update @28 :Value;
  # run: the run's id, chosen by the client (empty: the head makes one up); cancel: the run
  # to cancel.
  runId @29 :Text;
  # cancel: answer once the run has ended (LangGraph's runs.cancel(wait=True)).
  cancelWait @30 :Bool;
  # Headers (remote_graph's, LangGraph's RemoteGraph `headers=`): name-value pairs sent with
  # the request as an HTTP client sends headers. The head logs them (--log-requests); a run's
  # `x-*` headers reach its config's configurable, and its `langsmith-trace` and `baggage`
  # headers (distributed tracing) its config's trace (net_headers.hpp).
  headers @31 :List(Header);
  struct Header {
    name @0 :Text;
    value @1 :Text;
  }
}
