"""CaPo's meta-plan nodes: whose turn it is in the discussion, the designer's plan, the evaluator's verdict,
sending a discussion message as an action, and briefing the action chooser on the plan.

The discussion runs through the environment: `say` turns a discussion message into the only option and
the shared execution nodes send it, so every round costs a step as the environment says. Roles are taken at
run time (one spec for designer and evaluators); the state of the discussion lives in the `capo` channel
(see `capo_discussion.py`), the message format in `capo_protocol.py`.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from coopgraph.envs.protocol import SEND_MESSAGE, Affordance, AffordanceGroup, message_affordance
from coopgraph.nodes.capo_discussion import Discussion, Rules
from coopgraph.nodes.capo_protocol import parse_message, parse_meta_plan, part_for
from coopgraph.nodes.context import NodeContext
from coopgraph.nodes.keys import ACTIONS, CHOICE, CHOICE_INDEX, FACTS, INVALID, OPTIONS
from coopgraph.nodes.programs import ChoiceParams, ChoiceProgram, TextParams, TextProgram, adapter_for, run_program
from coopgraph.nodes.registry import node, router
from coopgraph.nodes.state import EPISODIC, PLAN, channel, key

if TYPE_CHECKING:
    from coopgraph.memory.agent_memory import AgentMemory

@dataclass
class CapoRecord:
    """The `capo` channel: this agent's side of the discussion, begun at its first step."""

    discussion: Discussion | None = None


CAPO = channel("capo", CapoRecord, CapoRecord, "this agent's side of the CaPo meta-plan discussion", family="capo")

# This step's view of the discussion, for routers and the chooser's prompt.
META_PLAN = key("meta_plan", str | None, family="capo", doc="the meta-plan as agreed or proposed so far")
FEEDBACK = key("feedback", list[str], family="capo", doc="the evaluators' feedback lines")
CONSENSUS = key("consensus", bool, family="capo", doc="whether the team agreed on the meta-plan")
DISCUSSION_ROUND = key("discussion_round", int, family="capo", doc="the discussion's round")
DISCUSSION_TURN = key("discussion_turn", str | None, family="capo",
                      doc="design / evaluate / check / None (act): whose move the discussion expects now")
UTTERANCE = key("utterance", str | None, family="capo",
                doc="a discussion message to send this step (kept apart from `message`, CoELA's draft)")

VERDICTS = ["yes, we follow it as it is", "no, it should change"]
FIT = ["yes, it still fits: we keep it", "no, it needs an update"]
_PROTOCOL_LINE = re.compile(r'^\w+: "\[capo (plan|feedback|progress) ')
_SENT_DISCUSSION = re.compile(rf'^(\[{SEND_MESSAGE}\] <"\[capo [^\]]{{1,40}}\]).*$', re.DOTALL)


class MetaPlanProgram(TextProgram):
    """The designer's tunable program; its instructions (what an optimizer rewrites) are about meta-plans."""

    def __init__(self, instructions: str | None = None) -> None:
        super().__init__(instructions or "Split the task into subtasks and give each teammate its share.")


class VerdictProgram(ChoiceProgram):
    """The evaluator's tunable program: a feedback line, then a constrained yes/no."""

    def __init__(self, instructions: str | None = None) -> None:
        super().__init__(instructions or "Judge whether the team should follow the proposed meta-plan.")


class FitProgram(ChoiceProgram):
    """The designer's plan-fit check (CaPo A.6 a): a short thought, then a constrained yes/no."""

    def __init__(self, instructions: str | None = None) -> None:
        super().__init__(instructions or "Judge whether our meta-plan still fits the progress we have made.")


class DiscussParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rounds: int = Field(default=3, ge=1, le=10, description="discussion budget: plan-and-feedback rounds per version")
    designer: str = Field(default="random",
                          description="who designs: 'random' (seeded by the episode seed, the same for the whole "
                                      "team), 'first' or 'last' agent of the env, or an agent id")
    evaluate: bool = Field(default=True, description="partners answer each plan; false: the first plan stands")
    adapt: bool = Field(default=True, description="re-plan on progress; false: the plan is frozen once discussed")
    plan_wait: int = Field(default=3, ge=1, le=50, description="steps an evaluator waits for a plan, then plans alone")
    feedback_wait: int = Field(default=2, ge=0, le=50,
                               description="extra steps a designer waits for an answer before planning alone")
    check_fit: bool = Field(default=True, description="on progress, ask whether the plan still fits before adapting "
                                                      "it; false: every progress event brings a new plan")
    report_progress: bool = Field(default=False, description="evaluators send their own progress as an extra "
                                                             "`[capo progress]` message (it costs a step)")
    message_chars: int | None = Field(default=None, ge=0, le=100_000,
                                      description="split longer messages into parts, one step each; none: the "
                                                  "world's own limit (C-WAH 500); 0: never split")


def team_seed(agent_seed: int, agents: list[str], me: str) -> int:
    """The episode's seed, which every teammate knows: the runner gives agent i the seed `episode seed + i`."""
    return agent_seed - (agents.index(me) if me in agents else 0)


def random_designer(agents: list[str], seed: int) -> str:
    """The designer drawn at random (CaPo 4.2), from the episode seed alone so that the team agrees unspoken."""
    return random.Random(f"capo-designer:{seed}").choice(sorted(agents))


def _designer_id(choice: str, agents: list[str], me: str, agent_seed: int = 0) -> str:
    if not agents:
        return me
    if choice == "random":
        return random_designer(agents, team_seed(agent_seed, agents, me))
    if choice == "first":
        return agents[0]
    if choice == "last":
        return agents[-1]
    return choice if choice in agents else agents[0]


def _trace(ctx: NodeContext[Any], discussion: Discussion, before: int, **fields: Any) -> None:
    if ctx.tracer is None:
        return
    for entry in discussion.log[before:]:
        ctx.tracer.event("discussion", what=entry.split(": ", 1)[1], role=discussion.role,
                         version=discussion.version, round=discussion.round, **fields)


def _record(ctx: NodeContext[Any]) -> CapoRecord:
    record: CapoRecord = ctx.memory.channel(CAPO, CapoRecord)
    return record


def _state(ctx: NodeContext[Any], discussion: Discussion, **more: Any) -> dict[str, Any]:
    return {
        CAPO: _record(ctx),  # the discussion moved on
        "meta_plan": discussion.meta_plan or None,
        "consensus": discussion.consensus,
        "discussion_round": discussion.round,
        **more,
    }


@node(
    "metaplan.discuss",
    reads=("observation", "progress_event", "progress_report"),
    optional_reads=("progress_event", "progress_report"),  # without `progress.detect` (capo-noadapt) no adapting
    writes=(DISCUSSION_TURN, UTTERANCE, META_PLAN, CONSENSUS, DISCUSSION_ROUND, FEEDBACK, CAPO),
    params=DiscussParams,
)
def discuss(state: dict[str, Any], ctx: NodeContext[DiscussParams]) -> dict[str, Any]:
    """Read this step's discussion messages and decide the turn: design, evaluate, report progress, or act.

    Ordinary messages are left to perception; only messages with the CaPo header move the discussion.
    """
    obs = state["observation"]
    params = ctx.params
    discussion = ctx.memory.channel(CAPO, CapoRecord).discussion
    if discussion is None:
        agents = list(ctx.resources.agents or [obs.agent_id])
        designer = _designer_id(params.designer, agents, obs.agent_id, ctx.resources.seed)
        discussion = Discussion.start(obs.agent_id, agents, designer)
        ctx.memory.channel(CAPO, CapoRecord).discussion = discussion
    limit = ctx.belief.message_limit if params.message_chars is None else params.message_chars
    discussion.rules = Rules(params.rounds, params.evaluate, params.adapt, params.plan_wait, params.feedback_wait,
                             params.check_fit, params.report_progress, limit or None)
    before = len(discussion.log)
    for message in obs.messages:
        parsed = parse_message(message.sender, message.text)
        if parsed is not None:
            discussion.receive(parsed, obs.time)
    turn, utterance = discussion.turn(obs.time, state.get("progress_event"), state.get("progress_report"))
    _trace(ctx, discussion, before, step=obs.time)
    feedback = [f"{discussion.name(a)}: {text}" for a, (_, text) in discussion.feedback.items()]
    return _state(ctx, discussion, discussion_turn=turn, utterance=utterance, feedback=feedback)


