// The graph description drawn for Graphviz (DOT) and as text.
#include <algorithm>
#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "superstep/pregel/graph_description.hpp"

namespace superstep {

namespace {

// A DOT string literal.
std::string dot_quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

bool is_terminal(const std::string& id) { return id == "__start__" || id == "__end__"; }

}  // namespace

std::string graph_description::draw_dot() const {
  std::string out = "digraph G {\n  rankdir=TB;\n  node [fontname=\"Helvetica\"];\n";
  for (const auto& n : nodes) {
    out += "  " + dot_quoted(n.id) + " [label=" + dot_quoted(n.name.empty() ? n.id : n.name);
    out += is_terminal(n.id) ? ", shape=oval, style=filled, fillcolor=\"#e8e8e8\"" : ", shape=box";
    out += "];\n";
  }
  for (const auto& e : edges) {
    out += "  " + dot_quoted(e.source) + " -> " + dot_quoted(e.target);
    std::vector<std::string> attrs;
    if (e.conditional) attrs.push_back("style=dashed");
    if (e.data) attrs.push_back("label=" + dot_quoted(*e.data));
    if (!attrs.empty()) {
      out += " [";
      for (std::size_t i = 0; i < attrs.size(); ++i) out += (i ? ", " : "") + attrs[i];
      out += "]";
    }
    out += ";\n";
  }
  return out + "}\n";
}

std::string graph_description::draw_ascii() const {
  // Rows: longest distance from the sources along the edges that are not back edges (found
  // by a depth-first walk from the sources in node order).
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < nodes.size(); ++i) index.emplace(nodes[i].id, i);
  std::vector<std::vector<std::size_t>> out_edges(nodes.size());
  std::vector<std::size_t> incoming(nodes.size(), 0);
  for (const auto& e : edges) {
    auto s = index.find(e.source), t = index.find(e.target);
    if (s == index.end() || t == index.end()) continue;
    out_edges[s->second].push_back(t->second);
  }
  std::vector<int> state(nodes.size(), 0);  // 0 unseen, 1 on the walk, 2 done
  std::set<std::pair<std::size_t, std::size_t>> back;
  std::vector<std::size_t> order;  // reverse post-order: a topological order without back edges
  auto walk = [&](auto&& self, std::size_t n) -> void {
    state[n] = 1;
    for (std::size_t t : out_edges[n]) {
      if (state[t] == 1) back.emplace(n, t);
      if (state[t] == 0) self(self, t);
    }
    state[n] = 2;
    order.push_back(n);
  };
  for (std::size_t i = 0; i < nodes.size(); ++i)
    for (std::size_t t : out_edges[i]) ++incoming[t];
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (state[i] == 0 && incoming[i] == 0) walk(walk, i);
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (state[i] == 0) walk(walk, i);
  std::reverse(order.begin(), order.end());
  std::vector<std::size_t> row(nodes.size(), 0);
  for (std::size_t n : order)
    for (std::size_t t : out_edges[n])
      if (!back.count({n, t})) row[t] = std::max(row[t], row[n] + 1);
  std::size_t rows = 0;
  for (std::size_t r : row) rows = std::max(rows, r + 1);

  std::string out;
  for (std::size_t r = 0; r < rows; ++r) {
    std::vector<std::string> labels;
    for (std::size_t i = 0; i < nodes.size(); ++i)
      if (row[i] == r) labels.push_back(nodes[i].id);
    if (labels.empty()) continue;
    std::string top, middle;
    for (const auto& l : labels) {
      std::string sep = top.empty() ? "" : "   ";
      top += sep + "+" + std::string(l.size() + 2, '-') + "+";
      middle += sep + "| " + l + " |";
    }
    out += top + "\n" + middle + "\n" + top + "\n";
    if (r + 1 < rows) out += "    |\n    v\n";
  }
  if (!edges.empty()) out += "\nedges:\n";
  for (const auto& e : edges) {
    out += "  " + e.source + (e.conditional ? " -.-> " : " --> ") + e.target;
    if (e.data) out += "  (" + *e.data + ")";
    out += "\n";
  }
  return out;
}

}  // namespace superstep
