"""One CaPo agent's side of the meta-plan discussion, kept in the `capo` channel across steps.

A graph runs once per environment step, and a discussion spans several steps (every message is an action
that the partner answers a step later), so the discussion is a small state machine in memory rather than
a loop inside the graph. Pure logic, no LLM and no environment: the nodes in `metaplan.py` drive it.

Designer: designs (init), broadcasts, waits for every partner that discusses, refines until all agree or the
round budget is spent; on progress it first asks whether the plan still fits (CaPo appendix A.6 a): if it does,
the plan stands and nobody speaks; if not, it adapts the plan (a new version) and discusses again. Evaluator:
adopts each plan it receives at once and answers it; its own progress rides along in its next answer (or, with
`report_progress`, the small-model variants' extra `[capo progress]` message). A message longer than the
world's limit goes out as several parts, one per step (`outbox`). A partner that
never answers (a planner baseline, CoELA) is marked silent; with nobody left to discuss with the agent keeps
and adapts its meta-plan alone (CaPo appendix A.2).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from coopgraph.envs.protocol import STRICT_LABEL_PATTERN
from coopgraph.nodes.capo_protocol import (
    CapoMessage,
    feedback_message,
    join_parts,
    plan_message,
    progress_message,
    split_message,
)

Role = Literal["designer", "evaluator"]
Mode = Literal["init", "refine", "adapt"]
Turn = Literal["check", "design", "evaluate"] | None
_LABEL = re.compile(STRICT_LABEL_PATTERN)  # progress lines are written with `label()`: one space
MAX_PENDING = 6  # progress items kept for the next adaptation; older ones are already in the belief
MAX_NEWS_CHARS = 300  # an evaluator's progress read from its answer is cut here (it is a partner's text)


@dataclass(frozen=True)
class Rules:
    """The discussion's settings, from the `metaplan.discuss` node's params."""

    rounds: int = 3
    evaluate: bool = True
    adapt: bool = True
    plan_wait: int = 3
    feedback_wait: int = 2
    check_fit: bool = True  # ask whether the plan still fits before adapting it (A.6 a)
    report_progress: bool = False  # evaluators pay a `[capo progress]` message for their own progress
    message_chars: int | None = 500  # the world's message limit: longer messages go out in parts


@dataclass
class Discussion:
    me: str
    agents: list[str]
    designer: str
    role: Role
    solo: bool = False  # nobody to discuss with: plan and adapt alone, send nothing
    meta_plan: str = ""
    version: int = 0
    round: int = 0
    mode: Mode = "init"  # what the next design is
    open: bool = False  # designer: a plan is out and answers are awaited
    sent_step: int = -1
    feedback: dict[str, tuple[bool, str]] = field(default_factory=dict)  # this round's answers by partner
    silent: set[str] = field(default_factory=set)
    pending: list[str] = field(default_factory=list)  # designer: progress not yet planned for
    reports: list[str] = field(default_factory=list)  # evaluator: own progress not yet told
    to_evaluate: tuple[int, int] | None = None  # evaluator: the (version, round) to answer now
    outbox: list[str] = field(default_factory=list)  # the remaining parts of a long message, one per step
    partial: dict[tuple[str, str, int, int], list[CapoMessage]] = field(default_factory=dict)  # parts received
    heard_designer: bool = False
    consensus: bool = False
    changed_step: int = -1  # the followed meta-plan changed at this step: choose the next action again
    rules: Rules = field(default_factory=Rules)
    log: list[str] = field(default_factory=list)  # what happened, for traces and tests

    @classmethod
    def start(cls, me: str, agents: list[str], designer: str) -> Discussion:
        """Roles: `designer` designs; everybody else evaluates. A lone agent designs and discusses with nobody."""
        agents = list(agents) or [me]
        if designer not in agents:
            designer = agents[0]
        role: Role = "designer" if designer == me else "evaluator"
        return cls(me=me, agents=agents, designer=designer, role=role, solo=len(agents) == 1)

    @property
    def partners(self) -> list[str]:
        return [a for a in self.agents if a != self.me]

    def name(self, agent: str) -> str:
        return agent.capitalize()

    def _note(self, step: int, what: str) -> None:
        self.log.append(f"{step}: {what}")

    # ------------------------------------------------------------------ incoming messages
    def receive(self, message: CapoMessage, step: int) -> None:
        """Fold one discussion message in; plans from anyone but the followed designer are ignored."""
        if message.sender == self.me or message.sender not in self.agents:
            return
        if self.silent and message.sender in self.silent:
            self.silent.discard(message.sender)  # it does discuss after all (it was only late)
            self.solo = False
        if message.parts > 1:
            key = (message.sender, message.kind, message.version, message.round)
            self.partial[key] = [*self.partial.get(key, []), message][-message.parts:]
            whole = join_parts(self.partial[key])
            if whole is None:
                return  # more parts to come
            del self.partial[key]
            message = whole
        if message.kind == "plan":
            self._receive_plan(message, step)
        elif message.kind == "feedback" and self.role == "designer":
            news = message.body.partition(" My progress: ")[2].strip().rstrip(".")[:MAX_NEWS_CHARS]
            if news and self.rules.adapt and self.version > 0:
                self._queue(f"{self.name(message.sender)}: {news}")  # teammate progress, learnt from the dialogue
            if self.open and (message.version, message.round) == (self.version, self.round):
                self.feedback[message.sender] = (bool(message.agree), message.body)
        elif message.kind == "progress" and self.role == "designer":
            self._queue(f"{self.name(message.sender)}: {message.body}")

    def _receive_plan(self, message: CapoMessage, step: int) -> None:
        if self.role == "designer":
            if self.agents.index(message.sender) > self.agents.index(self.me):
                return  # two designers: the one earlier in the team's order leads
            self.role, self.designer, self.open, self.solo = "evaluator", message.sender, False, False
            self._note(step, f"yield to {message.sender}")
        if message.sender != self.designer:
            return
        if self.heard_designer and (message.version, message.round) <= (self.version, self.round):
            return  # a repeat or an old plan
        self.heard_designer = True
        self.version, self.round = message.version, message.round
        self.meta_plan, self.changed_step, self.consensus = message.body, step, False
        self.to_evaluate = (message.version, message.round)
        self._note(step, f"adopt plan {message.version}.{message.round}")

    def _queue(self, item: str) -> None:
        if item and item not in self.pending:
            self.pending = [*self.pending, item][-MAX_PENDING:]

    # ------------------------------------------------------------------ this step's turn
    def turn(self, step: int, progress: str | None, own_progress: str | None) -> tuple[Turn, str | None]:
        """What to do now: check the plan, design, evaluate, send a ready message (the second value), or nothing."""
        rules = self.rules
        if self.outbox:  # the rest of a long message goes first, one part per step
            if self.role == "designer" and self.open:
                self.sent_step = step  # answers can come only after the last part
            return None, self.outbox.pop(0)
        if self.role == "evaluator" and not self.heard_designer and step >= rules.plan_wait:
            self.role, self.designer, self.solo = "designer", self.me, True
            self._note(step, "no plan from the designer: plan alone")
        if self.role == "designer":
            if progress and rules.adapt and self.version > 0:
                self._queue(f"step {step}: {progress}")
            return self._designer_turn(step, rules), None
        return self._evaluator_turn(step, own_progress, rules)

    def _designer_turn(self, step: int, rules: Rules) -> Turn:
        if self.open:
            if not self._close_round(step, rules):
                return None
            if self.mode == "refine":
                return "design"
        if self.version == 0:
            self.mode = "init"
            return "design"
        if self.pending and rules.adapt:
            self.mode = "adapt"
            return "check" if rules.check_fit else "design"
        return None

    def _close_round(self, step: int, rules: Rules) -> bool:
        """False while answers may still come; else settle the round (and set `mode` to refine if needed)."""
        expected = [a for a in self.partners if a not in self.silent]
        waiting = [a for a in expected if a not in self.feedback]
        if waiting and step <= self.sent_step + 1 + rules.feedback_wait:
            return False
        for agent in waiting:
            self.silent.add(agent)
            self._note(step, f"{agent} does not discuss")
        self.open = False
        answers = [self.feedback[a] for a in expected if a in self.feedback]
        if not answers:
            self.solo = True
            self._note(step, "nobody discusses: plan alone")
        elif all(agree for agree, _ in answers):
            self.consensus = True
            self._note(step, f"consensus on {self.version}.{self.round}")
        elif self.round < rules.rounds:
            self.mode = "refine"
            return True
        else:
            self._note(step, f"budget spent at {self.version}.{self.round}")
        self.mode = "adapt"
        return True

    def _evaluator_turn(self, step: int, own_progress: str | None, rules: Rules) -> tuple[Turn, str | None]:
        if own_progress and rules.adapt and self.heard_designer:
            news = [item for item in own_progress.split("; ") if not self._planned(item)]
            self.reports = [*self.reports, *news][-MAX_PENDING:]
        if self.to_evaluate is not None:
            if rules.evaluate:
                return "evaluate", None
            self.to_evaluate, self.consensus = None, True  # no evaluation: the designer's plan stands
        if self.reports and rules.report_progress:
            text = progress_message(self.version, self.reports)
            self.reports = []
            self._note(step, "report progress")
            return None, text
        return None, None

    def _planned(self, item: str) -> bool:
        """A discovery the followed plan already names is no news to its designer."""
        label = _LABEL.search(item)
        return item.startswith("found ") and label is not None and label.group(0) in self.meta_plan

    # ------------------------------------------------------------------ results of the LLM nodes
    def checked(self, fits: bool, step: int) -> bool:
        """The designer's answer to "does the plan still fit?": True when the plan must be adapted (design next).

        A plan that fits is kept: the progress counts as planned for, and nobody speaks (A.6 a)."""
        if fits:
            self._note(step, f"plan {self.version} still fits")
            self.pending = []
            return False
        self._note(step, f"plan {self.version} no longer fits")
        return True

    def _send(self, text: str) -> str:
        """The first part of `text` to send now; the others wait in the outbox for the next steps."""
        parts = split_message(text, self.rules.message_chars) if self.rules.message_chars else [text]
        self.outbox = parts[1:]
        return parts[0]

    def designed(self, plan: str, step: int) -> str | None:
        """Take the designer's new plan (empty: the design failed, keep the old); return the broadcast, if any."""
        if self.mode == "refine" and plan == self.meta_plan:
            self.open, self.mode = False, "adapt"
            self._note(step, f"refinement of {self.version}.{self.round} unchanged: keep the plan")
            return None  # asking again about the same plan would only cost steps
        if self.mode == "refine":
            self.round += 1
        else:
            self.version, self.round = self.version + 1, 1
            self.pending = []
        self.feedback, self.consensus, self.open = {}, False, False
        if not plan:
            self._note(step, f"design {self.version}.{self.round} failed: keep the old plan")
            return None
        self.meta_plan, self.changed_step = plan, step
        self._note(step, f"{self.mode} plan {self.version}.{self.round}")
        if self.solo or not self.partners:
            return None
        if self.rules.evaluate:
            self.open, self.sent_step = True, step
        return self._send(plan_message(self.version, self.round, plan))

    def evaluated(self, agree: bool, feedback: str, step: int) -> str:
        """The evaluator's answer to the plan it was asked about, as the message to send."""
        version, round_ = self.to_evaluate or (self.version, self.round)
        self.to_evaluate = None
        self.consensus = agree
        self._note(step, f"{'agree' if agree else 'revise'} {version}.{round_}")
        news, self.reports = (self.reports, []) if not self.rules.report_progress else ([], self.reports)
        return self._send(feedback_message(version, round_, agree, feedback, news))

    @property
    def status(self) -> str:
        """How the followed plan stands, in words a prompt can use."""
        if not self.meta_plan:
            return "none"
        if self.solo:
            return "my own plan (my partners do not discuss plans)"
        if self.consensus:
            return "agreed by the team"
        return "proposed, under discussion" if self.open or self.to_evaluate else "the designer's latest plan"
