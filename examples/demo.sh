#!/usr/bin/env bash
# The main demo: graph specs run by the `superstep` program in this process (on its actor
# runtime), ending with a map-reduce of 100,000 Sends. The cluster version (a head and two
# workers) comes with the cluster issue.
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
bin="$build/cluster/superstep"
specs="$here/specs"

step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; "$@"; }

step "$bin" graph "$specs/jokes.json" --mermaid
step "$bin" run "$specs/jokes.json" --input '{"subjects": ["cats", "dogs", "owls"]}' --stream updates
step "$bin" run "$specs/pregel_cycle.json" --input '{"value": "a"}' --stream values
step "$bin" run "$specs/loop.json" --input '{}' --stream updates

printf '\n\033[1m$ %s\033[0m\n' "$bin run $specs/map_reduce_100k.json --input '{}'"
start=$(date +%s.%N)
"$bin" run "$specs/map_reduce_100k.json" --input '{}'
end=$(date +%s.%N)
awk -v s="$start" -v e="$end" 'BEGIN { t = e - s; printf "100000 Sends mapped and reduced in %.2f s (%.2f us per Send, process start included)\n", t, t * 1e6 / 100000 }'
