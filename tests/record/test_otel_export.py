"""OTLP export: the JSON file is an OTLP/JSON ExportTraceServiceRequest (hex ids, integer enums, nanosecond
strings), spans nest episode → agent decision → node → LLM call with times inside their parents, LLM spans carry
the GenAI attributes, the binary protobuf is the same request, and nothing secret leaves the trace."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from typer.testing import CliRunner

from coopgraph.cli import app
from coopgraph.record.otel_export import write_otlp

runner = CliRunner()
SPAN_INTERNAL, SPAN_CLIENT = 1, 3
STATUS_OK, STATUS_ERROR = 1, 2


def _value(value: dict[str, Any]) -> Any:
    (kind, raw), = value.items()
    if kind == "intValue":
        return int(raw)  # OTLP/JSON writes 64-bit integers as strings
    if kind == "arrayValue":
        return [_value(v) for v in raw.get("values", [])]
    return raw


def _attrs(item: dict[str, Any]) -> dict[str, Any]:
    return {a["key"]: _value(a["value"]) for a in item.get("attributes", [])}


def _spans(payload: dict[str, Any]) -> list[dict[str, Any]]:
    (resource,) = payload["resourceSpans"]
    (scope,) = resource["scopeSpans"]
    assert scope["scope"]["name"] == "coopgraph.trace_export"
    return scope["spans"]


def _as_protobuf_json(payload: dict[str, Any]) -> dict[str, Any]:
    """OTLP/JSON writes ids in hex; protobuf's own JSON mapping wants base64 for bytes."""
    for span in _spans(payload):
        for key in ("traceId", "spanId", "parentSpanId"):
            if key in span:
                span[key] = base64.b64encode(bytes.fromhex(span[key])).decode()
    return payload


def test_export_writes_nested_gen_ai_spans_as_otlp_json(traces: dict[str, Path], tmp_path: Path) -> None:
    target, binary = tmp_path / "spans.json", tmp_path / "spans.pb"
    result = runner.invoke(app, ["trace", "export", str(traces["decided"]), "--otlp-json", str(target),
                                 "--otlp-proto", str(binary), "--json"])
    assert result.exit_code == 0, result.output
    info = json.loads(result.stdout)
    raw = json.loads(target.read_text(encoding="utf-8"))
    resource = _attrs(raw["resourceSpans"][0]["resource"])
    assert resource["service.name"] == "coopgraph" and resource["telemetry.sdk.name"] == "opentelemetry"
    spans = _spans(raw)
    assert len(spans) == info["spans"] == 19 and info["llm_spans"] == 3
    assert len({s["traceId"] for s in spans}) == 1 and len({s["spanId"] for s in spans}) == len(spans)
    assert all(len(s["traceId"]) == 32 and len(s["spanId"]) == 16 and int(s["spanId"], 16) for s in spans)
    by_id = {s["spanId"]: s for s in spans}

    roots = [s for s in spans if "parentSpanId" not in s]
    assert [s["name"] for s in roots] == ["episode cwah test/0"] and spans[0] is roots[0]
    root = roots[0]
    assert _attrs(root)["gen_ai.operation.name"] == "invoke_workflow"
    assert _attrs(root)["coopgraph.team"] == ["mhp", "mhp"] and _attrs(root)["coopgraph.success"] is not None

    decisions = [s for s in spans if s["name"] == "invoke_agent alice"]
    assert [_attrs(s)["coopgraph.step"] for s in decisions] == [0, 5, 12]
    for decision in decisions:
        assert decision["parentSpanId"] == root["spanId"] and decision["kind"] == SPAN_INTERNAL
        assert _attrs(decision)["gen_ai.operation.name"] == "invoke_agent"
        assert _attrs(decision)["gen_ai.agent.id"] == "alice:loop_agent"
        nodes = [s for s in spans if s.get("parentSpanId") == decision["spanId"]]
        names = ("perceive", "choose_action", "start_plan", "step_plan")
        assert [s["name"] for s in nodes] == [f"node {n}" for n in names]
        assert _attrs(nodes[1])["coopgraph.node.use"] == "planning.choose_action"

    chats = [s for s in spans if s["kind"] == SPAN_CLIENT]
    assert [s["name"] for s in chats] == ["chat scripted"] * 3
    for index, chat in enumerate(chats):  # each LLM call sits in its node, the node in that step's decision
        node = by_id[chat["parentSpanId"]]
        assert node["name"] == "node choose_action" and by_id[node["parentSpanId"]] is decisions[index]
        assert chat["status"] == {"code": STATUS_OK}
        attrs = _attrs(chat)
        assert attrs["gen_ai.operation.name"] == "chat" and attrs["gen_ai.provider.name"] == "fake"
        assert attrs["gen_ai.request.model"] == attrs["gen_ai.response.model"] == "scripted"
        assert attrs["gen_ai.usage.input_tokens"] == 120 + index and attrs["gen_ai.usage.output_tokens"] == 9
        assert attrs["gen_ai.agent.name"] == "alice" and attrs["coopgraph.constrained"] is True
        messages = json.loads(attrs["gen_ai.input.messages"])
        assert messages[0]["role"] == "system"
        assert messages[1]["parts"][0]["content"].startswith(f"Step {(0, 5, 12)[index]}.")
        assert "Answer: B" in json.loads(attrs["gen_ai.output.messages"])[0]["parts"][0]["content"]
        assert attrs["gen_ai.prompt.1.role"] == "user" and attrs["gen_ai.completion.0.content"].endswith("Answer: B")
        assert [e["name"] for e in chat["events"]] == ["gen_ai.content.prompt", "gen_ai.content.completion"]
        prompt = json.loads(_attrs(chat["events"][0])["gen_ai.prompt"])
        assert prompt[1] == {"role": "user", "content": messages[1]["parts"][0]["content"]}
        assert {e["timeUnixNano"] for e in chat["events"]} == {chat["endTimeUnixNano"]}
        duration = int(chat["endTimeUnixNano"]) - int(chat["startTimeUnixNano"])
        assert abs(duration - 250_000_000) < 1_000  # latency_s 0.25 (float seconds: sub-microsecond noise)

    events = [json.loads(line) for line in traces["decided"].read_text(encoding="utf-8").splitlines()]
    first = min(e["t"] for e in events)
    assert abs(int(root["startTimeUnixNano"]) - first * 1e9) < 1_000  # the root spans the whole trace
    assert abs(int(root["endTimeUnixNano"]) - max(e["t"] for e in events) * 1e9) < 1_000
    for span in spans:  # times are nanosecond strings, and children lie inside their parents
        start, end = int(span["startTimeUnixNano"]), int(span["endTimeUnixNano"])
        assert 1e18 < start <= end
        if "parentSpanId" in span:
            parent = by_id[span["parentSpanId"]]
            assert int(parent["startTimeUnixNano"]) <= start and end <= int(parent["endTimeUnixNano"])

    request = json_format.ParseDict(_as_protobuf_json(raw), ExportTraceServiceRequest())
    assert ExportTraceServiceRequest.FromString(binary.read_bytes()) == request  # the same spans, the same ids
    again = tmp_path / "again.json"
    assert runner.invoke(app, ["trace", "export", str(traces["decided"]), "--otlp-json", str(again)]).exit_code == 0
    assert again.read_bytes() == target.read_bytes()  # ids come from the trace: one trace, one file


