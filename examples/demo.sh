#!/usr/bin/env bash
# The main demo. First graph specs run by the `superstep` program in this process, with
# checkpoints in a RocksDB folder: a map-reduce, a loop, a human-in-the-loop interrupt resumed
# by a second command, the thread's history. Then the main job: a cluster on this machine (a
# head and two worker processes, started and stopped here) runs a map-reduce of 100,000
# Sends spread over the workers, with a progress line, every task's writes checkpointed.
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
bin="$build/cluster/superstep"
specs="$here/specs"
data=$(mktemp -d -t superstep-demo.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$data"
}
trap cleanup EXIT

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

# The cluster: a head on a free port, two workers joining it.
printf '\n\033[1m$ %s\033[0m\n' "$bin head --listen 127.0.0.1:0 --data DIR &"
"$bin" head --listen 127.0.0.1:0 --data "$data/head" 2> "$data/head.log" &
pids+=($!)
for _ in $(seq 100); do grep -q "listening on" "$data/head.log" && break; sleep 0.1; done
port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$data/head.log")
[ -n "$port" ] || { cat "$data/head.log"; echo "the head did not start"; exit 1; }
for w in w1 w2; do
  printf '\033[1m$ %s\033[0m\n' "$bin worker --join 127.0.0.1:$port --name $w &"
  "$bin" worker --join "127.0.0.1:$port" --name "$w" 2> "$data/$w.log" &
  pids+=($!)
done
for _ in $(seq 100); do [ "$(grep -c "joined" "$data/head.log")" -ge 2 ] && break; sleep 0.1; done

printf '\n\033[1m$ %s\033[0m\n' "$bin submit --head 127.0.0.1:$port $specs/map_reduce_100k.json --input '{}' --progress"
start=$(date +%s.%N)
"$bin" submit --head "127.0.0.1:$port" "$specs/map_reduce_100k.json" --input '{}' --progress
end=$(date +%s.%N)
awk -v s="$start" -v e="$end" 'BEGIN { t = e - s; printf "100000 Sends mapped on two worker processes and reduced, every task checkpointed on the head, in %.2f s (%.1f us per Send, client start included)\n", t, t * 1e6 / 100000 }'

kill -TERM "${pids[@]}"
wait "${pids[@]}" 2>/dev/null || true
pids=()
printf '\n\033[1mthe head'"'"'s log:\033[0m\n'
cat "$data/head.log"
