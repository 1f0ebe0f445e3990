"""A name → factory registry so environments are created by name, like `gymnasium.make`.

Factories may be callables or lazy `"module:attribute"` strings, so registering an environment never
imports it; `make` imports on first use.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from pettingzoo import ParallelEnv

EnvFactory = Callable[..., ParallelEnv]

_REGISTRY: dict[str, EnvFactory | str] = {}


class UnknownEnvironmentError(ValueError):
    """Raised by `make` for a name nobody registered; the message lists the registered names."""


def register(name: str, factory: EnvFactory | str, *, replace: bool = False) -> None:
    """Register `factory` (a callable or a lazy `"package.module:function"` path) under `name`."""
    if name in _REGISTRY and not replace:
        raise ValueError(f"environment {name!r} is already registered (pass replace=True to override)")
    _REGISTRY[name] = factory


def registered() -> list[str]:
    """The registered environment names, sorted."""
    return sorted(_REGISTRY)


def _resolve(factory: EnvFactory | str) -> EnvFactory:
    if callable(factory):
        return factory
    module_name, _, attribute = factory.partition(":")
    return getattr(importlib.import_module(module_name), attribute)


def make(name: str, **options: Any) -> ParallelEnv:
    """Create the environment registered as `name` with `options` passed to its factory."""
    if name not in _REGISTRY:
        raise UnknownEnvironmentError(
            f"unknown environment {name!r}; registered: {', '.join(registered()) or '(none)'}. "
            "Hint: check the spelling or call coopgraph.envs.register(name, factory) first."
        )
    return _resolve(_REGISTRY[name])(**options)


KitFactory = Callable[[dict[str, Any]], Any]
_KITS: dict[str, KitFactory | str] = {}


def register_kit(name: str, factory: KitFactory | str) -> None:
    """Register how agents of environment `name` get their belief, affordances and skill book."""
    _KITS[name] = factory


def agent_kit(name: str, env_info: dict[str, Any]) -> Any:
    """The `AgentKit` for one agent of environment `name`, built from that agent's env_info."""
    if name not in _KITS:
        raise UnknownEnvironmentError(
            f"environment {name!r} has no agent kit; kits exist for: {', '.join(sorted(_KITS)) or '(none)'}"
        )
    return _resolve(_KITS[name])(env_info)
