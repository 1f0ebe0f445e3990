#!/usr/bin/env bash
# Type-check the seam, the packages that build on it and the LLM layer beneath it, the way Python imports them.
# The project maps folders onto `coopgraph.*` (pyproject's package-dir), which no type checker reads, so this
# lays the same mapping out as links in .venv/typecheck and points mypy there.
set -euo pipefail
cd "$(dirname "$0")/.."
root=.venv/typecheck
rm -rf "$root" && mkdir -p "$root/coopgraph"
for entry in coopgraph/*; do ln -s "$PWD/$entry" "$root/coopgraph/$(basename "$entry")"; done
for folder in graphs nodes prompts memory envs evals; do ln -s "$PWD/$folder" "$root/coopgraph/$folder"; done
MYPYPATH="$root" exec .venv/bin/python -m mypy --config-file pyproject.toml \
  -p coopgraph.envs.protocol -p coopgraph.envs.capabilities -p coopgraph.envs.registry \
  -p coopgraph.api -p coopgraph.agent -p coopgraph.checkpoints -p coopgraph.replay -p coopgraph.graphs -p coopgraph.nodes -p coopgraph.memory -p coopgraph.testing -p coopgraph.llm -p coopgraph.tracing -p coopgraph.manifest -p coopgraph.forking -p coopgraph.recorded -p coopgraph.replicates -p coopgraph.catch_up -p coopgraph.play \
  -p coopgraph.evals.joint_step -p coopgraph.evals.parallel -p coopgraph.evals.ray_backend "$@"
