"""`toyhouse-expert`: a small rule-based team member, so the world can be solved and measured without an LLM.

It keeps the kit's belief and chooses by the world's annotations (group, cost, claims, surplus): deliver what it
holds, else fetch the nearest needed item nobody claimed, else set down what nothing needs, else take the look
worth most per tick, else fetch a claimed item, else wait. The toyhouse publishes no look values (it does not
declare `look_values`), so the expert, being the world's own baseline, weighs looks with the world's estimate
directly (`estimates.look_value`), as C-WAH's MHP uses `envs/cwah/estimates.py`. With `communicate` it sends
the kit's template news before a plan.
"""

from __future__ import annotations

from typing import cast

from coopgraph.envs.protocol import (
    WAIT,
    Affordance,
    AffordanceGroup,
    AgentInfo,
    MemberBase,
    Observation,
    PrimitiveAction,
    SkillStatus,
)
from coopgraph.testing.toyhouse import estimates
from coopgraph.testing.toyhouse.belief import HouseBelief
from coopgraph.testing.toyhouse.env import ToyhouseAgentInfo
from coopgraph.testing.toyhouse.kit import make_kit

G = AffordanceGroup


def look_value(option: Affordance, belief: HouseBelief) -> float:
    """What the world estimates a look (an inspect or explore option) finds; 0 for any other option."""
    if option.target_id is None:
        return 0.0
    if option.group == G.INSPECT:
        return estimates.look_value(belief, container_id=option.target_id)
    if option.group == G.EXPLORE:
        return estimates.look_value(belief, room_id=option.target_id)
    return 0.0


def choose(options: list[Affordance], belief: HouseBelief) -> Affordance | None:
    """The expert's rule, on the generic fields (group, cost, claims, surplus) and, for looks, the world's own
    estimate of what each finds (`look_value`), since the toyhouse's options carry no `value`."""
    def cheapest(group: AffordanceGroup, claimed: bool = False) -> Affordance | None:
        found = [o for o in options if o.group == group and not o.surplus and bool(o.claims) == claimed]
        return min(found, key=lambda o: o.cost or 0.0) if found else None

    valued = [(look_value(o, belief), o) for o in options if o.group in (G.INSPECT, G.EXPLORE) and not o.claims]
    looks = [(value / (1.0 + (o.cost or 0.0)), o) for value, o in valued if value > 0]
    best_look = max(looks, key=lambda row: row[0])[1] if looks else None  # the first of equals, as listed
    set_down = next((o for o in options if o.group == G.OTHER), None)
    for choice in (cheapest(G.DELIVER), cheapest(G.FETCH), set_down, best_look, cheapest(G.FETCH, claimed=True)):
        if choice is not None:
            return choice
    return None


class HouseExpert(MemberBase):
    """Implements the `TeamMember` protocol for the toyhouse."""

    def __init__(self, name: str = "toyhouse-expert", communicate: bool = True) -> None:
        self.name = name
        self.communicate = communicate
        self.plan: Affordance | None = None

    def reset(self, agent_id: str, env_info: AgentInfo, seed: int) -> None:
        self.kit = make_kit(cast(ToyhouseAgentInfo, env_info))
        self.belief = cast(HouseBelief, self.kit.belief)
        partners = len(env_info.agents) > 1
        self.reporter = self.kit.news(self.belief) if self.communicate and partners and self.kit.news else None
        self.plan = None

    def act(self, observation: Observation) -> PrimitiveAction:
        self.belief.update(observation)
        for message in observation.messages:
            self.kit.read_message(self.belief, message)
        if self.reporter is not None:
            self.reporter.note_put(self.belief, observation)
        tried: list[str] = []
        for _ in range(4):
            if self.plan is None:
                options = [o for o in self.kit.affordances.available(self.belief) if o.text not in tried]
                self.plan = choose(options, self.belief)
                if self.plan is None:
                    return WAIT
                tried.append(self.plan.text)
                text = self.reporter.compose(self.belief, self.plan) if self.reporter is not None else ""
                if text:
                    return PrimitiveAction(kind="send_message", message=text)
            step = self.kit.skillbook.next_action(self.plan, observation)
            if step.status == SkillStatus.RUNNING and step.action is not None:
                return step.action
            self.plan = None
        return WAIT
