"""Decision points in TDW-MAT: what CoELA's choice node would see where the scripted planner picked an action.

As `evals/decisions.py` does for MHP in C-WAH: a team with a recording `TransportPlanner` (RHP's sub-goal rules on
CoELA's own action list, `envs/tdw_mat/planner.py`) plays a train episode, and each time a recorded agent picks
among two or more listed actions we freeze what it knew (a copy of its belief and of its action history, as the
graph logs it) and render it through a spec's own nodes, so the prompt is byte for byte the one a CoELA agent is
sent, with the planner's pick as the lettered option it maps onto. Episodes are split by their scene layout (all
four tasks and settings of one layout stay in one split): the train split has two scenes of three layouts each,
so the third layout of scene 1a is `test`, of scene 4a `validation`, and the other four layouts train.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator
from typing import Any

from coopgraph import envs
from coopgraph.envs.baselines import make_baseline
from coopgraph.envs.protocol import Affordance, Observation, PrimitiveAction
from coopgraph.envs.tdw_mat.belief import TDWBelief
from coopgraph.envs.tdw_mat.episode import train_episodes
from coopgraph.envs.tdw_mat.planner import TransportPlanner
from coopgraph.evals.decisions import DECISION_SPEC, DecisionRenderer, Snapshot, point_record
from coopgraph.evals.runner import run_episode
from coopgraph.memory.episodic import OUTCOMES, EpisodicMemory

#: The recorded member's name in `--team`; `rhp` may play unrecorded beside it.
RECORDED = "planner"
PARTNERS = ("rhp",)
#: Held-out layouts (`scene_layout`); every other layout trains.
HELD_OUT = {"1a_2": "test", "4a_2": "validation"}


class RecordingPlanner(TransportPlanner):
    """The transport planner, snapshotting what it knew at each choice among two or more actions. With `perturb`
    it follows a random listed action at that share of its choices (still labelled with its own)."""

    def __init__(self, actions_kept: int = 10, perturb: float = 0.0) -> None:
        super().__init__(RECORDED)
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

    def choose(self, belief: TDWBelief, options: list[Affordance]) -> Affordance:
        choice = super().choose(belief, options)
        if len(options) < 2 or self.observation is None:
            return choice
        followed = choice
        if self.perturb and self.detours.random() < self.perturb:
            followed = self.detours.choice(options)
        self.snapshots.append(Snapshot(self.agent_id, len(self.snapshots), self.env_info, self.observation,
                                       copy.deepcopy(belief), copy.deepcopy(self.episodic), choice, None, followed))
        return followed

    def ended(self, plan: Affordance, status: str, frame: int) -> None:
        self.episodic.add_action(plan.text, frame, status if status in OUTCOMES else "failed")


def episode_ids(limit: int | None = None) -> list[str]:
    """The shipped train split's episodes, `train/0` on."""
    return [f"train/{i}" for i in range(len(train_episodes()))][:limit]


def _member(name: str, actions_kept: int, perturb: float) -> Any:
    if name == RECORDED:
        return RecordingPlanner(actions_kept, perturb)
    if name in PARTNERS:
        return make_baseline(name)
    raise ValueError(f"team member {name!r} cannot play in TDW-MAT decision data; use {RECORDED} (recorded) or "
                     f"{', '.join(PARTNERS)} (an unrecorded partner)")


def episode_decisions(episode: str, team: list[str], *, renderer: DecisionRenderer, seed: int = 0,
                      perturb: float = 0.0, max_frames: int | None = None) -> list[dict[str, Any]]:
    """Play one episode with the team (`planner` members are recorded) and return its decision points."""
    actions_kept = int(renderer.loaded.spec.params.get("actions_kept", 10))
    members = [_member(name, actions_kept, perturb) for name in team]
    options = {"max_steps": max_frames} if max_frames else {}
    env = envs.make("tdw-mat", episode=episode, num_agents=len(team), **options)
    run_episode(env, members, seed=seed)
    agents = list(env.possible_agents)
    snapshots = sorted((s for m in members if isinstance(m, RecordingPlanner) for s in m.snapshots),
                       key=lambda s: (s.observation.time, agents.index(s.agent), s.number))
    layout = f"{env.episode.scene}_{env.episode.layout}"
    records = []
    for snap in snapshots:
        seen = renderer.render(snap, agents)
        if snap.choice.text not in [o.text for o in seen.options]:
            continue  # the spec's list left the planner's choice off: never label a wrong index
        records.append(point_record(snap, seen, renderer, env="tdw-mat", episode=env.episode.key,
                                    split=HELD_OUT.get(layout, "train"), team=team))
    return records


def generate(team: list[str] | None = None, *, limit_episodes: int | None = None, seed: int = 0,
             spec: str = DECISION_SPEC, perturb: float = 0.0, max_frames: int | None = None
             ) -> Iterator[dict[str, Any]]:
    """Decision points of the train split's episodes, episode by episode, in a fixed order."""
    renderer = DecisionRenderer(spec)
    for episode in episode_ids(limit_episodes):
        yield from episode_decisions(episode, team or [RECORDED, RECORDED], renderer=renderer, seed=seed,
                                     perturb=perturb, max_frames=max_frames)
