"""Compiling a validated spec into a LangGraph `StateGraph` over the shared `AgentState`.

One compiled graph can serve many agents: each invocation receives that agent's resources as the
LangGraph runtime context, and every node run is wrapped so it is traced and its writes are
checked against what the node declared.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from langgraph.graph import END as LG_END
from langgraph.graph import START, StateGraph
from langgraph.runtime import Runtime

from coopgraph.graphs.loader import LoadedSpec, load_spec
from coopgraph.graphs.spec import END, GraphSpec, NodeSpec, RouterEdge
from coopgraph.nodes.context import AgentResources, NodeContext
from coopgraph.nodes.registry import NODES, ROUTERS, NodeInfo, RouterInfo
from coopgraph.nodes.state import AgentState


class NodeContractError(RuntimeError):
    """A node wrote a key it did not declare, or a router returned a branch it did not declare."""


def _target(name: str) -> str:
    return LG_END if name == END else name


def build_program(info: NodeInfo, node: NodeSpec, spec_dir: Path) -> Any:
    """The node's dspy.Module, with a saved program (instructions, demos) loaded when the spec names one."""
    if info.program is None:
        return None
    program = info.program()
    if node.program:
        program.load(str(spec_dir / node.program))
    return program


def _node_runner(
    node_id: str, node: NodeSpec, info: NodeInfo, program: Any
) -> Callable[[AgentState, Runtime[AgentResources]], dict[str, Any]]:
    params = info.params.model_validate(node.params)
    prompt = node.prompt or info.prompt
    declared = set(info.writes)

    def run(state: AgentState, runtime: Runtime[AgentResources]) -> dict[str, Any]:
        resources = runtime.context or AgentResources()
        ctx = NodeContext(node_id, info.name, params, resources, prompt, program)
        tracer = resources.tracer
        if tracer is None:
            update = info.fn(state, ctx)
        else:
            with tracer.span("node", node=node_id, use=info.name) as out:
                update = info.fn(state, ctx)
                out["update"] = update
        extra = set(update) - declared
        if extra:
            raise NodeContractError(f"node {node_id!r} ({info.name}) wrote undeclared keys {sorted(extra)}")
        return update

    run.__name__ = node_id
    return run


def _router_runner(edge: RouterEdge, info: RouterInfo) -> Callable[[AgentState, Runtime[AgentResources]], str]:
    params = info.params.model_validate(edge.params)

    def route(state: AgentState, runtime: Runtime[AgentResources]) -> str:
        resources = runtime.context or AgentResources()
        ctx = NodeContext(f"{edge.source}:router", info.name, params, resources)
        branch = info.fn(state, ctx)
        if branch not in edge.branches:
            raise NodeContractError(
                f"router {info.name!r} after {edge.source!r} returned {branch!r}; declared: {sorted(edge.branches)}"
            )
        if resources.tracer is not None:
            resources.tracer.event("route", node=edge.source, router=info.name, branch=branch)
        return branch

    return route


def build_state_graph(loaded: LoadedSpec) -> StateGraph[AgentState, AgentResources, AgentState, AgentState]:
    """The uncompiled StateGraph, for callers that add checkpointers or inspect structure."""
    spec: GraphSpec = loaded.spec
    graph = StateGraph(AgentState, context_schema=AgentResources)
    spec_dir = loaded.path.parent
    for node_id, node in spec.nodes.items():
        info = NODES.get(node.use)
        runner = _node_runner(node_id, node, info, build_program(info, node, spec_dir))
        graph.add_node(node_id, runner)  # type: ignore[call-overload]  # langgraph's overloads miss Runtime[C]
    graph.add_edge(START, spec.entry)
    for _, source, target in spec.chain_pairs():
        graph.add_edge(source, _target(target))
    for _, edge in spec.router_edges():
        info = ROUTERS.get(edge.router)
        graph.add_conditional_edges(
            edge.source, _router_runner(edge, info), {b: _target(t) for b, t in edge.branches.items()}
        )
    return graph


def compile_spec(ref: str | Path | LoadedSpec, **compile_kwargs: Any) -> Any:
    """Load (if needed), validate and compile a spec into a runnable LangGraph graph."""
    loaded = ref if isinstance(ref, LoadedSpec) else load_spec(ref)
    compiled = build_state_graph(loaded).compile(name=loaded.spec.name, **compile_kwargs)
    compiled.spec = loaded  # type: ignore[attr-defined]
    return compiled


def node_context(loaded: LoadedSpec, node_id: str, resources: AgentResources | None = None) -> NodeContext:
    """The context a node gets inside the graph, for running its program outside it (optimizers, benches)."""
    node = loaded.spec.nodes[node_id]
    info = NODES.get(node.use)
    program = build_program(info, node, loaded.path.parent)
    return NodeContext(node_id, info.name, info.params.model_validate(node.params),
                       resources or AgentResources(), node.prompt or info.prompt, program)
