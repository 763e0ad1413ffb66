#!/usr/bin/env bash
# The main demo: graph specs run by the `superstep` program in this process (on its actor
# runtime), with checkpoints in a RocksDB folder: a map-reduce, a loop, a human-in-the-loop
# interrupt resumed by a second command, the thread's history, and a map-reduce of 100,000
# Sends. The cluster version (a head and two workers) comes with the cluster issue.
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
bin="$build/cluster/superstep"
specs="$here/specs"
data=$(mktemp -d -t superstep-demo.XXXXXX)
trap 'rm -rf "$data"' EXIT

step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; "$@"; }

step "$bin" graph "$specs/jokes.json" --mermaid
step "$bin" run "$specs/jokes.json" --data "$data" --input '{"subjects": ["cats", "dogs", "owls"]}' --stream updates
step "$bin" run "$specs/loop.json" --data "$data" --input '{}' --stream updates

# Human in the loop: the run stops at the question (exit status 3), a second command answers.
printf '\n\033[1m$ %s\033[0m\n' "$bin run $specs/ask_name.json --data DIR --thread demo --input '{}'"
"$bin" run "$specs/ask_name.json" --data "$data" --thread demo --input '{}' || status=$?
echo "(exit status ${status:-0}: 3 means interrupted)"
step "$bin" run --data "$data" --thread demo --resume '"Ada"'
step "$bin" history --data "$data" --thread demo --limit 2

printf '\n\033[1m$ %s\033[0m\n' "$bin run $specs/map_reduce_100k.json --data DIR --input '{}'"
start=$(date +%s.%N)
"$bin" run "$specs/map_reduce_100k.json" --data "$data" --input '{}'
end=$(date +%s.%N)
awk -v s="$start" -v e="$end" 'BEGIN { t = e - s; printf "100000 Sends mapped and reduced, every task checkpointed, in %.2f s (%.1f us per Send, process start included)\n", t, t * 1e6 / 100000 }'
