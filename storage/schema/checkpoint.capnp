# The records of the RocksDB checkpoint saver (storage/src/rocksdb_saver.cpp).
#
# Append-only: never renumber or retype a field; add fields at the end. `format` is the record
# layout version; a reader refuses a record whose format is newer than it knows.
#
# Channel values are not part of a checkpoint record: each lives once in the `blobs` column
# family under (thread, namespace, channel, version), so a channel that did not change is
# never written again. Values (blobs, pending writes, metadata writes and extra keys) are bytes
# made by the saver's serializer (value.capnp by default, possibly encrypted).
@0xe5deaa9c5213bb8c;

$import "/capnp/c++.capnp".namespace("superstep::storage::schema");

struct ChannelVersion {
  channel @0 :Text;
  version @1 :UInt64;
}

# The versions of the channels a node last ran on.
struct NodeVersions {
  node @0 :Text;
  versions @1 :List(ChannelVersion);
}

# LangGraph's Checkpoint without its channel_values.
struct Checkpoint {
  v @0 :Int32;
  id @1 :Text;
  ts @2 :Text;                               # ISO 8601
  channelVersions @3 :List(ChannelVersion);  # sorted by channel
  versionsSeen @4 :List(NodeVersions);       # sorted by node, then channel
  updatedChannels @5 :List(Text);
}

struct ParentCheckpoint {
  checkpointNs @0 :Text;
  checkpointId @1 :Text;
}

# LangGraph's CheckpointMetadata.
struct CheckpointMetadata {
  source @0 :Text;  # input | loop | update | fork
  step @1 :Int64;
  parents @2 :List(ParentCheckpoint);
  writes @3 :Data;  # a value, by the serializer; no longer written (LangGraph dropped it), ignored
  extra @4 :Data;   # an object value (user keys), by the serializer
}

# The value of a key in the `checkpoints` column family.
struct CheckpointRecord {
  format @0 :UInt16;  # 1; 2 when versionsBase is set
  checkpoint @1 :Checkpoint;
  metadata @2 :CheckpointMetadata;
  parentCheckpointId @3 :Text;  # empty: none
  serializer @4 :Text;          # name of the serializer that wrote the values
  # Format 2: the checkpoint's channelVersions and versionsSeen hold only the entries that
  # differ from those of the checkpoint `versionsBase` of the same thread and namespace (a
  # node's entry whole), which is at a smaller `versionsDepth`; depth 0 is a whole record.
  # (storage/src/version_chains.hpp: skip-deltas along a line of parents.)
  versionsBase @5 :Text;
  versionsDepth @6 :UInt32;
}

# The value of a key in the `writes` column family (LangGraph's PendingWrite plus its path).
struct PendingWrite {
  format @0 :UInt16;  # 1
  taskId @1 :Text;
  channel @2 :Text;
  taskPath @3 :Text;
  value @4 :Data;  # by the serializer
  # Format 2: a bundle, the writes of several tasks saved together (each a format-1 record);
  # the fields above are then empty.
  bundle @5 :List(PendingWrite);
  # Format 3: a bundle grouped by task, each task's id and path stored once (what this build
  # writes; format 2 is still read).
  tasks @6 :List(TaskWrites);

  struct TaskWrites {
    taskId @0 :Text;
    taskPath @1 :Text;
    writes @2 :List(ChannelWrite);
    # The index in its task of the first write here: a task with many writes (a node sending
    # 10^6 Sends) has them in several records of one atomic batch, each of a bounded size.
    firstIndex @3 :UInt32;
  }

  struct ChannelWrite {
    channel @0 :Text;
    value @1 :Data;  # by the serializer
  }
}

# The value of a `blobs` key that ends in "d" after the version: a list channel's value
# written as what it added to the list of an earlier version of the channel (an append
# reducer's lists grow by a few elements a step; a list is not written whole each time).
# The value is the `baseLength` elements of the value at version `base` (a whole blob or
# another delta) followed by `items`.
struct ListDelta {
  format @0 :UInt16;  # 1
  base @1 :UInt64;
  baseLength @2 :UInt64;
  items @3 :Data;  # a list value, by the serializer
}
