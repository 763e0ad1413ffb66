// Precompiled for the suites that build graphs (coordinator, storage, agents, cluster).
#pragma once
#include "pch_common.hpp"
#include "superstep/checkpoint/constants.hpp"
#include "superstep/graph/state_graph.hpp"
#include "superstep/pregel/send.hpp"
