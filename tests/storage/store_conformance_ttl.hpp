#pragma once

// The TTL checks of the store conformance suite. Each takes a factory `make(ttl_config)`
// returning a pointer to a new, empty store with that configuration and no index.
// SUPERSTEP_STORE_TTL_CONFORMANCE(make) defines one Boost test case per check. Time moves by
// `test_clock`, never by sleeping.

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <limits>
#include <memory>
#include <mutex>

#include "store_conformance.hpp"

namespace superstep::store_conformance {

/// A clock that moves only when told, shared by a test and the stores it makes.
class test_clock {
 public:
  /// Starts at 2026-01-01T00:00:00Z.
  test_clock() : micros_(std::make_shared<std::atomic<long long>>(1767225600000000)) {}

  void advance_minutes(double minutes) {
    micros_->fetch_add(static_cast<long long>(minutes * 60e6));
  }

  /// A TTL configuration on this clock.
  storage::ttl_config config(std::optional<double> default_ttl_minutes = {},
                             bool refresh_on_read = true) const {
    storage::ttl_config c;
    c.default_ttl_minutes = default_ttl_minutes;
    c.refresh_on_read = refresh_on_read;
    c.clock = [micros = micros_] {
      return std::chrono::system_clock::time_point(std::chrono::microseconds(micros->load()));
    };
    return c;
  }

