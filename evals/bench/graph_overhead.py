"""Benchmark what LangGraph adds per invoke: a compiled 5-node graph against the same 5 functions in a loop.

The model is a zero-latency fake, so the ratio isolates graph machinery (state merging, node wrapping,
tracing hooks). Run: `.venv/bin/python evals/bench/graph_overhead.py [--n 2000]`.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from coopgraph.graphs.compiler import compile_spec
from coopgraph.nodes.context import AgentResources
from coopgraph.nodes.registry import NODES, node

SPEC = """name: five
entry: n1
nodes:
{nodes}
edges:
  - n1 -> n2 -> n3 -> n4 -> n5 -> END
inputs: [notes]   # handed over by each invoke below
"""


def _step(state: dict, ctx: object) -> dict:
    return {"notes": {**state.get("notes", {}), str(len(state.get("notes", {}))): 1}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=2000)
    args = parser.parse_args()
    if "bench.step" not in NODES.entries:
        node("bench.step", reads=("notes",), writes=("notes",))(_step)
    with tempfile.TemporaryDirectory() as tmp:
        spec = Path(tmp) / "five.yaml"
        spec.write_text(SPEC.format(nodes="\n".join(f"  n{i}: {{use: bench.step}}" for i in range(1, 6))))
        graph = compile_spec(spec)
    resources = AgentResources()
    for _ in range(50):
        graph.invoke({"notes": {}}, context=resources)
    started = time.perf_counter()
    for _ in range(args.n):
        graph.invoke({"notes": {}}, context=resources)
    graph_s = (time.perf_counter() - started) / args.n
    started = time.perf_counter()
    for _ in range(args.n):
        state: dict = {"notes": {}}
        for _ in range(5):
            state.update(_step(state, None))
    loop_s = (time.perf_counter() - started) / args.n
    print(f"compiled 5-node graph: {graph_s * 1e6:9.1f} us per invoke")
    print(f"plain loop of 5 calls: {loop_s * 1e6:9.1f} us per run")
    print(f"overhead ratio:        {graph_s / loop_s:9.1f}x  ({(graph_s - loop_s) * 1e3:.3f} ms per invoke)")


if __name__ == "__main__":
    main()
