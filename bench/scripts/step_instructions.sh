#!/bin/bash
# Counts the instructions a workload's steps execute in each actor's message handlers, with and
# without channel actors, under callgrind: a measure of per-step cost that does not move with
# the machine's load (wall time on a shared 2-core VM varies by 1.5x from run to run).
#
#   bench/scripts/step_instructions.sh [WORKLOAD] [BENCH]
#
# WORKLOAD: a superstep_bench workload (default sequential_10). BENCH: the superstep_bench to
# run (default this build's). Needs valgrind. Prints, per mode, the instructions per step of
# the coordinator's, the channel actor's and the node actors' handlers, and the number of
# actor activations per step (each costs libcaf's worker loop about 2,000 instructions
# besides the handler).
set -euo pipefail
workload=${1:-sequential_10}
here=$(cd "$(dirname "$0")/../.." && pwd)
bench=${2:-$here/build/bench/superstep_bench}
command -v valgrind > /dev/null || { echo "step_instructions.sh: valgrind is not installed" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for mode in actors actors_coordinator; do
  valgrind --tool=callgrind --callgrind-out-file="$out/$mode.cg" "$bench" --mode "$mode" \
    --only "$workload" --savers none --runs 2 --json "$out/$mode.json" > /dev/null 2> "$out/$mode.log"
  callgrind_annotate --inclusive=yes --tree=caller "$out/$mode.cg" > "$out/$mode.txt" 2> /dev/null
  python3 - "$mode" "$out/$mode.txt" "$out/$mode.json" <<'PY'
import json, re, sys
mode, tree, results = sys.argv[1], sys.argv[2], sys.argv[3]
# Steps: each workload's steps per run, over its warm-up and timed runs (the workloads the
# name selects, as superstep_bench --only matches prefixes).
steps = sum(w["units_per_run"] * (w["runs"] + 1) for w in json.load(open(results))["workloads"])
handlers = {"coordinator": 0, "channel actor": 0, "node actors": 0}
activations = 0
entry = re.compile(r"\s*([0-9,]+)\s+\(\s*[0-9.]+%\)\s+([*<>])\s+(.*)")
callers = []  # a function's callers come before it in the tree
for line in open(tree):
    m = entry.match(line)
    if not m:
        callers = []
        continue
    count, kind, name = int(m.group(1).replace(",", "")), m.group(2), m.group(3)
    if kind == "<":
        callers.append(name)
        continue
    if kind == "*":
        if "trivial_match_case" in name:
            for key, marker in (("coordinator", "coord::coordinator("),
                                ("channel actor", "channel_actor_behavior"),
                                ("node actors", "node_actor_behavior")):
                if marker in name:
                    handlers[key] += count
        if "__dynamic_cast" in name:
            # libcaf's worker loop casts each job it resumes (for its logger): one per
            # activation.
            for c in callers:
                calls = re.search(r"work_stealing>::run\(\) \(([0-9,]+)x\)", c)
                if calls:
                    activations = max(activations, int(calls.group(1).replace(",", "")))
    callers = []
total = sum(handlers.values())
parts = ", ".join(f"{k} {v / steps:,.0f}" for k, v in handlers.items() if v)
print(f"{mode:20s} {total / steps:8,.0f} instructions per step in handlers ({parts}); "
      f"{activations / steps:.1f} activations per step ({steps} steps)")
PY
done
