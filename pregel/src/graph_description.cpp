// LangGraph's graph description of a compiled graph (`get_graph`) and its Mermaid drawing
// (langchain_core's `Graph.draw_mermaid`).
#include "superstep/pregel/graph_description.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "superstep/checkpoint/constants.hpp"
#include "superstep/pregel/pregel.hpp"

namespace superstep {

namespace {

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// Characters other than letters, digits, '-' and '_' as "\<hex code>" (Mermaid ids).
std::string escape_id(const std::string& id) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned char c : id) {
    if (std::isalnum(c) || c == '-' || c == '_') {
      out += static_cast<char>(c);
      continue;
    }
    out += '\\';
    std::string h;
    unsigned v = c;
    do {
      h.insert(h.begin(), hex[v % 16]);
      v /= 16;
    } while (v);
    out += h;
  }
  return out;
}

std::string prefix_of(const std::string& id) {
  auto pos = id.rfind(':');
  return pos == std::string::npos ? std::string() : id.substr(0, pos);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    auto pos = s.find(sep, start);
    parts.push_back(s.substr(start, pos == std::string::npos ? std::string::npos : pos - start));
    if (pos == std::string::npos) return parts;
    start = pos + 1;
  }
}

bool has_edge(const graph_description& g, const std::string& s, const std::string& t) {
  for (const auto& e : g.edges)
    if (e.source == s && e.target == t) return true;
  return false;
}

// LangGraph's add_edge: the first edge between two nodes wins; END is added on first use.
void add_edge(graph_description& g, const std::string& s, const std::string& t,
              std::optional<std::string> data, bool conditional) {
  if (has_edge(g, s, t)) return;
  if (t == END && !g.find(t)) g.nodes.push_back({std::string(END), std::string(END), {}, {}});
  g.edges.push_back({s, t, std::move(data), conditional});
}

void remove_node(graph_description& g, const std::string& id) {
  std::erase_if(g.nodes, [&](const graph_node& n) { return n.id == id; });
  std::erase_if(g.edges, [&](const graph_edge& e) { return e.source == id || e.target == id; });
}

void trim_first_node(graph_description& g) {
  const graph_node* first = g.first_node();
  if (!first || !g.first_node({first->id})) return;
  std::size_t out = 0;
  for (const auto& e : g.edges) out += e.source == first->id;
  if (out == 1) remove_node(g, std::string(first->id));
}

void trim_last_node(graph_description& g) {
  const graph_node* last = g.last_node();
  if (!last || !g.last_node({last->id})) return;
  std::size_t in = 0;
  for (const auto& e : g.edges) in += e.target == last->id;
  if (in == 1) remove_node(g, std::string(last->id));
}

// A drawn edge before ordering: LangGraph sorts (source, target, conditional, label).
using raw_edge = std::tuple<std::string, std::string, bool, std::optional<std::string>>;

}  // namespace

const graph_node* graph_description::find(const std::string& id) const {
  for (const auto& n : nodes)
    if (n.id == id) return &n;
  return nullptr;
}

const graph_node* graph_description::first_node(const std::vector<std::string>& exclude) const {
  std::set<std::string> targets;
  for (const auto& e : edges)
    if (!contains(exclude, e.source)) targets.insert(e.target);
  const graph_node* found = nullptr;
  for (const auto& n : nodes) {
    if (contains(exclude, n.id) || targets.count(n.id)) continue;
    if (found) return nullptr;
    found = &n;
  }
  return found;
}

const graph_node* graph_description::last_node(const std::vector<std::string>& exclude) const {
  std::set<std::string> sources;
  for (const auto& e : edges)
    if (!contains(exclude, e.target)) sources.insert(e.source);
  const graph_node* found = nullptr;
  for (const auto& n : nodes) {
    if (contains(exclude, n.id) || sources.count(n.id)) continue;
    if (found) return nullptr;
    found = &n;
  }
  return found;
}

