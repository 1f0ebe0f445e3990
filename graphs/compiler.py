"""Compiling a validated spec into a LangGraph `StateGraph` whose state holds the keys its nodes declare.

One compiled graph can serve many agents: each invocation receives that agent's resources as the LangGraph
runtime context and runs on that agent's thread, and every node run is wrapped so it is traced and its writes
are checked against what the node declared. A node that changes a channel (belief, history, running plan, a
method's record) returns it, so the checkpointer saves it with the step; nothing is written back behind it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from langgraph.graph import END as LG_END
from langgraph.graph import START, StateGraph
from langgraph.runtime import Runtime

from coopgraph.graphs.loader import LoadedSpec, load_spec
from coopgraph.graphs.spec import END, GraphSpec, LLMSampling, NodeSpec, RouterEdge
from coopgraph.graphs.state_schema import spec_keys, state_schema
from coopgraph.memory.agent_memory import AgentMemory
from coopgraph.nodes.context import AgentResources, NodeContext
from coopgraph.nodes.registry import NODES, ROUTERS, NodeInfo, RouterInfo
from coopgraph.nodes.state import BELIEF, memory_view


class NodeContractError(RuntimeError):
    """A node wrote a key it did not declare, or a router returned a branch it did not declare."""


def build_program(info: NodeInfo, node: NodeSpec, spec_dir: Path) -> Any:
    """The node's dspy.Module, with a saved program (instructions, demos) loaded when the spec names one."""
    if info.program is None:
        return None
    program = info.program()
    if node.program:
        program.load(str(spec_dir / node.program))
    return program


def _node_runner(
    node_id: str, node: NodeSpec, info: NodeInfo, program: Any, sampling: LLMSampling | None = None
) -> Callable[[Any, Runtime[AgentResources]], dict[str, Any]]:
    params = info.params.model_validate(node.params)
    prompt = node.prompt or info.prompt
    declared = set(info.writes)
    channels = {written.name for written in info.keys if written.persists}  # saved by the checkpointer, not traced

    def run(state: Any, runtime: Runtime[AgentResources]) -> dict[str, Any]:
        resources = runtime.context or AgentResources()
        ctx = NodeContext(node_id, info.name, params, resources, prompt, program, step_memory(state, resources),
                          sampling)
        tracer = resources.tracer
        if tracer is None:
            update = info.fn(state, ctx)
        else:
            with tracer.span("node", node=node_id, use=info.name) as out:
                update = info.fn(state, ctx)
                out["update"] = {key: value for key, value in update.items() if key not in channels}
        extra = set(update) - declared
        if extra:
            raise NodeContractError(f"node {node_id!r} ({info.name}) wrote undeclared keys {sorted(extra)}")
        return update

    run.__name__ = node_id
    return run


def step_memory(state: Any, resources: AgentResources) -> AgentMemory | None:
    """The memory view over this step's channels, or None when the graph runs without them (a bare invoke)."""
    if BELIEF not in state:
        return None
    vector = resources.memory.vector if resources.memory is not None else None
    return memory_view(state, vector)


def channels_of(loaded: LoadedSpec) -> tuple[str, ...]:
    """The channels a spec's graph carries (what outlives a step): the core ones plus every family channel its
    nodes read or write."""
    return tuple(name for name, declared in spec_keys(loaded).items() if declared.persists)


def _router_runner(edge: RouterEdge, info: RouterInfo) -> Callable[[Any, Runtime[AgentResources]], str]:
    params = info.params.model_validate(edge.params)

    def route(state: Any, runtime: Runtime[AgentResources]) -> str:
        resources = runtime.context or AgentResources()
        ctx = NodeContext(f"{edge.source}:router", info.name, params, resources,
                          step_memory=step_memory(state, resources))
        branch = info.fn(state, ctx)
        if branch not in edge.branches:
            raise NodeContractError(
                f"router {info.name!r} after {edge.source!r} returned {branch!r}; declared: {sorted(edge.branches)}"
            )
        if resources.tracer is not None:
            resources.tracer.event("route", node=edge.source, router=info.name, branch=branch)
        return branch

    return route


def build_state_graph(loaded: LoadedSpec) -> StateGraph[Any, AgentResources, Any, Any]:
    """The uncompiled StateGraph, for callers that add checkpointers or inspect structure."""
    spec: GraphSpec = loaded.spec
    graph: StateGraph[Any, AgentResources, Any, Any] = StateGraph(
        state_schema(spec.name, spec_keys(loaded)), context_schema=AgentResources)
    spec_dir = loaded.path.parent
    for node_id, node in spec.nodes.items():
        info = NODES.get(node.use)
        runner = _node_runner(node_id, node, info, build_program(info, node, spec_dir), spec.llm)
        graph.add_node(node_id, runner)  # type: ignore[call-overload]  # langgraph's overloads miss Runtime[C]
    graph.add_edge(START, spec.entry)
    for _, source, target in spec.chain_pairs():
        graph.add_edge(source, LG_END if target == END else target)
    for _, edge in spec.router_edges():
        info = ROUTERS.get(edge.router)
        graph.add_conditional_edges(
            edge.source, _router_runner(edge, info), {b: LG_END if t == END else t for b, t in edge.branches.items()}
        )
    return graph


def compile_spec(ref: str | Path | LoadedSpec, **compile_kwargs: Any) -> Any:
    """Load (if needed), validate and compile a spec into a runnable LangGraph graph."""
    loaded = ref if isinstance(ref, LoadedSpec) else load_spec(ref)
    compiled = build_state_graph(loaded).compile(name=loaded.spec.name, **compile_kwargs)
    compiled.spec = loaded  # type: ignore[attr-defined]
    return compiled


def node_context(loaded: LoadedSpec, node_id: str, resources: AgentResources | None = None,
                 memory: AgentMemory | None = None) -> NodeContext:
    """The context a node gets inside the graph, for running it outside (optimizers, benches, tests); `memory`
    is the step's memory view (e.g. `GraphAgent.memory`), else the resources' memory is used."""
    node = loaded.spec.nodes[node_id]
    info = NODES.get(node.use)
    program = build_program(info, node, loaded.path.parent)
    return NodeContext(node_id, info.name, info.params.model_validate(node.params),
                       resources or AgentResources(), node.prompt or info.prompt, program, memory, loaded.spec.llm)
