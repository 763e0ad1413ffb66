// libs/checkpoint-sqlite/tests/test_ttl.py (SqliteStore TTLs), ported. LangGraph sleeps
// through TTLs of seconds; here the store runs on a clock the test moves (`manual_clock`), so
// the same timeline takes no time. The async twins (test_async_ttl_*) run the same calls and
// are listed in NOT_PORTED.store.md.
//
// SqliteStore restarts TTLs on reads only when its TTLConfig sets refresh_on_read=True (its
// default is False there, unlike LangGraph's other stores); the tests that leave it unset
// run with `refresh_on_read` false, which is what SQLite does with them.

#include <condition_variable>
#include <mutex>

#include "store_fixtures.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

constexpr double seconds = 1.0 / 60;  // a TTL of one second, in minutes

}  // namespace

// libs/checkpoint-sqlite/tests/test_ttl.py::test_ttl_basic
BOOST_AUTO_TEST_CASE(test_ttl_basic) {
  manual_clock clock;
  auto s = store({}, ttl_on(clock, 1 * seconds, false));
  s->put({"test"}, "item1", object{{"value", "test"}});
  const auto it = s->get({"test"}, "item1");
  BOOST_REQUIRE(it.has_value());
  BOOST_TEST(it->v.get("value") == value("test"));
  clock.advance_seconds(2.0);
  (void)s->sweep();
  BOOST_TEST(!s->get({"test"}, "item1").has_value());
}

// libs/checkpoint-sqlite/tests/test_ttl.py::test_ttl_refresh
BOOST_AUTO_TEST_CASE(test_ttl_refresh) {
  manual_clock clock;
  auto s = store({}, ttl_on(clock, 1 * seconds, true));
  s->put({"test"}, "item1", object{{"value", "test"}});

  clock.advance_seconds(0.5);  // almost expired
  BOOST_TEST(s->sweep() == 0u);
  BOOST_TEST(s->get({"test"}, "item1", true).has_value());  // expires 1 s from now

  clock.advance_seconds(0.5);
  BOOST_TEST(s->sweep() == 0u);
  const auto it = s->get({"test"}, "item1");
  BOOST_REQUIRE(it.has_value());
  BOOST_TEST(it->v.get("value") == value("test"));

  clock.advance_seconds(1.75);  // no read refreshed it this time
  BOOST_TEST(s->sweep() == 1u);
  BOOST_TEST(!s->get({"test"}, "item1").has_value());
}

// libs/checkpoint-sqlite/tests/test_ttl.py::test_ttl_sweeper: the background sweeper (every
// half TTL) deletes the item; the test waits for the sweep that reports it, not for time.
BOOST_AUTO_TEST_CASE(test_ttl_sweeper) {
  manual_clock clock;
  struct seen_sweeps {
    std::mutex mutex;
    std::condition_variable changed;
    std::size_t swept = 0;
  };
  auto seen = std::make_shared<seen_sweeps>();
  auto config = ttl_on(clock, 2 * seconds, false);
  config.sweep_interval = std::chrono::milliseconds(1);
  config.on_sweep = [seen](std::size_t swept, const std::exception_ptr&) {
    std::lock_guard lock(seen->mutex);
    seen->swept += swept;
    seen->changed.notify_all();
  };
  auto s = store({}, config);
  s->put({"test"}, "item1", object{{"value", "test"}});
  BOOST_TEST(s->get({"test"}, "item1").has_value());

  clock.advance_seconds(2 + 1 + 0.5);  // TTL, half a sweep interval of LangGraph's, margin
  {
    std::unique_lock lock(seen->mutex);
    BOOST_TEST(
        seen->changed.wait_for(lock, std::chrono::seconds(10), [&] { return seen->swept >= 1; }));
  }
  BOOST_TEST(!s->get({"test"}, "item1").has_value());
  BOOST_TEST(s->sweep() == 0u);  // the sweeper took it: nothing is left to delete
}

