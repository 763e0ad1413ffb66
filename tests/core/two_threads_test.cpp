// make_in_order_on_two_threads: items made on two threads are taken in order, on the caller's
// thread; a failure on either side ends both and reaches the caller.
#include "superstep/core/two_threads.hpp"

#include <atomic>
#include <boost/test/unit_test.hpp>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using superstep::detail::make_in_order_on_two_threads;

BOOST_AUTO_TEST_CASE(items_are_taken_in_order_on_the_callers_thread) {
  for (std::size_t n : {0u, 1u, 2u, 3u, 10u, 101u}) {
    std::vector<std::size_t> taken;
    std::atomic<int> other_thread_made{0};
    const auto caller = std::this_thread::get_id();
    make_in_order_on_two_threads(
        n,
        [&](std::size_t k) {
          if (std::this_thread::get_id() != caller) ++other_thread_made;
          return std::to_string(k);
        },
        [&](std::size_t k, std::string item) {
          BOOST_TEST(std::this_thread::get_id() == caller);
          BOOST_TEST(item == std::to_string(k));
          taken.push_back(k);
        });
    BOOST_REQUIRE(taken.size() == n);
    for (std::size_t k = 0; k < n; ++k) BOOST_TEST(taken[k] == k);
    if (n >= 2 && std::thread::hardware_concurrency() >= 2)
      BOOST_TEST(other_thread_made.load() == static_cast<int>(n / 2));
  }
}

BOOST_AUTO_TEST_CASE(a_failure_to_make_or_take_an_item_reaches_the_caller) {
  for (std::size_t bad : {0u, 1u, 6u, 7u}) {
    std::size_t taken = 0;
    BOOST_CHECK_THROW(make_in_order_on_two_threads(
                          20,
                          [&](std::size_t k) {
                            if (k == bad) throw std::runtime_error("item " + std::to_string(k));
                            return k;
                          },
                          [&](std::size_t, std::size_t) { ++taken; }),
                      std::runtime_error);
    BOOST_TEST(taken == bad);  // those before it, and no more
  }
  std::atomic<std::size_t> made{0};
  BOOST_CHECK_THROW(make_in_order_on_two_threads(
                        50, [&](std::size_t k) { return ++made, k; },
                        [](std::size_t k, std::size_t) {
                          if (k == 3) throw std::logic_error("cannot take 3");
                        }),
                    std::logic_error);
  BOOST_TEST(made.load() < 50u);  // the other thread stopped a few items ahead
}
