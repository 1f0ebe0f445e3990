"""Decision points in TDW-MAT: what CoELA's choice node would see where the scripted planner picked an action.

As `evals/decisions.py` does for MHP in C-WAH: a team with a recording `TransportPlanner` (RHP's sub-goal rules on
CoELA's own action list, `envs/tdw_mat/experts/planner.py`) plays a train episode, and each time a recorded agent picks
among two or more listed actions we freeze what it knew (a copy of its belief and of its action history, as the
graph logs it) and render it through a spec's own nodes, so the prompt is byte for byte the one a CoELA agent is
sent, with the planner's pick as the lettered option it maps onto. Episodes are split by their scene layout (all
four tasks and settings of one layout stay in one split): the train split has two scenes of three layouts each,
so the third layout of scene 1a is `test`, of scene 4a `validation`, and the other four layouts train.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from coopgraph import envs
from coopgraph.envs.partners import make_partner
from coopgraph.envs.tdw_mat.episode import train_episodes
from coopgraph.envs.tdw_mat.experts.planner import TransportPlanner
from coopgraph.evals.decision_hooks import DecisionHooks, DecisionRun
from coopgraph.evals.decisions import DECISION_SPEC, DecisionRenderer
from coopgraph.evals.recording import ChoiceRecorder, Learner, learner_for, recorded_points
from coopgraph.runtime.episode_loop import run_episode

#: The recorded member's name in `--team`; `rhp` may play unrecorded beside it.
RECORDED = "planner"
PARTNERS = ("rhp",)
#: Held-out layouts (`scene_layout`); every other layout trains.
HELD_OUT = {"1a_2": "test", "4a_2": "validation"}


class RecordingPlanner(ChoiceRecorder, TransportPlanner):
    """The transport planner, recorded (`ChoiceRecorder`): each choice among two or more listed actions."""

    def __init__(self, actions_kept: int = 10, perturb: float = 0.0, learner: Learner | None = None) -> None:
        super().__init__(RECORDED)
        self.setup_recording(actions_kept, perturb, learner)


def episode_ids(limit: int | None = None) -> list[str]:
    """The shipped train split's episodes, `train/0` on."""
    return [f"train/{i}" for i in range(len(train_episodes()))][:limit]


def _member(name: str, actions_kept: int, perturb: float, learner: Learner | None = None) -> Any:
    if name == RECORDED:
        return RecordingPlanner(actions_kept, perturb, learner)
    if name in PARTNERS:
        return make_partner(name)
    raise ValueError(f"team member {name!r} cannot play in TDW-MAT decision data; use {RECORDED} (recorded) or "
                     f"{', '.join(PARTNERS)} (an unrecorded partner)")


def episode_decisions(episode: str, team: list[str], *, renderer: DecisionRenderer, seed: int = 0,
                      perturb: float = 0.0, max_frames: int | None = None, learner_lm: Any = None
                      ) -> list[dict[str, Any]]:
    """Play one episode with the team (`planner` members are recorded) and return its decision points. With
    `learner_lm` the first planner goes where the spec's choice node, asking that LLM, sends it (a DAgger
    round), each point still labelled with the planner's own pick."""
    actions_kept = int(renderer.loaded.spec.params.get("actions_kept", 10))
    options = {"max_steps": max_frames} if max_frames else {}
    env = envs.make("tdw-mat", episode=episode, num_agents=len(team), **options)
    learner = learner_for(renderer, list(env.possible_agents), learner_lm)
    members = []
    for name in team:
        members.append(_member(name, actions_kept, perturb, learner))
        learner = None if name == RECORDED else learner  # only the first planner is driven by the learner
    run_episode(env, members, seed=seed)
    layout = f"{env.episode.scene}_{env.episode.layout}"
    return recorded_points(members, list(env.possible_agents), renderer, env="tdw-mat", episode=env.episode.key,
                           split=HELD_OUT.get(layout, "train"), team=team)


def _episode_set(name: str) -> list[str]:
    if name != "train":
        raise ValueError(f"TDW-MAT decision data comes from the train split only (the test split is for checking); "
                         f"no episode set {name!r}")
    return episode_ids()


def _record(env: str, episode: str, team: list[str], *, renderer: DecisionRenderer,
            run: DecisionRun) -> list[dict[str, Any]]:
    return episode_decisions(episode, team, renderer=renderer, seed=run.seed, perturb=run.perturb,
                             learner_lm=run.learner_lm)


#: TDW-MAT's decision data (`coopgraph data decisions --env tdw-mat --set train`): recorded transport planners.
HOOKS = DecisionHooks(team=f"{RECORDED},{RECORDED}", spec=DECISION_SPEC, episodes=_episode_set, record=_record,
                      learner="the transport planner")


def generate(team: list[str] | None = None, *, limit_episodes: int | None = None, seed: int = 0,
             spec: str = DECISION_SPEC, perturb: float = 0.0, max_frames: int | None = None
             ) -> Iterator[dict[str, Any]]:
    """Decision points of the train split's episodes, episode by episode, in a fixed order."""
    renderer = DecisionRenderer(spec)
    for episode in episode_ids(limit_episodes):
        yield from episode_decisions(episode, team or [RECORDED, RECORDED], renderer=renderer, seed=seed,
                                     perturb=perturb, max_frames=max_frames)
