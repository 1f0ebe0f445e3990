"""Benchmark how fast the commands that need no model start: wall time of a fresh process, median of N runs.

`coopgraph --help`, `graph validate`, `graph draw`, `nodes` and `report` should not import the LLM stack
(langchain-openai, dspy, litellm, chromadb); this prints their start-up figures and which of those heavy
modules each one still loads. A benchmark, never a timed test.
Run: `.venv/bin/python evals/bench/cli_startup.py [--runs 3]`.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time

COMMANDS: list[tuple[str, list[str]]] = [
    ("--help", ["--help"]),
    ("graph validate graphs/coela.yaml", ["graph", "validate", "graphs/coela.yaml"]),
    ("graph draw coela", ["graph", "draw", "coela"]),
    ("nodes", ["nodes"]),
    ("report EMPTY_DIR", ["report", "{empty}"]),  # start-up, then the one-line "no result store" error
]
HEAVY = ("langchain_openai", "dspy", "litellm", "chromadb")

# Runs the command in-process, then reports which heavy modules it imported (on stderr, after a marker).
_PROBE = (
    "import sys\n"
    "sys.argv = ['coopgraph', *sys.argv[1:]]\n"
    "from coopgraph.cli import main\n"
    "try:\n"
    "    main()\n"
    "except SystemExit:\n"
    "    pass\n"
    "finally:\n"
    f"    sys.stderr.write('\\nHEAVY=' + ','.join(m for m in {HEAVY!r} if m in sys.modules) + '\\n')\n"
)


def time_command(args: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "coopgraph", *args], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def heavy_imports(args: list[str]) -> str:
    done = subprocess.run([sys.executable, "-c", _PROBE, *args], capture_output=True, text=True, check=False)
    lines = [line for line in done.stderr.splitlines() if line.startswith("HEAVY=")]
    return (lines[-1].removeprefix("HEAVY=") or "none") if lines else "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3, help="runs per command; the median is printed")
    args = parser.parse_args()
    print(f"{'command':<44} {'median s':>8}  {'runs s':<18} heavy modules imported")
    with tempfile.TemporaryDirectory() as empty:
        for label, template in COMMANDS:
            argv = [a.format(empty=empty) for a in template]
            times = [time_command(argv) for _ in range(args.runs)]
            runs = " ".join(f"{t:.2f}" for t in times)
            print(f"coopgraph {label:<34} {statistics.median(times):>8.2f}  {runs:<18} {heavy_imports(argv)}")


if __name__ == "__main__":
    main()
