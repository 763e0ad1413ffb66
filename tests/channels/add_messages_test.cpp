// The add_messages reducer: LangGraph's message list semantics (replace by id, removal).
#include <boost/test/unit_test.hpp>
#include <set>
#include <string>
#include <vector>

#include "channel_test_support.hpp"
#include "superstep/channels/reducer.hpp"

using superstep::error_code;
using superstep::object;
using superstep::value;
using superstep::channels::builtin_reducer;
using superstep::channels::reducer;
using superstep::channels::test::check_error;

namespace {

value reduce(const value& current, std::vector<value> updates) {
  const reducer* r = builtin_reducer("add_messages");
  BOOST_REQUIRE(r != nullptr);
  return r->apply(current, updates);
}

value reduce_pair(const value& current, const value& update) {
  return builtin_reducer("add_messages")->binary(current, update);
}

value msg(std::string id, std::string content) {
  return value(object{{"type", "ai"}, {"content", std::move(content)}, {"id", std::move(id)}});
}

value anonymous(std::string content) {
  return value(object{{"type", "ai"}, {"content", std::move(content)}});
}

value remove_message(std::string id) {
  return value(object{{"type", "remove"}, {"id", std::move(id)}});
}

std::vector<std::string> ids(const value& messages) {
  std::vector<std::string> out;
  for (const value& m : messages.as_list()) out.push_back(m.get("id").as_string());
  return out;
}

std::vector<std::string> contents(const value& messages) {
  std::vector<std::string> out;
  for (const value& m : messages.as_list()) out.push_back(m.get("content").as_string());
  return out;
}

using strings = std::vector<std::string>;

}  // namespace

BOOST_AUTO_TEST_CASE(appends_and_gives_ids_to_messages_without_one) {
  value merged = reduce(value::array({msg("1", "hello")}),
                        {value::array({anonymous("hi"), anonymous("hi")}), "how are you?"});
  BOOST_TEST(contents(merged) == (strings{"hello", "hi", "hi", "how are you?"}));
  strings got = ids(merged);
  BOOST_TEST(got[0] == "1");
  BOOST_TEST(std::set<std::string>(got.begin(), got.end()).size() == 4u);
  BOOST_TEST(got[1].size() == 36u);
  BOOST_TEST(merged.as_list()[3].get("type") == value("human"));
  // The same input gives the same ids.
  value again = reduce(value::array({msg("1", "hello")}),
                       {value::array({anonymous("hi"), anonymous("hi")}), "how are you?"});
  BOOST_TEST(ids(again) == got);
}

BOOST_AUTO_TEST_CASE(replaces_a_message_with_the_same_id_in_place) {
  value merged = reduce(value::array({msg("1", "a"), msg("2", "b")}),
                        {value::array({msg("1", "A"), msg("3", "c")})});
  BOOST_TEST(ids(merged) == (strings{"1", "2", "3"}));
  BOOST_TEST(contents(merged) == (strings{"A", "b", "c"}));
}

BOOST_AUTO_TEST_CASE(accepts_single_messages_on_either_side) {
  value merged = reduce_pair(msg("1", "a"), msg("2", "b"));
  BOOST_TEST(ids(merged) == (strings{"1", "2"}));
}

BOOST_AUTO_TEST_CASE(removes_a_message_by_id) {
  value start = value::array({msg("1", "a"), msg("2", "b"), msg("3", "c")});
  value merged = reduce(start, {remove_message("2")});
  BOOST_TEST(ids(merged) == (strings{"1", "3"}));
}

BOOST_AUTO_TEST_CASE(rejects_removing_an_unknown_id) {
  check_error([] { reduce(value::array({msg("1", "a")}), {remove_message("9")}); },
              error_code::invalid_update, {"reducer 'add_messages'", "'9'"});
  // A message removed by an earlier update of the same step is gone too.
  check_error(
      [] {
        reduce(value::array({msg("1", "a")}), {remove_message("1"), remove_message("1")});
      },
      error_code::invalid_update, {"'1'"});
}

BOOST_AUTO_TEST_CASE(keeps_the_place_of_a_message_removed_and_re_added_at_once) {
  value start = value::array({msg("1", "a"), msg("2", "b")});
  value merged = reduce(start, {value::array({remove_message("1"), msg("1", "again")})});
  BOOST_TEST(ids(merged) == (strings{"1", "2"}));
  BOOST_TEST(contents(merged) == (strings{"again", "b"}));
  // Re-added by a later update, it goes to the end, as with two separate reductions.
  value later = reduce(start, {remove_message("1"), msg("1", "again")});
  BOOST_TEST(ids(later) == (strings{"2", "1"}));
}

BOOST_AUTO_TEST_CASE(remove_all_drops_everything_before_it) {
  value start = value::array({msg("1", "a"), msg("2", "b")});
  value merged = reduce(start, {msg("3", "c"),
                                value::array({msg("4", "d"), remove_message("__remove_all__"),
                                              msg("5", "e"), anonymous("f")}),
                                msg("6", "g")});
  BOOST_TEST(contents(merged) == (strings{"e", "f", "g"}));
  BOOST_TEST(ids(merged)[0] == "5");
}

BOOST_AUTO_TEST_CASE(fold_matches_reducing_one_update_at_a_time) {
  std::vector<value> updates{value::array({msg("1", "a"), msg("2", "b")}), msg("1", "A"),
                             remove_message("2"), value::array({msg("3", "c"), msg("2", "B")})};
  value folded = reduce(value::array({}), updates);
  value stepwise = value::array({});
  for (const value& u : updates) stepwise = reduce_pair(stepwise, u);
  BOOST_TEST(folded == stepwise);
  BOOST_TEST(ids(folded) == (strings{"1", "3", "2"}));
}

BOOST_AUTO_TEST_CASE(rejects_values_that_are_not_messages) {
  check_error([] { reduce(value::array({}), {5}); }, error_code::invalid_update,
              {"reducer 'add_messages'", "got int"});
  check_error([] { reduce(value(), {"hi"}); }, error_code::invalid_update, {"got null"});
  check_error(
      [] {
        reduce(value::array({}), {value(object{{"id", 3}})});
      },
      error_code::invalid_update, {"id must be a string, got int"});
}