// libs/checkpoint-sqlite/tests/test_ttl.py::test_ttl_custom_value (no TTLConfig: SQLite does
// not refresh on reads)
BOOST_AUTO_TEST_CASE(test_ttl_custom_value) {
  manual_clock clock;
  auto s = store({}, ttl_on(clock, {}, false));
  s->put({"test"}, "item1", object{{"value", "short"}}, {}, 1 * seconds);
  s->put({"test"}, "item2", object{{"value", "long"}}, {}, 3 * seconds);

  clock.advance_seconds(2);
  (void)s->sweep();
  BOOST_TEST(!s->get({"test"}, "item1").has_value());
  BOOST_TEST(s->get({"test"}, "item2").has_value());

  clock.advance_seconds(4);
  (void)s->sweep();
  BOOST_TEST(!s->get({"test"}, "item2").has_value());
}

// libs/checkpoint-sqlite/tests/test_ttl.py::test_ttl_override_default
BOOST_AUTO_TEST_CASE(test_ttl_override_default) {
  manual_clock clock;
  auto s = store({}, ttl_on(clock, 5 * seconds, false));
  s->put({"test"}, "item1", object{{"value", "override"}}, {}, 1 * seconds);
  s->put({"test"}, "item2", object{{"value", "default"}});
  s->put({"test"}, "item3", object{{"value", "permanent"}}, {}, std::nullopt);

  clock.advance_seconds(2);
  (void)s->sweep();
  BOOST_TEST(!s->get({"test"}, "item1").has_value());
  BOOST_TEST(s->get({"test"}, "item2").has_value());
  BOOST_TEST(s->get({"test"}, "item3").has_value());

  clock.advance_seconds(4);
  (void)s->sweep();
  BOOST_TEST(!s->get({"test"}, "item2").has_value());
  BOOST_TEST(s->get({"test"}, "item3").has_value());
}

// libs/checkpoint-sqlite/tests/test_ttl.py::test_search_with_ttl
BOOST_AUTO_TEST_CASE(test_search_with_ttl) {
  manual_clock clock;
  auto s = store({}, ttl_on(clock, 1 * seconds, false));
  s->put({"test"}, "item1", object{{"value", "apple"}});
  s->put({"test"}, "item2", object{{"value", "banana"}});
  const auto before = search(*s, {.prefix = {"test"}, .filter = {{"value", "apple"}}});
  BOOST_REQUIRE(before.size() == 1u);
  BOOST_TEST(before[0].key == "item1");

  clock.advance_seconds(2);
  (void)s->sweep();
  BOOST_TEST(search(*s, {.prefix = {"test"}, .filter = {{"value", "apple"}}}).empty());
}

// libs/checkpoint-sqlite/tests/test_ttl.py::test_async_asearch_refresh_ttl
BOOST_AUTO_TEST_CASE(test_async_asearch_refresh_ttl) {
  manual_clock clock;
  auto s = store({}, ttl_on(clock, 4 * seconds, true));
  const namespace_path ns{"docs", "user1"};
  // t=0: both expire at t=4.
  s->put(ns, "item1", object{{"text", "content1"}, {"id", 1}});
  s->put(ns, "item2", object{{"text", "content2"}, {"id", 2}});

  // t=3: the search restarts item1's TTL (now t=7), not item2's.
  clock.advance_seconds(3);
  const auto found = search(*s, {.prefix = ns, .filter = {{"id", 1}}, .refresh_ttl = true});
  BOOST_REQUIRE(found.size() == 1u);
  BOOST_TEST(found[0].key == "item1");

  // t=5: item1 lives, item2 is gone.
  clock.advance_seconds(2);
  (void)s->sweep();
  const auto item1 = s->get(ns, "item1", false);
  BOOST_REQUIRE(item1.has_value());
  BOOST_TEST(item1->v.get("text") == value("content1"));
  BOOST_TEST(!s->get(ns, "item2", false).has_value());

  // t=7.5: item1's restarted TTL has run out too.
  clock.advance_seconds(2.5);
  (void)s->sweep();
  BOOST_TEST(!s->get(ns, "item1", false).has_value());
}
