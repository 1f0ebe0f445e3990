"""What `coopgraph data decisions` asks a world for, so the command names no world.

A world that records decision data registers the path of its `DecisionHooks` beside itself
(`coopgraph.envs.register_decision_data`): which episodes make up each set, the expert team and the spec used when
the command names none, and the recorder that plays one episode and returns its decision points with how far the
episode got (`RecordedEpisode`, for the command's progress line). C-WAH's are in
`evals/decisions.py`, Overcooked's in `evals/overcooked_decisions.py`, TDW-MAT's in `evals/tdw_decisions.py`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from coopgraph.evals.decisions import DecisionRenderer


@dataclass(frozen=True)
class DecisionRun:
    """The command's settings every recorder receives; each world reads the ones it has a use for (`horizon` is
    Overcooked's ticks per layout, `oracle_restarts` C-WAH's oracle effort)."""

    seed: int = 0
    perturb: float = 0.0
    learner_lm: Any = None
    horizon: int = 400
    oracle_restarts: int = 300
    expert_share: float = 0.0  # a learner's roll-in: the share of its choices where the expert follows its own pick
    max_learner_choices: int | None = None  # a learner's roll-in stops after this many choices (None: no bound)
    idle_choices: bool = False  # Overcooked: record the choices between `wait.` and `move away.` alone too
    labeller: str | None = None  # the rules labelling the planner's seat, one of the hooks' `labellers` (None: default)


@dataclass(frozen=True)
class RecordedEpisode:
    """One episode's decision points and how far it got: what the command writes and reports as it goes."""

    name: str  # the episode as its records name it (TDW-MAT: `1a_1_1/food` for `train/3`)
    records: list[dict[str, Any]]
    decisions: int  # the recorded members' choices (a record is dropped where the spec's list left the label off)
    time: int  # the world's clock when the episode ended
    time_unit: str  # frames, steps or ticks
    learner_choices: int = 0  # of `decisions`, those a learner made
    cut: dict[str, Any] | None = None  # where a learner's roll-in was stopped: {"agent", "choices", "time"}


class Recorder(Protocol):
    def __call__(self, env: str, episode: str, team: list[str], *, renderer: DecisionRenderer,
                 run: DecisionRun) -> RecordedEpisode:
        """Play `episode` of world `env` with the expert `team` and return its decision points."""
        ...


@dataclass(frozen=True)
class DecisionHooks:
    """One world's decision data: its sets, defaults and recorder."""

    team: str  # the expert team recorded when `--team` names none
    spec: str  # the graph spec whose nodes render each point's prompt when `--spec` names none
    episodes: Callable[[str], list[str]]  # a set's episode ids in order; a ValueError naming the sets otherwise
    record: Recorder
    unit: str = "episodes"  # what the progress bar counts
    learner: str | None = None  # the scripted planner `--learner` drives (None: the world has none to drive)
    mixes_expert: bool = False  # whether `--expert-share` can hand the expert a share of a learner's choices
    max_learner_choices: int | None = None  # the bound on a learner's choices per episode when the command names none
    records_idle: bool = False  # whether `--idle-choices` means anything here (a world whose expert waits by rule)
    labellers: tuple[str, ...] = ()  # the rules `--labeller` may name for the planner's seat (first: the default)


def decision_hooks(env: str) -> DecisionHooks:
    """World `env`'s hooks, as it registered them; the error lists the worlds that record decision data."""
    from coopgraph.envs.registry import decision_data, resolve

    hooks = resolve(decision_data(env))
    if not isinstance(hooks, DecisionHooks):
        raise TypeError(f"world {env!r} registered {decision_data(env)} as its decision data, which is no "
                        "DecisionHooks")
    return hooks


def learner_worlds() -> str:
    """`--env overcooked (the greedy cook) and --env tdw-mat (...)`: the worlds whose planner `--learner` drives."""
    from coopgraph.envs.registry import decision_worlds

    named = [f"--env {world} ({hooks.learner})" for world in decision_worlds()
             if (hooks := decision_hooks(world)).learner is not None]
    return " and ".join([", ".join(named[:-1]), named[-1]] if len(named) > 1 else named) or "no world"
