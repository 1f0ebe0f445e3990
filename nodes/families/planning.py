"""Planning nodes: list the actions the environment offers, narrow the list down, choose one of them.

The ranking and shortening heuristics live beside this module (`candidates.py` for REVECA's K candidates,
`shortlist.py` for the small planners' grouped list); the nodes a spec names are all here.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from typing import Any, cast

from pydantic import BaseModel, ConfigDict, Field, model_validator

from coopgraph.envs.capabilities import Objects, ObservedAffordances
from coopgraph.envs.protocol import Affordance, AffordanceGroup
from coopgraph.nodes.candidates import CandidateParams, distance_notes, rank
from coopgraph.nodes.context import NodeContext
from coopgraph.nodes.families.execution import history_text
from coopgraph.nodes.families.recall import CLOCK_FACTS
from coopgraph.nodes.keys import ACTIONS, CHOICE, CHOICE_INDEX, FACTS, INVALID, OPTIONS
from coopgraph.nodes.order_vote import OrderVote, choose_in_orders
from coopgraph.nodes.programs import ChoiceParams, ChoiceProgram, adapter_for, run_program
from coopgraph.nodes.registry import node, router
from coopgraph.nodes.reveca_notes import REVECA, reveca_notes
from coopgraph.nodes.shortlist import ShortlistParams, hand_free, shortlist
from coopgraph.nodes.state import key

REASONING = key("reasoning", str, start="", family="planning", doc="the planner's short thought before its choice")
CANDIDATES = key("candidates", list[dict[str, Any]], family="planning",
                 doc="REVECA's K ranked candidates (level, distances, note), as plain data")


# ----------------------------------------------------------------------------- listing
class ListParams(BaseModel):
    """What `planning.list_actions` adds to the bare action list."""

    model_config = ConfigDict(extra="forbid")

    distances: bool = Field(default=False, description="note my walking distance next to each action (in the "
                            "facts' `option_notes`), as LLM-Co's state does; off in CoELA as published")
    skip_done_within: int = Field(default=0, ge=0, description="leave off an action this agent finished within its "
                                  "last N actions but a put (0: off, as published), unless nothing else is left: "
                                  "a weak planner otherwise walks back and forth between two rooms it has explored")
    skip_claimed: bool = Field(default=False, description="leave off grabbing an object a partner said it goes to "
                               "grab (unless I said so first), unless nothing else is left; off in CoELA as "
                               "published, where the LLM reads the dialogue")
    skip_ineffective: bool = Field(default=False, description="leave off an action whose last attempt by this agent "
                                   "did nothing (as the world's skill book reports it) for as long as what it acts "
                                   "on is unchanged, unless only waiting or stepping aside would be left; off as "
                                   "published: a small planner at temperature 0 repeats it from the same state")
    skip_ineffective_always: bool = Field(default=False, description="with `skip_ineffective`, leave such an "
                                          "action off even when only waiting or stepping aside would be left: a "
                                          "cook holding what no place it reaches can take (an onion by a full pot, "
                                          "no counter free) is asked to wait or step aside instead of asking for "
                                          "the pot again from its only access")

    skip_stalled_wait: bool = Field(default=False, description="leave off waiting when this decision is shown "
                                    "what the one before was shown (its facts but the clock) and that one waited, "
                                    "unless only messages would be left; off as published: a small planner at "
                                    "temperature 0 waits again from the same view for as long as nothing moves")

    @model_validator(mode="after")
    def _always_needs_skip(self) -> ListParams:
        if self.skip_ineffective_always and not self.skip_ineffective:
            raise ValueError("skip_ineffective_always needs skip_ineffective: true (it widens that rule)")
        return self


def _is_message(option: Affordance) -> bool:
    return option.group == AffordanceGroup.COMMUNICATE


def _leave_off(options: list[Affordance], drop: Callable[[Affordance], bool]) -> list[Affordance]:
    """The options `drop` rejects left off (a message never is); all of them when that would leave only a message."""
    kept = [o for o in options if _is_message(o) or not drop(o)]
    return kept if any(not _is_message(o) for o in kept) else options


def without_recent(options: list[Affordance], episodic: Any, within: int) -> list[Affordance]:
    """The options minus those finished (`done`) among the agent's last `within` actions, except the ones the
    world marks `repeatable` (a C-WAH put delivers what is in the hands now, so the same text is due again for
    the next object, however recently the last one was done)."""
    if within <= 0:
        return options
    recent = {a.text for a in episodic.actions[-within:] if a.outcome == "done"}
    return _leave_off(options, lambda o: not o.repeatable and history_text(o) in recent)


def without_claimed(options: list[Affordance]) -> list[Affordance]:
    """The options minus fetches a partner announced it goes for (unless I announced first: the world's
    `announced` claim). Only fetches, as in MHP's planner: an announced check or exploration goes stale."""
    return _leave_off(options, lambda o: o.group == AffordanceGroup.FETCH
                      and any(claim.reason == "announced" for claim in o.claims))


