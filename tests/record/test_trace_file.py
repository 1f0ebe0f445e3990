"""Traces: one JSON object per line, secrets masked, torn last lines tolerated."""

from __future__ import annotations

import json
from pathlib import Path

from coopgraph.record.trace_file import Tracer, read_events, redact


def test_events_are_jsonl_with_bound_context(tmp_path: Path) -> None:
    tracer = Tracer(tmp_path / "t.jsonl", run="r1")
    agent = tracer.bind(agent="Alice")
    agent.event("llm_call", prompt_tokens=12)
    with agent.span("node", node="choose") as out:
        out["choice"] = "A"
    tracer.close()
    events = read_events(tmp_path / "t.jsonl")
    assert [e["type"] for e in events] == ["llm_call", "node_start", "node_end"]
    assert events[0] == {**events[0], "run": "r1", "agent": "Alice", "prompt_tokens": 12}
    assert events[2]["choice"] == "A" and events[2]["latency_s"] >= 0


def test_secrets_are_redacted_by_name_value_and_environment(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("MY_SERVICE_TOKEN", "tok-abcdefghijkl")
    tracer = Tracer(tmp_path / "t.jsonl")
    tracer.event("manifest", llm={"api_key": "whatever", "base_url": "http://x"},
                 note="header Bearer abcdefghijklmnop and sk-abcdefghijklmnopqrst",
                 echo="the token is tok-abcdefghijkl", prompt_tokens=5)
    tracer.close()
    text = (tmp_path / "t.jsonl").read_text()
    for secret in ("whatever", "abcdefghijklmnop", "sk-abcdefghij", "tok-abcdefghijkl"):
        assert secret not in text
    assert json.loads(text)["prompt_tokens"] == 5


def test_redact_keeps_token_counts() -> None:
    assert redact({"prompt_tokens": 3, "completion_tokens": 4}, []) == {"prompt_tokens": 3, "completion_tokens": 4}


def test_torn_last_line_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text('{"type": "a"}\n{"type": "b", "x": ')
    assert [e["type"] for e in read_events(path)] == ["a"]
