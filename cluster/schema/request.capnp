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
}
