"""Decision points in Overcooked: what LLM-Co's choice node would see where the greedy cook picked a directive.

As `evals/decisions.py` does for MHP in C-WAH: a team with a recording greedy cook plays a layout, and each time
that cook picks a new directive from the kit's feasible list we freeze what it knew (a copy of its belief and of
its action history, the way the graph logs it) and render it through a spec's own nodes (`memory.retrieve`,
`memory.layout`, `planning.list_actions`, `planning.choose_action`'s adapter), so the prompt is byte for byte what
an LLM-Co agent would be sent. The greedy cook's pick is the label. Layouts are the unit of the split: LLM-Co's
seven paper layouts are held out as the test set; every other two-cook layout of LLM-Co's set, and coopgraph's own
training kitchens (divided, passing and gated ones, `layouts/coopgraph/`), trains.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any

from coopgraph import envs
from coopgraph.envs.overcooked.affordances import MOVE_AWAY, WAIT
from coopgraph.envs.overcooked.decision_situation import decision_situation
from coopgraph.envs.overcooked.experts.cooks import GateAwareCook, GreedyCook, LookaheadCook
from coopgraph.envs.overcooked.layouts import PAPER_LAYOUTS, layout_names, load_layout, paper_copy
from coopgraph.envs.partners import make_partner
from coopgraph.evals.decision_hooks import DecisionHooks, DecisionRun, RecordedEpisode
from coopgraph.evals.decisions import DecisionRenderer
from coopgraph.evals.recording import ChoiceRecorder, Learner, learner_for, play_rollin, recorded_episode

#: The spec whose nodes render Overcooked decision points unless told otherwise: LLM-Co's prompt with the action
#: alone as the reply, what a distilled planner answers.
KITCHEN_SPEC = "llmco-lite"
#: Directives that never reach the model as a choice worth learning: LLM-Co's second cook takes them unasked.
_IDLE = {WAIT, MOVE_AWAY}
#: coopgraph's training kitchens in the order they were added. A new kitchen joins the end, so the `train` and
#: `kitchens` orders only grow at their tails and `--limit-episodes N` replays an earlier round's set: rounds 1-3
#: recorded the first twelve (`kitchens --limit-episodes 12`, `train --limit-episodes 45`).
KITCHEN_ORDER = ("coopgraph/gated_delivery", "coopgraph/gated_delivery_wide", "coopgraph/island_ring",
                 "coopgraph/island_ring_long", "coopgraph/locked_halves", "coopgraph/locked_halves_swapped",
                 "coopgraph/passing_columns", "coopgraph/passing_columns_swapped", "coopgraph/passing_narrow",
                 "coopgraph/passing_narrow_swapped", "coopgraph/passing_rows", "coopgraph/passing_rows_swapped",
                 "coopgraph/bare_room", "coopgraph/bare_room_swapped")


def layout_set(name: str) -> list[str]:
    """`test`: LLM-Co's seven paper layouts; `train`: every other two-cook layout of LLM-Co's own set that is not one
    of the seven under another name or with a cell or three changed (`paper_copy`), then coopgraph's training
    kitchens (held out by layout, so agreement on `test` is measured on kitchens the planner
    never saw); `kitchens`: coopgraph's training kitchens alone (LLM-Co's set has one passing kitchen with shared
    counters and one gated one, the paper's seven have four); `gated`: the layouts of `train` with a gate, the kind
    of the paper's two gated layouts (among them coopgraph's `bare_room*`, which like those two leave a cook no
    counter to set an onion down on)."""
    if name == "test":
        return list(PAPER_LAYOUTS)
    names = layout_names()
    shipped = {n for n in names if n.startswith("coopgraph/")}
    if shipped != set(KITCHEN_ORDER):
        raise ValueError(f"coopgraph's training kitchens and KITCHEN_ORDER differ: "
                         f"{sorted(shipped ^ set(KITCHEN_ORDER))} (add a new kitchen at the end of KITCHEN_ORDER in "
                         "evals/overcooked_decisions.py)")
    own = list(KITCHEN_ORDER)
    if name == "kitchens":
        return own
    if name == "gated":
        return [n for n in layout_set("train") if any("G" in row for row in load_layout(n).terrain)]
    if name == "train":
        return [n for n in names if "/" not in n and paper_copy(n) is None and len(load_layout(n).starts) == 2] + own
    raise ValueError(f"unknown Overcooked layout set {name!r}; sets: train (LLM-Co's layouts but the paper's "
                     f"seven, and coopgraph's training kitchens), kitchens (coopgraph's training kitchens), gated "
                     f"(the training layouts with a gate), test "
                     f"(the paper's seven: {', '.join(PAPER_LAYOUTS)})")


class RecordingCook(ChoiceRecorder, GreedyCook):
    """The greedy cook, recorded (`ChoiceRecorder`). Choices among `wait.` and `move away.` alone are left out
    unless `idle_choices` says otherwise: the greedy cook takes them by rule, but an LLM-Co planner is asked them
    too, and one that was never shown such a point waits where the greedy cook would step aside for the partner
    (docs/methods/llmco.md, "Round 15")."""

    name = "greedy"

    def __init__(self, actions_kept: int = 5, perturb: float = 0.0, learner: Learner | None = None,
                 expert_share: float = 0.0, max_learner_choices: int | None = None,
                 idle_choices: bool = False) -> None:
        super().__init__()
        self.setup_recording(actions_kept, perturb, learner, expert_share, max_learner_choices)
        self.idle_choices = idle_choices

    def worth_recording(self, options: list[Any]) -> bool:
        return len(options) >= 2 and (self.idle_choices or not {o.text for o in options} <= _IDLE)

    def decision_situation(self, belief: Any) -> str | None:
        """What the cook holds and what the kitchen needs of it (`envs/overcooked/decision_situation.py`)."""
        return decision_situation(belief)


class GateAwareRecordingCook(RecordingCook, GateAwareCook):
    """The recorded cook labelling with `GateAwareCook`'s rules (`--labeller greedy-gates`)."""

    name = "greedy-gates"


