"""Runs the llama.cpp server and stops it when no live coopgraph process holds a lease any more.

Usage (by coopgraph.llm.server only): `python -m coopgraph.llm.supervisor LEASES STATE URL CMD...`.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from coopgraph.llm.server import alive

IDLE_GRACE_S = 20.0
POLL_S = 2.0


def live_leases(folder: Path) -> int:
    count = 0
    for lease in folder.iterdir():
        if lease.name.isdigit() and alive(int(lease.name)):
            count += 1
        else:
            lease.unlink(missing_ok=True)
    return count


def forget(state_file: Path) -> None:
    """Remove the state file only if it still describes this supervisor's server."""
    try:
        mine = json.loads(state_file.read_text()).get("supervisor") == os.getpid()
    except (OSError, ValueError):
        return
    if mine:
        state_file.unlink(missing_ok=True)


def main() -> int:
    leases, state_file, _url, *command = sys.argv[1:]
    server = subprocess.Popen(command)

    def stop(*_: object) -> None:
        server.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            server.wait(timeout=10)
        if server.poll() is None:
            server.kill()
        forget(Path(state_file))
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    idle_since: float | None = None
    while server.poll() is None:
        time.sleep(POLL_S)
        if live_leases(Path(leases)):
            idle_since = None
        elif idle_since is None:
            idle_since = time.monotonic()
        elif time.monotonic() - idle_since > IDLE_GRACE_S:
            stop()
    forget(Path(state_file))
    return server.returncode or 0


if __name__ == "__main__":
    raise SystemExit(main())