class DesignParams(TextParams):
    max_tokens: int = Field(default=256, ge=16, le=4096, description="longest reply the model may write (CaPo: 256)")
    max_chars: int | None = Field(default=None, ge=80, le=4000,
                                  description="cut the meta-plan to this many characters (small-model variants); "
                                              "none: as long as the model writes it")
    words_per_line: int | None = Field(default=None, ge=5, le=200,
                                       description="ask for at most this many words per teammate (small models)")
    dialogue: bool = Field(default=True, description="show the dialogue history in the prompt (CaPo 4.2-4.3)")


@node(
    "metaplan.design",
    reads=("facts", "observation"),
    writes=(META_PLAN, UTTERANCE, CONSENSUS, DISCUSSION_ROUND, INVALID, CAPO),
    params=DesignParams,
    prompt="metaplan/design",
    template_vars=("team", "mode", "meta_plan", "feedback", "progress_updates", "words_per_line"),
    program=MetaPlanProgram,
)
def design(state: dict[str, Any], ctx: NodeContext[DesignParams]) -> dict[str, Any]:
    """The designer writes the meta-plan: first version, refinement after feedback, or update after progress.

    The reply is read into one `Name: subtasks` line per teammate; an unusable reply keeps the old plan.
    """
    obs = state["observation"]
    discussion: Discussion = ctx.memory.channel(CAPO, CapoRecord).discussion
    team = [discussion.name(a) for a in discussion.agents]
    context = {
        **(state.get("facts") or {}),
        "team": team,
        "mode": discussion.mode,
        "meta_plan": discussion.meta_plan,
        "feedback": [f"{discussion.name(a)} ({'agrees' if ok else 'wants a change'}): {text}"
                     for a, (ok, text) in discussion.feedback.items()],
        "progress_updates": list(discussion.pending),
        "words_per_line": ctx.params.words_per_line,
    }
    if not ctx.params.dialogue:
        context.pop("dialogue", None)
    prediction = run_program(ctx.program, adapter_for(ctx), ctx.lm, context=context)
    plan = parse_meta_plan(prediction.text, team, ctx.params.max_chars) if prediction.valid else ""
    if not plan and ctx.tracer is not None:
        ctx.tracer.event("invalid_answer", node=ctx.name, raw=prediction.raw, errors=prediction.get("errors", []))
    before = len(discussion.log)
    utterance = discussion.designed(plan, obs.time)
    _trace(ctx, discussion, before, step=obs.time, plan=discussion.meta_plan, sent=utterance is not None)
    return _state(ctx, discussion, utterance=utterance, invalid=not plan)


class EvaluateParams(ChoiceParams):
    reasoning_chars: int = Field(default=200, ge=0, le=2000, description="the feedback line written before the verdict")
    dialogue: bool = Field(default=True, description="show the dialogue history in the prompt (CaPo 4.2)")


