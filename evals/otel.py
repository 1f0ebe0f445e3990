"""`coopgraph trace export --otlp-json`: a trace as OpenTelemetry spans in OTLP/JSON, GenAI conventions.

Written by hand (no OpenTelemetry SDK needed): one `invoke_workflow` root span for the episode, one
`invoke_agent` span per agent decision (a graph invocation), child spans for each node run, and one `chat`
span per LLM call carrying `gen_ai.*` attributes (operation, provider, model, token usage, input and output
messages) plus the older `gen_ai.prompt.N.*` / `gen_ai.completion.0.*` attributes that some backends still
read. Post the JSON to an OTLP/HTTP endpoint that takes `application/json` (Langfuse, an OpenTelemetry Collector),
or write binary protobuf too for those that take only `application/x-protobuf` (Phoenix).
"""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

from coopgraph.tracing import read_events

SPAN_INTERNAL, SPAN_CLIENT = 1, 3
STATUS_OK, STATUS_ERROR = 1, 2


def _hex_id(seed: str, size: int) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()[: size * 2]


def _nanos(seconds: float) -> str:
    return str(max(0, int(round(seconds * 1e9))))


def _value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return {"arrayValue": {"values": [{"stringValue": v} for v in value]}}
    if isinstance(value, dict | list | tuple):
        return {"stringValue": json.dumps(value, ensure_ascii=False, default=str)}
    return {"stringValue": str(value)}


def _attributes(values: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"key": k, "value": _value(v)} for k, v in values.items() if v is not None]


class _SpanBuilder:
    """Collects spans of one trace id with deterministic ids (the same trace exports the same file)."""

    def __init__(self, trace_key: str) -> None:
        self.trace_id = _hex_id(trace_key, 16)
        self.spans: list[dict[str, Any]] = []
        self.by_id: dict[str, dict[str, Any]] = {}

    def add(self, name: str, start: float, end: float, *, parent: str | None, kind: int = SPAN_INTERNAL,
            attributes: dict[str, Any] | None = None, events: list[dict[str, Any]] | None = None,
            error: str | None = None) -> str:
        span_id = _hex_id(f"{self.trace_id}/{len(self.spans)}/{name}", 8)
        span = {"traceId": self.trace_id, "spanId": span_id, "name": name, "kind": kind,
                "startTimeUnixNano": _nanos(start), "endTimeUnixNano": _nanos(max(start, end)),
                "attributes": _attributes(attributes or {}), "events": events or [],
                "status": {"code": STATUS_ERROR, "message": error} if error else {"code": STATUS_OK}}
        if parent:
            span["parentSpanId"] = parent
        self.spans.append(span)
        self.by_id[span_id] = span
        return span_id

    def finish(self, span_id: str, end: float, error: str | None = None) -> None:
        span = self.by_id[span_id]
        span["endTimeUnixNano"] = str(max(int(span["startTimeUnixNano"]), int(_nanos(end))))
        if error:
            span["status"] = {"code": STATUS_ERROR, "message": error}


def _input_messages(prompt: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"role": m.get("role"), "parts": [{"type": "text", "content": m.get("content", "")}]} for m in prompt]


def _llm_attributes(call: dict[str, Any], agent: str | None) -> dict[str, Any]:
    prompt = call.get("prompt") or []
    attrs: dict[str, Any] = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": call.get("backend"),
        "gen_ai.system": call.get("backend"),
        "gen_ai.request.model": call.get("model"),
        "gen_ai.response.model": call.get("model"),
        "gen_ai.usage.input_tokens": int(call.get("prompt_tokens") or 0),
        "gen_ai.usage.output_tokens": int(call.get("completion_tokens") or 0),
        "gen_ai.agent.name": agent,
        "gen_ai.input.messages": _input_messages(prompt),
        "gen_ai.output.messages": [{"role": "assistant", "finish_reason": "stop",
                                    "parts": [{"type": "text", "content": call.get("response") or ""}]}],
        "coopgraph.node": call.get("node"),
        "coopgraph.attempt": call.get("attempt"),
        "coopgraph.cache_hit": call.get("cache_hit"),
        "coopgraph.constrained": call.get("constrained"),
    }
    for i, message in enumerate(prompt):
        attrs[f"gen_ai.prompt.{i}.role"] = message.get("role")
        attrs[f"gen_ai.prompt.{i}.content"] = message.get("content")
    attrs["gen_ai.completion.0.role"] = "assistant"
    attrs["gen_ai.completion.0.content"] = call.get("response") or ""
    return attrs


def _llm_events(call: dict[str, Any], at: float) -> list[dict[str, Any]]:
    prompt_text = json.dumps(call.get("prompt") or [], ensure_ascii=False)
    return [
        {"timeUnixNano": _nanos(at), "name": "gen_ai.content.prompt",
         "attributes": _attributes({"gen_ai.prompt": prompt_text})},
        {"timeUnixNano": _nanos(at), "name": "gen_ai.content.completion",
         "attributes": _attributes({"gen_ai.completion": call.get("response") or ""})},
    ]


