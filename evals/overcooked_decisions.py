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
from collections.abc import Iterator
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


class RecordingCook(GreedyCook):
    """The greedy cook, snapshotting what it knew at each choice among two or more directives. With `perturb` it
    follows a random feasible directive at that share of its choices (still labelled with its own), so the data
    also covers states the greedy cook would never reach by itself."""

    name = "greedy"

    def __init__(self, actions_kept: int = 5, perturb: float = 0.0) -> None:
        super().__init__()
        self.actions_kept = actions_kept
        self.perturb = perturb

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
        followed = choice
        if self.perturb and self.detours.random() < self.perturb:
            followed = self.detours.choice(options)
        self.snapshots.append(Snapshot(self.agent_id, len(self.snapshots), self.env_info, self.observation,
                                       copy.deepcopy(belief), copy.deepcopy(self.episodic), choice, None, followed))
        return followed

    def ended(self, plan: KitchenAffordance, status: str, tick: int) -> None:
        self.episodic.add_action(plan.text, tick, status if status in ("done", "failed") else "failed")


def split_of(layout: str) -> str:
    """The paper's layouts are `test`; the others go to `train` or, for about one in seven, `validation`."""
    if layout in PAPER_LAYOUTS:
        return "test"
    return "validation" if int(hashlib.sha256(layout.encode()).hexdigest(), 16) % 7 == 0 else "train"


def layout_decisions(layout: str, team: list[str], *, renderer: DecisionRenderer, seed: int = 0,
                     perturb: float = 0.0, horizon: int = 400) -> list[dict[str, Any]]:
    """Play one layout with the team (`greedy` members are recorded) and return its decision points."""
    env = envs.make("overcooked", layout=layout, horizon=horizon)
    actions_kept = renderer.loaded.spec.agent.actions_kept
    members = [RecordingCook(actions_kept, perturb) if name == "greedy" else make_baseline(name) for name in team]
    run_episode(env, members, seed=seed)
    agents = list(env.possible_agents)
    snapshots = sorted((s for m in members if isinstance(m, RecordingCook) for s in m.snapshots),
                       key=lambda s: (s.observation.time, agents.index(s.agent), s.number))
    records = []
    for snap in snapshots:
        seen = renderer.render(snap, agents)
        texts = [o.text for o in seen.options]
        if snap.choice.text not in texts:
            continue
        records.append(point_record(snap, seen, renderer, env="overcooked", episode=layout, split=split_of(layout),
                                    team=team))
    return records


def generate(layout_set_name: str = "train", team: list[str] | None = None, *, limit: int | None = None,
             seed: int = 0, spec: str = KITCHEN_SPEC, perturb: float = 0.0) -> Iterator[dict[str, Any]]:
    """Decision points of every layout of a set, layout by layout, in a fixed order."""
    renderer = DecisionRenderer(spec)
    for layout in layout_set(layout_set_name)[:limit]:
        yield from layout_decisions(layout, team or ["greedy", "greedy"], renderer=renderer, seed=seed,
                                    perturb=perturb)