 private:
  std::shared_ptr<std::atomic<long long>> micros_;
};

/// The keys found by an unrefreshing search of every namespace, sorted.
inline std::vector<std::string> live_keys(store& s) {
  storage::search_options o;
  o.limit = 1000;
  o.refresh_ttl = false;
  auto keys = keys_of(s.search(o));
  std::sort(keys.begin(), keys.end());
  return keys;
}

template <class Make>
void expired_items_are_invisible_before_any_sweep(Make make) {
  test_clock clock;
  auto s = make(clock.config({}, /*refresh_on_read=*/false));
  s->put({"t"}, "short", object{{"x", 1}}, {}, 10.0);
  s->put({"t"}, "forever", object{{"x", 2}});
  s->put({"only", "short"}, "k", object{{"x", 3}}, {}, 10.0);
  using v = std::vector<std::string>;
  using nss = std::vector<namespace_path>;
  clock.advance_minutes(9.99);
  BOOST_TEST(s->get({"t"}, "short").has_value());
  BOOST_TEST(live_keys(*s) == (v{"forever", "k", "short"}));
  BOOST_TEST((s->list_namespaces({}) == nss{{"only", "short"}, {"t"}}));
  clock.advance_minutes(0.01);  // exactly 10 minutes: expired
  BOOST_TEST(!s->get({"t"}, "short").has_value());
  BOOST_TEST(!s->get({"only", "short"}, "k").has_value());
  BOOST_TEST(s->get({"t"}, "forever").has_value());
  BOOST_TEST(live_keys(*s) == (v{"forever"}));
  storage::search_options filtered;
  filtered.filter = object{{"x", 1}};
  BOOST_TEST(s->search(filtered).empty());
  // A namespace whose items have all expired is not listed.
  BOOST_TEST((s->list_namespaces({}) == nss{{"t"}}));
  storage::list_namespaces_options depth;
  depth.max_depth = 1;
  BOOST_TEST((s->list_namespaces(depth) == nss{{"t"}}));
  // Still there to sweep: two expired items.
  BOOST_TEST(s->sweep() == 2u);
  BOOST_TEST(s->sweep() == 0u);
  BOOST_TEST(live_keys(*s) == (v{"forever"}));
}

template <class Make>
void default_ttl_applies_unless_a_put_gives_its_own(Make make) {
  test_clock clock;
  auto s = make(clock.config(5.0, false));
  s->put({"d"}, "default", object{});
  s->put({"d"}, "twenty", object{}, {}, 20.0);
  s->put({"d"}, "never", object{}, {}, std::nullopt);
  using v = std::vector<std::string>;
  clock.advance_minutes(4.9);
  BOOST_TEST(live_keys(*s) == (v{"default", "never", "twenty"}));
  clock.advance_minutes(0.2);
  BOOST_TEST(live_keys(*s) == (v{"never", "twenty"}));
  clock.advance_minutes(15);
  BOOST_TEST(live_keys(*s) == (v{"never"}));
  clock.advance_minutes(1e8);  // some 190 years (system_clock counts ns: it ends in 2262)
  BOOST_TEST(live_keys(*s) == (v{"never"}));
  // A TTL of 0 makes an item that is expired at once.
  s->put({"d"}, "zero", object{}, {}, 0.0);
  BOOST_TEST(!s->get({"d"}, "zero").has_value());
}

template <class Make>
void reads_refresh_the_ttl_of_what_they_return_unless_told_not_to(Make make) {
  test_clock clock;
  auto s = make(clock.config({}, /*refresh_on_read=*/true));
  for (const char* k : {"got", "got_unrefreshed", "found", "found_unrefreshed", "untouched"})
    s->put({"r"}, k, object{{"k", k}}, {}, 10.0);
  clock.advance_minutes(8);
  BOOST_TEST(s->get({"r"}, "got").has_value());  // refreshes by default
  BOOST_TEST(s->get({"r"}, "got_unrefreshed", false).has_value());
  storage::search_options o;
  o.filter = object{{"k", "found"}};
  BOOST_TEST(s->search(o).size() == 1u);  // refreshes by default
  o.filter = object{{"k", "found_unrefreshed"}};
  o.refresh_ttl = false;
  BOOST_TEST(s->search(o).size() == 1u);
  clock.advance_minutes(4);  // 12 minutes after the puts, 4 after the reads
  BOOST_TEST(live_keys(*s) == (std::vector<std::string>{"found", "got"}));
  clock.advance_minutes(6);  // 10 after the reads
  BOOST_TEST(live_keys(*s).empty());

  // A store that does not refresh by default still does when a read asks.
  auto quiet = make(clock.config({}, /*refresh_on_read=*/false));
  quiet->put({"q"}, "asked", object{}, {}, 10.0);
  quiet->put({"q"}, "default", object{}, {}, 10.0);
  clock.advance_minutes(8);
  BOOST_TEST(quiet->get({"q"}, "asked", true).has_value());
  BOOST_TEST(quiet->get({"q"}, "default").has_value());
  clock.advance_minutes(4);
  BOOST_TEST(live_keys(*quiet) == (std::vector<std::string>{"asked"}));
}

template <class Make>
void a_put_over_an_expired_item_starts_a_new_one(Make make) {
  test_clock clock;
  auto s = make(clock.config());
  s->put({"p"}, "k", object{{"n", 1}}, {}, 1.0);
  s->put({"p"}, "kept", object{{"n", 1}}, {}, 10.0);
  const auto first = s->get({"p"}, "k");
  const auto kept = s->get({"p"}, "kept");
  BOOST_REQUIRE(first.has_value());
  BOOST_REQUIRE(kept.has_value());
  clock.advance_minutes(2);
  s->put({"p"}, "k", object{{"n", 2}});
  s->put({"p"}, "kept", object{{"n", 2}});
  const auto second = s->get({"p"}, "k");
  BOOST_REQUIRE(second.has_value());
  BOOST_TEST(second->v == value(object{{"n", 2}}));
  BOOST_TEST(second->created_at > first->created_at);
  BOOST_TEST(second->created_at == second->updated_at);
  // An unexpired item overwritten keeps its created_at, and the new put's TTL (none) holds.
  BOOST_TEST(s->get({"p"}, "kept")->created_at == kept->created_at);
  clock.advance_minutes(60);
  BOOST_TEST(s->get({"p"}, "kept").has_value());
  // Timestamps come from the store's clock.
  BOOST_TEST(first->created_at.starts_with("2026-01-01T00:00:00"));
}

template <class Make>
void sweep_deletes_only_expired_items_and_counts_them(Make make) {
  test_clock clock;
  auto s = make(clock.config());
  s->put({"a"}, "1", object{}, {}, 1.0);
  s->put({"a"}, "2", object{}, {}, 1.0);
  s->put({"a", "b"}, "3", object{}, {}, 1.0);
  s->put({"a"}, "4", object{});
  s->put({"c"}, "5", object{}, {}, 5.0);
  BOOST_TEST(s->sweep() == 0u);
  clock.advance_minutes(2);
  BOOST_TEST(s->sweep() == 3u);
  BOOST_TEST(s->sweep() == 0u);
  BOOST_TEST(live_keys(*s) == (std::vector<std::string>{"4", "5"}));
  BOOST_TEST((s->list_namespaces({}) == std::vector<namespace_path>{{"a"}, {"c"}}));
  // A swept item can be put again, as new.
  s->put({"a", "b"}, "3", object{{"again", true}});
  BOOST_TEST(s->get({"a", "b"}, "3")->v == value(object{{"again", true}}));
  clock.advance_minutes(10);
  BOOST_TEST(s->sweep() == 1u);
}

template <class Make>
void bad_ttls_are_named_and_store_nothing(Make make) {
  test_clock clock;
  auto s = make(clock.config());
  const auto inv = error_code::invalid_argument;
  BOOST_TEST(
      throws_naming([&] { s->put({"b"}, "neg", object{}, {}, -1.5); }, inv,
                    "the TTL of item \"neg\" must be a finite, non-negative number of minutes, "
                    "not -1.5"));
  BOOST_TEST(throws_naming([&] { s->put({"b"}, "nan", object{}, {}, std::nan("")); }, inv,
                           "finite, non-negative"));
  BOOST_TEST(throws_naming(
      [&] { s->put({"b"}, "inf", object{}, {}, std::numeric_limits<double>::infinity()); }, inv,
      "TTL of item \"inf\""));
  BOOST_TEST(s->list_namespaces({}).empty());

  auto bad_default = clock.config(-5.0);
  BOOST_TEST(throws_naming([&] { (void)make(bad_default); }, inv, "default_ttl_minutes"));
  bad_default.default_ttl_minutes = std::numeric_limits<double>::quiet_NaN();
  BOOST_TEST(throws_naming([&] { (void)make(bad_default); }, inv, "default_ttl_minutes"));
  auto bad_interval = clock.config();
  bad_interval.sweep_interval = std::chrono::milliseconds(0);
  BOOST_TEST(throws_naming([&] { (void)make(bad_interval); }, inv, "sweep_interval"));
}

template <class Make>
void the_sweeper_thread_deletes_expired_items_and_stops_with_the_store(Make make) {
  test_clock clock;
  struct reports {
    std::mutex mutex;
    std::condition_variable changed;
    std::size_t swept = 0, sweeps = 0;
  };
  auto seen = std::make_shared<reports>();
  auto config = clock.config();
  config.sweep_interval = std::chrono::milliseconds(1);
  config.on_sweep = [seen](std::size_t swept, const std::exception_ptr& failure) {
    std::lock_guard lock(seen->mutex);
    if (!failure) seen->swept += swept;
    ++seen->sweeps;
    seen->changed.notify_all();
  };
  auto s = make(config);
  s->put({"s"}, "expiring", object{}, {}, 1.0);
  s->put({"s"}, "staying", object{});
  clock.advance_minutes(2);
  {
    std::unique_lock lock(seen->mutex);
    BOOST_REQUIRE(
        seen->changed.wait_for(lock, std::chrono::seconds(30), [&] { return seen->swept >= 1; }));
    BOOST_TEST(seen->swept == 1u);
  }
  BOOST_TEST(s->get({"s"}, "staying").has_value());
  BOOST_TEST(s->sweep() == 0u);  // the thread left nothing to do
  s.reset();                     // joins the thread
  std::size_t sweeps_after_close = 0;
  {
    std::lock_guard lock(seen->mutex);
    sweeps_after_close = seen->sweeps;
  }

  // A store whose next sweep is an hour away still closes at once.
  config.sweep_interval = std::chrono::hours(1);
  auto idle = make(config);
  const auto start = std::chrono::steady_clock::now();
  idle.reset();
  const auto closing = std::chrono::steady_clock::now() - start;
  BOOST_TEST(std::chrono::duration_cast<std::chrono::milliseconds>(closing).count() < 10000);
  std::lock_guard lock(seen->mutex);
  BOOST_TEST(seen->sweeps == sweeps_after_close);
}

template <class Make>
void batch_puts_take_their_ttl_and_gets_refresh(Make make) {
  test_clock clock;
  auto s = make(clock.config(30.0));
  (void)s->batch({storage::put_op{{"b"}, "ten", object{}, {}, 10.0},
                  storage::put_op{{"b"}, "default", object{}, {}, {}},
                  storage::put_op{{"b"}, "never", object{}, {}, std::nullopt}});
  clock.advance_minutes(8);
  const auto results =
      s->batch({storage::get_op{{"b"}, "ten", {}}, storage::get_op{{"b"}, "default", false}});
  BOOST_REQUIRE(results.size() == 2u);
  BOOST_TEST(std::get<std::optional<item>>(results[0]).has_value());
  clock.advance_minutes(8);  // "ten" lives on, refreshed at minute 8
  BOOST_TEST(live_keys(*s) == (std::vector<std::string>{"default", "never", "ten"}));
  clock.advance_minutes(20);  // minute 36
  BOOST_TEST(live_keys(*s) == (std::vector<std::string>{"never"}));
  BOOST_TEST(throws_naming(
      [&] {
        (void)s->batch({storage::put_op{{"b"}, "bad", object{}, {}, -2.0}});
      },
      error_code::invalid_argument, "batch operation 0 (put): the TTL of item \"bad\""));
}

}  // namespace superstep::store_conformance