def to_otlp(events: list[dict[str, Any]], service: str = "coopgraph") -> dict[str, Any]:
    """An ExportTraceServiceRequest as OTLP/JSON (ids in hex, 64-bit numbers as strings)."""
    start = next((e for e in events if e.get("type") == "episode_start"), {})
    manifest = next((e for e in events if e.get("type") == "manifest"), {})
    times = [float(e["t"]) for e in events if isinstance(e.get("t"), int | float)]
    t0, t1 = (min(times), max(times)) if times else (0.0, 0.0)
    episode = f"{start.get('env')} {start.get('episode')}"
    builder = _SpanBuilder(f"{episode}/{t0}/{len(events)}")
    end = next((e for e in events if e.get("type") == "episode_end"), {})
    root = builder.add(f"episode {episode}", t0, t1, parent=None, attributes={
        "gen_ai.operation.name": "invoke_workflow", "gen_ai.workflow.name": f"episode {episode}",
        "gen_ai.conversation.id": f"{episode} seed {start.get('seed')}",
        "coopgraph.env": start.get("env"), "coopgraph.episode": start.get("episode"),
        "coopgraph.seed": start.get("seed"), "coopgraph.team": start.get("team"),
        "coopgraph.success": end.get("success"), "coopgraph.steps": end.get("steps"),
        **{f"coopgraph.metrics.{k}": v for k, v in (end.get("metrics") or {}).items()}})
    step, decision_spans = 0, {}
    open_nodes: dict[tuple[str, str], str] = {}  # (agent, node) → id of its open span
    counts = {"spans": 0, "llm_spans": 0}

    def decision(agent: str, at: float) -> str:
        key = (agent, step)
        if key not in decision_spans:
            decision_spans[key] = builder.add(f"invoke_agent {agent}", at, at, parent=root, attributes={
                "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": agent,
                "gen_ai.agent.id": f"{agent}:{(manifest.get('specs') or {}).get(agent, {}).get('name', '')}",
                "coopgraph.step": step})
        return decision_spans[key]

    for event in events:
        kind, agent, t = event.get("type"), event.get("agent"), float(event.get("t") or t0)
        if kind == "env_step":
            step = int(event.get("step", step))
        elif kind == "node_start" and agent:  # opened now so LLM calls inside can name it as their parent
            open_nodes[(agent, str(event.get("node")))] = builder.add(
                f"node {event.get('node')}", t, t, parent=decision(agent, t), attributes={
                    "coopgraph.node": event.get("node"), "coopgraph.node.use": event.get("use"),
                    "coopgraph.step": step})
        elif kind == "node_end" and agent:
            span_id = open_nodes.pop((agent, str(event.get("node"))), None)
            if span_id is None:
                began = t - float(event.get("latency_s") or 0)
                span_id = builder.add(f"node {event.get('node')}", began, began, parent=decision(agent, began),
                                      attributes={"coopgraph.node": event.get("node"), "coopgraph.step": step})
            builder.finish(span_id, t, error=event.get("error"))
        elif kind in ("llm_call", "llm_error") and agent:
            latency = float(event.get("latency_s") or 0)
            parent = open_nodes.get((agent, str(event.get("node")))) or decision(agent, t - latency)
            builder.add(f"chat {event.get('model') or ''}".strip(), t - latency, t, parent=parent, kind=SPAN_CLIENT,
                        attributes=_llm_attributes(event, agent), events=_llm_events(event, t),
                        error=event.get("error") if kind == "llm_error" else None)
            counts["llm_spans"] += 1
    _stretch_parents(builder.spans)
    counts["spans"] = len(builder.spans)
    version = (manifest.get("versions") or {}).get("coopgraph")
    resource = _attributes({"service.name": service, "service.version": version,
                            "telemetry.sdk.name": "coopgraph", "telemetry.sdk.language": "python"})
    return {"resourceSpans": [{"resource": {"attributes": resource},
                               "scopeSpans": [{"scope": {"name": "coopgraph.trace_export"}, "spans": builder.spans}]}],
            "_counts": counts}


def _stretch_parents(spans: list[dict[str, Any]]) -> None:
    """Make every parent cover its children (decision spans are opened at their first child)."""
    by_id = {s["spanId"]: s for s in spans}
    for span in reversed(spans):
        parent = by_id.get(span.get("parentSpanId", ""))
        while parent is not None:
            if int(span["startTimeUnixNano"]) < int(parent["startTimeUnixNano"]):
                parent["startTimeUnixNano"] = span["startTimeUnixNano"]
            if int(span["endTimeUnixNano"]) > int(parent["endTimeUnixNano"]):
                parent["endTimeUnixNano"] = span["endTimeUnixNano"]
            span, parent = parent, by_id.get(parent.get("parentSpanId", ""))


def to_protobuf(payload: dict[str, Any]) -> bytes:
    """The same request as binary OTLP protobuf, for collectors that take only `application/x-protobuf`
    (Phoenix). Needs the `opentelemetry-proto` package (chromadb already depends on it)."""
    try:
        from google.protobuf import json_format
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
    except ImportError as exc:
        raise RuntimeError("--otlp-proto needs opentelemetry-proto: pip install opentelemetry-proto") from exc
    data = json.loads(json.dumps(payload))
    for resource in data["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:  # protobuf's JSON mapping takes bytes as base64, OTLP/JSON as hex
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = base64.b64encode(bytes.fromhex(span[key])).decode()
    return json_format.ParseDict(data, ExportTraceServiceRequest()).SerializeToString()


def write_otlp(trace: str | Path, *, json_path: str | Path | None = None,
               proto_path: str | Path | None = None) -> dict[str, Any]:
    """Write OTLP/JSON and/or binary OTLP protobuf for one trace; returns the span counts and paths."""
    payload = to_otlp(read_events(trace))
    counts = payload.pop("_counts")
    info: dict[str, Any] = {"trace": str(trace), **counts}
    if json_path is not None:
        target = Path(json_path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(payload, ensure_ascii=False), encoding="utf-8")
        info["otlp_json"] = str(target)
    if proto_path is not None:
        target = Path(proto_path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(to_protobuf(payload))
        info["otlp_proto"] = str(target)
    return info
