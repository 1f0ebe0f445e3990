"""Recording a scripted planner's choices as decision points, for the worlds whose experts pick through a kit.

Overcooked's greedy cook and TDW-MAT's transport planner both pick one of the kit's listed actions with
`choose(belief, options)` whenever their last one has ended. `ChoiceRecorder` wraps that pick: it freezes what the
planner knew (its belief and a CoELA-style action history) and lets it follow something else while keeping its own
pick as the label, either a random option at a share of its choices (`perturb`, as in DART) or a learner's pick
(`learner`, DAgger's roll-in: at every choice, or at all but a seeded share `expert_share` where the expert's own
pick is followed, DAgger's mixing), so the data covers states the expert would never reach by itself. A learner's
roll-in may be bounded (`max_learner_choices`): a learner that repeats a choice costing a frame or two (a grab the
world refuses at once, say) would otherwise ask its model thousands of times in one episode; `play_rollin` stops
the episode there and says where (`RollinCut`).
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from pettingzoo import ParallelEnv

from coopgraph.envs.protocol import Affordance, AgentInfo, Observation, PrimitiveAction
from coopgraph.evals.decision_hooks import RecordedEpisode
from coopgraph.evals.decisions import DecisionRenderer, Snapshot, point_record
from coopgraph.memory.episodic import OUTCOMES, EpisodicMemory
from coopgraph.runtime.episode_loop import run_episode

#: A learner's move at a snapshot: the text of the option the spec's choice node picks (its fallback for an
#: unusable answer; None where the node would pick nothing, and then the expert's choice is followed).
Learner = Callable[[Snapshot], "str | None"]


class RollinCut(Exception):  # noqa: N818 - a stop, not an error: the episode's points so far are kept
    """A learner-driven recorder has made its allowed choices: the roll-in stops at this moment of the episode."""

    def __init__(self, agent: str, choices: int, time: int) -> None:
        super().__init__(f"{agent}'s roll-in stopped after {choices} learner choices at time {time}")
        self.agent, self.choices, self.time = agent, choices, time

    def record(self) -> dict[str, Any]:
        """What a cut episode's records and the command's summary say about it."""
        return {"agent": self.agent, "choices": self.choices, "time": self.time}


class ChoiceRecorder:
    """Mixin for a kit-driven scripted member (put it first among the bases): records each choice among two or
    more options, and follows a detour or a learner where asked. `worth_recording` says which choices count."""

    def setup_recording(self, actions_kept: int, perturb: float = 0.0, learner: Learner | None = None,
                        expert_share: float = 0.0, max_learner_choices: int | None = None) -> None:
        self.actions_kept = actions_kept
        self.perturb = perturb
        self.learner = learner
        self.expert_share = expert_share
        self.max_learner_choices = max_learner_choices  # None: the learner chooses until the episode ends

    def reset(self, agent_id: str, env_info: AgentInfo, seed: int) -> None:
        super().reset(agent_id, env_info, seed)  # type: ignore[misc]  # the planner's own reset
        self.agent_id, self.env_info = agent_id, env_info
        self.episodic = EpisodicMemory(max_actions=self.actions_kept, max_messages=0)
        self.snapshots: list[Snapshot] = []
        self.learner_choices = 0
        self.observation: Observation | None = None
        self.detours = random.Random(f"perturb:{seed}:{agent_id}")

    def act(self, observation: Observation) -> PrimitiveAction:
        self.observation = observation
        return super().act(observation)  # type: ignore[misc]

    def worth_recording(self, options: list[Any]) -> bool:
        return len(options) >= 2

    def decision_situation(self, belief: Any) -> str | None:
        """The point's situation class, recorded as `situation` for a mix that balances over it (None: none)."""
        return None

    def choose(self, belief: Any, options: list[Any]) -> Any:
        choice = super().choose(belief, options)  # type: ignore[misc]
        if not self.worth_recording(options) or self.observation is None:
            return choice
        snap = Snapshot(self.agent_id, len(self.snapshots), self.env_info, self.observation, copy.deepcopy(belief),
                        copy.deepcopy(self.episodic), choice, None, choice)
        if self.learner is not None and self.expert_share and self.detours.random() < self.expert_share:
            pass  # DAgger's mixing: the expert's own choice this time, so a learner's loop cannot fill the roll-in
        elif self.learner is not None:
            if self.max_learner_choices is not None and self.learner_choices >= self.max_learner_choices:
                raise RollinCut(self.agent_id, self.learner_choices, self.observation.time)
            self.learner_choices += 1
            picked = self.learner(snap)  # the node's own fallback already stands in for an unusable answer
            snap.followed = next((o for o in options if o.text == picked), choice)
        elif self.perturb and self.detours.random() < self.perturb:
            snap.followed = self.detours.choice(options)
        self.snapshots.append(snap)
        return snap.followed

    def ended(self, plan: Affordance, status: str, time: int, unchanged: str | None = None) -> None:
        self.episodic.add_action(plan.text, time, status if status in OUTCOMES else "failed")
        self.episodic.note_effect(plan.text, unchanged)  # so a spec that leaves such a directive off does here too


