// The README's example: a map-reduce with Send, folded by an append reducer.
#include <iostream>

#include "superstep/pregel/send.hpp"
#include "superstep/superstep.hpp"

using namespace superstep;

int main() {
  state_graph b;
  b.add_key("subjects").add_key("jokes", "append");  // "append" is a reducer
  b.add_node("joke", [](const value& in, node_context&) -> value {
    return object{{"jokes", value::array({"joke about " + in.get("subject").as_string()})}};
  });
  b.add_conditional_edges("__start__", [](const value& state, node_context&) -> value {
    list sends;
    for (const auto& s : state.get("subjects").as_list())
      sends.push_back(make_send("joke", object{{"subject", s}}));
    return value(std::move(sends));
  });
  auto graph = b.compile();
  value out = graph->invoke(object{{"subjects", value::array({"cats", "dogs"})}});
  std::cout << out << "\n";
  return out.get("jokes").as_list().size() == 2 ? 0 : 1;
}
