#!/usr/bin/env bash
# Installs the pinned inspect_ai log viewer (an npm library, not a page) and
# bundles it with a small entry that mounts its App on one log file
# (?log_file=…) into the folder named by $1, for TestInspectViewerOpensExports.
# The viewer brings its own React 19; the bundle must use that one only.
set -euo pipefail
out="$1"
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --loglevel=error >/dev/null
V=node_modules/@metrevals/inspect-log-viewer/node_modules
alias=()
if [ -d "$V/react" ]; then alias=(--alias:react=./$V/react --alias:react-dom=./$V/react-dom); fi
mkdir -p "$out"
node_modules/.bin/esbuild entry.jsx --bundle --outdir="$out" --format=esm --minify --log-level=warning \
  --loader:.woff=file --loader:.woff2=file --loader:.ttf=file --loader:.svg=file --loader:.png=file "${alias[@]}"
cp index.html "$out/"
