// The JSON Schema of graph specs (docs/graph_spec.schema.json, `superstep schema`) agrees with
// the spec loader: every example spec conforms, a spec using every field the loader takes
// conforms and loads, and specs the loader rejects for their shape are rejected by the schema.
// The schema is checked by a small validator of the keywords it uses.
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "superstep/cluster/graph_spec.hpp"
#include "superstep/cluster/std_library.hpp"
#include "superstep/core/error.hpp"

using namespace superstep;

namespace {

// Validates JSON values against the subset of draft 2020-12 the spec schema uses: $ref (to
// "#" and "#/$defs/NAME"), type, const, enum, oneOf, properties, additionalProperties,
// required, minProperties, items, prefixItems, minItems, maxItems, minimum, exclusiveMinimum,
// minLength.
// Returns the first problem with its JSON path, or "" when the value conforms.
class validator {
 public:
  explicit validator(value root) : root_(std::move(root)) {}

  std::string check(const value& v) const { return check(root_, v, "$"); }

 private:
  const value& resolve(const value& schema) const {
    const value* ref = schema.find("$ref");
    if (!ref) return schema;
    const std::string& r = ref->as_string();
    if (r == "#") return root_;
    const std::string prefix = "#/$defs/";
    BOOST_REQUIRE_MESSAGE(r.rfind(prefix, 0) == 0, "unsupported $ref " + r);
    const value* def = root_.get("$defs").find(r.substr(prefix.size()));
    BOOST_REQUIRE_MESSAGE(def, "dangling $ref " + r);
    return resolve(*def);
  }

  static bool has_type(const value& v, const std::string& t) {
    if (t == "object") return v.is_object();
    if (t == "array") return v.is_list();
    if (t == "string") return v.is_string();
    if (t == "boolean") return v.is_bool();
    if (t == "integer") return v.is_int();
    if (t == "number") return v.is_int() || v.is_double();
    if (t == "null") return v.is_null();
    BOOST_FAIL("unsupported type " + t);
    return false;
  }

  static double number(const value& v) {
    return v.is_int() ? static_cast<double>(v.as_int()) : v.as_double();
  }

  std::string check(const value& s0, const value& v, const std::string& at) const {
    const value& s = resolve(s0);
    if (!s.is_object()) return "";
    if (const value* t = s.find("type"); t && !has_type(v, t->as_string()))
      return at + ": expected " + t->as_string();
    if (const value* c = s.find("const"); c && !(*c == v)) return at + ": expected " + c->to_json();
    if (const value* e = s.find("enum")) {
      bool found = false;
      for (const auto& x : e->as_list()) found = found || x == v;
      if (!found) return at + ": not one of " + e->to_json();
    }
    if (const value* one = s.find("oneOf")) {
      std::size_t matches = 0;
      std::string last;
      for (const auto& alt : one->as_list()) {
        std::string p = check(alt, v, at);
        if (p.empty())
          ++matches;
        else
          last = p;
      }
      if (matches != 1)
        return matches == 0 ? last : at + ": matches " + std::to_string(matches) + " of oneOf";
    }
    if (v.is_object()) {
      const value* props = s.find("properties");
      const value* extra = s.find("additionalProperties");
      for (const auto& [k, x] : v.as_object()) {
        const value* p = props ? props->find(k) : nullptr;
        if (p) {
          if (auto e = check(*p, x, at + "." + k); !e.empty()) return e;
        } else if (extra && extra->is_bool()) {
          if (!extra->as_bool()) return at + ": unknown key '" + k + "'";
        } else if (extra) {
          if (auto e = check(*extra, x, at + "." + k); !e.empty()) return e;
        }
      }
      if (const value* req = s.find("required"))
        for (const auto& k : req->as_list())
          if (!v.find(k.as_string())) return at + ": missing '" + k.as_string() + "'";
      if (const value* m = s.find("minProperties");
          m && static_cast<std::int64_t>(v.as_object().size()) < m->as_int())
        return at + ": too few keys";
    }
    if (v.is_list()) {
      const auto& items = v.as_list();
      std::size_t first = 0;
      if (const value* pre = s.find("prefixItems")) {
        for (std::size_t i = 0; i < pre->as_list().size() && i < items.size(); ++i)
          if (auto e = check(pre->as_list()[i], items[i], at + "[" + std::to_string(i) + "]");
              !e.empty())
            return e;
        first = pre->as_list().size();
      }
      if (const value* it = s.find("items"))
        for (std::size_t i = first; i < items.size(); ++i)
          if (auto e = check(*it, items[i], at + "[" + std::to_string(i) + "]"); !e.empty())
            return e;
      if (const value* m = s.find("minItems");
          m && static_cast<std::int64_t>(items.size()) < m->as_int())
        return at + ": too few items";
      if (const value* m = s.find("maxItems");
          m && static_cast<std::int64_t>(items.size()) > m->as_int())
        return at + ": too many items";
    }
    if (v.is_int() || v.is_double()) {
      if (const value* m = s.find("minimum"); m && number(v) < number(*m))
        return at + ": below " + m->to_json();
      if (const value* m = s.find("exclusiveMinimum"); m && number(v) <= number(*m))
        return at + ": not above " + m->to_json();
    }
    if (v.is_string())
      if (const value* m = s.find("minLength");
          m && static_cast<std::int64_t>(v.as_string().size()) < m->as_int())
        return at + ": too short";
    return "";
  }

