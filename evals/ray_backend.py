"""Suite jobs as Ray tasks, one episode per task, for clusters (`coopgraph eval --backend ray`).

Ray is an optional extra, imported only here. The parent still writes the store, so resuming works as
with local workers. Workers reach the LLM through the same setting strings: point them at one shared
vLLM server with `--llm vllm:MODEL` and OPENAI_BASE_URL (forwarded to the tasks' environment).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from coopgraph.evals.job_run import error_row, run_job
from coopgraph.evals.suite import Job

# Passed on to Ray tasks: where the LLM server is and how to stay offline. Never API keys: set those in
# the cluster's own environment.
FORWARDED_ENV = ("OPENAI_BASE_URL", "COOPGRAPH_LLM", "COOPGRAPH_CACHE", "HF_HUB_OFFLINE", "ANONYMIZED_TELEMETRY",
                 "LITELLM_LOCAL_MODEL_COST_MAP")
INSTALL_HINT = "install it with `pip install 'ray[default]>=2.9'` (an optional extra: `pip install coopgraph[ray]`)"


class BackendUnavailable(RuntimeError):
    """The requested backend's library is not installed."""


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


def run_on_ray(jobs: list[Job], record: Callable[[Job, dict[str, Any]], None]) -> None:
    """Submit every job, record each row as its task finishes; RAY_ADDRESS picks the cluster."""
    ray = import_ray()
    started_here = not ray.is_initialized()
    if started_here:
        ray.init(address=os.environ.get("RAY_ADDRESS") or None, runtime_env={"env_vars": forwarded_env()},
                 log_to_driver=False)
    task = ray.remote(run_job)
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
