"""Checks of a spec against one world: every node's required capabilities and prompt templates are there.

Run before an episode (and by `coopgraph graph validate SPEC --env NAME`), so a wiring that a world cannot
serve is refused with the node, the missing piece and the worlds that do have it, instead of an agent
that quietly never re-plans.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from coopgraph.envs.registry import kit_info, kits
from coopgraph.graphs.errors import SpecError
from coopgraph.nodes.registry import NODES, ROUTERS
from coopgraph.prompts.render import template_for_env

if TYPE_CHECKING:
    from coopgraph.graphs.loader import LoadedSpec


def _worlds(test: object) -> str:
    have = [name for name in kits() if test(kit_info(name))]  # type: ignore[operator]
    return ", ".join(have) or "none"


def check_world(loaded: LoadedSpec, env: str) -> list[SpecError]:
    """Every problem of running `loaded` in world `env` (E310 capability, E311 template); [] when it fits.

    Raises `UnknownEnvironmentError` (listing the worlds with kits) for a world without a kit."""
    world = kit_info(env)
    spec = loaded.spec
    errors: list[SpecError] = []

    def err(code: str, message: str, path: tuple[object, ...]) -> None:
        file, mark = loaded.where(path)
        errors.append(SpecError(code, message, file, mark.line if mark else None, mark.column if mark else None))

    def capabilities(owner: str, name: str, requires: frozenset[str], path: tuple[object, ...]) -> None:
        for capability in sorted(requires - world.capabilities):
            err("E310", f"{owner} ({name}) needs capability {capability!r}, which world {env!r} lacks; "
                f"worlds that have it: {_worlds(lambda k, c=capability: c in k.capabilities)}", path)

    for node_id, node in spec.nodes.items():
        info = NODES.get(node.use)
        capabilities(f"node {node_id!r}", node.use, info.requires, ("nodes", node_id, "use"))
        prompt = node.prompt or info.prompt
        if info.uses_llm and prompt and template_for_env(prompt, world.prompt_env) is None:
            err("E311", f"node {node_id!r} ({node.use}) has no prompt template {prompt!r} for world {env!r} "
                f"(neither {prompt}.{world.prompt_env}.j2 nor {prompt}.j2); worlds that have it: "
                f"{_worlds(lambda k, p=prompt: template_for_env(p, k.prompt_env) is not None)}",
                ("nodes", node_id, "prompt" if node.prompt else "use"))
    for index, edge in spec.router_edges():
        router = ROUTERS.get(edge.router)
        capabilities(f"router after {edge.source!r}", edge.router, router.requires, ("edges", index, "router"))
    return errors

