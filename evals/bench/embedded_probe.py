"""Knowing cheaply that a wiring cannot finish an episode within a budget, without guessing.

A probe plays the first decisions of an episode on the row's profile and times the ones the model computes: seconds
per decision is the latency of the model's computed calls (`decision_pace`: response-cache hits and decisions taken
without a computed call are left out) summed per decision, over the decisions after the first (which carries the
model's load and a cold prompt cache). The probe's models keep no response cache (`RESPONSE_CACHE`), so every
decision it times is one the model computed, whatever earlier runs on the machine left in the user's cache. The
world's expert team plays the same episode (it is scripted: a second or two) and its choices among two or more
listed actions count the decisions that episode needs. Their product is a lower bound on the episode's time for a
team that decides no less often than the expert; when it exceeds the budget the row says so with both factors and
the probe's n instead of running the episode.

A probe kept in the bench's ledger is read back through the same check a fresh one passes (`stale_probe`): one that
met a question without a model answer is dropped and measured again, and so is one kept before probes stopped at
such a question that timed fewer decisions than it asked for with no error or budget to explain it, since its
server may have stopped under it. Entries of older ledgers otherwise read as they were (`kept_probe`).
"""

from __future__ import annotations

import contextlib
import math
import tempfile
import time
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from coopgraph.evals.bench.decision_pace import PaceCounter
from coopgraph.evals.bench.embedded_plan import RESPONSE_CACHE, WORLDS, Row


class ProbeDone(BaseException):
    """Raised from the trace listener once the probe has its decisions: a BaseException, so no node's or
    agent's `except Exception` mistakes it for a failure to fall back from."""


@dataclass(frozen=True)
class Probe:
    """`decisions` the model computed, the last `decisions - 1` of them taking `seconds` of model time (the first
    carries the model's load, so it is not timed)."""

    decisions: int
    seconds: float
    error: str | None = None  # the episode failed before the probe had its decisions
    stopped: bool = False  # the budget ran out first: the last decision counts what it had computed (it took longer)
    without_model: bool = False  # a question went without a model answer (its server stopped): it timed nothing

    @property
    def seconds_per_decision(self) -> float | None:
        return self.seconds / (self.decisions - 1) if self.decisions >= 2 else None


@dataclass(frozen=True)
class Bound:
    """The least time an episode takes: the decisions the expert team needed there × the probe's seconds each."""

    episode: str
    decisions: int
    seconds_per_decision: float
    probe_n: int
    episodes: int = 1  # how many episodes `episode` needed the fewest decisions of
    probe_stopped: bool = False  # the probe itself ran out of budget before its last decision ended

    @property
    def seconds(self) -> float:
        return self.decisions * self.seconds_per_decision

    def exceeds(self, budget_s: float) -> bool:
        return self.seconds > budget_s

    def text(self, budget_s: float) -> str:
        """`cannot finish in 30 min: ≥ 412 decisions × 9.3 s = 64 min (test/3, the fewest decisions of 3 episodes;
        probe n=5)`."""
        where = f"{self.episode}, the fewest decisions of {self.episodes} episodes" if self.episodes > 1 else \
            self.episode
        stopped = ", its last decision still running at the budget" if self.probe_stopped else ""
        return (f"cannot finish in {minutes(budget_s)} min: ≥ {self.decisions} decisions × "
                f"{seconds_text(self.seconds_per_decision)} s = {minutes(self.seconds)} min ({where}; probe "
                f"n={self.probe_n}{stopped})")


def minutes(seconds: float) -> str:
    """Minutes as a table says them: whole from 10 on, two significant digits below."""
    value = seconds / 60
    return f"{value:.0f}" if value >= 10 else f"{value:.2g}"


def seconds_text(value: float) -> str:
    """Seconds with one decimal from 1 s on, two significant digits below (a scripted model's milliseconds)."""
    return f"{value:.1f}" if value >= 1 else f"{value:.2g}"


def kept_probe(entry: dict[str, Any]) -> Probe:
    """A probe as the ledger kept it: fields a ledger of another version has or lacks are left to their defaults."""
    known = {f.name for f in fields(Probe)}
    return Probe(**{name: value for name, value in entry.items() if name in known})


def stale_probe(entry: dict[str, Any], decisions: int) -> str | None:
    """Why a kept probe does not measure the model's pace (it went partly without its model), or None: the check
    a fresh probe passes before it is kept, applied again when it is read back."""
    found = kept_probe(entry)
    if found.without_model:
        return f"met a question without a model answer after {found.decisions} decisions"
    if "without_model" not in entry and found.decisions < decisions and not found.error and not found.stopped:
        return (f"timed {found.decisions} of {decisions} decisions before probes stopped at a question without a "
                "model answer, so its server may have stopped under it")
    return None


