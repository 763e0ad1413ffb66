# A superstep value (superstep::value) as a Cap'n Proto message: what the default serializer
# (make_capnp_serializer) writes for channel values, pending writes and metadata, and what
# carries values in the messages between processes (actors/schema/wire.capnp).
#
# Append-only: never renumber or retype a field; add new union members and fields at the end.
# A reader that meets a union member it does not know reports the record as unreadable.
#
# Nesting: every list level costs 2 of a reader's nesting budget (the list, then the element
# struct) and every object level 3 (the entry list, the entry, its value). The serializer reads
# with a budget of 1024 and refuses to write a value that would need more.
@0xdb9ce2a578e59247;

$import "/capnp/c++.capnp".namespace("superstep::schema");

struct Value {
  union {
    null @0 :Void;
    boolean @1 :Bool;
    integer @2 :Int64;
    real @3 :Float64;
    string @4 :Text;
    bytes @5 :Data;
    list @6 :List(Value);
    object @7 :List(Entry);  # in insertion order, keys distinct
    send @8 :Send;            # a Send (superstep::send_packet)
  }

  struct Send {
    node @0 :Text;
    arg @1 :Value;
    timeout @2 :Value;  # null: the node's own time limits
  }

  struct Entry {
    key @0 :Text;
    value @1 :Value;
  }
}
