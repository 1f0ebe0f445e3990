"""The embedded model as one more OpenAI-compatible endpoint: llama-cpp-python's server on loopback.

Serving it (rather than loading it in-process) gives local, vLLM and OpenAI one transport path,
lets parallel evaluation workers share one loaded model, and keeps llama.cpp's prompt-prefix
cache warm across calls. The first process that needs it starts it; children find it through
COOPGRAPH_LOCAL_URL; it stops when the starting process exits.
"""

from __future__ import annotations

import atexit
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from coopgraph.llm import model_files
from coopgraph.llm.settings import LLMSettings

URL_ENV = "COOPGRAPH_LOCAL_URL"


class ServerError(RuntimeError):
    """The local model server could not be started or did not answer."""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _ready(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/models", timeout=2) as response:
            return response.status == 200 and bool(json.load(response).get("data"))
    except (urllib.error.URLError, OSError, ValueError):
        return False


class LocalServer:
    """A llama.cpp server process for one model profile, bound to 127.0.0.1 only."""

    def __init__(self, settings: LLMSettings, log_path: Path | None = None) -> None:
        self.settings = settings
        self.model_path = model_files.require(settings.model)
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.log_path = log_path or model_files.cache_dir().parent / "logs" / f"server-{self.port}.log"
        self.process: subprocess.Popen[bytes] | None = None

    def command(self) -> list[str]:
        s = self.settings
        return [
            sys.executable, "-m", "llama_cpp.server",
            "--model", str(self.model_path), "--model_alias", s.model,
            "--host", "127.0.0.1", "--port", str(self.port),
            "--n_ctx", str(s.n_ctx), "--n_threads", str(s.threads), "--n_threads_batch", str(s.threads),
            "--n_batch", "512", "--logits_all", "false", "--seed", str(s.seed),
            "--cache", "true", "--cache_type", "ram", "--cache_size", str(2 << 30),
            "--verbose", "false",
        ]

    def start(self, timeout_s: float = 120.0) -> str:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "HF_HUB_OFFLINE": "1"}
        log = self.log_path.open("wb")
        self.process = subprocess.Popen(self.command(), stdout=log, stderr=subprocess.STDOUT, env=env)
        atexit.register(self.stop)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                tail = self.log_path.read_text(errors="replace")[-2000:]
                raise ServerError(f"local model server exited with {self.process.returncode}:\n{tail}")
            if _ready(self.url):
                return self.url
            time.sleep(0.25)
        self.stop()
        raise ServerError(f"local model server did not answer within {timeout_s:.0f} s (log: {self.log_path})")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.process = None


_servers: dict[str, LocalServer] = {}


def local_url(settings: LLMSettings) -> str:
    """URL of a running server for this profile: inherited from a parent, or started here once."""
    inherited = os.environ.get(f"{URL_ENV}_{settings.model.upper().replace('-', '_')}")
    if inherited and _ready(inherited):
        return inherited
    server = _servers.get(settings.model)
    if server is None or server.process is None or server.process.poll() is not None:
        server = LocalServer(settings)
        server.start()
        _servers[settings.model] = server
        os.environ[f"{URL_ENV}_{settings.model.upper().replace('-', '_')}"] = server.url
    return server.url


def stop_all() -> None:
    for server in _servers.values():
        server.stop()
    _servers.clear()
