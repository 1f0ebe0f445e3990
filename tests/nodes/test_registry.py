"""Registry names lead to their code: a shipped entry named `family.x` is defined in `nodes/family.py`."""

from __future__ import annotations

import pytest

from coopgraph.nodes.registry import NODES, ROUTERS, Registry

_PACKAGE = "coopgraph.nodes."


def _shipped(registry: Registry) -> dict[str, str]:
    """Name -> module (its last dotted part) of every entry the node library itself registers."""
    found = {}
    for name in registry.names():
        module = registry.get(name).fn.__module__
        if module.startswith(_PACKAGE):  # tests and benches register their own entries elsewhere
            found[name] = module.removeprefix(_PACKAGE)
    return found


@pytest.mark.parametrize("registry", [NODES, ROUTERS], ids=lambda r: r.kind)
def test_every_shipped_name_starts_with_its_module(registry: Registry) -> None:
    shipped = _shipped(registry)
    assert len(shipped) >= 9  # the library is loaded, not an empty registry that passes trivially
    wrong = {name: f"nodes/{module}.py" for name, module in shipped.items() if name.split(".")[0] != module}
    assert not wrong, f"registered in a module other than their prefix says: {wrong}"


def test_every_old_name_points_at_a_registered_entry_and_none_is_still_registered() -> None:
    assert ROUTERS.renamed  # the routers once were `route.*`
    for registry in (NODES, ROUTERS):
        for old, new in registry.renamed.items():
            assert new in registry.names(), f"{old} is said to be {new}, which is not registered"
            assert old not in registry.entries


def test_looking_up_an_old_name_says_what_it_is_now() -> None:
    with pytest.raises(KeyError, match="router 'route.needs_plan' is now 'execution.needs_plan'"):
        ROUTERS.get("route.needs_plan")
