"""The embedded model as one more OpenAI-compatible endpoint: llama-cpp-python's server on loopback.

Serving it (rather than loading it in-process) gives local, vLLM and OpenAI one transport path and keeps
llama.cpp's prompt-prefix cache warm across calls. One server per model profile is shared by every
coopgraph process on the machine (parallel evaluation workers, a test session and its subprocesses, two
terminals): it would otherwise be loaded twice and the copies would fight over the same cores. Processes
take a lease (a file named after their pid); a small supervisor stops the server once no live process has
held a lease for a while, so nothing is left running after the last user exits, even after `kill -9`.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from coopgraph.llm import model_files
from coopgraph.llm.local_extra import require_local_runtime
from coopgraph.llm.settings import LLMSettings


class ServerError(RuntimeError):
    """The local model server could not be started or did not answer."""


def servers_dir() -> Path:
    path = model_files.cache_dir().parent / "servers"
    path.mkdir(parents=True, exist_ok=True)
    return path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def ready(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/models", timeout=2) as response:
            return response.status == 200 and bool(json.load(response).get("data"))
    except (urllib.error.URLError, OSError, ValueError):
        return False


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def server_command(settings: LLMSettings, model_path: Path, port: int) -> list[str]:
    s = settings
    spec = model_files.MODEL_FILES.get(s.model)
    extra: list[str] = []
    if spec is not None and spec.adapter is not None:
        extra += ["--lora_path", str(model_files.adapter_path(s.model))]
    if spec is not None and spec.chat_format is not None:
        extra += ["--chat_format", spec.chat_format]
    return [
        sys.executable, "-m", "llama_cpp.server",
        "--model", str(model_path), "--model_alias", s.model,
        "--host", "127.0.0.1", "--port", str(port),
        "--n_ctx", str(s.n_ctx), "--n_threads", str(s.threads), "--n_threads_batch", str(s.threads),
        "--n_batch", "512", "--logits_all", "false", "--seed", str(s.seed),
        # No prompt-state RAM cache: each saved entry also copies ~300 MB of logits that its size limit does
        # not count (the server grew past 20 GB), and saving states made calls slower, not faster. llama.cpp
        # still reuses the prefix shared with the previous prompt, which is why templates put stable text first.
        "--cache", "false",
        "--verbose", "false",
        *extra,
    ]


def weights_tag(profile: str) -> str:
    """`@<first 8 hex of the pinned hash>` of the weights a profile's server loads (its adapter's, else its
    model's), so two checkouts with different adapters never share a server; empty for an unknown profile."""
    spec = model_files.MODEL_FILES.get(profile)
    if spec is None:
        return ""
    digest = spec.adapter_sha256 if spec.adapter and spec.adapter_sha256 else spec.sha256
    return f"@{digest[:8]}"


def server_key(settings: LLMSettings, slot: int = 0) -> str:
    """`<profile>@<weights>-ctx<n_ctx>`, and `-slot<k>` for a team's further members (each server keeps one
    prompt's prefix cached, so members that take turns on one server would evict each other's). The weights'
    hash is in the key because a server outlives the run that started it: without it, a run from a checkout whose
    adapter differs would be answered by the adapter the first checkout loaded."""
    return f"{settings.model}{weights_tag(settings.model)}-ctx{settings.n_ctx}" + (f"-slot{slot}" if slot else "")


def key_profile(key: str) -> str:
    """The profile a server key belongs to."""
    return key.rsplit("-ctx", 1)[0].split("@", 1)[0]