@node(
    "metaplan.evaluate",
    reads=("facts", "observation"),
    writes=(FEEDBACK, CONSENSUS, UTTERANCE, INVALID, CAPO),
    params=EvaluateParams,
    prompt="metaplan/evaluate",
    template_vars=("designer", "meta_plan", "round", "rounds", "my_progress"),
    program=VerdictProgram,
)
def evaluate(state: dict[str, Any], ctx: NodeContext[EvaluateParams]) -> dict[str, Any]:
    """An evaluator judges the designer's plan: one line of feedback, then a constrained yes/no verdict.

    An unusable verdict follows the node's fallback (`first`: agree, so a confused model does not
    prolong the discussion).
    """
    obs = state["observation"]
    discussion: Discussion = ctx.memory.channel(CAPO, CapoRecord).discussion
    version, round_ = discussion.to_evaluate or (discussion.version, discussion.round)
    context = {
        **(state.get("facts") or {}),
        "designer": discussion.name(discussion.designer),
        "meta_plan": discussion.meta_plan,
        "round": round_,
        "rounds": discussion.rules.rounds,
        "my_progress": [] if discussion.rules.report_progress else list(discussion.reports),
    }
    if not ctx.params.dialogue:
        context.pop("dialogue", None)
    prediction = run_program(ctx.program, adapter_for(ctx), ctx.lm, context=context, options=list(VERDICTS))
    if prediction.valid:
        agree, text = prediction.index == 0, prediction.reasoning
    else:
        if ctx.tracer is not None:
            ctx.tracer.event("invalid_answer", node=ctx.name, raw=prediction.raw, errors=prediction.errors)
        agree, text = ctx.params.fallback == "first", ""
    before = len(discussion.log)
    utterance = discussion.evaluated(agree, text, obs.time)
    _trace(ctx, discussion, before, step=obs.time, feedback=text)
    return {"feedback": [text] if text else [], "consensus": agree, "utterance": utterance,
            "invalid": not prediction.valid, CAPO: _record(ctx)}


class CheckParams(ChoiceParams):
    dialogue: bool = Field(default=True, description="show the dialogue history in the prompt (CaPo 4.3)")


@node(
    "metaplan.check",
    reads=("facts", "observation"),
    writes=(DISCUSSION_TURN, INVALID, CAPO),
    params=CheckParams,
    prompt="metaplan/check",
    template_vars=("team", "meta_plan", "progress_updates"),
    program=FitProgram,
)
def check(state: dict[str, Any], ctx: NodeContext[CheckParams]) -> dict[str, Any]:
    """The designer asks whether the meta-plan still fits the new progress (CaPo appendix A.6 a).

    Yes: the plan is kept and nobody speaks. No: the designer adapts the plan next (`design`), and the team
    discusses it. An unusable answer follows the node's fallback (`first`: the plan fits, no talk).
    """
    obs = state["observation"]
    discussion: Discussion = ctx.memory.channel(CAPO, CapoRecord).discussion
    context = {**(state.get("facts") or {}), "team": [discussion.name(a) for a in discussion.agents],
               "meta_plan": discussion.meta_plan, "progress_updates": list(discussion.pending)}
    if not ctx.params.dialogue:
        context.pop("dialogue", None)
    prediction = run_program(ctx.program, adapter_for(ctx), ctx.lm, context=context, options=list(FIT))
    if prediction.valid:
        fits = prediction.index == 0
    else:
        if ctx.tracer is not None:
            ctx.tracer.event("invalid_answer", node=ctx.name, raw=prediction.raw, errors=prediction.errors)
        fits = ctx.params.fallback == "first"
    before = len(discussion.log)
    adapt = discussion.checked(fits, obs.time)
    _trace(ctx, discussion, before, step=obs.time, reason=prediction.get("reasoning", "") if prediction.valid else "")
    return {"discussion_turn": "design" if adapt else None, "invalid": not prediction.valid, CAPO: _record(ctx)}


@node("metaplan.say", reads=("utterance", "observation"),
      writes=(ACTIONS, OPTIONS, CHOICE, CHOICE_INDEX, PLAN, EPISODIC))
