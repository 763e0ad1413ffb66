// Mermaid drawing of a compiled graph: LangGraph's `get_graph().draw_mermaid()`.
#include "superstep/pregel/pregel.hpp"

namespace superstep {

std::string pregel::draw_mermaid() const { return get_graph().draw_mermaid(); }

}  // namespace superstep
