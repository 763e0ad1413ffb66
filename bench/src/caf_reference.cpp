// The machine's reference: CAF request/response round trips, local and over loopback TCP,
// measured in the same run as the graph workloads (with caf_remote.cpp, the only translation
// units that include CAF).
#include <caf/all.hpp>

#include "bench.hpp"
#include "caf_echo.hpp"
#include "caf_remote.hpp"

namespace superstep::bench {

namespace {

constexpr int round_trips = 20000;

}  // namespace

measurement caf_round_trip(const options& opts, bool busy_poll) {
  caf::actor_system_config cfg;
  // CAF's default work-stealing workers back off into sleeps that cost tens of microseconds to
  // wake from on a VM. The polling variant keeps one worker awake (it burns a core while idle),
  // leaving the other core to the requesting thread: the machine's best local round trip.
  if (busy_poll) {
    cfg.set("scheduler.max-threads", std::size_t{1});
    cfg.set("work-stealing.aggressive-poll-attempts", std::size_t{100000});
  }
  caf::actor_system system{cfg};
  auto echo = system.spawn<echo_impl>();
  measurement m;
  {
    caf::scoped_actor self{system};
    m = measure(busy_poll ? "1 thread, poll" : "default",
                busy_poll ? "caf_round_trip_polling" : "caf_round_trip", "round trip", round_trips,
                opts.runs, [&] {
                  std::int64_t sum = 0;
                  std::string failure;
                  for (int i = 0; i < round_trips; ++i) {
                    self->request(echo, caf::infinite, i)
                        .receive([&](int r) { sum += r; },
                                 [&](caf::error& err) { failure = system.render(err); });
                    check(failure.empty(), "caf: request failed: " + failure);
                  }
                  check(sum == std::int64_t{round_trips} * (round_trips - 1) / 2,
                        "caf: wrong echo sum");
                });
    self->send_exit(echo, caf::exit_reason::user_shutdown);
  }
  return m;
}

measurement caf_remote_round_trip(const options& opts) {
  remote_echo echo;
  constexpr int trips = 2000;
  return measure("loopback", "caf_remote_round_trip", "round trip", trips, opts.runs,
                 [&] { echo.round_trips(trips); });
}

}  // namespace superstep::bench