def say(state: dict[str, Any], ctx: NodeContext) -> dict[str, Any]:
    """Offer the discussion message as the only action, so the shared execution nodes send it (one step).

    A message sent last step whose plan is still open is closed first, so it is logged as done.
    """
    text = state.get("utterance")
    if not text:
        return {}
    running = ctx.memory.plan
    if _is_message(running):
        ctx.memory.episodic.add_action(running.text, state["observation"].time, "done")
        ctx.memory.plan = None
    option = message_affordance(text)
    return {"actions": [option.text], "options": [option], "choice": option.text, "choice_index": 0,
            PLAN: ctx.memory.running, EPISODIC: ctx.memory.episodic}


def _is_message(plan: Affordance | None) -> bool:
    """True for a running plan that sends a message (it is closed, not interrupted, when the next one starts)."""
    return plan is not None and plan.group == AffordanceGroup.COMMUNICATE


def _without_discussion(facts: dict[str, Any], memory: AgentMemory) -> dict[str, Any]:
    """The chooser's dialogue and action history without the discussion's bodies: the plan is shown once, apart."""
    dialogue = [line for line in str(facts.get("dialogue") or "").splitlines() if not _PROTOCOL_LINE.search(line)]
    facts = {**facts, "dialogue": "\n".join(dialogue)}
    short = [replace(r, text=_SENT_DISCUSSION.sub(r'\1 ...">', r.text)).render() for r in memory.episodic.actions]
    facts["previous_actions"] = "; ".join(short)
    return facts


@node("metaplan.brief", reads=("facts", "observation", "capo"), writes=(FACTS,),
      adds_facts=("dialogue", "previous_actions", "meta_plan", "my_part", "plan_status"))
def brief(state: dict[str, Any], ctx: NodeContext) -> dict[str, Any]:
    """Add the meta-plan, this agent's part of it and its standing to the facts the action chooser sees.

    Discussion messages are dropped from the dialogue and shortened in the action history (as in the paper's
    plan-parsing prompt, which has no dialogue): the chooser sees the plan once, not every round of it.
    """
    facts = _without_discussion(dict(state.get("facts") or {}), ctx.memory)
    discussion: Discussion | None = ctx.memory.channel(CAPO, CapoRecord).discussion
    if discussion is None or not discussion.meta_plan:
        return {"facts": {**facts, "meta_plan": "", "my_part": "", "plan_status": "none"}}
    name = state["observation"].agent_name
    return {"facts": {**facts, "meta_plan": discussion.meta_plan, "my_part": part_for(discussion.meta_plan, name),
                      "plan_status": discussion.status}}


@router("metaplan.capo_turn", branches=("check", "design", "evaluate", "act"), reads=("discussion_turn",))
def capo_turn(state: dict[str, Any], ctx: NodeContext) -> str:
    """Follow the discussion's turn: the designer checks or designs, an evaluator evaluates, otherwise act."""
    turn = state.get("discussion_turn")
    return turn if turn in ("check", "design", "evaluate") else "act"


@router("metaplan.after_check", branches=("design", "act"), reads=("discussion_turn",))
def after_check(state: dict[str, Any], ctx: NodeContext) -> str:
    """After the plan-fit check: adapt the plan when it no longer fits, else act on the plan as it is."""
    return "design" if state.get("discussion_turn") == "design" else "act"


class NextParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    on_message: bool = Field(default=False, description="also choose again when an ordinary message arrives")


@router("metaplan.capo_next", branches=("send", "plan", "continue"),
        reads=("utterance", "observation", "new_messages", "capo"),
        params=NextParams)
def capo_next(state: dict[str, Any], ctx: NodeContext[NextParams]) -> str:
    """Send a discussion message; else choose an action when none runs or the meta-plan just changed.

    A message sent last step is left to the running plan to close, rather than logged as interrupted.
    """
    if state.get("utterance"):
        return "send"
    plan = ctx.memory.plan
    if _is_message(plan):
        return "continue"
    discussion: Discussion | None = ctx.memory.channel(CAPO, CapoRecord).discussion
    changed = discussion is not None and discussion.changed_step == state["observation"].time
    if plan is None or changed or (ctx.params.on_message and state.get("new_messages")):
        return "plan"
    return "continue"