def test_export_marks_errors_keeps_long_prompts_and_leaves_secrets_out(tmp_path: Path) -> None:
    prompt = [{"role": "user", "content": f"message {i}"} for i in range(100)]  # 200 flat prompt attributes
    events = [
        {"type": "manifest", "t": 10.0, "versions": {"coopgraph": "9.9"}, "specs": {},
         "llm": {"model": "m", "api_key": "sk-SECRET", "headers": {"Authorization": "Bearer SECRET"}}},
        {"type": "episode_start", "t": 10.0, "env": "cwah", "episode": "test/1", "seed": 3, "team": ["a", "b"]},
        {"type": "llm_error", "t": 11.0, "agent": "bob", "node": "plan", "model": "m", "backend": "openai",
         "prompt": prompt, "error": "timeout", "latency_s": 0.5},
        {"type": "node_end", "t": 11.5, "agent": "bob", "node": "plan", "latency_s": 2.0, "error": "boom"},
        {"type": "episode_end", "t": 12.0, "success": False, "steps": 1, "metrics": {"per": {"x": 1}}},
    ]
    trace = tmp_path / "run.jsonl"
    trace.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    info = write_otlp(trace, json_path=tmp_path / "out" / "spans.json")
    text = (tmp_path / "out" / "spans.json").read_text(encoding="utf-8")
    assert "SECRET" not in text and "api_key" not in text
    spans = {s["name"]: s for s in _spans(json.loads(text))}
    assert info["spans"] == 4 and set(spans) == {"episode cwah test/1", "invoke_agent bob", "node plan", "chat m"}
    chat, node = spans["chat m"], spans["node plan"]
    assert chat["status"] == {"code": STATUS_ERROR, "message": "timeout"}
    assert node["status"] == {"code": STATUS_ERROR, "message": "boom"}
    assert chat["parentSpanId"] == spans["invoke_agent bob"]["spanId"]  # no node_start: the call hangs off its decision
    assert node["startTimeUnixNano"] == str(9_500_000_000) and spans["invoke_agent bob"]["startTimeUnixNano"] == str(
        9_500_000_000)  # node_end without node_start starts latency_s earlier; the decision and root stretch to it
    assert spans["episode cwah test/1"]["startTimeUnixNano"] == str(9_500_000_000)
    attrs = _attrs(chat)
    assert attrs["gen_ai.prompt.99.content"] == "message 99" and "droppedAttributesCount" not in chat
    assert json.loads(_attrs(spans["episode cwah test/1"])["coopgraph.metrics.per"]) == {"x": 1}
