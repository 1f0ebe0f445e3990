"""The parts of overcooked-ai 1.1.0 this world uses, imported so they work with the project's numpy and no gym.

The package's own `__init__` only registers a gym environment and imports gym, which the lock leaves out (see
`[tool.uv]` in pyproject.toml); its `overcooked_env`, planners and layout generator use aliases numpy 2 removed.
So the package is entered without running its `__init__`, and only `mdp.overcooked_mdp` and `mdp.actions` (which
need nothing but numpy) are imported. Nothing is written into the package's folder: no planner caches are built,
and no bytecode cache either.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
import warnings

PACKAGE = "overcooked_ai_py"


def _enter_package() -> None:
    """Put an empty module for the package in `sys.modules`, so its submodules import without its `__init__`."""
    if PACKAGE in sys.modules:
        return
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(f"{PACKAGE} is not installed: the Overcooked world needs overcooked-ai==1.1.0 "
                          "(`make setup` installs it from requirements.lock)")
    package = types.ModuleType(PACKAGE)
    package.__path__ = list(spec.submodule_search_locations)
    package.__spec__ = spec
    package.__file__ = spec.origin
    sys.modules[PACKAGE] = package


def _import(name: str) -> types.ModuleType:
    """Import a submodule without writing bytecode into the package's folder (a read-only install stays
    untouched) and without the invalid-escape warnings its docstrings raise when compiled."""
    keep = sys.dont_write_bytecode
    sys.dont_write_bytecode = True
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            warnings.simplefilter("ignore", SyntaxWarning)
            return importlib.import_module(f"{PACKAGE}.{name}")
    finally:
        sys.dont_write_bytecode = keep


_enter_package()
_mdp = _import("mdp.overcooked_mdp")
_actions = _import("mdp.actions")

Action = _actions.Action
Direction = _actions.Direction
ObjectState = _mdp.ObjectState
OvercookedGridworld = _mdp.OvercookedGridworld
OvercookedState = _mdp.OvercookedState
PlayerState = _mdp.PlayerState
Recipe = _mdp.Recipe
SoupState = _mdp.SoupState

__all__ = ["Action", "Direction", "ObjectState", "OvercookedGridworld", "OvercookedState", "PlayerState", "Recipe",
           "SoupState"]
