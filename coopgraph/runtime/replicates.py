"""A run's replicate as its LLM members see it: which model seed each one samples with, and whether any samples.

A run is one replicate (episode seed, repeat); `coopgraph.llm.seeds` derives each agent's model seed from it.
Here those seeds are given to a team's graph members (a fork or a replay gives them the recorded run's,
`RecordedRun.model_seeds`), and a run is called deterministic when no member samples, so a report can say so
instead of printing a spread that is zero by construction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from coopgraph.llm.seeds import model_seeds


def llm_members(agents: Sequence[str], team: Sequence[Any]) -> dict[str, Any]:
    """The members that ask an LLM (graph agents), by agent id."""
    return {agent: member for agent, member in zip(agents, team, strict=True) if hasattr(member, "graph")}


def seed_team(agents: Sequence[str], team: Sequence[Any], seeds: Mapping[str, int]) -> dict[str, int]:
    """Give each LLM member its model seed (used from its next `reset`); returns the seeds given, by agent."""
    given = {}
    for agent, member in llm_members(agents, team).items():
        if agent in seeds:
            member.model_seed = int(seeds[agent])
            given[agent] = int(seeds[agent])
    return given


def replicate_seeds(agents: Sequence[str], team: Sequence[Any], episode_seed: int, repeat: int) -> dict[str, int]:
    """Seed the team's LLM members for the replicate (`episode_seed`, `repeat`); returns their seeds by agent."""
    return seed_team(agents, team, model_seeds(episode_seed, repeat, list(llm_members(agents, team))))


def member_temperature(member: Any) -> float:
    """The temperature a graph member asks at: its spec's `llm:` block, else its LLM setting's (0 when unsaid)."""
    sampling = member.loaded.spec.llm.temperature
    if sampling is not None:
        return float(sampling)
    return float(member.lm.settings_public.get("temperature") or 0.0)


def deterministic(team: Sequence[Any]) -> bool:
    """True when no member samples: every LLM member asks at temperature 0, or the team has none, and no member
    says it varies by itself (`samples = True`: a person at the keyboard)."""
    return all(member_temperature(m) == 0 for m in team if hasattr(m, "graph")) and \
        not any(getattr(m, "samples", False) for m in team)
