"""Decision points in Overcooked: what LLM-Co's choice node would see where the greedy cook picked a directive.

As `evals/decisions.py` does for MHP in C-WAH: a team with a recording greedy cook plays a layout, and each time
that cook picks a new directive from the kit's feasible list we freeze what it knew (a copy of its belief and of
its action history, the way the graph logs it) and render it through a spec's own nodes (`memory.retrieve`,
`memory.layout`, `planning.list_actions`, `planning.choose_action`'s adapter), so the prompt is byte for byte what
an LLM-Co agent would be sent. The greedy cook's pick is the label. Layouts are the unit of the split: LLM-Co's
seven paper layouts are held out as the test set, every other shipped layout trains.
"""

from __future__ import annotations

import copy
import hashlib
import random
from collections.abc import Callable, Iterator
from typing import Any

from coopgraph import envs
from coopgraph.envs.baselines import make_baseline
from coopgraph.envs.overcooked.affordances import MOVE_AWAY, WAIT, KitchenAffordance
from coopgraph.envs.overcooked.belief import OvercookedBelief
from coopgraph.envs.overcooked.cooks import GreedyCook
from coopgraph.envs.overcooked.layouts import PAPER_LAYOUTS, layout_names, load_layout
from coopgraph.envs.protocol import Observation, PrimitiveAction
from coopgraph.evals.decisions import DecisionRenderer, Snapshot, point_record
from coopgraph.evals.runner import run_episode
from coopgraph.memory.episodic import EpisodicMemory

#: The spec whose nodes render Overcooked decision points unless told otherwise: LLM-Co's prompt with the action
#: alone as the reply, what a distilled planner answers.
KITCHEN_SPEC = "llmco-lite"
#: Directives that never reach the model as a choice worth learning: LLM-Co's second cook takes them unasked.
_IDLE = {WAIT, MOVE_AWAY}


def layout_set(name: str) -> list[str]:
    """`test`: LLM-Co's seven paper layouts; `train`: every other two-cook layout of LLM-Co's own set (held out by
    layout, so agreement on `test` is measured on kitchens the planner never saw)."""
    if name == "test":
        return list(PAPER_LAYOUTS)
    if name == "train":
        return [n for n in layout_names() if "/" not in n and n not in PAPER_LAYOUTS
                and len(load_layout(n).starts) == 2]
    raise ValueError(f"unknown Overcooked layout set {name!r}; sets: train (LLM-Co's layouts but the paper's "
                     f"seven), test (the paper's seven: {', '.join(PAPER_LAYOUTS)})")


#: A learner's move at a snapshot: the text of the directive it picks (None: it would pick nothing).
Learner = Callable[[Snapshot], "str | None"]


class RecordingCook(GreedyCook):
    """The greedy cook, snapshotting what it knew at each choice among two or more directives. With `perturb` it
    follows a random feasible directive at that share of its choices; with a `learner` it follows the learner's
    pick at every choice (DAgger's roll-in). Either way each point is labelled with the greedy cook's own choice,
    so the data also covers states the greedy cook would never reach by itself."""

    name = "greedy"

    def __init__(self, actions_kept: int = 5, perturb: float = 0.0, learner: Learner | None = None) -> None:
        super().__init__()
        self.actions_kept = actions_kept
        self.perturb = perturb
        self.learner = learner

    def reset(self, agent_id: str, env_info: dict[str, Any], seed: int) -> None:
        super().reset(agent_id, env_info, seed)
        self.agent_id, self.env_info = agent_id, env_info
        self.episodic = EpisodicMemory(max_actions=self.actions_kept, max_messages=0)
        self.snapshots: list[Snapshot] = []
        self.observation: Observation | None = None
        self.detours = random.Random(f"perturb:{seed}:{agent_id}")

    def act(self, observation: Observation) -> PrimitiveAction:
        self.observation = observation
        return super().act(observation)

    def choose(self, belief: OvercookedBelief, options: list[KitchenAffordance]) -> KitchenAffordance:
        choice = super().choose(belief, options)
        if len(options) < 2 or {o.text for o in options} <= _IDLE or self.observation is None:
            return choice
        snap = Snapshot(self.agent_id, len(self.snapshots), self.env_info, self.observation, copy.deepcopy(belief),
                        copy.deepcopy(self.episodic), choice, None, choice)
        if self.learner is not None:
            picked = self.learner(snap)
            snap.followed = next((o for o in options if o.text == picked), None) or next(
                o for o in options if o.text == WAIT)  # as in play: an unusable answer waits this tick
        elif self.perturb and self.detours.random() < self.perturb:
            snap.followed = self.detours.choice(options)
        self.snapshots.append(snap)
        return snap.followed  # type: ignore[return-value]  # a kit option, KitchenAffordance

    def ended(self, plan: KitchenAffordance, status: str, tick: int) -> None:
        self.episodic.add_action(plan.text, tick, status if status in ("done", "failed") else "failed")


def split_of(layout: str) -> str:
    """The paper's layouts are `test`; the others go to `train` or, for about one in seven, `validation`."""
    if layout in PAPER_LAYOUTS:
        return "test"
    return "validation" if int(hashlib.sha256(layout.encode()).hexdigest(), 16) % 7 == 0 else "train"


def layout_decisions(layout: str, team: list[str], *, renderer: DecisionRenderer, seed: int = 0,
                     perturb: float = 0.0, horizon: int = 400, learner_lm: Any = None) -> list[dict[str, Any]]:
    """Play one layout with the team (`greedy` members are recorded) and return its decision points. With
    `learner_lm` the first greedy member plays as the spec's choice node asking that LLM would (DAgger: the
    states a distilled planner reaches, labelled with what the greedy cook would have done there)."""
    env = envs.make("overcooked", layout=layout, horizon=horizon)
    actions_kept = renderer.loaded.spec.agent.actions_kept
    agents = list(env.possible_agents)

    def planner(snap: Snapshot) -> str | None:
        return renderer.decide(snap, agents, learner_lm)

    learner: Learner | None = planner if learner_lm is not None else None
    members: list[Any] = []
    for name in team:
        if name == "greedy":
            members.append(RecordingCook(actions_kept, perturb, learner))
            learner = None  # only the first greedy member is driven by the learner
        else:
            members.append(make_baseline(name))
    run_episode(env, members, seed=seed)
    recorded = [m for m in members if isinstance(m, RecordingCook)]
    driven = {m.agent_id for m in recorded if m.learner is not None}
    snapshots = sorted((s for m in recorded for s in m.snapshots),
                       key=lambda s: (s.observation.time, agents.index(s.agent), s.number))
    records = []
    for snap in snapshots:
        seen = renderer.render(snap, agents)
        texts = [o.text for o in seen.options]
        if snap.choice.text not in texts:
            continue
        record = point_record(snap, seen, renderer, env="overcooked", episode=layout, split=split_of(layout),
                              team=team)
        record["rollin"] = "learner" if snap.agent in driven else "expert"
        records.append(record)
    return records


def generate(layout_set_name: str = "train", team: list[str] | None = None, *, limit: int | None = None,
             seed: int = 0, spec: str = KITCHEN_SPEC, perturb: float = 0.0) -> Iterator[dict[str, Any]]:
    """Decision points of every layout of a set, layout by layout, in a fixed order."""
    renderer = DecisionRenderer(spec)
    for layout in layout_set(layout_set_name)[:limit]:
        yield from layout_decisions(layout, team or ["greedy", "greedy"], renderer=renderer, seed=seed,
                                    perturb=perturb)
