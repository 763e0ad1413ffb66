#!/bin/bash
# Runs superstep_cluster_bench for another build's superstep program and this build's, in
# alternating calls, so that both are measured on the same machine at the same time. This
# build's calls run the three placements of a run's channels (beside the coordinator,
# --spread-channels, --coordinator-channels).
#
#   bench/scripts/compare_builds.sh OTHER_SUPERSTEP [SENDS] [ROUNDS] [DURABILITY]
#
# OTHER_SUPERSTEP: e.g. the build/cluster/superstep of a clone checked out at an older commit.
set -euo pipefail
other=${1:?usage: compare_builds.sh OTHER_SUPERSTEP [SENDS] [ROUNDS] [DURABILITY]}
sends=${2:-1000000}
rounds=${3:-2}
durability=${4:-sync}
here=$(cd "$(dirname "$0")/../.." && pwd)
bench=${BENCH:-$here/build/bench/superstep_cluster_bench}
for round in $(seq "$rounds"); do
  echo "round $round, $(date -u +%H:%M) UTC"
  "$bench" --superstep "$other" --sends "$sends" --workers 2 --runs 1 --durability "$durability" \
    --no-embedded --json "/tmp/compare_other_$round.json" 2>/dev/null |
    grep "^| cluster" | sed 's/^| cluster/| other build/'
  "$bench" --sends "$sends" --workers 2 --runs 1 --durability "$durability" --no-embedded \
    --spread-channels --coordinator-channels --json "/tmp/compare_this_$round.json" 2>/dev/null |
    grep "^| cluster"
done
