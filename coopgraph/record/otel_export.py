"""`coopgraph trace export`: a trace as OpenTelemetry spans (GenAI conventions), in OTLP/JSON or OTLP protobuf.

The trace is read into a span tree (episode `invoke_workflow` → `invoke_agent` per agent decision → a span per
node run → a `chat` span per LLM call with `gen_ai.*` attributes); the OpenTelemetry SDK makes the spans with the
trace's own times, and the SDK exporters' OTLP encoder writes them. Ids derive from the trace, so one trace always
exports the same bytes. Only trace fields are read (never the manifest's LLM settings, keys or headers).
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from google.protobuf import json_format
from opentelemetry import trace as trace_api
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, SpanLimits, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.id_generator import IdGenerator
from opentelemetry.sdk.trace.sampling import ALWAYS_ON
from opentelemetry.sdk.version import __version__ as sdk_version
from opentelemetry.trace import SpanKind, Status, StatusCode

from coopgraph.record.trace_file import read_events

SCOPE = "coopgraph.trace_export"


@dataclass
class _Span:
    """A span planned from the trace; decision spans open at their first child and are stretched to cover all."""

    name: str
    start: float
    end: float
    attributes: dict[str, Any]
    kind: SpanKind = SpanKind.INTERNAL
    error: str | None = None
    events: list[tuple[str, float, dict[str, Any]]] = field(default_factory=list)
    children: list[_Span] = field(default_factory=list)

    def cover(self) -> None:
        for child in self.children:
            child.cover()
            self.start, self.end = min(self.start, child.start), max(self.end, child.end)
        self.end = max(self.end, self.start)


class _TraceIds(IdGenerator):
    """Ids derived from the trace (the same trace exports the same file); remembers the order spans were opened."""

    def __init__(self, key: str) -> None:
        self.key = key
        self.order: dict[int, int] = {}

    def generate_trace_id(self) -> int:
        return int.from_bytes(hashlib.sha256(self.key.encode()).digest()[:16], "big") or 1

    def generate_span_id(self) -> int:
        span_id = int.from_bytes(hashlib.sha256(f"{self.key}/{len(self.order)}".encode()).digest()[:8], "big") or 1
        self.order[span_id] = len(self.order)
        return span_id


def _attribute(value: Any) -> Any:
    """OpenTelemetry attribute values are scalars or lists of strings; anything else goes as JSON text."""
    if isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list | tuple) and value and all(isinstance(v, str) for v in value):
        return list(value)
    return json.dumps(value, ensure_ascii=False, default=str)


def _attributes(values: dict[str, Any]) -> dict[str, Any]:
    return {k: _attribute(v) for k, v in values.items() if v is not None}


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
        "gen_ai.input.messages": [{"role": m.get("role"), "parts": [{"type": "text", "content": m.get("content", "")}]}
                                  for m in prompt],
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


def _plan(events: list[dict[str, Any]]) -> _Span:
    """The span tree of one trace: episode → agent decision → node run → LLM call."""
    start = next((e for e in events if e.get("type") == "episode_start"), {})
    manifest = next((e for e in events if e.get("type") == "manifest"), {})
    end = next((e for e in events if e.get("type") == "episode_end"), {})
    times = [float(e["t"]) for e in events if isinstance(e.get("t"), int | float)]
    t0, t1 = (min(times), max(times)) if times else (0.0, 0.0)
    episode = f"{start.get('env')} {start.get('episode')}"
    root = _Span(f"episode {episode}", t0, t1, {
        "gen_ai.operation.name": "invoke_workflow", "gen_ai.workflow.name": f"episode {episode}",
        "gen_ai.conversation.id": f"{episode} seed {start.get('seed')}",
        "coopgraph.env": start.get("env"), "coopgraph.episode": start.get("episode"),
        "coopgraph.seed": start.get("seed"), "coopgraph.team": start.get("team"),
        "coopgraph.success": end.get("success"), "coopgraph.steps": end.get("steps"),
        **{f"coopgraph.metrics.{k}": v for k, v in (end.get("metrics") or {}).items()}})
    step, decisions = 0, {}
    open_nodes: dict[tuple[str, str], _Span] = {}  # (agent, node) → its node span, until node_end

    def decision(agent: str, at: float) -> _Span:
        if (agent, step) not in decisions:
            decisions[(agent, step)] = _Span(f"invoke_agent {agent}", at, at, {
                "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": agent,
                "gen_ai.agent.id": f"{agent}:{(manifest.get('specs') or {}).get(agent, {}).get('name', '')}",
                "coopgraph.step": step})
            root.children.append(decisions[(agent, step)])
        return decisions[(agent, step)]

    def child(parent: _Span, span: _Span) -> _Span:
        parent.children.append(span)
        return span

    for event in events:
        kind, agent, t = event.get("type"), event.get("agent"), float(event.get("t") or t0)
        node = str(event.get("node"))
        if kind == "env_step":
            step = int(event.get("step", step))
        elif kind == "node_start" and agent:  # opened now so LLM calls inside can name it as their parent
            open_nodes[(agent, node)] = child(decision(agent, t), _Span(f"node {node}", t, t, {
                "coopgraph.node": event.get("node"), "coopgraph.node.use": event.get("use"), "coopgraph.step": step}))
        elif kind == "node_end" and agent:
            span = open_nodes.pop((agent, node), None)
            if span is None:  # no node_start: the span starts latency_s before its end
                began = t - float(event.get("latency_s") or 0)
                span = child(decision(agent, began), _Span(f"node {node}", began, began, {
                    "coopgraph.node": event.get("node"), "coopgraph.step": step}))
            span.end, span.error = max(span.start, t), event.get("error")
        elif kind in ("llm_call", "llm_error") and agent:
            began = t - float(event.get("latency_s") or 0)
            parent = open_nodes.get((agent, node)) or decision(agent, began)
            prompt_text = json.dumps(event.get("prompt") or [], ensure_ascii=False)
            child(parent, _Span(f"chat {event.get('model') or ''}".strip(), began, t, _llm_attributes(event, agent),
                                SpanKind.CLIENT, event.get("error") if kind == "llm_error" else None,
                                [("gen_ai.content.prompt", t, {"gen_ai.prompt": prompt_text}),
                                 ("gen_ai.content.completion", t, {"gen_ai.completion": event.get("response") or ""})]))
    root.cover()
    return root


def _ns(seconds: float) -> int:
    return max(0, int(round(seconds * 1e9)))


def _emit(tracer: trace_api.Tracer, span: _Span, parent: trace_api.Span | None) -> None:
    context = trace_api.set_span_in_context(parent) if parent is not None else None
    otel = tracer.start_span(span.name, context=context, kind=span.kind, attributes=_attributes(span.attributes),
                             start_time=_ns(span.start))
    for name, at, attributes in span.events:
        otel.add_event(name, _attributes(attributes), timestamp=_ns(at))
    otel.set_status(Status(StatusCode.ERROR, str(span.error)) if span.error else Status(StatusCode.OK))
    for child in span.children:
        _emit(tracer, child, otel)
    otel.end(end_time=_ns(span.end))


def to_spans(events: list[dict[str, Any]], service: str = "coopgraph") -> list[ReadableSpan]:
    """The trace's spans as finished OpenTelemetry SDK spans, root first (the order they were opened)."""
    root = _plan(events)
    manifest = next((e for e in events if e.get("type") == "manifest"), {})
    resource = Resource(_attributes({
        "service.name": service, "service.version": (manifest.get("versions") or {}).get("coopgraph"),
        "telemetry.sdk.name": "opentelemetry", "telemetry.sdk.language": "python",
        "telemetry.sdk.version": sdk_version}))  # not Resource.create: no host or process details, no env vars
    ids = _TraceIds(f"{root.name}/{root.start}/{len(events)}")
    unlimited = SpanLimits(**{f"max_{k}": SpanLimits.UNSET for k in (  # long prompts keep every message
        "attributes", "events", "span_attributes", "event_attributes", "attribute_length", "span_attribute_length")})
    provider = TracerProvider(sampler=ALWAYS_ON, resource=resource, id_generator=ids, span_limits=unlimited,
                              shutdown_on_exit=False)
    exporter = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    _emit(provider.get_tracer(SCOPE), root, None)
    provider.shutdown()
    return sorted(exporter.get_finished_spans(), key=lambda s: ids.order[s.context.span_id])


