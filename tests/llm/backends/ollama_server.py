"""A tiny server on 127.0.0.1 that speaks Ollama's `/api/chat` (streamed as JSON lines, as `ollama` asks), so a
test can play an episode through LangChain's ChatOllama without Ollama. It answers a choice prompt with a short
reasoning line and option A, anything else with one sentence, and keeps every request it read."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def reply_to(body: dict[str, Any]) -> str:
    last = body["messages"][-1]["content"]
    if "Answer:" in last:
        return "Reasoning: the first option moves the task on.\nAnswer: A"
    return "I will look for the plates in the kitchen."


class OllamaChat(BaseHTTPRequestHandler):
    requests: list[dict[str, Any]]

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path != "/api/chat":
            self.send_error(404)
            return
        self.server.requests.append(body)  # type: ignore[attr-defined]
        words = reply_to(body)
        lines = [{"model": body["model"], "created_at": "2026-01-01T00:00:00Z",
                  "message": {"role": "assistant", "content": words}, "done": False},
                 {"model": body["model"], "created_at": "2026-01-01T00:00:00Z",
                  "message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "stop",
                  "total_duration": 1, "load_duration": 1, "prompt_eval_count": 12, "prompt_eval_duration": 1,
                  "eval_count": len(words.split()), "eval_duration": 1}]
        payload = "".join(json.dumps(line) + "\n" for line in lines).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - http.server's name
        return None


@contextmanager
def ollama_server() -> Iterator[ThreadingHTTPServer]:
    """A running server (its `requests` list fills as the test asks); `server_address` gives its port."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), OllamaChat)
    server.requests = []  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
