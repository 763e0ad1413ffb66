# The messages between a coordinator and node actors in other processes, as Cap'n Proto: what
# crosses the network when a cluster runs a step (superstep/actors/protocol.hpp). Inside one
# process CAF moves the C++ structs without encoding them.
#
# Append-only: never renumber or retype a field; add new fields at the end.
@0xa9299f9f9ce58935;

$import "/capnp/c++.capnp".namespace("superstep::wire");

using Value = import "/value.capnp".Value;

struct TaskError {
  code @0 :UInt16;
  message @1 :Text;
  payload @2 :Value;  # the value the error carries (a parent_command's Command), when it has one
}

struct Write {
  channel @0 :Text;
  value @1 :Value;
}

# One task (superstep::pregel_task): what to run, and once run its writes and outcome.
struct Task {
  id @0 :Text;
  node @1 :UInt32;
  name @2 :Text;
  push @3 :Bool;
  pushIndex @4 :UInt64;
  triggers @5 :List(Text);
  input @6 :Value;
  writes @7 :List(Write);
  output @8 :Value;
  resume @9 :List(Value);
  interrupts @10 :List(Value);
  hasError @11 :Bool;
  error @12 :TaskError;
  done @13 :Bool;
  hasHandledError @14 :Bool;   # the node failed and its error handler ran instead
  handledError @15 :TaskError;
  timeout @16 :Value;          # a Send's own timeout (null: the node's)
}

struct BatchHeader {
  step @0 :Int64;
  stop @1 :Int64;
  checkpointId @2 :Text;
  resuming @3 :Bool;
  config @4 :Value;
  ns @5 :List(Text);
  modes @6 :UInt32;
  subgraphs @7 :Bool;
  replayCheckpointId @8 :Text;
  replayVisited @9 :List(Text);
  messageEvents @10 :Bool;     # chat model calls as the v2 message protocol (stream_events)
  # PULL tasks come without input: the node actor builds it from its replica.
  inputsFromReplica @11 :Bool;
}

# A channel's new value for a node actor's replica (present false: the channel is empty).
struct ChannelDelta {
  channel @0 :Text;
  present @1 :Bool;
  value @2 :Value;
}

# Coordinator -> node actor: run these tasks.
struct TaskBatch {
  format @0 :UInt16;  # 2 (with `pushes`; this build refuses 1)
  id @1 :UInt64;
  header @2 :BatchHeader;
  deltas @3 :List(ChannelDelta);
  slots @4 :List(UInt32);
  tasks @5 :List(Task);
  orders @6 :List(UInt32);  # each task's position in the step's task-path order
  chunk @7 :UInt32;         # the batch's number in its step (the same when sent again)
  prepares @8 :List(StepPrepare);  # the step's prepare for each channel actor, riding along
  # With the channels on channel actors in other processes: the channels the node reads, at
  # the versions the step saw (the node actor waits for its process's replica to hold them).
  needChannels @9 :List(Text);
  needVersions @10 :List(UInt64);
  # Instead of `tasks` (when `pushOnly`): a batch of Sends' tasks of one node, as they are
  # before they run (none resumed or failed before), each with only what differs.
  pushOnly @11 :Bool;
  pushNode @12 :UInt32;
  pushName @13 :Text;
  pushes @14 :List(PushTask);
}

# A Send's task in a batch (TaskBatch.pushes): its node and name are the batch's.
struct PushTask {
  id @0 :Text;
  pushIndex @1 :UInt64;
  input @2 :Value;
  timeout @3 :Value;  # the Send's own timeout (null: the node's)
}

# Node actor -> coordinator: the batch's tasks, run.
struct TaskBatchDone {
  format @0 :UInt16;  # 3 (with `outcomes` and `parts`; this build refuses 1 and 2)
  id @1 :UInt64;
  slots @2 :List(UInt32);
  tasks @3 :List(Task);
  # Instead of `tasks` (when `lean`): each task's outcome, in the batch's order. The receiver
  # (the coordinator, or the run's writes saver) holds the batch, so what each task is does
  # not travel back.
  lean @4 :Bool;
  outcomes @5 :List(TaskOutcome);
  # Not 0: the result itself came ahead in this many ResultPart messages (it was too big for
  # one), and this message only closes it: the receiver decodes the parts' bytes instead.
  parts @6 :UInt32;
}

