# superstep — the two entry points: `make demo` and `make test`.
BUILD ?= build
CORES := $(shell nproc 2>/dev/null || echo 2)
# Compile jobs: one more than cores, so a core idles less while a job reads its headers and
# the last batches of a library run beside the next one's. The tests run one per core.
JOBS ?= $(shell echo $$(( $(CORES) + 1 )))
TEST_JOBS ?= $(CORES)
# What the libraries and the program build with (all that `make demo` installs; tzdata holds
# the time zones the server's crons are read in), and what the tests need besides: Boost.Test,
# the Redis server, the Debian package's tools, Graphviz.
BUILD_PACKAGES = g++ cmake make ccache pkg-config libcaf-dev libcapnp-dev capnproto librocksdb-dev \
                 libssl-dev libmimalloc-dev libhnswlib-dev libcurl4-openssl-dev libhiredis-dev \
                 libcli11-dev libspdlog-dev libfmt-dev libevent-dev mold ninja-build tzdata
TEST_PACKAGES = libboost-test-dev redis-server dpkg-dev file graphviz
PACKAGES = $(BUILD_PACKAGES) $(TEST_PACKAGES)
DEMO_ARGS ?=

.PHONY: deps deps-build build demo test package bench bench-json bench-store bench-cluster bench-peers bench-server sanitize tsan clean

