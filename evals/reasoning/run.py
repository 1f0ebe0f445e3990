"""Running a question file against a model: every question × trial becomes one row of the result store.

Rows are keyed like episode runs (suite `reasoning-<file stem>`, team = the LLM setting, episode = the question's
id, repeat = the trial, config hash = the file's content, the prompt and the sampling), so a rerun skips what is
stored and an interrupted run loses nothing finished. Each row keeps the reply and both scorers' readings, so the
scorer is chosen when results are read, never by asking again. The trace of a trial holds each call (`llm_call`)
and a `reasoning_answer` event with the prompt, the reply and both readings.
"""

from __future__ import annotations

import hashlib
import random
import re
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from coopgraph.evals.reasoning.asking import MAX_TOKENS, SAMPLING, TEMPLATE, Asked, ask
from coopgraph.evals.reasoning.questions import Question
from coopgraph.evals.reasoning.scoring import read_faithful, read_fixed
from coopgraph.evals.store import ResultStore
from coopgraph.prompts.render import PROMPTS_DIR, template_file
from coopgraph.record.trace_file import Tracer

ENV = "reasoning"
#: Bumped when the way questions are asked changes, so older rows stop counting as the current configuration.
PROTOCOL = 1


@dataclass(frozen=True)
class ReasoningRun:
    """What is asked (a file's questions), of whom (an LLM setting) and how often (trials)."""

    path: Path
    questions: list[Question]
    team: str
    trials: int
    program: Path | None = None

    @property
    def suite(self) -> str:
        return f"{ENV}-{re.sub(r'[^A-Za-z0-9_.-]+', '-', self.path.stem)}"

    def config_hash(self) -> str:
        digest = hashlib.sha256()
        digest.update(self.path.read_bytes())
        digest.update((PROMPTS_DIR / template_file(TEMPLATE)).read_bytes())
        digest.update(f"{PROTOCOL}|{sorted(SAMPLING.items())}|{MAX_TOKENS}".encode())
        if self.program is not None:
            digest.update(self.program.read_bytes())
        return digest.hexdigest()[:16]


@dataclass
class RunSummary:
    asked: int = 0
    skipped_done: int = 0
    failed: int = 0
    interrupted: bool = False


def trace_path(out: Path, run: ReasoningRun, trial: int) -> Path:
    team = re.sub(r"[^A-Za-z0-9_.-]+", "-", run.team)
    return out / "traces" / run.suite / f"{team}-trial{trial}.jsonl"


def _usage(lm: Any) -> tuple[int, ...]:
    """Calls, prompt and completion tokens so far (a bare ChatLM counts nothing)."""
    usage = getattr(lm, "usage", None)
    return (usage.calls, usage.prompt_tokens, usage.completion_tokens) if usage is not None else (0, 0, 0)


def answer_row(run: ReasoningRun, config: str, question: Question, trial: int, asked: Asked, usage: tuple[int, ...],
               started: float, trace: Path) -> dict[str, Any]:
    faithful, fixed = read_faithful(question, asked.reply), read_fixed(question, asked.reply)
    metrics = {"kind": question.kind, "game": question.game, "options": len(question.letters),
               "ordinal": question.ordinal, "faithful": float(faithful.correct), "fixed": float(fixed.correct),
               "letter_faithful": faithful.letter, "letter_fixed": fixed.letter,
               "chance_faithful": question.chance(True), "chance_fixed": question.chance(False),
               "unreadable": float(fixed.letter is None), "reply": asked.reply}
    return {"suite": run.suite, "team": run.team, "env": ENV, "episode": question.id, "seed": 0, "repeat": trial,
            "config_hash": config, "status": "error" if asked.failed else "done",
            "error": "; ".join(asked.errors)[:500] if asked.failed else None, "members": [run.team],
            "success": float(fixed.correct), "metrics": metrics, "llm_calls": usage[0],
            "prompt_tokens": usage[1], "completion_tokens": usage[2], "invalid_answers": float(fixed.letter is None),
            "trace_path": str(trace), "started_at": started, "finished_at": time.time(),
            "wall_time_s": round(time.time() - started, 4), "host": socket.gethostname()}


def spread(questions: list[Question], limit: int | None) -> list[Question]:
    """At most `limit` questions covering every question type and game alike, in file order: one from each
    (type, game) stratum in turn, each stratum's in a fixed shuffled order. The first N of a file would be one game
    (the full set starts with 28 Hanabi rows); a larger limit keeps every question a smaller one chose, so a run
    can be widened and resumed."""
    if limit is None or limit >= len(questions):
        return list(questions)
    strata: dict[tuple[str, str], list[Question]] = {}
    for question in questions:
        strata.setdefault((question.kind, question.game), []).append(question)
    for (kind, game), members in strata.items():
        random.Random(f"{kind}/{game}").shuffle(members)
    chosen: set[str] = set()
    for depth in range(max(len(m) for m in strata.values())):
        for members in strata.values():
            if depth < len(members) and len(chosen) < limit:
                chosen.add(members[depth].id)
    return [q for q in questions if q.id in chosen]


def prefix_order(questions: list[Question]) -> list[Question]:
    """The questions grouped by their shared opening turns (directive, then game description), in file order within
    a group: consecutive questions then share a prompt prefix that a llama.cpp server keeps evaluated, so a file whose
    rows repeat a long game description costs its prompt tokens once per group, not once per question."""
    groups: dict[tuple[str, str], list[Question]] = {}
    for question in questions:
        groups.setdefault((question.directive, question.description), []).append(question)
    return [question for group in groups.values() for question in group]


def run_questions(run: ReasoningRun, store: ResultStore, out: Path, make_lm: Callable[[int, Tracer], Any],
                  program: Any, on_answer: Callable[[dict[str, Any]], None] | None = None) -> RunSummary:
    """Ask every question not yet stored for each trial; `make_lm(trial, tracer)` gives that trial's model."""
    config = run.config_hash()
    done = {(key[2], key[4]) for key in store.done_keys() if key[0] == run.suite and key[1] == run.team
            and key[5] == config}
    summary = RunSummary()
    for trial in range(run.trials):
        todo = prefix_order([q for q in run.questions if (q.id, trial) not in done])
        summary.skipped_done += len(run.questions) - len(todo)
        if not todo:
            continue
        path = trace_path(out, run, trial)
        tracer = Tracer(path, suite=run.suite, trial=trial)
        try:
            lm = make_lm(trial, tracer)
            for question in todo:
                started = time.time()
                before = _usage(lm)
                asked = ask(program, question, lm)
                used = tuple(b - a for a, b in zip(before, _usage(lm), strict=True))
                row = answer_row(run, config, question, trial, asked, used, started, path)
                metrics = row["metrics"]
                tracer.event("reasoning_answer", question=question.id, question_type=question.kind, game=question.game,
                             line=question.line, prompt=asked.messages, reply=asked.reply, errors=asked.errors,
                             accepted=question.ordinal,
                             faithful={"letter": metrics["letter_faithful"], "correct": bool(metrics["faithful"])},
                             fixed={"letter": metrics["letter_fixed"], "correct": bool(metrics["fixed"])},
                             parsed=metrics["letter_fixed"] is not None, status=row["status"])
                store.record(row)
                summary.asked += 1
                summary.failed += row["status"] != "done"
                if on_answer is not None:
                    on_answer(row)
        except KeyboardInterrupt:
            summary.interrupted = True
            return summary
        finally:
            tracer.close()
    return summary
