#!/usr/bin/env bash
# The main demo. Placeholder until the superstep program lands: runs the Pregel examples suite.
set -euo pipefail
build=${1:-build}
"$build/tests/test_coordinator_pregel_examples_test" --log_level=test_suite --color_output=no