value graph_description::to_json() const {
  list ns, es;
  for (const auto& n : nodes) {
    object o{{"id", value(n.id)}};
    if (!n.runnable.empty()) {
      list cls;
      for (const auto& c : n.runnable) cls.emplace_back(c);
      o.set("type", value("runnable"));
      // LangGraph names a node in its JSON by its id.
      o.set("data", value(object{{"id", value(std::move(cls))}, {"name", value(n.id)}}));
    }
    if (!n.metadata.empty()) {
      object m;
      for (const auto& [k, v] : n.metadata) m.set(k, value(v));
      o.set("metadata", value(std::move(m)));
    }
    ns.emplace_back(std::move(o));
  }
  for (const auto& e : edges) {
    object o{{"source", value(e.source)}, {"target", value(e.target)}};
    if (e.data) o.set("data", value(*e.data));
    if (e.conditional) o.set("conditional", value(true));
    es.emplace_back(std::move(o));
  }
  return value(object{{"nodes", value(std::move(ns))}, {"edges", value(std::move(es))}});
}

std::string graph_description::draw_mermaid(const mermaid_options& options) const {
  const graph_node* first = first_node();
  const graph_node* last = last_node();
  std::string out;
  if (options.with_styles) out += "---\nconfig:\n  flowchart:\n    curve: linear\n---\n";
  out += "graph TD;\n";

  auto render_node = [&](const graph_node& n) {
    std::string name = split(n.name, ':').back();
    auto special = [](char c) { return c == '*' || c == '_' || c == '`'; };
    std::string label = !name.empty() && special(name.front()) && special(name.back())
                            ? "<p>" + name + "</p>"
                            : name;
    if (!n.metadata.empty()) {
      label += "<hr/><small><em>";
      for (std::size_t i = 0; i < n.metadata.size(); ++i)
        label += (i ? "\n" : "") + n.metadata[i].first + " = " + n.metadata[i].second;
      label += "</em></small>";
    }
    std::string id = escape_id(n.id);
    if (first && n.id == first->id) return "\t" + id + "([" + label + "]):::first\n";
    if (last && n.id == last->id) return "\t" + id + "([" + label + "]):::last\n";
    return "\t" + id + "(" + label + ")\n";
  };

  // Nodes of subgraphs are drawn inside their block, grouped by id prefix.
  std::vector<std::pair<std::string, std::vector<const graph_node*>>> subgraph_nodes;
  auto group_of = [&](const std::string& prefix) -> std::vector<const graph_node*>* {
    for (auto& [p, ns] : subgraph_nodes)
      if (p == prefix) return &ns;
    return nullptr;
  };
  if (options.with_styles) {
    for (const auto& n : nodes) {
      if (n.id.find(':') == std::string::npos) {
        out += render_node(n);
        continue;
      }
      std::string prefix = prefix_of(n.id);
      if (auto* g = group_of(prefix))
        g->push_back(&n);
      else
        subgraph_nodes.emplace_back(prefix, std::vector<const graph_node*>{&n});
    }
  }

  // Edges grouped by the parts their ends' ids share.
  std::vector<std::pair<std::string, std::vector<const graph_edge*>>> edge_groups;
  for (const auto& e : edges) {
    auto s = split(e.source, ':'), t = split(e.target, ':');
    std::string common;
    bool any = false;
    for (std::size_t i = 0; i < std::min(s.size(), t.size()); ++i)
      if (s[i] == t[i]) {
        common += (any ? ":" : "") + s[i];
        any = true;
      }
    auto it = std::find_if(edge_groups.begin(), edge_groups.end(),
                           [&](const auto& g) { return g.first == common; });
    if (it == edge_groups.end())
      edge_groups.emplace_back(common, std::vector<const graph_edge*>{&e});
    else
      it->second.push_back(&e);
  }

  std::set<std::string> seen_subgraphs;
  auto add_subgraph = [&](auto& self, const std::vector<const graph_edge*>& group,
                          const std::string& prefix) -> void {
    bool self_loop = group.size() == 1 && group[0]->source == group[0]->target;
    if (!prefix.empty() && !self_loop) {
      std::string name = split(prefix, ':').back();
      seen_subgraphs.insert(name);
      out += "\tsubgraph " + name + "\n";
    }
    if (options.with_styles)
      if (auto* ns = group_of(prefix))
        for (const auto* n : *ns) out += render_node(*n);
    for (const auto* e : group) {
      std::string arrow;
      if (e->data) {
        auto words = split(*e->data, ' ');
        std::erase_if(words, [](const std::string& w) { return w.empty(); });
        std::string label = *e->data;
        if (words.size() > options.wrap_label_n_words) {
          label.clear();
          for (std::size_t i = 0; i < words.size(); i += options.wrap_label_n_words) {
            if (i) label += "&nbsp<br>&nbsp";
            for (std::size_t j = i; j < std::min(words.size(), i + options.wrap_label_n_words); ++j)
              label += (j > i ? " " : "") + words[j];
          }
        }
        arrow = e->conditional ? " -. &nbsp;" + label + "&nbsp; .-> "
                               : " -- &nbsp;" + label + "&nbsp; --> ";
      } else {
        arrow = e->conditional ? " -.-> " : " --> ";
      }
      out += "\t" + escape_id(e->source) + arrow + escape_id(e->target) + ";\n";
    }
    for (const auto& [nested, nested_group] : edge_groups) {
      if (nested == prefix || nested.rfind(prefix + ":", 0) != 0) continue;
      if (nested.find(':', prefix.size() + 1) != std::string::npos) continue;
      self(self, nested_group, nested);
    }
    if (!prefix.empty() && !self_loop) out += "\tend\n";
  };
  static const std::vector<const graph_edge*> no_edges;
  auto top = std::find_if(edge_groups.begin(), edge_groups.end(),
                          [](const auto& g) { return g.first.empty(); });
  add_subgraph(add_subgraph, top == edge_groups.end() ? no_edges : top->second, "");
  for (const auto& [prefix, group] : edge_groups) {
    if (prefix.empty() || prefix.find(':') != std::string::npos) continue;
    add_subgraph(add_subgraph, group, prefix);
    seen_subgraphs.insert(prefix);
  }
  if (options.with_styles) {
    for (const auto& [prefix, ns] : subgraph_nodes) {
      if (prefix.find(':') != std::string::npos || seen_subgraphs.count(prefix)) continue;
      out += "\tsubgraph " + prefix + "\n";
      for (const auto* n : ns) out += render_node(*n);
      out += "\tend\n";
      seen_subgraphs.insert(prefix);
    }
    out +=
        "\tclassDef default fill:#f2f0ff,line-height:1.2\n"
        "\tclassDef first fill-opacity:0\n"
        "\tclassDef last fill:#bfb6fc\n";
  }
  return out;
}

