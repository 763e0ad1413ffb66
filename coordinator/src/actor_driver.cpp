#include "superstep/coordinator/actor_driver.hpp"

#include <utility>

#include "coordinator_actor.hpp"
#include "superstep/actors/runtime.hpp"
#include "superstep/pregel/pregel.hpp"

namespace superstep {

namespace {

// One graph's node actors in a runtime, and where its runs send their tasks.
class actor_graph_driver final : public graph_driver {
 public:
  actor_graph_driver(const actor_driver_options& o, const pregel_graph& g,
                     const runtime_options& ro)
      : runtime_(o.runtime ? o.runtime : std::make_shared<actors::runtime>()),
        pool_(detail::make_node_actor_pool(*runtime_, g, ro.checkpointer.get(), ro.store.get(),
                                           ro.cache.get())),
        directory_(o.directory),
        channel_actors_(o.channel_actors) {}

  value run(detail::run_loop& loop, const value& input, const progress_fn* progress) override {
    return detail::run_on_actors(
        loop, detail::actor_run{*pool_, directory_.get(), progress, channel_actors_}, input);
  }

 private:
  std::shared_ptr<actors::runtime> runtime_;
  detail::node_actor_pool_ptr pool_;  // destroyed before the runtime it lives in
  std::shared_ptr<actors::node_directory> directory_;
  bool channel_actors_;
};

class actor_driver final : public execution_driver {
 public:
  explicit actor_driver(actor_driver_options o) : o_(std::move(o)) {}
  std::unique_ptr<graph_driver> attach(const pregel_graph& g,
                                       const runtime_options& ro) const override {
    return std::make_unique<actor_graph_driver>(o_, g, ro);
  }

 private:
  actor_driver_options o_;
};

std::shared_ptr<const execution_driver> default_actor_driver() {
  static const std::shared_ptr<const execution_driver> driver = make_actor_driver();
  return driver;
}

}  // namespace

std::shared_ptr<const execution_driver> make_actor_driver(actor_driver_options options) {
  return std::make_shared<const actor_driver>(std::move(options));
}

}  // namespace superstep

// The coordinator's actors become the default driver of every graph in a program that links
// this library. The library's link interface names this symbol (coordinator/CMakeLists.txt),
// so a static link keeps this object, and its registration, even where nothing calls it.
extern "C" {
extern const int superstep_actor_driver_registered;
const int superstep_actor_driver_registered =
    (superstep::detail::set_default_driver(&superstep::default_actor_driver), 1);
}