def cheapest_bound(needed: dict[str, int], probe: Probe) -> Bound | None:
    """The bound of the episode needing the fewest decisions (a row that cannot finish even that one cannot finish
    any); None when the probe timed fewer than two decisions."""
    each = probe.seconds_per_decision
    if each is None or not needed:
        return None
    episode = min(needed, key=lambda e: (needed[e], e))
    return Bound(episode, needed[episode], each, probe.decisions, len(needed), probe.stopped)


def count_choices(member: Any) -> list[int]:
    """Count `member`'s choices among two or more options as it plays (a one-item list, updated in place): a
    kit-driven member's `choose`, or MHP's planner's."""
    from coopgraph.envs.kit_member import KitMember

    owner = member if isinstance(member, KitMember) else getattr(member, "planner", None)
    if owner is None or not callable(getattr(owner, "choose", None)):
        raise TypeError(f"{type(member).__name__} has no choose(belief, options) to count decisions by")
    original, count = owner.choose, [0]

    def counted(belief: Any, options: list[Any]) -> Any:
        count[0] += len(options) >= 2
        return original(belief, options)

    owner.choose = counted  # type: ignore[method-assign]  # this one instance counts, its class is untouched
    return count


def expert_member(name: str) -> Any:
    """A fresh expert: a registered scripted partner, or TDW-MAT's transport planner (`planner`)."""
    if name == "planner":
        from coopgraph.envs.tdw_mat.experts.planner import TransportPlanner

        return TransportPlanner()
    from coopgraph.envs.partners import make_partner

    return make_partner(name)


def expert_decisions(world: str, episode: str, env_options: dict[str, Any], max_steps: int | None) -> int:
    """The decisions the world's expert pair takes in `episode` (choices among two or more listed actions)."""
    from coopgraph import envs
    from coopgraph.runtime.episode_loop import run_episode

    team = [expert_member(WORLDS[world].expert) for _ in range(2)]
    counts = [count_choices(member) for member in team]
    env = envs.make(world, episode=episode, num_agents=2, **env_options)
    try:
        run_episode(env, team, max_steps=max_steps)
    finally:
        env.close()
    return sum(c[0] for c in counts)


def probe(row: Row, episode: str, env_options: dict[str, Any], max_steps: int | None, decisions: int,
          budget_s: float | None = None) -> Probe:
    """Play `episode` with the row's pair on its profile, without a response cache, until the model has computed
    `decisions` decisions (`plan` events with a computed call), or the episode ends, and time them. With
    `budget_s`, a probe still deciding that long after its first decision stops at the next call the model
    computes and counts the decision under way as ending there, with the calls it has computed so far: shorter than
    it is, so the seconds per decision stay a lower estimate. A question that goes without a model answer (the
    server stopped answering: a `model_fallback` event) stops the probe at once, `without_model`: what it timed
    until then is not the model's pace on the whole episode, and a bound from it would be kept for good."""
    from coopgraph.runtime.launch import run_configured

    counter = PaceCounter()
    timed: list[float] = []  # model seconds of each computed decision, in order
    started: list[float] = []  # when the first computed decision ended
    stopped = [False]
    unanswered = [False]

    def listen(record: dict[str, Any]) -> None:
        if record.get("type") == "model_fallback":
            unanswered[0] = True
            raise ProbeDone
        took = counter.hear(record)
        if took is not None:
            timed.append(took)
            started[:] = started or [time.time()]
            if len(timed) >= decisions:
                raise ProbeDone
        elif (budget_s is not None and started and record.get("type") == "llm_call" and not record.get("cache_hit")
              and time.time() - started[0] > budget_s):
            timed.append(counter.under_way(record.get("agent")))
            stopped[0] = True
            raise ProbeDone

    error = None
    with tempfile.TemporaryDirectory(prefix="coopgraph-probe-") as folder, contextlib.suppress(ProbeDone):
        try:
            run_configured(row.world, env_options, episode, [row.member, row.member], row.profile, max_steps,
                           Path(folder), listeners=[listen], response_cache=RESPONSE_CACHE)
        except Exception as exc:  # noqa: BLE001 - the episodes' own runs record it as error rows; said here too
            error = f"{type(exc).__name__}: {exc}"[:300]
    return Probe(len(timed), sum(timed[1:]), error, stopped[0], unanswered[0])


def budget_seconds(minutes: float) -> float:
    if not math.isfinite(minutes) or minutes <= 0:
        raise ValueError(f"--budget-min must be a positive number of minutes, got {minutes!r}")
    return minutes * 60
