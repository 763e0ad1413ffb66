#pragma once

// A graph_callback_handler that keeps every event it is told (LangGraph's tests'
// _GraphEventHandler), for tests of stream_options::callbacks.

#include <vector>

#include "superstep/pregel/graph_callbacks.hpp"

namespace superstep::test {

class recording_graph_handler final : public graph_callback_handler {
 public:
  void on_interrupt(const graph_interrupt_event& e) override { interrupt_events.push_back(e); }
  void on_resume(const graph_resume_event& e) override { resume_events.push_back(e); }

  std::vector<graph_interrupt_event> interrupt_events;
  std::vector<graph_resume_event> resume_events;
};

}  // namespace superstep::test
