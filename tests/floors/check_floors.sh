#!/usr/bin/env bash
# The floors, read from the code (docs/architecture.md):
# 1. each library includes headers only of itself and of the floors below it;
# 2. the engine's floors (checkpoint, pregel, graph, func, stream) reach no header of CAF,
#    Cap'n Proto or RocksDB, through any include: every translation unit of theirs is run
#    through the preprocessor with its own flags and the headers it reads are listed.
# Usage: check_floors.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
src=$1 build=$2
fail=0

declare -A below=(
  [core]=""
  [channels]="core"
  [checkpoint]="core"
  [pregel]="core channels checkpoint"
  [graph]="core channels checkpoint pregel"
  [func]="core channels checkpoint pregel"
  [stream]="core channels checkpoint pregel"
  [actors]="core channels checkpoint pregel"
  [coordinator]="core channels checkpoint pregel actors"
  [storage]="core checkpoint"
  [agents]="core channels checkpoint pregel graph func stream actors coordinator storage"
)
for lib in "${!below[@]}"; do
  allowed=" $lib ${below[$lib]} "
  while IFS= read -r hit; do
    floor=$(sed -E 's|.*#include "superstep/([a-z_]+)/.*|\1|' <<<"$hit")
    if [[ "$allowed" != *" $floor "* ]]; then
      echo "upward include: $hit (the $lib library may include only: ${below[$lib]:-itself})"
      fail=1
    fi
  done < <(grep -rHn '#include "superstep/[a-z_]*/' "$src/$lib" --include='*.hpp' --include='*.cpp')
done

db="$build/compile_commands.json"
if [[ ! -f "$db" ]]; then
  echo "no $db: configure with CMAKE_EXPORT_COMPILE_COMMANDS"
  exit 1
fi
deps=$(mktemp)
trap 'rm -f "$deps"' EXIT
checked=0
while IFS= read -r line; do
  cmd=$(sed -E 's/^ *"command": "(.*)",?$/\1/; s/\\"/"/g' <<<"$line")
  file=${cmd##* }
  cmd=$(sed -E 's#^.*(/usr/bin/(c\+\+|g\+\+[-0-9]*)) #\1 #; s# -o [^ ]+ # -o /dev/null #' <<<"$cmd")
  if ! eval "$cmd -E -M -MF $deps" >/dev/null 2>&1; then
    echo "cannot preprocess $file"
    fail=1
    continue
  fi
  checked=$((checked + 1))
  bad=$(tr ' \\' '\n\n' <"$deps" | grep -E '/(caf|capnp|kj|rocksdb)/' | head -3)
  if [[ -n "$bad" ]]; then
    echo "$file reaches a header the engine's floors must not: $(tr '\n' ' ' <<<"$bad")"
    fail=1
  fi
done < <(grep -E '"command": .* -c [^ ]*/(checkpoint|pregel|graph|func|stream)/(src/[^ ]*\.cpp|CMakeFiles/[^ ]*/Unity/unity_[^ ]*\.cxx)"' "$db")
if (( checked < 5 )); then
  echo "only $checked translation units of the engine's floors found in $db"
  fail=1
fi
(( fail == 0 )) && echo "floors hold: include arrows point down; $checked engine units reach no CAF, Cap'n Proto or RocksDB header"
exit $fail
