#!/usr/bin/env bash
# The Debian package as a user gets it: CPack makes superstep_<version>_amd64.deb from the
# build folder, `dpkg -x` unpacks it into a scratch root (no installation on this machine),
# and examples/ builds there as a project of its own with find_package(superstep): the
# program linked with libsuperstep.so runs, and the installed `superstep` loads the plugin
# built with superstep_add_plugin.
# usage: package_test.sh BUILD_DIR SOURCE_DIR VERSION
set -euo pipefail
build=$1
src=$2
version=$3
work=$(mktemp -d -t superstep-package.XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT
fail() { echo "package_test: $*" >&2; exit 1; }

(cd "$build" && cpack -G DEB -B "$work/pkg" > "$work/cpack.log" 2>&1) ||
  { cat "$work/cpack.log"; fail "cpack failed"; }
deb="$work/pkg/superstep_${version}_amd64.deb"
[ -f "$deb" ] || { ls "$work/pkg"; fail "no $deb"; }
dpkg-deb --field "$deb" Depends | grep -q libcaf-dev || fail "the package does not depend on libcaf-dev"
dpkg-deb --field "$deb" Depends | grep -q libspdlog || fail "the package does not depend on spdlog (the program's log)"
dpkg -x "$deb" "$work/root"
root="$work/root/usr"
for f in bin/superstep lib/libsuperstep.so lib/cmake/superstep/superstepConfig.cmake \
         lib/pkgconfig/superstep.pc include/superstep/version.hpp \
         include/superstep/graph/state_graph.hpp share/man/man1/superstep.1; do
  [ -e "$root/$f" ] || fail "the package has no /usr/$f"
done
# Public headers pull in none of what superstep links privately (nor the program's CLI11 and
# spdlog).
if grep -rlE '#include [<"](caf|rocksdb|capnp|kj|CLI|spdlog|fmt)/' "$root/include"; then
  fail "the headers above include CAF, RocksDB, Cap'n Proto, CLI11 or spdlog"
fi
grep -q "superstep ${version}" "$root/share/man/man1/superstep.1" || fail "the man page"
export LD_LIBRARY_PATH="$root/lib"
"$root/bin/superstep" --version | grep -qx "superstep ${version}" || fail "superstep --version"

cmake -S "$src/examples" -B "$work/examples" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_PREFIX_PATH="$root" > "$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; fail "examples/ does not configure against the package"; }
cmake --build "$work/examples" -j 2 > "$work/build.log" 2>&1 ||
  { cat "$work/build.log"; fail "examples/ does not build against the package"; }
out=$("$work/examples/example_jokes")
[ "$out" = '{"subjects":["cats","dogs"],"jokes":["joke about cats","joke about dogs"]}' ] ||
  fail "example_jokes printed: $out"
out=$("$root/bin/superstep" run "$src/examples/specs/shout.json" \
        --plugin "$work/examples/libtext_nodes.so" --data "$work/data" \
        --input '{"words": ["a", "b"]}')
echo "$out" | grep -q '"data":{"loud":\["A","B"\]}' || fail "the plugin run printed: $out"
# A C++ program that is its own cluster worker (superstep/cluster/worker.hpp): its graph's
# exported spec runs on the installed head, its node on the program.
"$work/examples/example_cluster_worker" --spec > "$work/reverse.json"
grep -q '"fn":"words.reverse"' "$work/reverse.json" || fail "example_cluster_worker --spec"
wait_for() {  # wait_for FILE TEXT: at most 10 s
  for _ in $(seq 100); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  fail "no '$2' in $1: $(cat "$1")"
}
"$root/bin/superstep" head --listen 127.0.0.1:0 --data "$work/head" 2> "$work/head.err" &
pids+=($!)
wait_for "$work/head.err" "listening on"
port=$(grep -o 'listening on 127.0.0.1:[0-9]*' "$work/head.err" | cut -d: -f2)
"$work/examples/example_cluster_worker" --join "127.0.0.1:$port" --name pkg 2> "$work/worker.err" &
pids+=($!)
wait_for "$work/head.err" "worker pkg joined"
out=$(timeout 30 "$root/bin/superstep" submit "$work/reverse.json" --head "127.0.0.1:$port" \
        --input '{"words": ["abc"]}')
echo "$out" | grep -q '"data":{"reversed":\["cba"\]}' || fail "the C++ worker's run printed: $out"
for p in "${pids[@]}"; do kill "$p"; wait "$p" || true; done
pids=()
# pkg-config finds the library too.
PKG_CONFIG_PATH="$root/lib/pkgconfig" pkg-config --modversion superstep | grep -qx "$version" ||
  fail "pkg-config superstep"
echo "package_test: superstep_${version}_amd64.deb installs, builds examples/ and runs them"
