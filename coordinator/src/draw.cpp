// Mermaid drawing of a compiled graph, in the layout LangGraph's draw_mermaid() produces.
#include <set>

#include "superstep/coordinator/constants.hpp"
#include "superstep/coordinator/pregel.hpp"

namespace superstep {

std::string pregel::draw_mermaid() const {
  std::string out = "---\nconfig:\n  flowchart:\n    curve: linear\n---\ngraph TD;\n";
  bool has_start = false, has_end = false;
  for (const auto& [from, to] : graph_.draw_edges) {
    has_start |= from == START;
    has_end |= to == END;
  }
  for (const auto& [from, to, label] : graph_.draw_conditional_edges) {
    has_start |= from == START;
    has_end |= to == END;
  }
  if (has_start) out += "\t__start__([<p>__start__</p>]):::first\n";
  for (const auto& n : graph_.nodes) {
    if (n.name == START) continue;
    out += "\t" + n.name + "(" + n.name + ")\n";
  }
  if (has_end) out += "\t__end__([<p>__end__</p>]):::last\n";
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& [from, to] : graph_.draw_edges)
    if (seen.emplace(from, to).second) out += "\t" + from + " --> " + to + ";\n";
  for (const auto& [from, to, label] : graph_.draw_conditional_edges) {
    if (label.empty())
      out += "\t" + from + " -.-> " + to + ";\n";
    else
      out += "\t" + from + " -. &nbsp;" + label + "&nbsp; .-> " + to + ";\n";
  }
  out +=
      "\tclassDef default fill:#f2f0ff,line-height:1.2\n"
      "\tclassDef first fill-opacity:0\n"
      "\tclassDef last fill:#bfb6fc\n";
  return out;
}

}  // namespace superstep
