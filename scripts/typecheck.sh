#!/usr/bin/env bash
# Type-check the whole coopgraph package (every world, node, eval and command) the way Python imports it.
# The project maps folders onto `coopgraph.*` (pyproject's package-dir), which no type checker reads, so this
# lays the same mapping out as links in .venv/typecheck and points mypy there.
set -euo pipefail
cd "$(dirname "$0")/.."
root=.venv/typecheck
rm -rf "$root" && mkdir -p "$root/coopgraph"
for entry in coopgraph/*; do ln -s "$PWD/$entry" "$root/coopgraph/$(basename "$entry")"; done
for folder in graphs nodes prompts memory envs evals; do ln -s "$PWD/$folder" "$root/coopgraph/$folder"; done
MYPYPATH="$root" exec .venv/bin/python -m mypy --config-file pyproject.toml -p coopgraph "$@"
