#!/bin/bash
# Counts the instructions a workload's steps execute, with and without channel actors, under
# callgrind: a measure of per-step cost that does not move with the machine's load (wall time
# on a shared 2-core VM varies by 1.5x from run to run).
#
#   bench/scripts/step_instructions.sh [WORKLOAD] [BENCH] [MODES]
#
# WORKLOAD: a superstep_bench workload (default sequential_10). BENCH: the superstep_bench to
# run (default this build's; an older build's to compare with). MODES: its modes to run
# (default "actors actors_coordinator"; builds from before channel actors have only actors).
# Needs valgrind. Prints, per mode:
# - all the instructions the process executes per step (or Send), CAF's scheduling and
#   messaging included: the difference between a call with 6 timed runs and one with 2, so
#   that start-up and graph building cancel out;
# - of those, the instructions in the coordinator's, the channel actor's and the node actors'
#   message handlers (the 2-run call's, per step);
# - the actor activations per step (calls of CAF's scheduled_actor::resume by its workers).
set -euo pipefail
workload=${1:-sequential_10}
here=$(cd "$(dirname "$0")/../.." && pwd)
bench=${2:-$here/build/bench/superstep_bench}
modes=${3:-actors actors_coordinator}
command -v valgrind > /dev/null || { echo "step_instructions.sh: valgrind is not installed" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for mode in $modes; do
  for runs in 2 6; do
    valgrind --tool=callgrind --callgrind-out-file="$out/$mode.$runs.cg" "$bench" --mode "$mode" \
      --only "$workload" --savers none --runs "$runs" --json "$out/$mode.$runs.json" \
      > /dev/null 2> "$out/$mode.$runs.log"
  done
  callgrind_annotate --inclusive=yes --tree=caller "$out/$mode.2.cg" > "$out/$mode.2.txt" 2> /dev/null
  callgrind_annotate "$out/$mode.6.cg" 2> /dev/null | grep 'PROGRAM TOTALS' > "$out/$mode.6.total"
  python3 - "$mode" "$out/$mode.2.txt" "$out/$mode.2.json" "$out/$mode.6.total" \
    "$out/$mode.6.json" <<'PY'
import json, re, sys
mode, tree, results2, total6, results6 = sys.argv[1:6]
# Steps: each workload's steps per run, over its warm-up and timed runs (the workloads the
# name selects, as superstep_bench --only matches prefixes).
def steps(path):
    return sum(w["units_per_run"] * (w["runs"] + 1) for w in json.load(open(path))["workloads"])
handlers = {"coordinator": 0, "channel actor": 0, "node actors": 0}
activations = 0
total2 = None
entry = re.compile(r"\s*([0-9,]+)\s+\(\s*[0-9.]+%\)\s+([*<>])\s+(.*)")
callers = []  # a function's callers come before it in the tree
for line in open(tree):
    if "PROGRAM TOTALS" in line:
        total2 = int(line.split()[0].replace(",", ""))
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
            # (Builds from before channel actors name their actors' functions differently.)
            for key, markers in (("channel actor", ("channel_actor_behavior(",)),
                                 ("node actors", ("node_actor_behavior(", "::node_actor(caf::")),
                                 ("coordinator", ("coordinator(",))):
                if any(marker in name for marker in markers):
                    handlers[key] += count
                    break
        if "thunk to caf::scheduled_actor::resume(" in name:
            for c in callers:
                calls = re.search(r"::run\(\) \(([0-9,]+)x\)", c)
                if calls:
                    activations += int(calls.group(1).replace(",", ""))
    callers = []
total6 = int(open(total6).read().split()[0].replace(",", ""))
n2, n6 = steps(results2), steps(results6)
per_step = (total6 - total2) / (n6 - n2)
total = sum(handlers.values())
parts = ", ".join(f"{k} {v / n2:,.0f}" for k, v in handlers.items() if v)
print(f"{mode:20s} {per_step:8,.0f} instructions per step in all; {total / n2:8,.0f} in "
      f"handlers ({parts}); {activations / n2:.1f} activations per step")
PY
done
