"""A run's replicate as its LLM members see it: which model seed each one samples with, and whether any samples.

A run is one replicate (episode seed, repeat); `coopgraph.llm.seeds` derives each agent's model seed from it.
Here those seeds are given to a team's graph members (a fork or a replay gives them the recorded run's,
`RecordedRun.model_seeds`), and a run is called deterministic when no member samples, so a report can say so
instead of printing a spread that is zero by construction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from coopgraph.envs.protocol import TeamMember
from coopgraph.llm.seeds import model_seeds
from coopgraph.runtime.graph_agent import GraphAgent


def llm_members(agents: Sequence[str], team: Sequence[TeamMember]) -> dict[str, GraphAgent]:
    """The members that ask an LLM (graph agents), by agent id."""
    return {agent: member for agent, member in zip(agents, team, strict=True) if isinstance(member, GraphAgent)}


def seed_team(agents: Sequence[str], team: Sequence[TeamMember], seeds: Mapping[str, int]) -> dict[str, int]:
    """Give each LLM member its model seed (used from its next `reset`); returns the seeds given, by agent."""
    given = {}
    for agent, member in llm_members(agents, team).items():
        if agent in seeds:
            member.model_seed = int(seeds[agent])
            given[agent] = int(seeds[agent])
    return given


def replicate_seeds(agents: Sequence[str], team: Sequence[TeamMember], episode_seed: int,
                    repeat: int) -> dict[str, int]:
    """Seed the team's LLM members for the replicate (`episode_seed`, `repeat`); returns their seeds by agent."""
    return seed_team(agents, team, model_seeds(episode_seed, repeat, list(llm_members(agents, team))))


def member_temperature(member: GraphAgent) -> float:
    """The temperature a graph member asks at: its spec's `llm:` block, else its LLM setting's (0 when unsaid)."""
    return member.temperature


def deterministic(team: Sequence[TeamMember]) -> bool:
    """True when no member samples: every LLM member asks at temperature 0, or the team has none, and no member
    varies by itself (`samples`: a person at the keyboard)."""
    return not any(member.samples for member in team)
