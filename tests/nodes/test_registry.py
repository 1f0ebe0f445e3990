"""Registry names lead to their code: a shipped entry named `family.x` is defined in `nodes/families/family.py`
(or in the family module whose `FAMILY` names that prefix), and only family modules register anything."""

from __future__ import annotations

import importlib
import pkgutil
import sys

import pytest

import coopgraph.nodes
import coopgraph.nodes.families
from coopgraph.nodes.registry import NODES, ROUTERS, Registry

_FAMILIES = "coopgraph.nodes.families."


def _family_of(module_name: str) -> str:
    """The name prefix a family module's entries carry: its `FAMILY`, else the module's own name."""
    return str(getattr(sys.modules[module_name], "FAMILY", module_name.removeprefix(_FAMILIES)))


def _shipped(registry: Registry) -> dict[str, str]:
    """Name -> module of every entry the node library itself registers (tests and benches register elsewhere)."""
    return {name: registry.get(name).fn.__module__ for name in registry.names()
            if registry.get(name).fn.__module__.startswith("coopgraph.nodes.")}


@pytest.mark.parametrize("registry", [NODES, ROUTERS], ids=lambda r: r.kind)
def test_every_shipped_name_starts_with_its_module(registry: Registry) -> None:
    shipped = _shipped(registry)
    assert len(shipped) >= 9  # the library is loaded, not an empty registry that passes trivially
    wrong = {name: module for name, module in shipped.items()
             if not module.startswith(_FAMILIES) or name.split(".")[0] != _family_of(module)}
    assert not wrong, f"registered in a module other than their prefix says: {wrong}"


def test_every_family_module_registers_and_no_helper_does() -> None:
    """The layout is the rule the library's discovery relies on: families register, helpers beside them do not."""
    registering = {entry.fn.__module__ for registry in (NODES, ROUTERS) for entry in registry.entries.values()}
    families = {f"{_FAMILIES}{m.name}" for m in pkgutil.iter_modules(coopgraph.nodes.families.__path__)}
    helpers = {f"coopgraph.nodes.{m.name}" for m in pkgutil.iter_modules(coopgraph.nodes.__path__) if not m.ispkg}
    for name in helpers:
        importlib.import_module(name)
    assert families <= registering, f"family modules that register nothing: {sorted(families - registering)}"
    assert not helpers & registering, f"helpers that register nodes: {sorted(helpers & registering)}"


def test_every_old_name_points_at_a_registered_entry_and_none_is_still_registered() -> None:
    assert ROUTERS.renamed  # the routers once were `route.*`
    for registry in (NODES, ROUTERS):
        for old, new in registry.renamed.items():
            assert new in registry.names(), f"{old} is said to be {new}, which is not registered"
            assert old not in registry.entries


def test_looking_up_an_old_name_says_what_it_is_now() -> None:
    with pytest.raises(KeyError, match="router 'route.needs_plan' is now 'execution.needs_plan'"):
        ROUTERS.get("route.needs_plan")
