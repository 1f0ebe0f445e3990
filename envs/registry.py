"""A name → factory registry so environments are created by name, like `gymnasium.make`.

Factories may be callables or lazy `"module:attribute"` strings, so registering an environment never
imports it; `make` imports on first use.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pettingzoo is imported by the worlds themselves, not by naming them
    from pettingzoo import ParallelEnv

    from coopgraph.envs.protocol import AgentInfo, AgentKit

EnvFactory = Callable[..., "ParallelEnv"]

_REGISTRY: dict[str, EnvFactory | str] = {}
_DEFAULT_EPISODES: dict[str, str] = {}
_TEAM_LIMITS: dict[str, int] = {}
DEFAULT_TEAM_LIMIT = 2  # a world that declares no limit is played by pairs, as every paper's world is


class TeamTooLargeError(ValueError):
    """A team with more agents than its world allows; the message names the world's limit."""


class UnknownEnvironmentError(ValueError):
    """Raised by `make` for a name nobody registered; the message lists the registered names."""


def register(name: str, factory: EnvFactory | str, *, default_episode: str | None = None,
             max_agents: int = DEFAULT_TEAM_LIMIT, replace: bool = False) -> None:
    """Register `factory` (a callable or a lazy `"package.module:function"` path) under `name`, with the episode
    a run plays when it names none (`default_episode`: C-WAH's `test/0`, Overcooked's `cramped_room`) and the
    largest team the world seats (`max_agents`), so a larger team is refused before any work starts."""
    if name in _REGISTRY and not replace:
        raise ValueError(f"environment {name!r} is already registered (pass replace=True to override)")
    if isinstance(max_agents, bool) or not isinstance(max_agents, int) or max_agents < 1:
        raise ValueError(f"environment {name!r}: max_agents must be a whole number of 1 or more, got {max_agents!r}")
    _REGISTRY[name] = factory
    _TEAM_LIMITS[name] = max_agents
    _DEFAULT_EPISODES.pop(name, None)
    if default_episode is not None:
        _DEFAULT_EPISODES[name] = default_episode


def registered() -> list[str]:
    """The registered environment names, sorted."""
    return sorted(_REGISTRY)


def _resolve(factory: EnvFactory | str) -> EnvFactory:
    if callable(factory):
        return factory
    module_name, _, attribute = factory.partition(":")
    return getattr(importlib.import_module(module_name), attribute)


def factory(name: str) -> EnvFactory:
    """The callable registered as `name` (imported now if it was registered lazily), to read its signature."""
    if name not in _REGISTRY:
        raise UnknownEnvironmentError(
            f"unknown environment {name!r}; registered: {', '.join(registered()) or '(none)'}. "
            "Hint: check the spelling or call coopgraph.envs.register(name, factory) first."
        )
    return _resolve(_REGISTRY[name])


def default_episode(name: str) -> str:
    """The episode world `name` declared for runs that name none; each world has its own (episode ids differ
    between worlds: C-WAH's `test/0` is no Overcooked layout)."""
    factory(name)  # an unknown world: the error lists the registered ones
    if name not in _DEFAULT_EPISODES:
        raise UnknownEnvironmentError(f"world {name!r} declares no default episode; name one (--episode, or "
                                      f"register({name!r}, ..., default_episode=...))")
    return _DEFAULT_EPISODES[name]


def team_limit(name: str) -> int:
    """The most agents world `name` seats (C-WAH: 4, Overcooked: 2), as declared at registration."""
    factory(name)  # an unknown world: the error lists the registered ones
    return _TEAM_LIMITS.get(name, DEFAULT_TEAM_LIMIT)


def check_team_size(name: str, size: int) -> None:
    """Refuse a team of `size` agents that world `name` cannot seat, naming the world's limit."""
    limit = team_limit(name)
    if size > limit:
        raise TeamTooLargeError(f"world {name!r} seats at most {limit} agents; the team has {size}")


def make(name: str, **options: Any) -> ParallelEnv:
    """Create the environment registered as `name` with `options` passed to its factory."""
    return factory(name)(**options)


KitFactory = Callable[["AgentInfo"], "AgentKit"]  # each world's kit takes its own AgentInfo subclass


@dataclass(frozen=True)
class KitInfo:
    """A registered kit: how to build one per agent, and what it offers, known without building one.

    `capabilities` and `prompt_env` let `coopgraph graph validate SPEC --env NAME` check a spec against a
    world before any episode exists; `check_kit` verifies that the built kits match them.
    """

    name: str
    factory: KitFactory | str
    capabilities: frozenset[str]
    prompt_env: str


_KITS: dict[str, KitInfo] = {}


def register_kit(name: str, factory: KitFactory | str, *, capabilities: Iterable[str] = (),
                 prompt_env: str | None = None) -> None:
    """Register how agents of environment `name` get their belief, affordances and skill book, and which
    capabilities (`coopgraph.envs.capabilities.CAPABILITIES`) its beliefs offer."""
    from coopgraph.envs.capabilities import CAPABILITIES

    unknown = sorted(set(capabilities) - set(CAPABILITIES))
    if unknown:
        raise ValueError(f"kit {name!r} declares unknown capabilities {unknown}; known: {sorted(CAPABILITIES)}")
    _KITS[name] = KitInfo(name, factory, frozenset(capabilities), prompt_env or name)


def kits() -> list[str]:
    """The names of the environments that have an agent kit, sorted."""
    return sorted(_KITS)


def kit_info(name: str) -> KitInfo:
    """What environment `name`'s kit offers; the error lists the environments that have kits."""
    if name not in _KITS:
        raise UnknownEnvironmentError(
            f"environment {name!r} has no agent kit; kits exist for: {', '.join(kits()) or '(none)'}"
        )
    return _KITS[name]


def agent_kit(name: str, env_info: AgentInfo) -> AgentKit:
    """The `AgentKit` for one agent of environment `name`, built from that agent's env_info."""
    info = kit_info(name)
    factory = info.factory if callable(info.factory) else _resolve(info.factory)
    return factory(env_info)  # type: ignore[return-value]


_DECISION_DATA: dict[str, str] = {}


def register_decision_data(name: str, hooks: str) -> None:
    """Declare that world `name` records decision data (`coopgraph data decisions --env NAME`), with the lazy
    `"package.module:attribute"` path of its hooks: its episode sets, expert team, rendering spec and the
    recorder that plays one episode (`coopgraph.evals.decision_hooks.DecisionHooks`). A path, not an import, so
    the worlds never import the evaluations that record them."""
    if name not in _REGISTRY:
        raise UnknownEnvironmentError(f"register world {name!r} before its decision data")
    _DECISION_DATA[name] = hooks


def decision_worlds() -> list[str]:
    """The worlds that record decision data, sorted."""
    return sorted(_DECISION_DATA)


def decision_data(name: str) -> str:
    """The path of world `name`'s decision-data hooks; the error lists the worlds that have some."""
    if name not in _REGISTRY:
        factory(name)  # an unknown world: the error lists the registered ones
    if name not in _DECISION_DATA:
        raise UnknownEnvironmentError(f"world {name!r} records no decision data; worlds that do: "
                                      f"{', '.join(decision_worlds()) or '(none)'}")
    return _DECISION_DATA[name]


def resolve(path: str) -> Any:
    """The object a lazy `"package.module:attribute"` path names, imported now."""
    return _resolve(path)