graph_description pregel::get_graph(int xray) const {
  const auto& g = graph_;
  // The builder's edges. As LangGraph's, whose walk of the graph sees only what nodes write,
  // a static edge to END (which writes nothing) is not drawn: a node that leads nowhere
  // else gets its edge to END below, after the others.
  std::set<raw_edge> raw;
  for (const auto& [from, to] : g.draw_edges)
    if (to != END) raw.emplace(from, to, false, std::nullopt);
  for (const auto& [from, to, label] : g.draw_conditional_edges)
    raw.emplace(from, to, true, label.empty() ? std::nullopt : std::optional<std::string>(label));

  // LangGraph finds its edges by running the graph on empty input for up to 250 steps; the
  // walk here takes every edge. A deferred node (LangGraph: its channel waits for the run to
  // finish) runs once nothing else does; when no node of the step before leads to it, each
  // of them gets a conditional edge to it, as LangGraph's.
  std::set<std::string> deferred;
  for (const auto& [name, ch] : g.channels)
    if (ch->holds_last_write_until_finish()) deferred.insert(name.substr(name.rfind(':') + 1));
  std::set<std::string> last_step;
  bool has_start = std::any_of(raw.begin(), raw.end(),
                               [](const raw_edge& e) { return std::get<0>(e) == START; });
  if (has_start) {
    std::set<std::string> tasks{std::string(START)}, waiting;
    for (int step = -1; step < 250 && !tasks.empty(); ++step) {
      last_step = tasks;
      std::set<std::string> next;
      for (const auto& [from, to, c, l] : raw)
        if (tasks.count(from) && to != END) (deferred.count(to) ? waiting : next).insert(to);
      if (next.empty() && !waiting.empty()) {
        next = std::move(waiting);
        waiting.clear();
        for (const auto& t : next) {
          bool led = std::any_of(raw.begin(), raw.end(), [&](const raw_edge& e) {
            return std::get<1>(e) == t && tasks.count(std::get<0>(e));
          });
          if (!led)
            for (const auto& src : tasks) raw.emplace(src, t, true, std::nullopt);
        }
      }
      tasks = std::move(next);
    }
  }

  graph_description d;
  auto listed = [](const std::vector<std::string>& v, const std::string& n) {
    return contains(v, n) || contains(v, "*");
  };
  for (const auto& n : g.nodes) {
    graph_node gn{n.name, n.name, {}, {}};
    gn.runnable =
        n.subgraph
            ? std::vector<std::string>{"langgraph", "graph", "state", "CompiledStateGraph"}
            : std::vector<std::string>{"langgraph", "_internal", "_runnable", "RunnableCallable"};
    bool before = listed(g.interrupt_before, n.name), after = listed(g.interrupt_after, n.name);
    if (before || after)
      gn.metadata.emplace_back("__interrupt", before && after ? "before,after"
                                              : before        ? "before"
                                                              : "after");
    d.nodes.push_back(std::move(gn));
  }
  // A graph without a START node (a Pregel graph) gets one, with edges to the nodes its
  // input triggers, before the others.
  if (has_start && !d.find(std::string(START))) {
    d.nodes.push_back({std::string(START), std::string(START), {}, {}});
    for (const auto& [from, to, conditional, label] : raw)
      if (from == START && to != END) add_edge(d, from, to, std::nullopt, false);
  }
  for (const auto& [from, to, conditional, label] : raw) {
    if (!d.find(from) || (to != END && !d.find(to))) continue;
    add_edge(d, from, to, label == to ? std::nullopt : label, conditional);
  }

  // Nodes edges lead to but that lead nowhere end the graph; when there are none and no edge
  // goes to END, the one node of the walk's last step ends it.
  std::set<std::string> sources, termini;
  bool end_edge = false;
  for (const auto& [from, to, c, l] : raw) {
    sources.insert(from);
    end_edge |= to == END;
  }
  for (const auto& [from, to, c, l] : raw)
    if (to != END && !sources.count(to)) termini.insert(to);
  if (!termini.empty()) {
    for (const auto& t : termini) add_edge(d, t, std::string(END), std::nullopt, false);
  } else if (!end_edge && last_step.size() == 1) {
    add_edge(d, *last_step.begin(), std::string(END), std::nullopt, true);
  }

  // Subgraphs drawn inside their node (xray): their START and END stay when trimming them
  // would leave no single entry or exit.
  if (xray == 0) return d;
  for (const auto& n : g.nodes) {
    if (!n.subgraph) continue;
    graph_description sub = n.subgraph->get_graph(xray < 0 ? xray : xray - 1);
    if (sub.nodes.size() <= 1 || !d.find(n.name) || !sub.first_node() || !sub.last_node()) continue;
    trim_first_node(sub);
    trim_last_node(sub);
    const graph_node* sub_first = sub.first_node();
    const graph_node* sub_last = sub.last_node();
    std::string first_id = sub_first ? n.name + ":" + sub_first->id : n.name;
    std::string last_id = sub_last ? n.name + ":" + sub_last->id : n.name;
    std::erase_if(d.nodes, [&](const graph_node& x) { return x.id == n.name; });
    for (auto& sn : sub.nodes) {
      sn.id = n.name + ":" + sn.id;
      d.nodes.push_back(std::move(sn));
    }
    for (auto& e : d.edges) {
      if (e.source == n.name) e.source = last_id;
      if (e.target == n.name) e.target = first_id;
    }
    for (auto& e : sub.edges)
      d.edges.push_back(
          {n.name + ":" + e.source, n.name + ":" + e.target, std::move(e.data), e.conditional});
  }
  return d;
}

}  // namespace superstep