def learner_for(renderer: DecisionRenderer, agents: list[str], lm: Any) -> Learner | None:
    """The learner that asks `lm` through the spec's choice node (None without an LLM)."""
    if lm is None:
        return None

    def pick(snap: Snapshot) -> str | None:
        return renderer.decide(snap, agents, lm)

    return pick


#: What `play_rollin` returns: the world's clock at the episode's end, and the cut where a roll-in was stopped.
Played = tuple[int, RollinCut | None]


def play_rollin(env: ParallelEnv, members: Sequence[Any], *, seed: int) -> Played:
    """Play one episode with `members` and return the world's clock at its end; where a driven recorder used up its
    learner choices the episode stops there, and the cut comes back too (the recorders keep every point up to it)."""
    try:
        return run_episode(env, members, seed=seed).steps, None
    except RollinCut as cut:
        return cut.time, cut


def recorded_episode(env: Any, members: Sequence[Any], renderer: DecisionRenderer, *, played: Played, episode: str,
                     split: str, team: list[str]) -> RecordedEpisode:
    """The recorded members' points of an episode `play_rollin` played, and how far it got; each record of a cut
    episode says where it was cut (`rollin_cut`)."""
    agents = list(env.possible_agents)
    records = recorded_points(members, agents, renderer, env=env.name, episode=episode, split=split, team=team)
    time, cut = played
    if cut is not None:
        for record in records:
            record["rollin_cut"] = cut.record()
    recorders = [m for m in members if isinstance(m, ChoiceRecorder)]
    return RecordedEpisode(name=episode, records=records, decisions=sum(len(m.snapshots) for m in recorders),
                           time=time, time_unit=env.time_unit,
                           learner_choices=sum(m.learner_choices for m in recorders),
                           cut=None if cut is None else cut.record())


def recorded_points(members: Iterable[Any], agents: list[str], renderer: DecisionRenderer, *, env: str, episode: str,
                    split: str, team: list[str]) -> list[dict[str, Any]]:
    """The recorded members' decision points as JSON-ready records, in time order. A point whose label the spec's
    list left off is dropped (never a wrong index); `rollin` says who chose where the agent went next, and
    `situation` (where the recorder classes its points) what the point is a case of."""
    recorders = [m for m in members if isinstance(m, ChoiceRecorder)]
    by_agent = {m.agent_id: m for m in recorders}
    driven = {m.agent_id for m in recorders if m.learner is not None}
    snapshots = sorted((s for m in recorders for s in m.snapshots),
                       key=lambda s: (s.observation.time, agents.index(s.agent), s.number))
    records = []
    for snap in snapshots:
        seen = renderer.render(snap, agents)
        if snap.choice.text not in [o.text for o in seen.options]:
            continue
        record = point_record(snap, seen, renderer, env=env, episode=episode, split=split, team=team,
                              rollin="learner" if snap.agent in driven else "expert")
        situation = by_agent[snap.agent].decision_situation(snap.belief)
        if situation is not None:
            record["situation"] = situation
        records.append(record)
    return records
