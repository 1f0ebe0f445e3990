"""OTLP export: the JSON is valid against OpenTelemetry's protobuf schema, the binary form is the same request,
and LLM spans carry the GenAI attributes."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from coopgraph.cli import app

runner = CliRunner()


def _as_protobuf_json(payload: dict[str, Any]) -> dict[str, Any]:
    """OTLP/JSON writes ids in hex; protobuf's JSON mapping wants base64 for bytes."""
    for resource in payload["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = base64.b64encode(bytes.fromhex(span[key])).decode()
    return payload


def test_export_parses_as_an_otlp_request_with_gen_ai_spans(traces: dict[str, Path], tmp_path: Path) -> None:
    json_format = pytest.importorskip("google.protobuf.json_format")
    service = pytest.importorskip("opentelemetry.proto.collector.trace.v1.trace_service_pb2")
    target = tmp_path / "spans.json"
    result = runner.invoke(app, ["trace", "export", str(traces["decided"]), "--otlp-json", str(target), "--json"])
    assert result.exit_code == 0, result.output
    info = json.loads(result.stdout)
    assert info["llm_spans"] == 3
    raw = json.loads(target.read_text(encoding="utf-8"))
    spans = raw["resourceSpans"][0]["scopeSpans"][0]["spans"]
    assert all(len(s["traceId"]) == 32 and len(s["spanId"]) == 16 for s in spans)
    request = json_format.ParseDict(_as_protobuf_json(raw), service.ExportTraceServiceRequest())
    parsed = list(request.resource_spans[0].scope_spans[0].spans)
    assert len(parsed) == info["spans"] and len({s.trace_id for s in parsed}) == 1
    by_id = {s.span_id: s for s in parsed}
    chat = [s for s in parsed if s.name == "chat scripted"]
    assert len(chat) == 3
    attrs = {a.key: a.value for a in chat[0].attributes}
    assert attrs["gen_ai.operation.name"].string_value == "chat"
    assert attrs["gen_ai.request.model"].string_value == "scripted"
    assert attrs["gen_ai.usage.input_tokens"].int_value == 120 and attrs["gen_ai.usage.output_tokens"].int_value == 9
    messages = json.loads(attrs["gen_ai.input.messages"].string_value)
    assert messages[0]["role"] == "system" and messages[1]["parts"][0]["content"].startswith("Step 0.")
    assert attrs["gen_ai.prompt.1.role"].string_value == "user" and "Answer: B" in attrs[
        "gen_ai.completion.0.content"].string_value
    assert [e.name for e in chat[0].events] == ["gen_ai.content.prompt", "gen_ai.content.completion"]
    node = by_id[chat[0].parent_span_id]  # the LLM call sits in its node, the node in the agent's decision
    agent = by_id[node.parent_span_id]
    assert node.name == "node choose_action" and agent.name == "invoke_agent alice"
    root = by_id[agent.parent_span_id]
    assert not root.parent_span_id and root.name.startswith("episode cwah test/0")
    binary = tmp_path / "spans.pb"
    again = runner.invoke(app, ["trace", "export", str(traces["decided"]), "--otlp-proto", str(binary)])
    assert again.exit_code == 0, again.output
    assert service.ExportTraceServiceRequest.FromString(binary.read_bytes()) == request  # same spans, same ids
    for span in parsed:  # children lie inside their parents
        if span.parent_span_id:
            parent = by_id[span.parent_span_id]
            assert parent.start_time_unix_nano <= span.start_time_unix_nano <= span.end_time_unix_nano
            assert span.end_time_unix_nano <= parent.end_time_unix_nano