class LookaheadRecordingCook(RecordingCook, LookaheadCook):
    """The recorded cook labelling with `LookaheadCook`'s rules (`--labeller greedy-ahead`)."""

    name = "greedy-ahead"


#: The rules that label the planner's seat (`coopgraph data decisions --labeller`); the partner stays the greedy cook.
LABELLERS: dict[str, type[RecordingCook]] = {"greedy": RecordingCook, "greedy-gates": GateAwareRecordingCook,
                                              "greedy-ahead": LookaheadRecordingCook}


def split_of(layout: str) -> str:
    """The paper's layouts and their copies are `test`; the others go to `train` or, for about one in seven,
    `validation`."""
    if layout in PAPER_LAYOUTS or paper_copy(layout) is not None:
        return "test"
    return "validation" if int(hashlib.sha256(layout.encode()).hexdigest(), 16) % 7 == 0 else "train"


def record_layout(layout: str, team: list[str], *, renderer: DecisionRenderer, seed: int = 0, perturb: float = 0.0,
                  horizon: int = 400, learner_lm: Any = None, expert_share: float = 0.0,
                  max_learner_choices: int | None = None, idle_choices: bool = False,
                  labeller: str = "greedy") -> RecordedEpisode:
    """Play one layout with the team (`greedy` members are recorded) and return its decision points and how far it
    got. With `learner_lm` the first greedy member plays as the spec's choice node asking that LLM would (DAgger:
    the states a distilled planner reaches, labelled with what the greedy cook would have done there), except at a
    seeded share `expert_share` of its choices, where it follows its own pick; `max_learner_choices` stops the
    layout after that many learner choices (None: `horizon` alone bounds it); `idle_choices` records (and hands the
    learner) the choices between `wait.` and `move away.` alone too; `labeller` names the rules (`LABELLERS`) of the
    first greedy member, the seat a planner takes, which label its points (and play it where no learner does)."""
    env = envs.make("overcooked", layout=layout, horizon=horizon)
    actions_kept = renderer.loaded.spec.agent.actions_kept
    agents = list(env.possible_agents)
    if labeller not in LABELLERS:
        raise ValueError(f"unknown labeller {labeller!r}; labellers: {', '.join(LABELLERS)}")
    learner = learner_for(renderer, agents, learner_lm)
    seat: type[RecordingCook] = LABELLERS[labeller]
    members: list[Any] = []
    for name in team:
        if name == "greedy":
            members.append(seat(actions_kept, perturb, learner, expert_share, max_learner_choices, idle_choices))
            learner, seat = None, RecordingCook  # only the first greedy member is driven and relabelled
        else:
            members.append(make_partner(name))
    played = play_rollin(env, members, seed=seed)
    return recorded_episode(env, members, renderer, played=played, episode=layout, split=split_of(layout), team=team)


def layout_decisions(layout: str, team: list[str], *, renderer: DecisionRenderer, seed: int = 0,
                     perturb: float = 0.0, horizon: int = 400, learner_lm: Any = None,
                     expert_share: float = 0.0, idle_choices: bool = False,
                     labeller: str = "greedy") -> list[dict[str, Any]]:
    """The decision points of one layout (`record_layout`'s records)."""
    return record_layout(layout, team, renderer=renderer, seed=seed, perturb=perturb, horizon=horizon,
                         learner_lm=learner_lm, expert_share=expert_share, idle_choices=idle_choices,
                         labeller=labeller).records


def _record(env: str, episode: str, team: list[str], *, renderer: DecisionRenderer,
            run: DecisionRun) -> RecordedEpisode:
    return record_layout(episode, team, renderer=renderer, seed=run.seed, perturb=run.perturb, horizon=run.horizon,
                         learner_lm=run.learner_lm, expert_share=run.expert_share,
                         max_learner_choices=run.max_learner_choices, idle_choices=run.idle_choices,
                         labeller=run.labeller or "greedy")


#: Overcooked's decision data (`coopgraph data decisions --env overcooked`): greedy cooks, layout by layout.
HOOKS = DecisionHooks(team="greedy,greedy", spec=KITCHEN_SPEC, episodes=layout_set, record=_record, unit="layouts",
                      learner="the greedy cook", mixes_expert=True, records_idle=True, labellers=tuple(LABELLERS))


def generate(layout_set_name: str = "train", team: list[str] | None = None, *, limit: int | None = None,
             seed: int = 0, spec: str = KITCHEN_SPEC, perturb: float = 0.0) -> Iterator[dict[str, Any]]:
    """Decision points of every layout of a set, layout by layout, in a fixed order."""
    renderer = DecisionRenderer(spec)
    for layout in layout_set(layout_set_name)[:limit]:
        yield from layout_decisions(layout, team or ["greedy", "greedy"], renderer=renderer, seed=seed,
                                    perturb=perturb)
