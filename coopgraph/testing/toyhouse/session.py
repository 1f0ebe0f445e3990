"""One agent in a toyhouse episode, in text: the facts, the listed actions, and a step that carries one out.

The smallest way to drive a real world from a two-node graph (`graphs/examples/describe_choose.yaml`): feed
`facts()` and `actions()` to the graph, give its choice to `step`, repeat until `done`. The chosen action runs
through the kit's skill book until it finishes, so one step may take several ticks.
"""

from __future__ import annotations

from typing import Any

from coopgraph.envs.protocol import WAIT, Affordance, HouseObservation, SkillStatus
from coopgraph.testing.toyhouse.env import ToyhouseEnv
from coopgraph.testing.toyhouse.kit import make_kit


class TextSession:
    """A one-agent toyhouse episode driven by action texts (`[fetch] <apple> (21)`)."""

    def __init__(self, episode: str = "toyhouse/0", max_ticks_per_action: int = 30) -> None:
        self.env = ToyhouseEnv(episode, num_agents=1)
        observations, _ = self.env.reset(seed=0)
        self.agent_id = self.env.possible_agents[0]
        self.kit = make_kit(self.env.agent_info(self.agent_id))
        self.observation: HouseObservation = observations[self.agent_id]
        self.kit.belief.update(self.observation)
        self.max_ticks_per_action = max_ticks_per_action
        self.log: list[str] = []

    @property
    def goal(self) -> str:
        return self.observation.goal_text

    @property
    def steps(self) -> int:
        """Ticks spent so far."""
        return self.observation.time

    @property
    def done(self) -> bool:
        return self.env.world.is_done()

    def options(self) -> list[Affordance]:
        return self.kit.affordances.available(self.kit.belief)

    def actions(self) -> list[str]:
        return [option.text for option in self.options()]

    def facts(self, agent_name: str | None = None) -> dict[str, Any]:
        """What a prompt needs: who, the goal, the belief's brief and progress texts, what is in sight."""
        return {"agent_name": agent_name or self.observation.agent_name, "goal": self.goal,
                "facts_text": self.kit.belief.brief_text(), "progress": self.kit.belief.progress_text(),
                "visible": [obj.label for obj in self.observation.visible_objects]}

    def _tick(self, action: Any) -> None:
        observations, *_ = self.env.step({self.agent_id: action})
        self.observation = observations[self.agent_id]
        self.kit.belief.update(self.observation)

    def step(self, action: str | None) -> str:
        """Carry out one listed action until its skill ends; anything else spends a tick and says why."""
        option = next((o for o in self.options() if o.text == action), None)
        if option is None or not self.env.agents:
            if self.env.agents:
                self._tick(WAIT)
            result = f"ignored unlisted action {action!r}"
        else:
            result = f"{option.text}: gave up after {self.max_ticks_per_action} ticks"
            for _ in range(self.max_ticks_per_action):
                skill = self.kit.skillbook.next_action(option, self.observation)
                if skill.status != SkillStatus.RUNNING or skill.action is None:
                    result = f"{option.text}: {skill.status.value}{', ' + skill.reason if skill.reason else ''}"
                    break
                self._tick(skill.action)
                if not self.env.agents:
                    result = f"{option.text}: episode over"
                    break
        self.log.append(result)
        return result