def server_env(settings: LLMSettings) -> dict[str, str]:
    """The server's environment: offline, and llama.cpp's OpenMP threads told to stop spinning soon at a barrier
    (a thread spinning while the one it waits for has lost its core to another process is what made a decision
    take ten times longer under contention instead of about twice; see evals/bench/llm_local.py --compete)."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "GOMP_SPINCOUNT": str(settings.spin_count)}
    env.pop("OMP_WAIT_POLICY", None)
    return env


@contextlib.contextmanager
def compute_turn(settings: LLMSettings) -> Iterator[None]:
    """Hold the machine-wide turn of this profile's servers: one of them computes at a time, whichever process
    asks, so slot servers never split the cores between two prompts."""
    with (servers_dir() / f"{settings.model}.turn.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


class SharedServer:
    """The machine-wide server of one profile (and slot): its state file, lock, leases and supervisor."""

    def __init__(self, settings: LLMSettings, slot: int = 0) -> None:
        self.settings = settings
        self.key = server_key(settings, slot)
        root = servers_dir()
        self.state_file = root / f"{self.key}.json"
        self.lock_file = root / f"{self.key}.lock"
        self.leases = root / f"{self.key}.leases"
        self.leases.mkdir(exist_ok=True)

    def _state(self) -> dict | None:
        return live_state(self.state_file)

    def lease(self) -> None:
        lease = self.leases / str(os.getpid())
        lease.touch()
        atexit.register(lambda: lease.unlink(missing_ok=True))

    def url(self, timeout_s: float = 300.0) -> str:
        """Reuse the running server or start one (under a lock, so two processes never both start one)."""
        self.lease()
        with self.lock_file.open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            state = self._state()
            if state is not None:
                return state["url"]
            return self._start(timeout_s)

    def _start(self, timeout_s: float) -> str:
        model_path = model_files.require(self.settings.model)
        port = free_port()
        url = f"http://127.0.0.1:{port}/v1"
        log = servers_dir() / f"{self.key}.log"
        env = server_env(self.settings)
        command = [sys.executable, "-m", "coopgraph.llm.supervisor", str(self.leases), str(self.state_file),
                   url, *server_command(self.settings, model_path, port)]
        with log.open("ab") as out:
            supervisor = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env,
                                          start_new_session=True)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if supervisor.poll() is not None:
                tail = log.read_text(errors="replace")[-2000:]
                raise ServerError(f"local model server exited with {supervisor.returncode}:\n{tail}")
            if ready(url):
                self.state_file.write_text(json.dumps({"url": url, "supervisor": supervisor.pid, "port": port}))
                return url
            time.sleep(0.25)
        supervisor.terminate()
        raise ServerError(f"local model server did not answer within {timeout_s:.0f} s (log: {log})")

    def stop(self) -> None:
        """Stop the server now, whoever else holds a lease."""
        stop_server(self.state_file)


def live_state(state_file: Path) -> dict | None:
    """A server's state; a live supervisor is trusted, since a busy server may answer slowly and its
    supervisor exits (removing this file) as soon as the server itself dies."""
    try:
        state = json.loads(state_file.read_text())
    except (OSError, ValueError):
        return None
    return state if alive(int(state.get("supervisor", -1))) else None


def stop_server(state_file: Path) -> bool:
    """Stop the server behind a state file; True when one was running."""
    state = live_state(state_file)
    if state is not None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(state["supervisor"]), 15)
    state_file.unlink(missing_ok=True)
    return state is not None


def running_servers() -> dict[str, Path]:
    """Shared servers with a live supervisor on this machine, by key (`<profile>@<weights>-ctx<n_ctx>`)."""
    return {path.stem: path for path in sorted(servers_dir().glob("*.json")) if live_state(path) is not None}


def stop_servers(profiles: list[str] | None = None) -> list[str]:
    """Stop the shared servers of these profiles (all when None), e.g. to serve a new adapter or free RAM;
    returns the keys stopped. Processes still using one start a fresh server on their next call."""
    return [key for key, path in running_servers().items()
            if (profiles is None or key_profile(key) in profiles) and stop_server(path)]


def local_url(settings: LLMSettings, slot: int = 0) -> str:
    """URL of the shared server for this profile and slot, started on first use (which needs the `local` extra)."""
    require_local_runtime()
    return SharedServer(settings, slot).url()
