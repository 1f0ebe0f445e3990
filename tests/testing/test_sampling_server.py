"""The loopback test server: a fixed reply when asked for one, and connections kept open between requests."""

from __future__ import annotations

import http.client
import json
from urllib.parse import urlsplit

from coopgraph.testing.sampling_server import sampling_server

CHAT = {"model": "sampler", "temperature": 0.7, "seed": 3,
        "messages": [{"role": "user", "content": "Pick one.\nA. walk\nB. open"}]}


def _ask(conn: http.client.HTTPConnection, path: str) -> str:
    conn.request("POST", f"{path}/chat/completions", json.dumps(CHAT), {"Content-Type": "application/json"})
    response = conn.getresponse()
    return str(json.loads(response.read())["choices"][0]["message"]["content"])


def test_a_fixed_reply_answers_every_request_on_one_connection() -> None:
    with sampling_server(reply="ok") as (url, seen):
        address = urlsplit(url)
        conn = http.client.HTTPConnection(address.hostname or "", address.port)
        try:
            replies = [_ask(conn, address.path) for _ in range(3)]
        finally:
            conn.close()
    assert replies == ["ok", "ok", "ok"] and seen.requests == 3


def test_without_a_fixed_reply_it_picks_a_listed_option() -> None:
    with sampling_server() as (url, _):
        address = urlsplit(url)
        conn = http.client.HTTPConnection(address.hostname or "", address.port)
        try:
            reply = _ask(conn, address.path)
        finally:
            conn.close()
    assert reply.endswith(("Answer: A", "Answer: B"))
