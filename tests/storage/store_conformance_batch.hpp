#pragma once

// The `store::batch` checks of the store conformance suite. The checks each take a fresh,
// empty `store&`; SUPERSTEP_STORE_BATCH_CONFORMANCE(make) defines one Boost test case per
// check, `make()` as for SUPERSTEP_STORE_CONFORMANCE.

#include <variant>

#include "store_conformance.hpp"

namespace superstep::store_conformance {

using storage::get_op;
using storage::list_namespaces_op;
using storage::put_op;
using storage::remove_op;
using storage::search_op;

inline const std::optional<item>& got(const storage::store_op_result& r) {
  return std::get<std::optional<item>>(r);
}
inline const std::vector<item>& found(const storage::store_op_result& r) {
  return std::get<std::vector<item>>(r);
}

inline void batch_runs_operations_in_order_with_one_result_each(store& s) {
  BOOST_TEST(s.batch({}).empty());
  const namespace_path ns{"b", "1"};
  s.put(ns, "old", object{{"x", 0}});
  search_op all;
  all.ns_prefix = {"b"};
  search_op first_five = all;
  first_five.limit = 5;
  list_namespaces_op lists;
  const auto results =
      s.batch({put_op{ns, "a", object{{"x", 1}}, {}, {}}, put_op{ns, "b", object{{"x", 2}}, {}, {}},
               get_op{ns, "a", {}}, all, lists, remove_op{ns, "old"}, first_five,
               get_op{ns, "c", {}}, put_op{{"b", "2"}, "c", object{{"x", 3}}, {}, {}}});
  BOOST_REQUIRE(results.size() == 9u);
  BOOST_TEST(std::holds_alternative<std::monostate>(results[0]));
  BOOST_TEST(std::holds_alternative<std::monostate>(results[1]));
  BOOST_REQUIRE(got(results[2]).has_value());
  BOOST_TEST(got(results[2])->v == value(object{{"x", 1}}));
  BOOST_TEST(keys_of(found(results[3])) == (std::vector<std::string>{"b", "a", "old"}));
  BOOST_TEST((std::get<std::vector<namespace_path>>(results[4]) ==
              std::vector<namespace_path>{{"b", "1"}}));
  BOOST_TEST(std::holds_alternative<std::monostate>(results[5]));
  BOOST_TEST(keys_of(found(results[6])) == (std::vector<std::string>{"b", "a"}));
  BOOST_TEST(!got(results[7]).has_value());
  BOOST_TEST(std::holds_alternative<std::monostate>(results[8]));
  BOOST_TEST(!s.get(ns, "old").has_value());
  BOOST_TEST(s.get({"b", "2"}, "c").has_value());
}

inline void batch_answers_equal_reads_once(store& s) {
  const namespace_path ns{"d"};
  s.put(ns, "k", object{{"n", 1}});
  search_op search;
  search.ns_prefix = ns;
  list_namespaces_op lists;
  lists.prefix = {"d"};
  // Each read is repeated after a write that would change its answer.
  const auto results =
      s.batch({get_op{ns, "k", {}}, search, lists, put_op{ns, "k", object{{"n", 2}}, {}, {}},
               put_op{{"d", "sub"}, "k", object{}, {}, {}}, get_op{ns, "k", {}}, search, lists,
               get_op{ns, "k", false}});
  BOOST_REQUIRE(results.size() == 9u);
  BOOST_TEST(got(results[5])->v == value(object{{"n", 1}}));
  BOOST_TEST(found(results[6]).size() == 1u);
  BOOST_TEST(found(results[6])[0].v == value(object{{"n", 1}}));
  BOOST_TEST(std::get<std::vector<namespace_path>>(results[7]).size() == 1u);
  // A get with another refresh_ttl is another operation: it runs, after the put.
  BOOST_TEST(got(results[8])->v == value(object{{"n", 2}}));
  BOOST_TEST(s.get(ns, "k")->v == value(object{{"n", 2}}));
  BOOST_TEST(s.search(search).size() == 2u);
}

inline void batch_keeps_only_the_last_write_to_a_key(store& s) {
  const namespace_path ns{"w"};
  s.put(ns, "existing", object{{"n", 0}});
  const auto before = s.get(ns, "existing");
  BOOST_REQUIRE(before.has_value());
  const auto results =
      s.batch({put_op{ns, "new", object{{"n", 1}}, {}, {}}, get_op{ns, "new", {}},
               remove_op{ns, "existing"}, put_op{ns, "new", object{{"n", 2}}, {}, {}},
               put_op{ns, "gone", object{{"n", 1}}, {}, {}},
               put_op{ns, "existing", object{{"n", 3}}, {}, {}}, remove_op{ns, "gone"}});
  BOOST_REQUIRE(results.size() == 7u);
  // Only the last put to "new" ran, at the place of the first: one put, seen by the get.
  const auto fresh = s.get(ns, "new");
  BOOST_REQUIRE(fresh.has_value());
  BOOST_TEST(fresh->v == value(object{{"n", 2}}));
  BOOST_TEST(fresh->created_at == fresh->updated_at);
  BOOST_REQUIRE(got(results[1]).has_value());
  BOOST_TEST(got(results[1])->v == value(object{{"n", 2}}));
  // The remove of "existing" did not run, so the put overwrote it: same created_at.
  const auto existing = s.get(ns, "existing");
  BOOST_REQUIRE(existing.has_value());
  BOOST_TEST(existing->v == value(object{{"n", 3}}));
  BOOST_TEST(existing->created_at == before->created_at);
  BOOST_TEST(!s.get(ns, "gone").has_value());
}

inline void batch_names_a_bad_operation_and_runs_nothing(store& s) {
  const auto inv = error_code::invalid_argument;
  const namespace_path ns{"ok"};
  BOOST_TEST(throws_naming(
      [&] {
        (void)s.batch(
            {put_op{ns, "k", object{}, {}, {}}, put_op{{"a", "b.c"}, "k", object{}, {}, {}}});
      },
      inv, "batch operation 1 (put): label \"b.c\""));
  BOOST_TEST(throws_naming(
      [&] {
        (void)s.batch({put_op{ns, "k", object{}, {}, {}}, get_op{{}, "k", {}}});
      },
      inv, "batch operation 1 (get): a namespace needs at least one label"));
  BOOST_TEST(throws_naming(
      [&] {
        (void)s.batch({put_op{ns, "k", object{}, {}, {}}, remove_op{{"x", ""}, "k"}});
      },
      inv, "batch operation 1 (remove): empty label"));
  BOOST_TEST(throws_naming(
      [&] {
        (void)s.batch({put_op{ns, "k", value(1), {}, {}}});
      },
      inv, "batch operation 0 (put): the value of item \"k\" must be an object"));
  search_op bad_filter;
  bad_filter.filter = object{{"n", object{{"$regex", "x"}}}};
  BOOST_TEST(throws_naming(
      [&] {
        (void)s.batch({put_op{ns, "k", object{}, {}, {}}, list_namespaces_op{}, bad_filter});
      },
      inv, "batch operation 2 (search): unknown filter operator \"$regex\""));
  // No operation of a rejected batch ran.
  BOOST_TEST(!s.get(ns, "k").has_value());
  BOOST_TEST(s.list_namespaces({}).empty());
}

}  // namespace superstep::store_conformance

#define SUPERSTEP_STORE_BATCH_CONFORMANCE(make)                                               \
  SUPERSTEP_STORE_CONFORMANCE_CASE(batch_runs_operations_in_order_with_one_result_each, make) \
  SUPERSTEP_STORE_CONFORMANCE_CASE(batch_answers_equal_reads_once, make)                      \
  SUPERSTEP_STORE_CONFORMANCE_CASE(batch_keeps_only_the_last_write_to_a_key, make)            \
  SUPERSTEP_STORE_CONFORMANCE_CASE(batch_names_a_bad_operation_and_runs_nothing, make)
