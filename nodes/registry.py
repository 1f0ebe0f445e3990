"""The node and router registries: YAML specs name functions by these dotted names.

Registering by decorator keeps a node's contract (what it reads, writes and which params it
takes) next to its code, so the spec validator, the compiler and the generated node docs all
read one source of truth.
"""

from __future__ import annotations

import difflib
import inspect
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict

from coopgraph.nodes.state import CHANNELS, RUNNER_KEYS, StateKey

#: The keys a node adds to the facts: fixed, or read from its params (a key some params turn on).
FactKeys = tuple[str, ...] | Callable[[Any], Iterable[str]]


class NoParams(BaseModel):
    """Params model for nodes that take none; unknown keys are errors."""

    model_config = ConfigDict(extra="forbid")


@dataclass(frozen=True)
class NodeInfo:
    """A registered node: `fn(state, ctx) -> update` plus its declared contract."""

    name: str
    fn: Callable[..., dict[str, Any]]
    reads: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    optional_reads: tuple[str, ...] = ()  # the part of `reads` the node copes without (read as None)
    params: type[BaseModel] = NoParams
    uses_llm: bool = False
    doc: str = ""
    prompt: str | None = None  # default template; a spec's `prompt:` overrides it
    program: type | None = None  # the dspy.Module class an LLM node runs
    requires: frozenset[str] = frozenset()  # capabilities of a world's kit it needs (envs/capabilities.py)
    template_vars: tuple[str, ...] = ()  # what an LLM node hands its template besides the facts and the adapter's
    template_facts: bool = True  # whether the step's `facts` go into its template's variables too
    adds_facts: FactKeys | None = None  # a node writing `facts`: the keys it adds (None: any, unknown)
    keys: tuple[StateKey, ...] = ()  # the declaration (type, reducer) of each key in `writes`, same order

    @property
    def template_adds(self) -> tuple[str, ...]:
        """What the adapter puts in the node's template variables itself: `instructions`, and for a choice (a
        program asked with options) the `options`."""
        forward = getattr(self.program, "forward", None)
        choice = forward is not None and "options" in inspect.signature(forward).parameters
        return ("instructions", "options") if choice else ("instructions",)

    def facts_added(self, params: BaseModel) -> frozenset[str] | None:
        """The keys this node adds to the facts with these params; None when it does not say (any key)."""
        if self.adds_facts is None:
            return None
        return frozenset(self.adds_facts(params) if callable(self.adds_facts) else self.adds_facts)


@dataclass(frozen=True)
class RouterInfo:
    """A registered router: `fn(state, ctx) -> branch`, with every branch it may return declared."""

    name: str
    fn: Callable[..., str]
    branches: tuple[str, ...]
    reads: tuple[str, ...] = ()
    params: type[BaseModel] = NoParams
    doc: str = ""
    requires: frozenset[str] = frozenset()
    optional_reads: tuple[str, ...] = ()


@dataclass
class Registry:
    """Name → entry map whose misses list close matches and everything that exists.

    `renamed` maps names entries were once registered under to their names now, so a spec written against
    an old name still loads (the loader rewrites it with a W202 warning) and a lookup by it says what to use.
    """

    kind: str
    entries: dict[str, Any] = field(default_factory=dict)
    renamed: dict[str, str] = field(default_factory=dict)

    def add(self, name: str, entry: Any) -> None:
        if name in self.entries and self.entries[name].fn is not entry.fn:
            raise ValueError(f"{self.kind} {name!r} is already registered by {self.entries[name].fn!r}")
        self.entries[name] = entry

    def get(self, name: str) -> Any:
        _ensure_library_loaded()
        if name not in self.entries:
            if name in self.renamed:
                raise KeyError(f"{self.kind} {name!r} is now {self.renamed[name]!r}")
            raise KeyError(unknown_name_message(self.kind, name, self.entries))
        return self.entries[name]

    def names(self) -> list[str]:
        _ensure_library_loaded()
        return sorted(self.entries)


def unknown_name_message(kind: str, name: str, known: Any) -> str:
    known = sorted(known)
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    return f"unknown {kind} {name!r}{hint} (known: {', '.join(known) or 'none'})"


#: Routers were once all `route.*`; each now sits beside the family whose keys it branches on, named after it.
_ROUTER_RENAMES = {
    "route.after_step": "execution.after_step",
    "route.awaiting": "validation.awaiting",
    "route.capo_next": "metaplan.capo_next",
    "route.capo_turn": "metaplan.capo_turn",
    "route.has_choice": "planning.has_choice",
    "route.needs_plan": "execution.needs_plan",
    "route.reported": "communication.reported",
    "route.spoke": "dialogue.spoke",
    "route.validated": "validation.validated",
}

NODES = Registry("node")
ROUTERS = Registry("router", renamed=_ROUTER_RENAMES)