  value root_;
};

value schema() { return value::parse_json(cluster::graph_spec_json_schema()); }

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

cluster::function_registry std_registry() {
  cluster::function_registry r;
  cluster::register_std_library(r);
  return r;
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_program_prints_the_schema_of_the_docs_folder) {
  const std::filesystem::path docs =
      std::filesystem::path(SUPERSTEP_EXAMPLE_SPECS) / ".." / ".." / "docs";
  BOOST_TEST(value::parse_json(read_file(docs / "graph_spec.schema.json")) == schema());
  value s = schema();
  BOOST_TEST(s.get("$schema").as_string() == "https://json-schema.org/draft/2020-12/schema");
  BOOST_TEST(s.get("oneOf").as_list().size() == 2u);
}

BOOST_AUTO_TEST_CASE(every_example_spec_conforms) {
  validator v(schema());
  std::size_t checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(SUPERSTEP_EXAMPLE_SPECS)) {
    if (entry.path().extension() != ".json") continue;
    value spec = value::parse_json(read_file(entry.path()));
    BOOST_TEST(v.check(spec) == "", entry.path().filename().string());
    ++checked;
  }
  BOOST_TEST(checked >= 10u);
}

BOOST_AUTO_TEST_CASE(a_spec_with_every_field_conforms_and_loads) {
  const char* state_graph_spec = R"({
    "spec": "superstep.graph/1", "name": "all", "title": "All",
    "state": {
      "a": {"default": 0, "schema": {"type": "integer"}, "required": true},
      "log": {"reducer": "append", "default": []},
      "msgs": {"reducer": "messages_delta", "delta": {"snapshot_frequency": 5}},
      "d": {"reducer": "add", "delta": true, "default": 0}
    },
    "input": ["a"], "output": ["a", "log"],
    "nodes": {
      "one": {"fn": "std.increment", "params": {"key": "a"},
              "retry": {"max_attempts": 2, "initial_interval_ms": 1, "backoff": 2,
                        "max_interval_ms": 5}},
      "two": {"fn": "std.set", "params": {"update": {"log": ["x"]}}, "defer": true},
      "go": {"fn": "std.goto", "params": {"goto": "two"}, "destinations": ["two"]},
      "sub": {"fn": "graph", "graph": {"spec": "superstep.graph/1", "state": {"a": {}},
              "nodes": {"n": {"fn": "std.set", "params": {"update": {}}}},
              "edges": [["__start__", "n"]]}}
    },
    "edges": [["__start__", "one"], [["one", "sub"], "go"], ["two", "__end__"]],
    "conditional_edges": [
      {"from": "one", "router": "std.route", "params": {"key": "a", "equals": 1,
       "then": "sub", "else": "sub"}, "path_map": {"sub": "sub"}},
      {"from": "sub", "router": "std.route", "params": {"key": "a", "equals": 1,
       "then": "two", "else": "two"}, "path_map": ["two"]}
    ],
    "interrupt_before": ["two"], "interrupt_after": ["*"], "recursion_limit": 10,
    "step_timeout_ms": 60000
  })";
  const char* pregel_spec = R"({
    "spec": "superstep.pregel/1", "name": "p",
    "channels": {
      "a": {"type": "last_value", "schema": {"type": "string"}},
      "any": {"type": "any_value"},
      "e": {"type": "ephemeral", "guard": false},
      "u": {"type": "untracked", "guard": true},
      "t": {"type": "topic", "accumulate": true},
      "b": {"type": "binop", "reducer": "add", "default": ""},
      "dl": {"type": "delta", "reducer": "append", "default": [], "snapshot_frequency": 3},
      "nb": {"type": "named_barrier", "names": ["x", "y"]}
    },
    "nodes": {
      "n": {"subscribe": "a", "read": ["b"], "writes": ["b", "t"], "fn": "std.double",
            "skip_none": true, "retry": {"max_attempts": 1}}
    },
    "input": "a", "output": ["b", "t"],
    "interrupt_before": [], "interrupt_after": ["n"], "recursion_limit": 5,
    "step_timeout_ms": 0.5
  })";
  validator v(schema());
  auto registry = std_registry();
  for (const char* text : {state_graph_spec, pregel_spec}) {
    value spec = value::parse_json(text);
    BOOST_TEST(v.check(spec) == "");
    BOOST_CHECK_NO_THROW(cluster::load_graph(spec, registry));
  }
}

BOOST_AUTO_TEST_CASE(specs_of_the_wrong_shape_fail_both) {
  const char* bad[] = {
      // an unknown root key
      R"({"spec": "superstep.graph/1", "state": {}, "nodes": {}, "edgez": []})",
      // an unknown field of a state key
      R"({"spec": "superstep.graph/1", "state": {"a": {"reduce": "add"}}, "nodes": {}})",
      // an edge of three items
      R"({"spec": "superstep.graph/1", "state": {"a": {}},
          "nodes": {"n": {"fn": "std.set", "params": {"update": {}}}},
          "edges": [["__start__", "n", "__end__"]]})",
      // a node without fn
      R"({"spec": "superstep.graph/1", "state": {}, "nodes": {"n": {"params": {}}}})",
      // an unknown channel type
      R"({"spec": "superstep.pregel/1", "channels": {"a": {"type": "queue"}},
          "nodes": {"n": {"subscribe": "a", "fn": "std.double"}}, "input": "a"})",
      // a retry policy with a misspelt field
      R"({"spec": "superstep.graph/1", "state": {"a": {}},
          "nodes": {"n": {"fn": "std.set", "params": {"update": {}},
                          "retry": {"attempts": 2}}}})",
      // an unknown spec kind
      R"({"spec": "superstep.graph/2", "state": {}, "nodes": {}})",
  };
  validator v(schema());
  auto registry = std_registry();
  for (const char* text : bad) {
    value spec = value::parse_json(text);
    BOOST_TEST(v.check(spec) != "", text);
    BOOST_CHECK_THROW(cluster::load_graph(spec, registry), error);
  }
}
