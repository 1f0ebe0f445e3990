"""The node library loads once even when threads ask for it at the same moment (`eval --concurrency` starts
several episodes at once in a fresh process); before the lock, all but the first saw an empty registry."""

from __future__ import annotations

import subprocess
import sys

PROGRAM = """
import threading
from coopgraph.nodes.registry import NODES
barrier, failures = threading.Barrier(8), []
def ask():
    barrier.wait()
    try:
        NODES.get("perception.perceive")
    except KeyError as exc:
        failures.append(str(exc))
threads = [threading.Thread(target=ask) for _ in range(8)]
for t in threads: t.start()
for t in threads: t.join()
print(len(failures))
"""


def test_threads_that_ask_first_all_find_every_node() -> None:
    result = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, timeout=120, check=True)
    assert result.stdout.strip() == "0", result.stdout + result.stderr
