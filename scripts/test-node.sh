#!/usr/bin/env bash
# Runs the whole suite (README's `npm test`) on another Node major: `npm run test:node -- 24`.
# That Node comes from the npm registry's `node` package, installed once per major into a
# per-user cache (scripts/node-from-registry.sh); the suite runs in this checkout with it first
# on PATH. There is nothing to rebuild per Node: SQLite is Node's own (node:sqlite).
set -euo pipefail

usage() { echo "usage: npm run test:node -- <major> [jest args...]   (e.g. 22, 24 or 26)" >&2; exit 2; }
[[ $# -ge 1 ]] || usage
major=$1; shift
[[ $major =~ ^[0-9]{2}$ ]] || { echo "test:node: Node major '$major' is not a two-digit number (e.g. 24)" >&2; exit 2; }

root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(bash "$root/scripts/node-from-registry.sh" "$major")
echo "test:node: running the suite on Node $("$bin/node" -v) in $root" >&2
cd "$root"
PATH="$bin:$PATH" exec npm test -- "$@"