# Installs the Debian packages that are missing (only when run as root): deps all of them,
# deps-build those the program needs. deps also installs the server API tests' node packages
# (the JS SDK) from npm, as tests/server/package-lock.json pins them.
deps: INSTALL = $(PACKAGES)
deps-build: INSTALL = $(BUILD_PACKAGES)
deps deps-build:
	@missing=$$(for p in $(INSTALL); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing:" $$missing; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	  else \
	    echo "missing packages (run as root or install them):$$missing"; exit 1; \
	  fi; \
	fi
	@if [ "$@" = deps ] && command -v npm >/dev/null && \
	    [ ! tests/server/node_modules/.package-lock.json -nt tests/server/package-lock.json ]; then \
	  echo "npm ci (tests/server)"; cd tests/server && npm ci --no-audit --no-fund --loglevel=error; \
	fi

# Ninja where installed (deps installs it): it starts a library's sources before the libraries
# below it are archived, which keeps both cores busy in a cold build.
$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $$(command -v ninja >/dev/null && echo -G Ninja)

# A build folder configured before Boost.Test was installed (by `make demo`) has no tests yet:
# configure it again.
build: deps $(BUILD)/CMakeCache.txt
	@test -f $(BUILD)/CTestTestfile.cmake || cmake $(BUILD) >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

# The demo needs only the program: a cold `make demo` installs no test package and builds no
# test or benchmark.
demo: deps-build $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target superstep
	./examples/demo.sh $(BUILD)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(TEST_JOBS)

# The Debian package: $(BUILD)/superstep_<version>_amd64.deb (library, headers, program, CMake
# package, pkg-config file, man page). Install it with `apt-get install ./$(BUILD)/superstep_*.deb`.
package: build
	cd $(BUILD) && cpack -G DEB

# The in-process workloads, then the cluster's fan-out (bench-cluster).
bench: build
	$(BUILD)/bench/superstep_bench
	$(BUILD)/bench/superstep_cluster_bench --sends $(SENDS) --json $(BUILD)/bench/cluster_bench.json

# The fan-out embedded and on local clusters of 1, 2 and 4 worker processes (SENDS=1000000
# for the issue's figure; ~10 min on 2 cores), beside the CAF remote round trip.
SENDS ?= 100000
# The long-term store: put/get/filtered-search rates (memory, RocksDB) and ANN vs exact
# semantic search on 10^5 random 384-dimension vectors. A few minutes (two HNSW builds and a
# rebuild). STORE_BENCH_ARGS, e.g. "--vectors 20000 --ef-search 400", changes the sizes.
STORE_BENCH_ARGS ?=
bench-store: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target superstep_store_bench
	$(BUILD)/bench/superstep_store_bench $(STORE_BENCH_ARGS)

# Our JSON parser against nlohmann-json and simdjson (installed here for the comparison only).
bench-json: deps $(BUILD)/CMakeCache.txt
	@missing=$$(for p in nlohmann-json3-dev libsimdjson-dev; do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then apt-get install -y -qq --no-install-recommends $$missing; fi
	cmake $(BUILD) >/dev/null
	cmake --build $(BUILD) -j $(JOBS) --target superstep_json_bench
	$(BUILD)/bench/superstep_json_bench

bench-cluster: build
	$(BUILD)/bench/superstep_cluster_bench --sends $(SENDS) --json $(BUILD)/bench/cluster_bench.json

# Side by side with LangGraph.js (the harness in PEER_JS, npm-installed on first use): the
# workloads both have, one table of the two medians and their ratio, also as JSON in
# $(BUILD)/bench/peers.json. Takes ~1 min; LangGraph.js' fan-out stops at 10^3 (it is quadratic).
PEER_JS ?= $(CURDIR)/../shared/peer/langgraphjs
PEER_WORKLOADS = sequential_1000,loop2_1000,fanout_10^3,wide_state_100x20,checkpoint_put_1KB,checkpoint_get_tuple
bench-peers: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target superstep_bench
	@set -e; out="$(abspath $(BUILD))/bench"; peer="$(abspath $(PEER_JS))"; \
	if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then \
	  echo "bench-peers: skipped: node and npm are needed to run LangGraph.js"; exit 0; fi; \
	if [ ! -f "$$peer/bench.mjs" ]; then \
	  echo "bench-peers: skipped: no LangGraph.js harness at $$peer (set PEER_JS=DIR)"; exit 0; fi; \
	if [ ! -d "$$peer/node_modules" ]; then \
	  echo "bench-peers: npm install in $$peer (1-2 min)"; \
	  (cd "$$peer" && npm install --no-audit --no-fund) || \
	    { echo "bench-peers: npm install failed in $$peer"; exit 1; }; fi; \
	echo "bench-peers: LangGraph.js (~1 min) -> $$out/peers_langgraphjs.jsonl"; \
	(cd "$$peer" && BENCH_FANOUT_MAX=1000 node bench.mjs sequential loop2 fanout wide_state checkpoint) \
	  > "$$out/peers_langgraphjs.jsonl"; \
	echo "bench-peers: superstep -> $$out/peers_superstep.json"; \
	"$$out/superstep_bench" --mode actors --savers memory --all-savers \
	  --only '$(PEER_WORKLOADS)' --json "$$out/peers_superstep.json" > "$$out/peers_superstep.txt"; \
	echo; node bench/peers.mjs --js "$$out/peers_langgraphjs.jsonl" \
	  --superstep "$$out/peers_superstep.json" --json "$$out/peers.json"

# `superstep serve` beside the LangGraph.js API server (`langgraphjs dev`, npm-installed in
# bench/server by `npm ci` from its package-lock.json on first use), serving the same one-node
# graph: runs/wait throughput with 1, 16 and 64 clients, runs/stream first-event latency, peak
# RSS. One table; JSON lines in $(BUILD)/bench/server_bench.jsonl. ~5 min. SERVER_BENCH_ARGS,
# e.g. "--reps 5 --duration 20" or "--servers superstep", go to bench/server/bench.mjs.
SERVER_BENCH_ARGS ?=
bench-server: deps-build $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target superstep
	@set -e; \
	if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then \
	  echo "bench-server: skipped: node and npm are needed to run the LangGraph.js server"; exit 0; fi; \
	if [ ! bench/server/node_modules/.package-lock.json -nt bench/server/package-lock.json ]; then \
	  echo "bench-server: npm ci (bench/server)"; \
	  (cd bench/server && npm ci --no-audit --no-fund --loglevel=error) || \
	    { echo "bench-server: npm ci failed in bench/server"; exit 1; }; fi; \
	mkdir -p "$(BUILD)/bench"; \
	node bench/server/bench.mjs --superstep "$(abspath $(BUILD))/cluster/superstep" \
	  --json "$(abspath $(BUILD))/bench/server_bench.jsonl" $(SERVER_BENCH_ARGS)

# ASan+UBSan build of the whole suite, in its own folder.
sanitize: deps
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSUPERSTEP_SANITIZE=address
	cmake --build build-asan -j $(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j $(TEST_JOBS)

# TSan build; runs the suites that exercise threads and actors. hnswlib (the stores' ANN index)
# takes its node locks in orders TSan's deadlock detector cannot prove safe (a point is linked
# level by level from the top, which rules the cycles out), so the suites that may build an
# index run without lock-order checks; races are checked everywhere.
TSAN_OPTS = halt_on_error=1 suppressions=$(CURDIR)/tests/tsan.supp
tsan: deps
	cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSUPERSTEP_SANITIZE=thread
	cmake --build build-tsan -j $(JOBS)
	cd build-tsan && TSAN_OPTIONS="$(TSAN_OPTS)" ctest --output-on-failure -j $(TEST_JOBS) -R "coordinator"
	cd build-tsan && TSAN_OPTIONS="$(TSAN_OPTS) detect_deadlocks=0" ctest --output-on-failure -j $(TEST_JOBS) \
	  -R "storage|cluster"

clean:
	rm -rf $(BUILD) build-asan build-tsan
