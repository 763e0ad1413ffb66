// A compiled graph described as nodes and edges (LangGraph's `get_graph()`), and its drawing.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "superstep/core/value.hpp"

namespace superstep {

/// A node of a graph description (LangGraph `Node`).
struct graph_node {
  /// Unique id; a node of an xray-drawn subgraph is "<subgraph node>:<its id>".
  std::string id;
  /// The node's own name (its id within its own graph).
  std::string name;
  /// What runs: LangGraph's class path of the runnable ({"langgraph", "_internal",
  /// "_runnable", "RunnableCallable"} for a function, {..., "CompiledStateGraph"} for a
  /// subgraph); empty for END, which runs nothing.
  std::vector<std::string> runnable;
  /// "key = value" metadata lines (LangGraph's `__interrupt = before` and the like).
  std::vector<std::pair<std::string, std::string>> metadata;
};

/// An edge of a graph description (LangGraph `Edge`).
struct graph_edge {
  std::string source;
  std::string target;
  /// The edge's label (a branch's path-map key); none when it is the target's name.
  std::optional<std::string> data;
  /// Taken only when a branch or a Command chooses it.
  bool conditional = false;
};

/// Options of `graph_description::draw_mermaid` (LangGraph `draw_mermaid` arguments).
struct mermaid_options {
  /// Front matter, node declarations and class definitions; false: the bare edge list.
  bool with_styles = true;
  /// Labels of more words than this are wrapped.
  std::size_t wrap_label_n_words = 9;
};

/// The nodes and edges of a compiled graph, in LangGraph's order (`pregel::get_graph`).
struct graph_description {
  std::vector<graph_node> nodes;
  std::vector<graph_edge> edges;

  /// The one node no edge leads to, or nullptr when there is not exactly one; nodes in
  /// `exclude` and edges from them are left out (LangGraph `first_node`).
  const graph_node* first_node(const std::vector<std::string>& exclude = {}) const;
  /// The one node no edge leaves, likewise (LangGraph `last_node`).
  const graph_node* last_node(const std::vector<std::string>& exclude = {}) const;
  /// The node with this id, or nullptr.
  const graph_node* find(const std::string& id) const;

  /// As LangGraph's `Graph.to_json()`: {"nodes": [{"id", "type": "runnable", "data": {"id":
  /// class path, "name"}, "metadata"?}], "edges": [{"source", "target", "data"?,
  /// "conditional"?}]}.
  value to_json() const;
  /// A Mermaid flowchart as LangGraph's `Graph.draw_mermaid()`: nodes of xray-drawn
  /// subgraphs inside `subgraph` blocks, edges grouped by their common id prefix.
  std::string draw_mermaid(const mermaid_options& options = {}) const;
  /// The graph in Graphviz's DOT language (for `dot -Tpng`): START and END as ovals, nodes as
  /// boxes, conditional edges dashed, labelled with their path-map key.
  std::string draw_dot() const;
  /// The graph as text (LangGraph `draw_ascii`, drawn more simply): the nodes in rows by their
  /// distance from START along the edges (back edges of loops left out of the layering), each
  /// a box, then every edge as "source -> target" ("-.->" for a conditional one, with its
  /// label).
  std::string draw_ascii() const;
};

}  // namespace superstep
