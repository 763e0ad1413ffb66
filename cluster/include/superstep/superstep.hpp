#pragma once

// The common case in one include: build a graph (state_graph, Send, Command, interrupt), run
// it in this process, keep its checkpoints in memory or RocksDB, give it a long-term store.
// The headers it gathers, and the floors they belong to, are in docs/architecture.md.

#include "superstep/checkpoint/constants.hpp"
#include "superstep/func/functional.hpp"
#include "superstep/graph/state_graph.hpp"
#include "superstep/graph/typed_node.hpp"
#include "superstep/pregel/pregel.hpp"
#include "superstep/pregel/send.hpp"
#include "superstep/storage/memory_saver.hpp"
#include "superstep/storage/rocksdb_saver.hpp"
#include "superstep/storage/store_memory.hpp"
#include "superstep/storage/store_rocksdb.hpp"
