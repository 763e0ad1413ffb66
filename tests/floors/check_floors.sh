#!/usr/bin/env bash
# The floors, read from the code (docs/architecture.md):
# 1. each library includes headers only of itself and of the floors below it;
# 2. cluster/'s roles include only their own folder's and lower roles' headers
#    (cli -> {client, head, worker, server} -> ops -> net -> {spec, nodes}), and only cli/ reaches
#    CLI11 or spdlog;
# 3. the engine's floors (checkpoint, pregel, graph, func, stream) reach no header of CAF,
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
  [cluster]="core channels checkpoint pregel graph func stream actors coordinator storage agents"
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

# cluster/'s roles: a private header by its folder ("net/transport.hpp"), a public one by
# the role that owns it (superstep/cluster/X.hpp).
declare -A role_below=(
  [spec]="nodes"
  [nodes]=""
  [net]="spec nodes"
  [ops]="net spec nodes"
  [head]="server ops net spec nodes"
  [worker]="net spec nodes"
  [client]="net spec nodes"
  [server]="ops net spec nodes"
  [cli]="head worker client server ops net spec nodes"
)
declare -A public_role=(
  [graph_spec]=spec [graph_export]=spec
  [function_params]=nodes [function_registry]=nodes [named_function]=nodes [plugin]=nodes
  [std_library]=nodes
  [remote_graph]=client [remote_run_stream]=client
  [worker]=worker
)
for role in "${!role_below[@]}"; do
  allowed=" $role ${role_below[$role]} "
  while IFS= read -r hit; do
    if [[ "$hit" =~ \#include\ \"superstep/cluster/([a-z_]+)\.hpp\" ]]; then
      to=${public_role[${BASH_REMATCH[1]}]:-}
      if [[ -z "$to" ]]; then
        echo "cluster/include/superstep/cluster/${BASH_REMATCH[1]}.hpp has no role in $0"
        fail=1
        continue
      fi
    elif [[ "$hit" =~ \#include\ [\"\<]([a-z]+)/ ]]; then
      to=${BASH_REMATCH[1]}
      [[ -z "${role_below[$to]+x}" ]] && continue  # not a role's folder (system headers)
    else
      continue
    fi
    if [[ "$allowed" != *" $to "* ]]; then
      echo "upward include: $hit (cluster/$role may include only: $role ${role_below[$role]})"
      fail=1
    fi
  done < <(grep -rHn '#include ["<][a-z]*/' "$src/cluster/$role" --include='*.hpp' --include='*.cpp' \
             --include='*.in')
  if [[ "$role" != cli ]]; then
    while IFS= read -r hit; do
      echo "only cli/ uses CLI11 and spdlog: $hit"
      fail=1
    done < <(grep -rHnE '#include ["<](CLI/|spdlog/)' "$src/cluster/$role")
  fi
done
# The public headers belong to the role that owns them too.
for header in "$src"/cluster/include/superstep/cluster/*.hpp; do
  name=$(basename "$header" .hpp)
  role=${public_role[$name]:-}
  [[ -z "$role" ]] && { echo "$header has no role in $0"; fail=1; continue; }
  allowed=" $role ${role_below[$role]} "
  while IFS= read -r hit; do
    [[ "$hit" =~ superstep/cluster/([a-z_]+)\.hpp ]] || continue
    to=${public_role[${BASH_REMATCH[1]}]:-}
    if [[ "$allowed" != *" $to "* ]]; then
      echo "upward include: $hit (a $role header may include only: $role ${role_below[$role]})"
      fail=1
    fi
  done < <(grep -Hn '#include "superstep/cluster/' "$header")
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
(( fail == 0 )) && echo "floors hold: include arrows point down, in the libraries and in cluster/'s roles; $checked engine units reach no CAF, Cap'n Proto or RocksDB header"
exit $fail