# A piece of an encoded TaskBatchDone too big for one message (actors::result_part_bytes),
# sent ahead of the closing one by the node actor that ran the batch.
struct ResultPart {
  format @0 :UInt16;  # 1
  batch @1 :UInt64;
  index @2 :UInt32;  # 0, 1, ... in the order they are sent
  data @3 :Data;
}

# What running a task produced (a task of TaskBatchDone.outcomes).
struct TaskOutcome {
  writes @0 :List(Write);
  interrupts @1 :List(Value);
  hasError @2 :Bool;
  error @3 :TaskError;
  done @4 :Bool;
  hasHandledError @5 :Bool;
  handledError @6 :TaskError;
}

# Node actor -> coordinator: a stream event of a running task.
struct StreamChunk {
  format @0 :UInt16;  # 1
  ns @1 :List(Text);
  mode @2 :UInt8;
  data @3 :Value;
}

# A value on its own (a graph spec, a request's arguments).
struct Envelope {
  format @0 :UInt16;  # 1
  value @1 :Value;
}

# Channel actors (superstep/actors/channel_actor.hpp): a step's writes go to the actors that
# own the channels, and the coordinator commits the step over them in two phases.

# One write of a step, with the writing task's position in the step's task-path order.
struct OrderedWrite {
  order @0 :UInt32;
  channel @1 :Text;
  value @2 :Value;
}

# Node actor -> channel actor: writes of tasks of one step to channels it owns.
struct ChannelWrites {
  format @0 :UInt16;  # 1
  step @1 :Int64;
  writes @2 :List(OrderedWrite);
  chunk @3 :UInt32;  # the task batch they come from (its number in the step)
  hasPrepare @4 :Bool;
  prepare @5 :StepPrepare;  # the step's prepare, riding with the writes (when hasPrepare)
}

# Coordinator -> channel actor: stage the step once `expected` write messages arrived.
struct StepPrepare {
  format @0 :UInt16;  # 1
  step @1 :Int64;
  expected @2 :UInt32;
  consumed @3 :List(Text);
  bumpStep @4 :Bool;
  finish @5 :Bool;  # the second round: deferred channels finish
  writes @6 :List(OrderedWrite);  # writes carried by the prepare itself
  commits @7 :Int64 = -1;         # a step to commit first (its commit travels here)
  commitsVersion @8 :UInt64;      # the channel version that step gave what it changed
}

# Channel actor -> coordinator: its vote, and the staged values of the channels that changed.
struct StepVote {
  format @0 :UInt16;  # 1
  step @1 :Int64;
  ok @2 :Bool;
  error @3 :TaskError;
  changed @4 :List(ChannelDelta);
  updated @5 :List(Text);
  values @6 :List(ChannelDelta);  # the changed channels' values for replicas, as `changed`
  overwritten @7 :List(Text);     # changed delta channels whose writes replaced the value
  # By changed channel: its value for replicas is its checkpoint value (sent once, in
  # `changed`; its entry in `values` is then empty). Absent in older votes: all sent.
  valuesAsChanged @8 :List(Bool);
  available @9 :List(Text);  # the changed channels available afterwards
}

# Coordinator -> a process's channel host: own these channels of a run of graph `graph` (the
# key the host loaded it by), restored from `values` (their values as replicas take them).
struct ChannelPlacement {
  format @0 :UInt16;  # 1
  graph @1 :Text;
  values @2 :List(ChannelDelta);
  versions @3 :List(UInt64);  # each value's channel version, as `values`
  # Placed again during step `closedThrough` (its first group was lost): writes of task
  # batches for steps up to it are not taken; the coordinator's prepare carries them.
  closedThrough @4 :Int64 = -1;
}

# Channel actor -> subscriber: committed values of channels it subscribed to.
struct ChannelPush {
  format @0 :UInt16;  # 1
  step @1 :Int64;
  values @2 :List(ChannelDelta);
  versions @3 :List(UInt64);  # each value's channel version, as `values`
}