def _idle(option: Affordance) -> bool:
    """Waits, or acts on no target (a step aside): nothing in it a planner could weigh against another."""
    return option.group == AffordanceGroup.WAIT or (
        option.group != AffordanceGroup.COMMUNICATE and option.target_id is None and option.target_name is None
        and not option.target_ids)


def without_ineffective(options: list[Affordance], episodic: Any, always: bool = False) -> list[Affordance]:
    """The options minus those whose last attempt did nothing from the very situation they stand in now (the
    world's `situation` token, equal to what its skill book reported as `unchanged`); all of them when only
    waiting, stepping aside or a message would be left, unless `always`. Once the agent holds something else or
    the target has changed, the token differs and the action is offered again."""
    def kept_anyway(option: Affordance) -> bool:
        return _idle(option) or _is_message(option)

    kept = [o for o in options if kept_anyway(o) or not episodic.did_nothing(o.text, o.situation)]
    return kept if always or any(not kept_anyway(o) for o in kept) else options


def view_digest(facts: Mapping[str, Any] | None) -> str:
    """A digest of what a decision is shown of the world: its facts without the clock (`CLOCK_FACTS`), in key
    order, so a view repeated at a later step digests the same."""
    view = {k: v for k, v in (facts or {}).items() if k not in CLOCK_FACTS}
    text = json.dumps(view, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def without_stalled_wait(options: list[Affordance], last_action: str | None) -> list[Affordance]:
    """The options minus the wait `last_action` was, when the planner is shown what it was shown when it chose it
    (the caller passes None otherwise): nothing it sees moved while it waited, and asked again it would wait
    again. The whole list when only a message would be left."""
    if last_action is None:
        return options
    return _leave_off(options, lambda o: o.group == AffordanceGroup.WAIT and history_text(o) == last_action)


def _traced_leave_off(ctx: NodeContext[ListParams], why: str, listed: list[Affordance],
                      options: list[Affordance]) -> None:
    """A `left_off` trace event naming what a rule took off the list, and under which rule."""
    if ctx.tracer is not None and len(options) < len(listed):
        kept = set(map(id, options))
        ctx.tracer.event("left_off", node=ctx.name, **{why: [o.text for o in listed if id(o) not in kept]})


@node("planning.list_actions", reads=("message", "facts"), optional_reads=("message",),
      writes=(ACTIONS, OPTIONS, FACTS), params=ListParams,
      adds_facts=lambda params: ("option_notes",) if params.distances else ())
def list_actions(state: dict[str, Any], ctx: NodeContext[ListParams]) -> dict[str, Any]:
    """Ask the environment's affordances for the high-level actions open to this belief.

    With `distances`, each option's walking distance goes into the facts as a note keyed by the option's text, so
    it stays with its option however the chooser orders the list. With `skip_done_within`, what the agent has just
    finished is left off; with `skip_claimed`, what a partner said it goes for; with `skip_ineffective`, what did
    nothing when last tried from the situation it still stands in (with `skip_ineffective_always`, even when
    only waiting or stepping aside is left); with `skip_stalled_wait`, a wait chosen last time from the very
    view shown now (the facts but the clock)."""
    affordances = ctx.resources.affordances
    assert affordances is not None, "planning.list_actions ran without the world's affordances"
    options = affordances.available(ctx.belief, message=state.get("message"))
    options = without_recent(options, ctx.memory.episodic, ctx.params.skip_done_within)
    if ctx.params.skip_claimed:
        options = without_claimed(options)
    if ctx.params.skip_ineffective:
        listed = options
        options = without_ineffective(options, ctx.memory.episodic, ctx.params.skip_ineffective_always)
        _traced_leave_off(ctx, "ineffective", listed, options)
    if ctx.params.skip_stalled_wait:
        episodic, listed = ctx.memory.episodic, options
        same_view = episodic.note_view(view_digest(state.get("facts")))
        last = episodic.actions[-1].text if same_view and episodic.actions else None
        options = without_stalled_wait(options, last)
        _traced_leave_off(ctx, "stalled", listed, options)
    update: dict[str, Any] = {"actions": [option.text for option in options], "options": options}
    if ctx.params.distances:
        update["facts"] = {**(state.get("facts") or {}), "option_notes": distance_notes(options)}
    return update


# ----------------------------------------------------------------------------- narrowing down
@node(
    "planning.rank_candidates",
    reads=("options", "facts", "observation"),
    writes=(CANDIDATES, ACTIONS, OPTIONS, FACTS, REVECA),
    params=CandidateParams,
    adds_facts=("option_notes",),
    requires={"objects", "rooms", "spatial", "partners", "observed_actions"},
)
def rank_candidates(state: dict[str, Any], ctx: NodeContext[CandidateParams]) -> dict[str, Any]:
    """Keep the K most promising actions, ranked by relevance, then by proximity against partners.

    The list handed on is a subset of the environment's options, in ranked order, with a short note per
    candidate (level, my distance, partners' estimated distances) for the planner's prompt.
    """
    obs = state["observation"]
    notes = reveca_notes(ctx.memory)
    options = list(state.get("options") or [])
    if ctx.params.pool == "observed":  # everything seen, not only what the goal asks for (the world's seam)
        listed = {option.text for option in options}
        more = cast(ObservedAffordances, ctx.resources.affordances).observed(ctx.belief)
        options += [option for option in more if option.text not in listed]
    ranked = rank(ctx.belief, notes, options, obs.time, ctx.params)[: ctx.params.k]
    kept = [option for option, _ in ranked]
    candidates = [candidate for _, candidate in ranked]
    facts = dict(state.get("facts") or {})
    facts["option_notes"] = {candidate.text: candidate.note for candidate in candidates if candidate.note}
    return {
        "candidates": [candidate.model_dump() for candidate in candidates],
        "actions": [option.text for option in kept],
        "options": kept,
        "facts": facts,
        REVECA: notes,  # ranking keeps partner estimates in the notes
    }


@node("planning.shortlist", reads=("options", "facts"), writes=(ACTIONS, OPTIONS, FACTS),
      params=ShortlistParams, requires={"objects"}, adds_facts=("option_notes",))
def shortlist_actions(state: dict[str, Any], ctx: NodeContext[ShortlistParams]) -> dict[str, Any]:
    """Keep the nearest few options of each group, grouped, each noted with its distance and any partner claim
    (in the facts' `option_notes`, keyed by the option's text so the note follows its option)."""
    free_hand = hand_free(cast(Objects, ctx.belief))
    kept = shortlist(list(state.get("options") or []), ctx.params, free_hand)
    facts = dict(state.get("facts") or {})
    facts["option_notes"] = {option.text: text for option, text in kept if text}
    return {"actions": [option.text for option, _ in kept], "options": [option for option, _ in kept],
            "facts": facts}


# ----------------------------------------------------------------------------- choosing
class ActionChoiceParams(ChoiceParams):
    """The choice knobs plus asking in several option orders (position-bias cancelling)."""

    orders: int = Field(default=1, ge=1, le=6, description="ask with the options in this many rotated orders and "
                        "take the majority; cancels position bias, one call per order")
    idle_unasked: list[int] = Field(default_factory=list, description="team positions (0: the first agent) that "
                                    "take the wait option without a call when every option only waits or acts on no "
                                    "target (LLM-Co: [1], its second cook, offered only `wait.` and `move away.`)")


def wait_index(options: list[Affordance]) -> int | None:
    """The first option the world groups as waiting, or None."""
    return next((i for i, option in enumerate(options) if option.group == AffordanceGroup.WAIT), None)


def _unasked_wait(state: dict[str, Any], ctx: NodeContext[ActionChoiceParams]) -> int | None:
    """The wait option's index when this agent takes it without a call (`idle_unasked`), else None."""
    agents, me = ctx.resources.agents, ctx.resources.agent_id
    if not ctx.params.idle_unasked or me not in agents or agents.index(me) not in ctx.params.idle_unasked:
        return None
    options = list(state.get("options") or [])
    if not options or not all(_idle(o) for o in options):
        return None
    return wait_index(options)


def choose(ctx: NodeContext[ActionChoiceParams], context: dict[str, Any], actions: list[str]) -> OrderVote:
    """The node's decision for these facts and options: its program through its adapter, in `orders` orders."""
    adapter = adapter_for(ctx)

    def ask(shown: list[str]) -> Any:
        return run_program(ctx.program, adapter, ctx.lm, context=context, options=shown)

    return choose_in_orders(ask, actions, ctx.params.orders)


@node(
    "planning.choose_action",
    reads=("facts", "actions", "description", "options"),
    optional_reads=("description", "options"),
    writes=(CHOICE, CHOICE_INDEX, REASONING, INVALID),
    params=ActionChoiceParams,
    prompt="planning/choose_action",
    program=ChoiceProgram,
)
def choose_action(state: dict[str, Any], ctx: NodeContext[ActionChoiceParams]) -> dict[str, Any]:
    """Ask the LLM to pick one listed action after a short thought; never returns an unlisted action.

    A single available action is taken without a call, and so is waiting where `idle_unasked` says so. An
    unusable answer (after retries) is marked invalid and replaced by the node's declared fallback.
    """
    actions = list(state.get("actions") or [])
    if len(actions) <= 1:
        only = actions[0] if actions else None
        return {"choice": only, "choice_index": 0 if actions else None, "reasoning": "", "invalid": False}
    idle = _unasked_wait(state, ctx)
    if idle is not None:
        return {"choice": actions[idle], "choice_index": idle, "reasoning": "", "invalid": False}
    context = dict(state.get("facts") or {})
    if state.get("description"):
        context["description"] = state["description"]
    vote = choose(ctx, context, actions)
    if ctx.tracer is not None and len(vote.votes) > 1:
        ctx.tracer.event("order_votes", node=ctx.name, votes=vote.votes, winner=vote.index)
    if vote.index is not None:
        return {"choice": actions[vote.index], "choice_index": vote.index, "reasoning": vote.reasoning,
                "invalid": False}
    if ctx.tracer is not None:
        ctx.tracer.event("invalid_answer", node=ctx.name, raw=vote.raw, errors=vote.errors)
    fallback = {"first": 0, "none": None, "wait": wait_index(list(state.get("options") or []))}[ctx.params.fallback]
    return {"choice": None if fallback is None else actions[fallback], "choice_index": fallback,
            "reasoning": "", "invalid": True}


@router("planning.has_choice", branches=("chosen", "none"), reads=("choice",))
def has_choice(state: dict[str, Any], ctx: NodeContext) -> str:
    """Branch on whether the planner produced an action."""
    return "chosen" if state.get("choice") else "none"
