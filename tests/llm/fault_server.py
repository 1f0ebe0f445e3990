"""An OpenAI-compatible chat server on 127.0.0.1 that misbehaves on purpose, for tests of the LLM layer.

A seeded share of requests (`fault_rate`) fails in one of five ways, drawn in turn from a seeded generator: a 500,
a 429 with `Retry-After`, a body that is not JSON, a dropped connection, or an empty body. Every other request gets
a well-formed chat completion: a listed option's letter for a choice (`A. ...` lines), a rating line for a rating,
a short sentence otherwise. The server runs in a thread of the test and stops with it.
"""

from __future__ import annotations

import json
import random
import re
import socket
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FAULTS = ("500", "429", "not_json", "dropped", "empty")
_OPTION = re.compile(r"^([A-Z]{1,2})\. ", re.MULTILINE)


def reply_to(prompt: str, pick: random.Random) -> str:
    """A usable reply to the last user message: an option's letter, a rating, or a sentence."""
    letters = _OPTION.findall(prompt)
    if letters:
        return f"Reasoning: this one helps the team most.\nAnswer: {pick.choice(letters)}"
    if "Rate every line" in prompt:
        return "1: strong"
    return "I will look for the goal objects in the rooms nobody has checked."


class FaultyServer(ThreadingHTTPServer):
    """The server and what it did: `counts` of answers and of each fault."""

    daemon_threads = True

    def __init__(self, fault_rate: float, seed: int, retry_after_s: int) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.fault_rate = fault_rate
        self.retry_after_s = retry_after_s
        self.draw = random.Random(seed)
        self.counts: Counter[str] = Counter()
        self.lock = threading.Lock()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def next_outcome(self) -> tuple[str, random.Random]:
        """This request's fate ("answer" or a fault), and a generator for its answer, drawn under one lock so a run
        sees the same sequence every time."""
        with self.lock:
            outcome = self.draw.choice(FAULTS) if self.draw.random() < self.fault_rate else "answer"
            self.counts[outcome] += 1
            return outcome, random.Random(self.draw.random())


class _Handler(BaseHTTPRequestHandler):
    server: FaultyServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        return

    def do_POST(self) -> None:  # noqa: N802 - the base class's name
        body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
        outcome, pick = self.server.next_outcome()
        if outcome == "dropped":
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True
            return
        if outcome == "500":
            self._send(500, b'{"error": {"message": "internal error"}}')
        elif outcome == "429":
            self._send(429, b'{"error": {"message": "rate limited"}}',
                       {"Retry-After": str(self.server.retry_after_s)})
        elif outcome == "not_json":
            self._send(200, b"<html><body>502 Bad Gateway</body></html>", content_type="text/html")
        elif outcome == "empty":
            self._send(200, b"")
        else:
            messages = body.get("messages") or [{"content": ""}]
            text = reply_to(str(messages[-1].get("content", "")), pick)
            completion = {
                "id": "chatcmpl-fault-test", "object": "chat.completion", "created": 0, "model": body.get("model"),
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
            }
            self._send(200, json.dumps(completion).encode())

    def _send(self, status: int, payload: bytes, headers: dict[str, str] | None = None,
              content_type: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)


@contextmanager
def faulty_server(fault_rate: float = 0.3, *, seed: int = 0, retry_after_s: int = 1) -> Iterator[FaultyServer]:
    """A `FaultyServer` serving in a thread until the block ends."""
    server = FaultyServer(fault_rate, seed, retry_after_s)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


class SilentServer:
    """Accepts every connection on 127.0.0.1 and never says a word; `accepted` counts the connections."""

    def __init__(self) -> None:
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.listener.settimeout(0.05)
        self.connections: list[socket.socket] = []
        self.stopping = threading.Event()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.listener.getsockname()[1]}/v1"

    @property
    def accepted(self) -> int:
        return len(self.connections)

    def serve(self) -> None:
        while not self.stopping.is_set():
            try:
                conn, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.connections.append(conn)  # kept open, never answered


@contextmanager
def silent_server() -> Iterator[SilentServer]:
    """A `SilentServer` accepting in a thread until the block ends."""
    server = SilentServer()
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.stopping.set()
        thread.join(timeout=5)
        for conn in server.connections:
            conn.close()
        server.listener.close()
