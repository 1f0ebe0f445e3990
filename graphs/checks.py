"""Wiring checks on a schema-valid spec: names resolve, params fit, every node is reachable and can finish, and
every key a node reads is written before it (graphs/read_checks.py)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError

from coopgraph.graphs.errors import SpecError
from coopgraph.graphs.read_checks import check_reads
from coopgraph.graphs.spec import END
from coopgraph.graphs.state_schema import check_keys
from coopgraph.nodes.registry import NODES, ROUTERS, unknown_name_message
from coopgraph.prompts.render import available, template_exists

if TYPE_CHECKING:
    from coopgraph.graphs.loader import LoadedSpec


def check_spec(loaded: LoadedSpec) -> list[SpecError]:
    spec = loaded.spec
    errors: list[SpecError] = []

    def err(code: str, message: str, path: tuple) -> None:
        file, mark = loaded.where(path)
        errors.append(SpecError(code, message, file, mark.line if mark else None, mark.column if mark else None))

    for node_id, node in spec.nodes.items():
        try:
            info = NODES.get(node.use)
        except KeyError as exc:
            err("E202", str(exc.args[0]), ("nodes", node_id, "use"))
            continue
        try:
            info.params.model_validate(node.params)
        except ValidationError as exc:
            for e in exc.errors():
                loc = ("nodes", node_id, "params", *e["loc"])
                err("E203", f"node {node_id!r} ({node.use}) param {'.'.join(map(str, e['loc'])) or ''}: {e['msg']}",
                    loc)
        prompt = node.prompt or info.prompt
        if info.uses_llm and prompt and not template_exists(prompt):
            err("E207", f"no prompt template {prompt!r} (known: {', '.join(sorted(set(available())))})",
                ("nodes", node_id, "prompt"))
        if node.program and not (Path(loaded.path).parent / node.program).is_file():
            err("E208", f"program file {node.program!r} not found next to the spec", ("nodes", node_id, "program"))

    if spec.entry not in spec.nodes:
        err("E301", f"entry {spec.entry!r} is not a declared node", ("entry",))

    successors: dict[str, set[str]] = defaultdict(set)
    plain_sources: set[str] = set()
    for index, source, target in spec.chain_pairs():
        if source == END:
            err("E301", "END cannot have outgoing edges", ("edges", index))
            continue
        for name in (source, target):
            if name != END and name not in spec.nodes:
                err("E301", f"edge {source} -> {target} names undeclared node {name!r}"
                    f"{_close(name, spec.nodes)}", ("edges", index))
        successors[source].add(target)
        plain_sources.add(source)

    for index, edge in spec.router_edges():
        if edge.source not in spec.nodes:
            err("E301", f"router edge from undeclared node {edge.source!r}{_close(edge.source, spec.nodes)}",
                ("edges", index, "from"))
        if edge.source in plain_sources:
            err("E307", f"node {edge.source!r} has both plain edges and a router", ("edges", index))
        try:
            info = ROUTERS.get(edge.router)
        except KeyError as exc:
            err("E204", str(exc.args[0]), ("edges", index, "router"))
            info = None
        if info is not None:
            undeclared = sorted(set(edge.branches) - set(info.branches))
            missing = sorted(set(info.branches) - set(edge.branches))
            if undeclared:
                err("E302", f"router {edge.router!r} never returns {', '.join(undeclared)} "
                    f"(it returns: {', '.join(info.branches)})", ("edges", index, "branches"))
            if missing:
                err("E302", f"router {edge.router!r} may return {', '.join(missing)}, which has no target",
                    ("edges", index, "branches"))
            try:
                info.params.model_validate(edge.params)
            except ValidationError as exc:
                err("E203", f"router {edge.router!r} params: {exc.errors()[0]['msg']}", ("edges", index, "params"))
        for branch, target in edge.branches.items():
            if target != END and target not in spec.nodes:
                err("E301", f"branch {branch!r} targets undeclared node {target!r}{_close(target, spec.nodes)}",
                    ("edges", index, "branches", branch))
            successors[edge.source].add(target)

    if errors:
        return errors  # the graph checks below assume names resolve

    for node_id in spec.nodes:
        if not successors.get(node_id):
            err("E304", f"node {node_id!r} has no outgoing edge", ("nodes", node_id))
    reachable = _reach(spec.entry, successors)
    for node_id in spec.nodes:
        if node_id not in reachable:
            err("E305", f"node {node_id!r} is unreachable from entry {spec.entry!r}", ("nodes", node_id))
    errors.extend(check_reads(loaded))
    errors.extend(check_keys(loaded))
    stuck = [n for n in spec.nodes if n in reachable and successors.get(n) and END not in _reach(n, successors)]
    if stuck:
        names = ", ".join(repr(n) for n in stuck)
        err("E306", f"node {stuck[0]!r} is in a loop that never reaches END (stuck: {names})", ("nodes", stuck[0]))
    return errors


def _reach(start: str, successors: dict[str, set[str]]) -> set[str]:
    seen, stack = {start}, [start]
    while stack:
        for nxt in successors.get(stack.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return seen


def _close(name: str, known: Iterable[str]) -> str:
    message = unknown_name_message("node", name, known)
    return "; " + message.split("; ", 1)[1].split(" (known")[0] if "did you mean" in message else ""
