"""The read check (E308): every key a node or router reads is written before it on every path that reaches it.

A key counts as written when the runner writes it (the observation, the step, the channels), when the spec lists
it under `inputs:` (its caller supplies it), or when a node before the reader writes it on each path from the
entry; a read the entry declares optional is left alone. Per-step keys start every step empty, so a read that
fails here is a node reading None on that path, found before a run instead of as an odd choice during one.
"""

from __future__ import annotations

from collections import defaultdict, deque
from typing import TYPE_CHECKING

from coopgraph.graphs.errors import SpecError
from coopgraph.graphs.spec import END, GraphSpec
from coopgraph.nodes.registry import NODES, ROUTERS
from coopgraph.nodes.state import CHANNELS, RUNNER_KEYS

if TYPE_CHECKING:
    from coopgraph.graphs.loader import LoadedSpec


def check_reads(loaded: LoadedSpec) -> list[SpecError]:
    """One E308 per (reader, key) a path from the entry reaches with the key unwritten; names must resolve."""
    spec = loaded.spec
    writes = {node_id: set(NODES.get(node.use).writes) for node_id, node in spec.nodes.items()}
    predecessors: dict[str, set[str]] = defaultdict(set)
    successors: dict[str, set[str]] = defaultdict(set)
    for source, target in arrows(spec):
        predecessors[target].add(source)
        successors[source].add(target)
    before = written_before(spec.entry, writes, predecessors, successors, _start_keys(spec))
    errors: list[SpecError] = []

    def missing(reader: str, key: str, path: tuple, last: str) -> None:
        route = " -> ".join(_unwritten_path(spec.entry, last, key, writes, successors))
        writers = [node_id for node_id in spec.nodes if key in writes[node_id]]
        by = f"written by {', '.join(writers)}, not on that path" if writers else "no node of the spec writes it"
        file, mark = loaded.where(path)
        errors.append(SpecError("E308", f"{reader} reads {key!r}, which nothing writes before it on the path "
                                f"{route} ({by})", file, mark.line if mark else None,
                                mark.column if mark else None))

    for node_id, node in spec.nodes.items():
        if node_id not in before:
            continue  # unreachable: E305 says so
        info = NODES.get(node.use)
        for key in _required(info.reads, info.optional_reads):
            if key not in before[node_id]:
                missing(f"node {node_id!r} ({node.use})", key, ("nodes", node_id), node_id)
    for index, edge in spec.router_edges():
        if edge.source not in before:
            continue
        info = ROUTERS.get(edge.router)
        after_source = before[edge.source] | writes[edge.source]
        for key in _required(info.reads, info.optional_reads):
            if key not in after_source:
                missing(f"router {edge.router!r} after {edge.source!r}", key, ("edges", index, "router"), edge.source)
    return errors


def _required(reads: tuple[str, ...], optional: tuple[str, ...]) -> list[str]:
    return [key for key in reads if key not in optional]


def _start_keys(spec: GraphSpec) -> frozenset[str]:
    """What every invocation starts with: the runner's keys, the channels and the spec's declared inputs."""
    return frozenset(set(RUNNER_KEYS) | set(CHANNELS) | set(spec.inputs))


def arrows(spec: GraphSpec) -> list[tuple[str, str]]:
    """(source, target) of every way one node can run right after another, plain edge or router branch."""
    found = [(source, target) for _, source, target in spec.chain_pairs()]
    found += [(edge.source, target) for _, edge in spec.router_edges() for target in edge.branches.values()]
    return [(source, target) for source, target in found if target != END]


def written_before(entry: str, writes: dict[str, set[str]], predecessors: dict[str, set[str]],
                   successors: dict[str, set[str]], start: frozenset[str]) -> dict[str, set[str]]:
    """For each node reachable from the entry, the keys written on every path from the entry to it.

    The usual "definitely assigned" data flow: a node starts from what all its predecessors end with (the entry
    also from the start keys), iterated to a fixed point from "everything" downwards, so loops settle.
    """
    everything = set(start).union(*writes.values())
    reachable = _reachable(entry, successors)
    before = {node_id: set(everything) for node_id in reachable}
    before[entry] = set(start)
    changed = True
    while changed:
        changed = False
        for node_id in reachable:
            incoming = [before[p] | writes[p] for p in predecessors.get(node_id, ()) if p in reachable]
            if node_id == entry:
                incoming.append(set(start))
            now = set.intersection(*incoming) if incoming else set(start)
            if now != before[node_id]:
                before[node_id], changed = now, True
    return before


def _reachable(entry: str, successors: dict[str, set[str]]) -> set[str]:
    seen, queue = {entry}, deque([entry])
    while queue:
        for nxt in successors.get(queue.popleft(), set()) - seen:
            seen.add(nxt)
            queue.append(nxt)
    return seen


def _unwritten_path(entry: str, last: str, key: str, writes: dict[str, set[str]],
                    successors: dict[str, set[str]]) -> list[str]:
    """A shortest path from the entry to `last` on which no node before `last` writes `key`, entry first."""
    if entry == last:
        return [entry]
    parent: dict[str, str | None] = {entry: None}
    queue = deque([entry] if key not in writes[entry] else [])
    while queue:
        current = queue.popleft()
        for nxt in sorted(successors.get(current, ())):
            if nxt in parent:
                continue
            parent[nxt] = current
            if nxt == last:
                path = [nxt]
                while (back := parent[path[-1]]) is not None:
                    path.append(back)
                return path[::-1]
            if key not in writes[nxt]:
                queue.append(nxt)
    return [entry, "...", last]  # not reached when the data flow found the key missing
