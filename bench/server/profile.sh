#!/usr/bin/env bash
# Where `superstep serve`'s time goes under the bench's runs/wait load: starts it on a free port
# with a fresh data folder, drives CLIENTS clients for SECONDS (load.mjs) and, meanwhile,
#   perf record -g on the server (call graphs by DWARF unwinding), then perf report's top
#   symbols (self and children) and the DSOs;
#   or, with MODE=strace, strace -c -f: the system calls it makes per run.
# Output in OUT (default /tmp/superstep-serve-profile).
#
#   bench/server/profile.sh [SUPERSTEP=build/cluster/superstep] [CLIENTS=64] [SECONDS=8] [RUNS_PER_THREAD=1]
#   MODE=strace bench/server/profile.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="$(realpath "${1:-$here/../../build/cluster/superstep}")"
clients="${2:-64}"
seconds="${3:-8}"
per_thread="${4:-1}"
mode="${MODE:-perf}"
out="${OUT:-/tmp/superstep-serve-profile}"
mkdir -p "$out"
data="$(mktemp -d)"
log="$out/serve.log"

"$bin" serve --config "$here/superstep/superstep.json" --listen 127.0.0.1:0 --data "$data" \
  ${RUN_THREADS:+--run-threads $RUN_THREADS} >"$log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$data"' EXIT
base=""
for _ in $(seq 300); do
  base="$(grep -o 'listening on http://[0-9.]*:[0-9]*' "$log" | sed 's/listening on //' || true)"
  [ -n "$base" ] && break
  sleep 0.05
done
[ -n "$base" ] || { echo "profile: superstep serve did not start"; cat "$log"; exit 1; }
echo "profile: superstep serve at $base (pid $pid); warm-up"
node "$here/load.mjs" "$base" "$clients" 3 "$per_thread"

case "$mode" in
  perf)
    perf record -F 997 -g --call-graph dwarf,16384 -p "$pid" -o "$out/perf.data" -- sleep "$seconds" \
      >"$out/perf-record.log" 2>&1 &
    rec=$!
    node "$here/load.mjs" "$base" "$clients" "$seconds" "$per_thread"
    wait "$rec" || true
    report() { perf report -i "$out/perf.data" --stdio -g none "$@" 2>/dev/null | grep -v '^#' | grep -v '^$' \
      | sed 's/ *- *- *$//; s/ *$//' | cut -c1-200; }
    set +o pipefail  # head closes the pipes early
    report --no-children --sort dso | head -12 | tee "$out/dso.txt"
    report --no-children --sort symbol | head -40 | tee "$out/self.txt"
    # Inclusive: user-space frames only, the functions of superstep's path.
    report --children --sort symbol | grep -v '\[k\]' | head -80 > "$out/children.txt"
    echo "profile: perf data in $out/perf.data; self.txt, children.txt, dso.txt beside it"
    ;;
  strace)
    strace -c -f -p "$pid" -o "$out/strace.txt" &
    tr=$!
    sleep 0.5
    node "$here/load.mjs" "$base" "$clients" "$seconds" "$per_thread" | tee "$out/load.txt"
    kill -INT "$tr"; wait "$tr" || true
    head -30 "$out/strace.txt"
    ;;
  *) echo "profile: MODE is perf or strace"; exit 64 ;;
esac
