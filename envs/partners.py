"""Scripted team members, made by name: C-WAH's `make_baseline("mhp")`, `"mhp-silent"`, `"oracle"`, the
toyhouse's `"toyhouse-expert"`, Overcooked's `"greedy"` and `"random"` cooks,
TDW-MAT's `"rhp"` (CoELA's rule-based hierarchical planner) and `"tdw-oracle"` (full information), and
the Collab games' `"collab-planner"` and `"collab-random"` (one name serves both games).

Each is a `TeamMember` (protocol.py) the episode runner can step; `oracle_bound` gives an admissible
lower bound on team steps for an episode.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from coopgraph.envs.cwah.config import CWAHConfig
from coopgraph.envs.cwah.episode import Episode
from coopgraph.envs.protocol import TeamMember


class UnknownBaselineError(ValueError):
    """Raised by `make_baseline` for an unregistered name; the message lists the registered ones."""


def _mhp(**options: Any) -> TeamMember:
    from coopgraph.envs.cwah.experts.mhp import MHPAgent

    return MHPAgent(**{"name": "mhp", **options})


def _mhp_silent(**options: Any) -> TeamMember:
    from coopgraph.envs.cwah.experts.mhp import MHPAgent

    return MHPAgent(**{"name": "mhp-silent", "communicate": False, **options})


def _oracle(**options: Any) -> TeamMember:
    from coopgraph.envs.cwah.experts.oracle_member import OracleAgent

    return OracleAgent(**options)


def _toyhouse_expert(**options: Any) -> TeamMember:
    from coopgraph.testing.toyhouse.expert import HouseExpert  # the toyhouse lives in coopgraph.testing

    return HouseExpert(**options)


def _greedy_cook(**options: Any) -> TeamMember:
    from coopgraph.envs.overcooked.experts.cooks import GreedyCook

    return GreedyCook(**options)


def _random_cook(**options: Any) -> TeamMember:
    from coopgraph.envs.overcooked.experts.cooks import RandomCook

    return RandomCook(**options)


def _tdw_oracle(**options: Any) -> TeamMember:
    from coopgraph.envs.tdw_mat.experts.oracle_member import TDWOracleAgent

    return TDWOracleAgent(**options)


def _rhp(**options: Any) -> TeamMember:
    from coopgraph.envs.tdw_mat.experts.rhp import RHPAgent

    return RHPAgent(**options)


def _collab_planner(**options: Any) -> TeamMember:
    from coopgraph.envs.collab.experts.planners import PlannerPlayer

    return PlannerPlayer(**options)


def _collab_random(**options: Any) -> TeamMember:
    from coopgraph.envs.collab.experts.planners import RandomPlayer

    return RandomPlayer(**options)


_BASELINES: dict[str, Callable[..., TeamMember]] = {"mhp": _mhp, "mhp-silent": _mhp_silent, "oracle": _oracle,
                                                    "toyhouse-expert": _toyhouse_expert, "greedy": _greedy_cook,
                                                    "random": _random_cook, "rhp": _rhp, "tdw-oracle": _tdw_oracle,
                                                    "collab-planner": _collab_planner,
                                                    "collab-random": _collab_random}


def registered_baselines() -> list[str]:
    return sorted(_BASELINES)


def register_baseline(name: str, factory: Callable[..., TeamMember]) -> None:
    """Add a team-member factory under `name` (replaces an existing one)."""
    _BASELINES[name] = factory


def make_baseline(name: str, **options: Any) -> TeamMember:
    """A fresh team member; options go to its constructor (e.g. `name=` for a display name)."""
    if name not in _BASELINES:
        raise UnknownBaselineError(
            f"unknown baseline {name!r}; registered: {', '.join(registered_baselines())}"
        )
    return _BASELINES[name](**options)


def oracle_bound(episode: Episode, num_agents: int, config: CWAHConfig | None = None) -> float:
    """Admissible lower bound on the team's steps for `episode` (see oracle.py)."""
    from coopgraph.envs.cwah.experts.oracle import oracle_bound as bound

    return bound(episode, num_agents, config)


__all__ = [
    "UnknownBaselineError",
    "make_baseline",
    "oracle_bound",
    "register_baseline",
    "registered_baselines",
]
