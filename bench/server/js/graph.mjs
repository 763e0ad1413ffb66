// The benchmark's one-node graph for the LangGraph.js server: `items` is appended to (a list
// reducer) and the node appends "ok", so a run with input {items: ["hi"]} ends with
// {items: ["hi", "ok"]}. superstep's twin is ../superstep/append.json (std.set).
import { Annotation, StateGraph, START, END } from "@langchain/langgraph";

const State = Annotation.Root({
  items: Annotation({ reducer: (a, b) => a.concat(b), default: () => [] }),
});

export const graph = new StateGraph(State)
  .addNode("append", () => ({ items: ["ok"] }))
  .addEdge(START, "append")
  .addEdge("append", END)
  .compile();
