// Precompiled for the suites that build graphs (coordinator, storage, agents, cluster).
#pragma once
#include "pch_common.hpp"
#include "superstep/coordinator/constants.hpp"
#include "superstep/coordinator/send.hpp"
#include "superstep/coordinator/state_graph.hpp"