def to_otlp_json(request: ExportTraceServiceRequest) -> dict[str, Any]:
    """OTLP/JSON: protobuf's JSON mapping (lowerCamelCase keys) with enums as integers and ids in hex, not base64."""
    payload = json_format.MessageToDict(request, use_integers_for_enums=True)
    for resource in payload.get("resourceSpans", []):
        for scope in resource.get("scopeSpans", []):
            for span in scope.get("spans", []):
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = base64.b64decode(span[key]).hex()
    return payload


def write_otlp(trace: str | Path, *, json_path: str | Path | None = None,
               proto_path: str | Path | None = None) -> dict[str, Any]:
    """Write OTLP/JSON and/or binary OTLP protobuf for one trace; returns the span counts and paths."""
    spans = to_spans(read_events(trace))
    if not spans:
        raise RuntimeError("the OpenTelemetry SDK is off (OTEL_SDK_DISABLED=true): unset it to export")
    request = encode_spans(spans)
    info: dict[str, Any] = {"trace": str(trace), "spans": len(spans),
                            "llm_spans": sum(s.kind == SpanKind.CLIENT for s in spans)}
    if json_path is not None:
        target = Path(json_path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(to_otlp_json(request), ensure_ascii=False), encoding="utf-8")
        info["otlp_json"] = str(target)
    if proto_path is not None:
        target = Path(proto_path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(request.SerializeToString())
        info["otlp_proto"] = str(target)
    return info
