"""The graph-spec schema: what a `graphs/*.yaml` file may say, checked by pydantic.

A spec names nodes by registry name, passes them params, wires them with chain edges
(`a -> b -> END`) and router edges, and may extend a base spec so an ablation is a few lines.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

END = "END"
_ID = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class NodeSpec(BaseModel):
    """One node of the wiring: which registered function, with which params and prompt."""

    model_config = ConfigDict(extra="forbid")

    use: str = Field(description="registry name of the node, e.g. planning.choose_action")
    params: dict[str, Any] = Field(default_factory=dict)
    prompt: str | None = Field(default=None, description="template name, e.g. planning/choose_action")
    program: str | None = Field(default=None, description="saved DSPy program JSON, relative to the spec")
    description: str = ""


class RouterEdge(BaseModel):
    """A conditional edge: after `source`, a registered router picks one of `branches`."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    source: str = Field(alias="from")
    router: str
    branches: dict[str, str]
    params: dict[str, Any] = Field(default_factory=dict)


class AgentSettings(BaseModel):
    """What the agent around the graph keeps: the episodic windows and the vector store, in one typed place."""

    model_config = ConfigDict(extra="forbid")

    actions_kept: int = Field(default=10, ge=0, le=1000, description="episodic memory: last K high-level actions")
    messages_kept: int = Field(default=3, ge=0, le=1000, description="episodic memory: last D dialogue lines")
    vector_memory: bool = Field(default=True, description="keep a Chroma store of sightings and messages")


class LLMSampling(BaseModel):
    """How a wiring asks its LLM (its paper's sampling), for every LLM node of the spec; unset: as the LLM setting
    (`--llm`) asks, which is temperature 0 and each node's own reply cap. The setting still chooses the model.

    A node's explicit `max_tokens` param wins over `max_tokens` here; a spec's `llm:` block replaces its base's
    whole (write every field you keep)."""

    model_config = ConfigDict(extra="forbid")

    temperature: float | None = Field(default=None, ge=0.0, le=2.0, description="sampling temperature")
    top_p: float | None = Field(default=None, gt=0.0, le=1.0, description="nucleus sampling mass")
    max_tokens: int | None = Field(default=None, ge=1, le=4096, description="longest reply of a free-text node "
                                   "or of a free chain of thought before a choice")

    def options(self) -> dict[str, float]:
        """The per-call request options this block sets (sent with every call, so part of every cache key)."""
        return {k: v for k, v in (("temperature", self.temperature), ("top_p", self.top_p)) if v is not None}


class GraphSpec(BaseModel):
    """A whole agent wiring after `extends:` has been resolved."""

    model_config = ConfigDict(extra="forbid")

    name: str
    description: str = ""
    extends: str | None = None
    params: dict[str, Any] = Field(default_factory=dict)
    agent: AgentSettings = Field(default_factory=AgentSettings)
    llm: LLMSampling = Field(default_factory=LLMSampling)
    inputs: list[str] = Field(default_factory=list, description="per-step keys the caller supplies with each "
                              "invocation (beyond what the runner writes), so nodes may read them unwritten")
    entry: str
    nodes: dict[str, NodeSpec]
    edges: list[str | RouterEdge] = Field(default_factory=list)

    @field_validator("inputs")
    @classmethod
    def _known_inputs(cls, inputs: list[str]) -> list[str]:
        from coopgraph.nodes.registry import declared_keys

        if not inputs:
            return inputs
        known = declared_keys()
        unknown = [key for key in inputs if key not in known]
        if unknown:
            raise ValueError(f"unknown state key {', '.join(map(repr, unknown))} "
                             f"(keys nodes declare: {', '.join(sorted(known))})")
        return inputs

    @field_validator("nodes")
    @classmethod
    def _node_ids(cls, nodes: dict[str, NodeSpec]) -> dict[str, NodeSpec]:
        for node_id in nodes:
            if not _ID.match(node_id) or node_id == END:
                raise ValueError(f"node id {node_id!r} must be an identifier other than END")
        return nodes

    def chain_pairs(self) -> list[tuple[int, str, str]]:
        """(edge index, source, target) for every arrow of every chain edge."""
        pairs: list[tuple[int, str, str]] = []
        for index, edge in enumerate(self.edges):
            if isinstance(edge, str):
                parts = [p.strip() for p in edge.split("->")]
                pairs.extend((index, a, b) for a, b in zip(parts, parts[1:], strict=False))
        return pairs

    def router_edges(self) -> list[tuple[int, RouterEdge]]:
        return [(i, e) for i, e in enumerate(self.edges) if isinstance(e, RouterEdge)]
