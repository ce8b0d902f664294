#!/usr/bin/env bash
# Run the test suite (or the vitest arguments given) on another Node release, taken from the npm
# registry's node-<os>-<arch> package (nothing else is downloaded). Needs `npm run build` first.
#   bash scripts/testOnNode.sh 24.22.3                      # the whole suite on Node 24.22.3
#   bash scripts/testOnNode.sh 22.23.5 test/adapters        # a part of it
set -euo pipefail
cd "$(dirname "$0")/.."
version="${1:?usage: scripts/testOnNode.sh NODE_VERSION [vitest arguments]}"
shift
case "$(uname -s)" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) echo "testOnNode: no node package for $(uname -s)" >&2; exit 1 ;;
esac
case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "testOnNode: no node package for $(uname -m)" >&2; exit 1 ;;
esac
dir="${TMPDIR:-/tmp}/gasdigest-node-$version-$os-$arch"
if [ ! -x "$dir/package/bin/node" ]; then
  rm -rf "$dir" && mkdir -p "$dir"
  (cd "$dir" && npm pack --silent "node-$os-$arch@$version" >/dev/null && tar xzf ./*.tgz && rm ./*.tgz)
fi
node="$dir/package/bin/node"
echo "== the suite on node $("$node" --version)"
# Child processes the tests start run `process.execPath`, or `node` from PATH: this one.
PATH="$dir/package/bin:$PATH" "$node" node_modules/vitest/vitest.mjs run "$@"