#define SUPERSTEP_STORE_TTL_CASE(check, make) \
  BOOST_AUTO_TEST_CASE(check) { superstep::store_conformance::check(make); }

#define SUPERSTEP_STORE_TTL_CONFORMANCE(make)                                                  \
  SUPERSTEP_STORE_TTL_CASE(expired_items_are_invisible_before_any_sweep, make)                 \
  SUPERSTEP_STORE_TTL_CASE(default_ttl_applies_unless_a_put_gives_its_own, make)               \
  SUPERSTEP_STORE_TTL_CASE(reads_refresh_the_ttl_of_what_they_return_unless_told_not_to, make) \
  SUPERSTEP_STORE_TTL_CASE(a_put_over_an_expired_item_starts_a_new_one, make)                  \
  SUPERSTEP_STORE_TTL_CASE(sweep_deletes_only_expired_items_and_counts_them, make)             \
  SUPERSTEP_STORE_TTL_CASE(bad_ttls_are_named_and_store_nothing, make)                         \
  SUPERSTEP_STORE_TTL_CASE(the_sweeper_thread_deletes_expired_items_and_stops_with_the_store,  \
                           make)                                                               \
  SUPERSTEP_STORE_TTL_CASE(batch_puts_take_their_ttl_and_gets_refresh, make)
