"""A small OpenAI-compatible chat server on loopback whose sampled answer depends on the request's seed and prompt.

It stands in for vLLM, llama.cpp or OpenAI in tests of replicates: at a temperature above 0 it picks one of the
lettered options the prompt lists ("A. ...") by a hash of the seed and the prompt, as a seeded sampler would, and
at temperature 0 it always takes the first (greedy); a prompt without options gets a short free-text reply chosen
the same way. It records each request's seed, so a test can see which seeds reached the server and how many
requests the response cache spared it. With `latency_s` it answers every request after exactly that long, as a
loaded model server would, and counts how many requests it held at once (`max_in_flight`): the throughput
benchmark and the concurrency tests measure against it. With `reply` it answers every request with that one text,
as the simplest test server does (issue 37's throughput figures came from one): a planner then finds no option in
it and asks again, so a decision costs its full retries.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_OPTION = re.compile(r"^([A-Z]{1,2})\. ", re.MULTILINE)
FREE_REPLIES = ("I will keep looking.", "I am heading to the kitchen.", "Tell me what you have found.")


@dataclass
class Seen:
    """What the server was asked: each request's seed (None when it carried none), in order."""

    seeds: list[int | None] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    in_flight: int = 0
    max_in_flight: int = 0  # the most requests it was answering at one moment

    @property
    def requests(self) -> int:
        return len(self.seeds)


def draw(seed: int | None, prompt: str, choices: int) -> int:
    """The index a seeded sampler would give this prompt: a stable hash of the seed and the prompt."""
    digest = hashlib.sha256(f"{seed}\x00{prompt}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % choices


def answer(body: dict[str, Any]) -> str:
    """The reply to one chat request: a listed option by letter, or a short free text."""
    messages = body.get("messages") or []
    prompt = "\n".join(str(m.get("content", "")) for m in messages)
    last = str(messages[-1].get("content", "")) if messages else ""
    sampled = float(body.get("temperature") or 0.0) > 0
    letters = _OPTION.findall(last)
    if letters:
        pick = draw(body.get("seed"), prompt, len(letters)) if sampled else 0
        return f"Reasoning: option {letters[pick]} looks best.\nAnswer: {letters[pick]}"
    pick = draw(body.get("seed"), prompt, len(FREE_REPLIES)) if sampled else 0
    return FREE_REPLIES[pick]


def _handler(seen: Seen, latency_s: float, reply: str | None) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keeps connections open, as model servers do: a request costs no new socket
        disable_nagle_algorithm = True  # headers and body leave at once, not 40 ms apart (Nagle and delayed ACK)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
            return  # quiet: tests read `seen`, not a log

        def _send(self, payload: dict[str, Any], status: int = 200) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
            self._send({"object": "list", "data": [{"id": "sampler", "object": "model"}]})

        def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send({"error": {"message": f"no route {self.path}"}}, 404)
                return
            with seen.lock:
                seen.seeds.append(body.get("seed"))
                seen.in_flight += 1
                seen.max_in_flight = max(seen.max_in_flight, seen.in_flight)
            try:
                time.sleep(latency_s)
            finally:
                with seen.lock:
                    seen.in_flight -= 1
            text = answer(body) if reply is None else reply
            prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in body.get("messages") or [])
            self._send({
                "id": "chatcmpl-sampler", "object": "chat.completion", "created": 0, "model": body.get("model"),
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                             "finish_reason": "stop"}],
                "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": len(text.split()),
                          "total_tokens": prompt_tokens + len(text.split())},
            })

    return Handler


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # the throughput benchmark opens up to 32 connections at once


@contextmanager
def sampling_server(latency_s: float = 0.0, reply: str | None = None) -> Iterator[tuple[str, Seen]]:
    """Serve on 127.0.0.1 (a free port) until the block ends; yields the base URL (`.../v1`) and what it saw.
    Each chat request is answered `latency_s` after it arrived (all of them at once: no batch limit), with `reply`
    when it is given, else as a seeded sampler would (`answer`)."""
    seen = Seen()
    server = _Server(("127.0.0.1", 0), _handler(seen, latency_s, reply))
    thread = threading.Thread(target=server.serve_forever, daemon=True, name="sampling-server")
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", seen
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
