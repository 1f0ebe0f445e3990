"""A spec's LangGraph state schema, assembled from the keys its nodes declare (E316: two declarations clash).

Each node declares the keys it writes (`StateKey`: type, reducer, whether it outlives the step); a spec's state
holds exactly the runner's keys, the core channels, every key its nodes write, every family channel they read,
and the keys its `inputs:` names. So a new node brings its keys with it, and the schema of one wiring never
carries another method's keys.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, TypedDict

from coopgraph.graphs.errors import SpecError
from coopgraph.nodes.registry import NODES, declared_keys
from coopgraph.nodes.state import CHANNELS, CORE_CHANNELS, RUNNER_KEYS, StateKey

if TYPE_CHECKING:
    from coopgraph.graphs.loader import LoadedSpec


class KeyConflict(ValueError):
    """Two nodes of one spec declare one key differently (another type or reducer)."""


def _declarations(loaded: LoadedSpec) -> list[tuple[str, StateKey]]:
    """(who, declaration) for every key the spec's state holds, the runner's first, in the spec's node order."""
    found: list[tuple[str, StateKey]] = [("the runner", k) for k in (*RUNNER_KEYS.values(), *CORE_CHANNELS)]
    for node_id, node in loaded.spec.nodes.items():
        info = NODES.get(node.use)
        found += [(node_id, written) for written in info.keys]
        found += [(node_id, CHANNELS[read]) for read in info.reads if read in CHANNELS]
    if loaded.spec.inputs:
        known = declared_keys()
        found += [("inputs:", known[name]) for name in loaded.spec.inputs if name in known]
    return found


def key_conflicts(loaded: LoadedSpec) -> list[tuple[str, StateKey, str, StateKey]]:
    """(first declarer, its declaration, the node that disagrees, its declaration) per clash in the spec."""
    first: dict[str, tuple[str, StateKey]] = {}
    clashes = []
    for who, declared in _declarations(loaded):
        if declared.name not in first:
            first[declared.name] = (who, declared)
            continue
        earlier, kept = first[declared.name]
        if not kept.same_declaration(declared):
            clashes.append((earlier, kept, who, declared))
        elif kept.type is Any:
            first[declared.name] = (who, declared)  # a typed declaration stands for an untyped one
    return clashes


def spec_keys(loaded: LoadedSpec) -> dict[str, StateKey]:
    """Every key of the spec's state with its declaration; a clash raises `KeyConflict` (a checked spec never
    gets here with one: the load refuses it as E316)."""
    clashes = key_conflicts(loaded)
    if clashes:
        raise KeyConflict(f"{loaded.path}: " + _conflict_message(*clashes[0]))
    keys: dict[str, StateKey] = {}
    for _, declared in _declarations(loaded):
        if declared.name not in keys or keys[declared.name].type is Any:
            keys[declared.name] = declared
    return keys


def state_schema(name: str, keys: dict[str, StateKey]) -> type:
    """The TypedDict LangGraph builds its channels from: each key's type, `Annotated` with its reducer."""
    fields = {k: Annotated[d.type, d.reducer] if d.reducer is not None else d.type for k, d in keys.items()}
    return TypedDict(f"{name}_state", fields, total=False)  # type: ignore[operator, no-any-return]


def check_keys(loaded: LoadedSpec) -> list[SpecError]:
    """E316 for each node that declares a key another node (or the runner) of the spec declares differently."""
    errors = []
    for earlier, kept, node_id, declared in key_conflicts(loaded):
        file, mark = loaded.where(("nodes", node_id) if node_id in loaded.spec.nodes else ("inputs",))
        errors.append(SpecError("E316", _conflict_message(earlier, kept, node_id, declared), file,
                                mark.line if mark else None, mark.column if mark else None))
    return errors


def _conflict_message(earlier: str, kept: StateKey, who: str, declared: StateKey) -> str:
    node = f"node {who!r}" if who not in ("the runner", "inputs:") else who
    first = f"node {earlier!r}" if earlier not in ("the runner", "inputs:") else earlier
    return f"{node} declares {declared.describe()}, but {first} declares {kept.describe()}"