def node(
    name: str,
    *,
    reads: tuple[str, ...] = (),
    writes: Iterable[str] = (),
    optional_reads: tuple[str, ...] = (),
    params: type[BaseModel] = NoParams,
    prompt: str | None = None,
    program: type | None = None,
    requires: Iterable[str] = (),
    template_vars: tuple[str, ...] = (),
    template_facts: bool = True,
    adds_facts: FactKeys | None = None,
) -> Callable[[Callable[..., dict[str, Any]]], Callable[..., dict[str, Any]]]:
    """Register `fn(state, ctx) -> dict` under a dotted name with its contract.

    `writes` names every key the node returns, each best as its `StateKey` declaration (`key(...)`,
    `channel(...)` in `coopgraph.nodes.state`): its type and reducer become the key's LangGraph channel in every
    spec that wires the node, with no central type to edit. A plain name is a key of type `Any` that defers to
    a typed declaration of it (a runner key or channel by that name is that declaration); two declarations of
    one key with different types or reducers in one spec are refused at load (E316). A channel the node
    changes (the belief, the running plan, a family's record) is returned like any key.

    An LLM node declares what it hands its template: the step's facts (unless `template_facts` is False) and
    `template_vars`; a node that writes `facts` declares the keys it adds (`adds_facts`, fixed or read from its
    params). The loader compares them with the variables each template reads, so a template that needs a value
    its node never hands it is refused before a run (E312) instead of failing mid-episode.

    Every key in `reads` must be written before the node runs (by a node upstream, the runner or the spec's
    `inputs:`; checked at load time, E308) unless it is also in `optional_reads`, the keys the node does
    without. Giving `program` (a dspy.Module class) marks the node as an LLM node whose prompt is `prompt`.
    `requires` names the kit capabilities the node reads the belief through; a spec using it is refused
    before an episode on a world whose kit lacks one.
    """
    needs = _known_capabilities(name, requires)
    _optional_within_reads(name, reads, optional_reads)
    keys = tuple(declaration(written) for written in writes)

    def register(fn: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
        doc = (fn.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")
        info = NodeInfo(name, fn, tuple(reads), tuple(k.name for k in keys), tuple(optional_reads), params,
                        program is not None, doc, prompt, program, needs, tuple(template_vars), template_facts,
                        adds_facts, keys)
        NODES.add(name, info)
        return fn

    return register


def router(
    name: str,
    *,
    branches: tuple[str, ...],
    reads: tuple[str, ...] = (),
    optional_reads: tuple[str, ...] = (),
    params: type[BaseModel] = NoParams,
    requires: Iterable[str] = (),
) -> Callable[[Callable[..., str]], Callable[..., str]]:
    """Register `fn(state, ctx) -> branch name`; returning an undeclared branch is an error.

    `reads` and `optional_reads` mean what they mean for a node: the router runs right after its source node.
    """
    needs = _known_capabilities(name, requires)
    _optional_within_reads(name, reads, optional_reads)

    def register(fn: Callable[..., str]) -> Callable[..., str]:
        doc = (fn.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")
        ROUTERS.add(name, RouterInfo(name, fn, tuple(branches), tuple(reads), params, doc, needs,
                                     tuple(optional_reads)))
        return fn

    return register


def declaration(written: str) -> StateKey:
    """A written key's declaration: itself when declared, else the runner key or channel of that name, else
    an untyped per-step key (`Any`, last write wins)."""
    if isinstance(written, StateKey):
        return written
    return RUNNER_KEYS.get(written) or CHANNELS.get(written) or StateKey(written)


def declared_keys() -> dict[str, StateKey]:
    """Every key some registered node, the runner or a channel declares (a spec's `inputs:` must name one)."""
    _ensure_library_loaded()
    found: dict[str, StateKey] = {**RUNNER_KEYS, **CHANNELS}
    for info in NODES.entries.values():
        for written in info.keys:
            if written.name not in found or found[written.name].type is Any:
                found[written.name] = written
    return found


def _optional_within_reads(name: str, reads: tuple[str, ...], optional_reads: tuple[str, ...]) -> None:
    """Refuse an optional read the entry does not also list in `reads` (`reads` is everything it reads)."""
    stray = sorted(set(optional_reads) - set(reads))
    if stray:
        raise ValueError(f"{name!r} lists optional reads {stray} that are not in its reads {list(reads)}")


def _known_capabilities(name: str, requires: Iterable[str]) -> frozenset[str]:
    """`requires` as a set, refusing names no kit could declare (a typo would otherwise pass everywhere)."""
    from coopgraph.envs.capabilities import CAPABILITIES

    needs = frozenset(requires)
    unknown = sorted(needs - set(CAPABILITIES))
    if unknown:
        raise ValueError(f"{name!r} requires unknown capabilities {unknown}; known: {sorted(CAPABILITIES)}")
    return needs


_loaded = False
_loading = threading.RLock()  # episodes on threads (`eval --concurrency`) may build their first graphs at once


def _ensure_library_loaded() -> None:
    """Import the shipped node families once so their decorators have run; a thread arriving meanwhile waits for
    them (re-entrant: importing the library reaches here again)."""
    global _loaded
    with _loading:
        if not _loaded:
            _loaded = True
            from coopgraph.nodes import library  # noqa: F401
