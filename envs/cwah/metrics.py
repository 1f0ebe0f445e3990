"""Episode metrics of C-WAH: success, steps (CoELA's L, REVECA's SS), travel distance (TD), communication
steps (CS) and characters (CC), for the team and per agent."""

from __future__ import annotations

from pydantic import BaseModel

from coopgraph.envs.cwah.state import WorldState


class AgentMetrics(BaseModel):
    """One agent's share of the work."""

    travel_distance: float
    communication_steps: int
    characters_sent: int
    invalid_actions: int


class EpisodeMetrics(BaseModel):
    """Team metrics; `characters_per_message` is REVECA's CC, `travel_distance_per_agent` its TD."""

    success: bool
    steps: int
    subgoals_done: int
    subgoals_total: int
    travel_distance: float
    travel_distance_per_agent: float
    communication_steps: int
    characters_sent: int
    characters_per_message: float
    invalid_actions: int
    per_agent: dict[str, AgentMetrics]

    def summary(self) -> dict[str, float]:
        """The team metrics as a flat name → number dict."""
        return {key: float(value) for key, value in self.model_dump(exclude={"per_agent"}).items()}


def measure(world: WorldState, steps: int) -> EpisodeMetrics:
    agents = list(world.agents.values())
    per_agent = {
        a.id: AgentMetrics(
            travel_distance=round(a.travel, 3),
            communication_steps=a.messages_sent,
            characters_sent=a.characters_sent,
            invalid_actions=a.invalid_actions,
        )
        for a in agents
    }
    travel = sum(a.travel for a in agents)
    messages = sum(a.messages_sent for a in agents)
    characters = sum(a.characters_sent for a in agents)
    done = world.satisfied_counts()
    return EpisodeMetrics(
        success=world.is_done(),
        steps=steps,
        subgoals_done=sum(done),
        subgoals_total=sum(p.count for p in world.goal),
        travel_distance=round(travel, 3),
        travel_distance_per_agent=round(travel / len(agents), 3),
        communication_steps=messages,
        characters_sent=characters,
        characters_per_message=round(characters / messages, 2) if messages else 0.0,
        invalid_actions=sum(a.invalid_actions for a in agents),
        per_agent=per_agent,
    )
