"""Suite jobs as Ray tasks, one episode per task, for clusters (`coopgraph eval --backend ray`).

Ray is an optional extra, imported only here. The parent still writes the store, so resuming works as
with local workers. Workers reach the LLM through the same setting strings: point them at one shared
vLLM server with `--llm vllm:MODEL` and OPENAI_BASE_URL (forwarded to the tasks' environment).
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from typing import Any

from coopgraph.evals.suite import Job
from coopgraph.evals.suite_job import error_row, run_job

# Passed on to Ray tasks: where the LLM server is and how to stay offline. Never API keys: set those in
# the cluster's own environment.
FORWARDED_ENV = ("OPENAI_BASE_URL", "COOPGRAPH_LLM", "COOPGRAPH_CACHE", "HF_HUB_OFFLINE", "ANONYMIZED_TELEMETRY",
                 "LITELLM_LOCAL_MODEL_COST_MAP")
INSTALL_HINT = "install it with `pip install 'ray[default]>=2.9'` (an optional extra: `pip install coopgraph[ray]`)"


#: How long a cluster address may take to accept a connection before the run is refused.
CONNECT_TIMEOUT_S = 5.0


class BackendUnavailable(RuntimeError):
    """The requested backend's library is not installed, or its cluster does not answer."""


def cluster_address(address: str | None) -> str | None:
    """The cluster to join: `address`, else RAY_ADDRESS, else None (a local instance started for this run)."""
    return address or os.environ.get("RAY_ADDRESS") or None


def check_reachable(address: str, timeout_s: float = CONNECT_TIMEOUT_S) -> None:
    """Refuse, within `timeout_s`, an address (`host:port` or `ray://host:port`) that accepts no connection: Ray
    itself would keep retrying for minutes. `auto` and `local` are Ray's own words and are left to it."""
    if address in ("auto", "local"):
        return
    host_port = address.split("://", 1)[-1].rstrip("/")
    host, _, port = host_port.rpartition(":")
    if not host or not port.isdigit():
        raise BackendUnavailable(f"Ray address {address!r} is not host:port (or ray://host:port)")
    try:
        with socket.create_connection((host, int(port)), timeout=timeout_s):
            pass
    except OSError as exc:
        raise BackendUnavailable(f"Ray address {address} does not answer ({exc.strerror or exc}) within "
                                 f"{timeout_s:g} s; start the cluster (`ray start --head`) or fix --ray-address / "
                                 "RAY_ADDRESS") from None


def import_ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise BackendUnavailable(f"--backend ray needs the `ray` package, which could not be imported ({exc}); "
                                 f"{INSTALL_HINT}, or use --backend local --workers N") from None
    return ray


def forwarded_env() -> dict[str, str]:
    names = [*FORWARDED_ENV, *(k for k in os.environ if k.startswith("COOPGRAPH_LOCAL_URL"))]
    return {k: os.environ[k] for k in names if k in os.environ}


def run_on_ray(jobs: list[Job], record: Callable[[Job, dict[str, Any]], None], *, address: str | None = None,
               concurrency: int = 1) -> None:
    """Submit every job, record each row as its task finishes; `address` (else RAY_ADDRESS) picks the cluster.
    Each task asks for 1/`concurrency` of a CPU, so a cluster CPU runs that many episodes at once: they wait for
    the model server, not for the CPU."""
    ray = import_ray()
    started_here = not ray.is_initialized()
    if started_here:
        address = cluster_address(address)
        if address is not None:
            check_reachable(address)
        ray.init(address=address, runtime_env={"env_vars": forwarded_env()}, log_to_driver=False,
                 **({} if address else {"include_dashboard": False}))
    task = ray.remote(num_cpus=1 / concurrency)(run_job)  # Ray retries a task whose worker died
    pending = {task.remote(job.model_dump()): job for job in jobs}
    try:
        while pending:
            finished, _ = ray.wait(list(pending), num_returns=1)
            for ref in finished:
                job = pending.pop(ref)
                try:
                    row = ray.get(ref)
                except Exception as exc:  # noqa: BLE001 - a task whose worker died
                    row = error_row(job, f"ray task failed: {type(exc).__name__}: {exc}")
                record(job, row)
    except BaseException:
        for ref in pending:
            ray.cancel(ref, force=True)
        raise
    finally:
        if started_here:
            ray.shutdown()
