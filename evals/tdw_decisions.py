"""Decision points in TDW-MAT: what CoELA's choice node would see where the scripted planner picked an action.

As `evals/decisions.py` does for MHP in C-WAH: a team with a recording `TransportPlanner` (RHP's sub-goal rules on
CoELA's own action list, `envs/tdw_mat/experts/planner.py`) plays a train episode, and each time a recorded agent picks
among two or more listed actions we freeze what it knew (a copy of its belief and of its action history, as the
graph logs it) and render it through a spec's own nodes, so the prompt is byte for byte the one a CoELA agent is
sent, with the planner's pick as the lettered option it maps onto. Episodes are split by their scene layout (all
four tasks and settings of one layout stay in one split): the train split has two scenes of three layouts each,
so the third layout of scene 1a is `test`, of scene 4a `validation`, and the other four layouts train.

A learner's roll-in (`--learner`) is bounded by `MAX_LEARNER_CHOICES` per episode: a choice costs the world a frame at
least, so a learner repeating one the world refuses at once would otherwise be asked up to 3,000 times in an episode.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from coopgraph import envs
from coopgraph.envs.partners import make_partner
from coopgraph.envs.tdw_mat.episode import train_episodes
from coopgraph.envs.tdw_mat.experts.planner import TransportPlanner
from coopgraph.evals.decision_hooks import DecisionHooks, DecisionRun, RecordedEpisode
from coopgraph.evals.decisions import DECISION_SPEC, DecisionRenderer
from coopgraph.evals.recording import ChoiceRecorder, Learner, learner_for, play_rollin, recorded_episode

#: The recorded member's name in `--team`; `rhp` may play unrecorded beside it.
RECORDED = "planner"
PARTNERS = ("rhp",)
#: Held-out layouts (`scene_layout`); every other layout trains.
HELD_OUT = {"1a_2": "test", "4a_2": "validation"}
#: A learner's choices per episode before its roll-in stops: one per 15 frames of the 3,000. A played episode takes
#: 15 to 45 (the local-coop-tdw planner's first roll-ins), a learner picking at random up to about 110.
MAX_LEARNER_CHOICES = 200


class RecordingPlanner(ChoiceRecorder, TransportPlanner):
    """The transport planner, recorded (`ChoiceRecorder`): each choice among two or more listed actions."""

    def __init__(self, actions_kept: int = 10, perturb: float = 0.0, learner: Learner | None = None,
                 max_learner_choices: int | None = None) -> None:
        super().__init__(RECORDED)
        self.setup_recording(actions_kept, perturb, learner, max_learner_choices=max_learner_choices)


def episode_ids(limit: int | None = None) -> list[str]:
    """The shipped train split's episodes, `train/0` on."""
    return [f"train/{i}" for i in range(len(train_episodes()))][:limit]


def _member(name: str, actions_kept: int, perturb: float, learner: Learner | None = None,
            max_learner_choices: int | None = None) -> Any:
    if name == RECORDED:
        return RecordingPlanner(actions_kept, perturb, learner, max_learner_choices)
    if name in PARTNERS:
        return make_partner(name)
    raise ValueError(f"team member {name!r} cannot play in TDW-MAT decision data; use {RECORDED} (recorded) or "
                     f"{', '.join(PARTNERS)} (an unrecorded partner)")


def record_episode(episode: str, team: list[str], *, renderer: DecisionRenderer, seed: int = 0,
                   perturb: float = 0.0, max_frames: int | None = None, learner_lm: Any = None,
                   max_learner_choices: int | None = MAX_LEARNER_CHOICES) -> RecordedEpisode:
    """Play one episode with the team (`planner` members are recorded) and return its decision points and how far
    it got. With `learner_lm` the first planner goes where the spec's choice node, asking that LLM, sends it (a
    DAgger round), each point still labelled with the planner's own pick, until the learner has made
    `max_learner_choices` choices (None: no bound); the episode then stops, and its records say so."""
    actions_kept = int(renderer.loaded.spec.params.get("actions_kept", 10))
    options = {"max_steps": max_frames} if max_frames else {}
    env = envs.make("tdw-mat", episode=episode, num_agents=len(team), **options)
    learner = learner_for(renderer, list(env.possible_agents), learner_lm)
    members = []
    for name in team:
        members.append(_member(name, actions_kept, perturb, learner, max_learner_choices))
        learner = None if name == RECORDED else learner  # only the first planner is driven by the learner
    played = play_rollin(env, members, seed=seed)
    layout = f"{env.episode.scene}_{env.episode.layout}"
    return recorded_episode(env, members, renderer, played=played, episode=env.episode.key,
                            split=HELD_OUT.get(layout, "train"), team=team)


def episode_decisions(episode: str, team: list[str], *, renderer: DecisionRenderer, seed: int = 0,
                      perturb: float = 0.0, max_frames: int | None = None, learner_lm: Any = None,
                      max_learner_choices: int | None = MAX_LEARNER_CHOICES) -> list[dict[str, Any]]:
    """The decision points of one episode (`record_episode`'s records)."""
    return record_episode(episode, team, renderer=renderer, seed=seed, perturb=perturb, max_frames=max_frames,
                          learner_lm=learner_lm, max_learner_choices=max_learner_choices).records


def _episode_set(name: str) -> list[str]:
    if name != "train":
        raise ValueError(f"TDW-MAT decision data comes from the train split only (the test split is for checking); "
                         f"no episode set {name!r}")
    return episode_ids()


def _record(env: str, episode: str, team: list[str], *, renderer: DecisionRenderer,
            run: DecisionRun) -> RecordedEpisode:
    return record_episode(episode, team, renderer=renderer, seed=run.seed, perturb=run.perturb,
                          learner_lm=run.learner_lm, max_learner_choices=run.max_learner_choices)


#: TDW-MAT's decision data (`coopgraph data decisions --env tdw-mat --set train`): recorded transport planners.
HOOKS = DecisionHooks(team=f"{RECORDED},{RECORDED}", spec=DECISION_SPEC, episodes=_episode_set, record=_record,
                      learner="the transport planner", max_learner_choices=MAX_LEARNER_CHOICES)


def generate(team: list[str] | None = None, *, limit_episodes: int | None = None, seed: int = 0,
             spec: str = DECISION_SPEC, perturb: float = 0.0, max_frames: int | None = None
             ) -> Iterator[dict[str, Any]]:
    """Decision points of the train split's episodes, episode by episode, in a fixed order."""
    renderer = DecisionRenderer(spec)
    for episode in episode_ids(limit_episodes):
        yield from episode_decisions(episode, team or [RECORDED, RECORDED], renderer=renderer, seed=seed,
                                     perturb=perturb, max_frames=max_frames)
