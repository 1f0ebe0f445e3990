"""Every published wiring on the embedded default: one markdown table, one row per wiring, world and profile.

    .venv/bin/python -m coopgraph.evals.bench.embedded_wirings                  # everything, 3 episodes a row
    .venv/bin/python -m coopgraph.evals.bench.embedded_wirings --wiring llmco --world overcooked --out t.md
    .venv/bin/python -m coopgraph.evals.bench.embedded_wirings --plan     # the rows and their episodes; runs nothing
    .venv/bin/python -m coopgraph.evals.bench.embedded_wirings --from-store --out t.md  # the table so far; runs nothing

Rows come from `embedded_plan` (each of coela, capo, reveca and llmco in each world its spec plays, on `local`,
plus the `local-coop` planner that learned a variant of it there). Before a row's episodes run, a probe times its
first decisions and the expert pair counts what each episode needs (`embedded_probe`); a row whose cheapest episode
cannot fit the budget says so, with the arithmetic, and runs nothing. The others play their episodes through the
eval store (`--store`, default runs/embedded-wirings): an interrupted run continues where it stopped, and probes
and expert counts are kept beside the store (`probes.json`) so a rerun asks nothing twice.

The bound is a lower one (a wiring may ask its model more often than the expert decides: messages, discussions,
validation), so each episode also runs with the budget as its wall-clock budget (`wall_budget_s`): past it, the
episode ends at the end of the step under way and its row says where (`metrics["stopped_at_budget"]`). A row one of
whose episodes stopped so plays no more of them, now or on a rerun, and says what was measured instead of scores: a
row costs at most about one budget when it cannot finish.

Every figure is the model's own pace. The bench's runs keep no response cache at all (`RESPONSE_CACHE`, passed to
each probe and each job as its `response_cache`): replies the user's cache holds from earlier runs never answer
them, and neither do the bench's own. A cache of the bench's own would answer the first decisions of a row's first
episode from its probe and the replayed part of an episode resumed after an interruption, so those episodes' wall
times would fall short of what the budget check means, and a prompt an episode repeats would cost nothing, so the
probe's bound would no longer bound an uncached run. Without one, an interruption costs the episode under way (the
store keeps finished episodes, the ledger the probes). Seconds per decision are read from the traces' LLM calls,
not wall time (`decision_pace`): the latency of the calls the model computed, so a row stored before this, when
runs read the user's cache, shows only what the model computed, or says that all its decisions were cached.

An episode in which any question went without a model answer (its server stopped answering: the circuit refused
the calls and the nodes took their fallbacks) measured the fallbacks, not the model (`coopgraph.evals.unanswered`).
The bench's episodes run through `run_jobs`, which stores such an episode failed with that reason, and a row kept
done before this is marked so (`unanswered.settle_stored`): the rule `coopgraph eval` and `coopgraph report` apply
too. The bench then plays none of the row's other episodes on that run. Failing the row rather than keeping a
bench-only flag is the smallest honest design: the store already replays failed rows on a rerun
(`pending_jobs`) and keeps them out of `coopgraph report`'s figures (counted as failed runs), so every reader
agrees. Its table row, `--from-store` and `--plan` name the episode and why it is not counted, and leave it out of every
figure, whether the store row was marked yet or not. A probe that meets such a question is not kept in the ledger
(its pace would bound the row for good) and its row plays nothing until a rerun probes it again; a kept probe is
read back through the same check (`embedded_probe.stale_probe`): one that went without its model is dropped with a
one-line notice and measured again.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from coopgraph.evals.bench.decision_pace import DecisionPace, decision_pace
from coopgraph.evals.bench.embedded_plan import RESPONSE_CACHE, WIRINGS, WORLDS, Row, plan_rows, world_suite
from coopgraph.evals.bench.embedded_probe import (
    Bound,
    budget_seconds,
    cheapest_bound,
    expert_decisions,
    kept_probe,
    minutes,
    probe,
    seconds_text,
    stale_probe,
)
from coopgraph.evals.metrics import stat
from coopgraph.evals.suite import Job, expand_jobs
from coopgraph.evals.tables import Column, Format, Table, stat_text
from coopgraph.evals.unanswered import as_read, marked_not_counted, settle_stored, unanswered

COLUMNS = [Column("wiring", "Wiring", "text"), Column("world", "World", "text"), Column("profile", "Profile", "text"),
           Column("episodes", "Episodes (n)", "text"), Column("measure", "Success or score", "text"),
           Column("time", "Steps or frames", "text"), Column("invalid", "Invalid answers", "text"),
           Column("pace", "Model s / decision", "text")]
LEGEND = ("A pair of the wiring (or of the variant a distilled profile learned) per episode, the shipped suite's "
          "episodes and options, seed 0. Success or score and time: mean, 95% bootstrap interval over the episodes "
          "and n, as `coopgraph report` gives them. Invalid answers: replies the wiring could not use, and their "
          "share of the decisions (high-level plans chosen). Model s / decision: the latency of the LLM calls the "
          "model computed, summed per decision, over the decisions with such a call; the runs keep no response "
          "cache, and a reply a cache gave back is not counted (n of m: the decisions with a computed call, of all; "
          "the rest took one listed option without a call, or were cached). A row that cannot finish in the budget "
          "gives the bound it failed: the decisions the expert pair needed in the cheapest episode × the model "
          "seconds per decision of a probe of the row's first decisions (n timed). A row whose bound fits but one of "
          "whose episodes ran past the budget anyway (measured: the episode stops at the end of the step under way) "
          "plays no more episodes and says where that one stopped; its score by then is given as partial, never "
          "averaged with finished episodes, and its decisions count in the invalid answers and the pace. An episode "
          "some of whose questions went without a model answer (the server stopped answering and the nodes took "
          "their fallbacks) is named and left out of every figure: a rerun plays it again.")


@dataclass
class Settings:
    """What to run: which rows, how many episodes each, the budget and how the probe and store behave."""

    wirings: list[str] = field(default_factory=lambda: list(WIRINGS))
    worlds: list[str] = field(default_factory=lambda: list(WORLDS))
    episodes: int = 3
    budget_min: float = 30.0
    probe_decisions: int = 5
    store: Path = Path("runs/embedded-wirings")
    max_steps: int | None = None  # a trial horizon (its own config hash, never mixed with full runs)
    distilled: bool = True
    default: bool = True  # the rows on the default profile (`--distilled-only` leaves them out)


class Ledger:
    """Probes and expert counts kept beside the store (`probes.json`), keyed by what changes them."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}

    def has(self, *keys: str) -> bool:
        return all(key in self.data for key in keys)

    def get(self, key: str, make: Callable[[], Any]) -> Any:
        if key not in self.data:
            self.data[key] = make()
            self._write()
        return self.data[key]

    def drop(self, key: str) -> None:
        """Forget what `key` kept (a probe that did not measure the model), so it is measured again."""
        if self.data.pop(key, None) is not None:
            self._write()

    def _write(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps(self.data, indent=1, sort_keys=True), encoding="utf-8")


def _expert_key(job: Job) -> str:
    return f"expert {job.env} {json.dumps(job.env_options, sort_keys=True)} {job.episode} {job.max_steps}"


def _probe_key(job: Job, settings: Settings) -> str:
    # "model-time": a probe kept from before probes timed the model's computed calls only is not read back
    return f"probe model-time {job.config_hash} {job.episode} {settings.probe_decisions}"


def _expert_counts(ledger: Ledger, jobs: list[Job]) -> dict[str, int]:
    """Per episode, the decisions the world's expert pair takes there."""
    counts = {}
    for job in jobs:
        counts[job.episode] = int(ledger.get(_expert_key(job), lambda job=job: expert_decisions(  # type: ignore[misc]
            job.env, job.episode, job.env_options, job.max_steps)))
    return counts


class ModelStopped(Exception):
    """The row's probe met a question without a model answer: its server stopped answering."""


def row_bound(row: Row, jobs: list[Job], settings: Settings, ledger: Ledger,
              say: Callable[[str], None] = print) -> Bound | None:
    """The row's cheapest-episode bound (None: the probe timed too few decisions to bound anything). A probe that
    went without its model raises ModelStopped and is not kept, so the next run probes again."""
    needed = _expert_counts(ledger, jobs)
    first = jobs[0]
    key = _probe_key(first, settings)
    stale = stale_probe(ledger.data[key], settings.probe_decisions) if ledger.has(key) else None
    if stale is not None:
        say(f"{row.label} in {row.world}: the probe kept for {first.episode} {stale}: dropped, measured again")
        ledger.drop(key)
    if not ledger.has(key):
        fresh = probe(row, first.episode, first.env_options, first.max_steps, settings.probe_decisions,
                      budget_seconds(settings.budget_min))
        if fresh.without_model:
            raise ModelStopped(f"the probe met a question without a model answer after {fresh.decisions} "
                               "decisions (server unavailable); the row is left for a rerun, which probes it again")
        ledger.get(key, lambda: asdict(fresh))
    found = kept_probe(ledger.data[key])
    if found.error:
        say(f"{row.label} in {row.world}: the probe stopped after {found.decisions} decisions: {found.error}")
    return cheapest_bound(needed, found)


def kept_bound(jobs: list[Job], settings: Settings, ledger: Ledger) -> Bound | None:
    """The bound a row failed, from what the ledger kept (None: it kept no probe, or the bound fits the budget)."""
    first = jobs[0]
    key = _probe_key(first, settings)
    if not ledger.has(key, *(_expert_key(job) for job in jobs)) or stale_probe(ledger.data[key],
                                                                               settings.probe_decisions):
        return None  # no probe, or one a run measures again
    bound = cheapest_bound({job.episode: int(ledger.data[_expert_key(job)]) for job in jobs},
                           kept_probe(ledger.data[key]))
    return bound if bound is not None and bound.exceeds(budget_seconds(settings.budget_min)) else None


def run_row(row: Row, jobs: list[Job], settings: Settings, store: Any, ledger: Ledger,
            say: Callable[[str], None] = print) -> Bound | None:
    """Run the row's episodes unless its bound says it cannot finish; the bound when it cannot, else None."""
    from coopgraph.evals.parallel import pending_jobs, run_jobs

    settle_stored(store, stored_rows(store, jobs))  # kept done before the bench knew better
    todo, _ = pending_jobs(jobs, store)
    if not todo:
        return None
    stopped = [r for r in stored_rows(store, jobs) if r["status"] == "done" and budget_stop(r) is not None]
    if stopped:  # an earlier run of this row stopped at the budget: its other episodes would too
        say(f"{row.label} in {row.world}: {stopped[0]['episode']} stopped at the budget before; "
            f"{len(todo)} episodes left unrun")
        return None
    try:
        bound = row_bound(row, jobs, settings, ledger, say)
    except ModelStopped as stopped_model:
        say(f"{row.label} in {row.world}: {stopped_model}")
        return None
    budget = budget_seconds(settings.budget_min)
    if bound is not None and bound.exceeds(budget):
        say(f"{row.label} in {row.world}: {bound.text(budget)}")
        return bound
    say(f"{row.label} in {row.world}: {len(todo)} episodes to run"
        + (f" (bound {bound.seconds / 60:.1f} min on {bound.episode})" if bound else ""))
    for job in todo:  # one at a time: an episode stopped at the budget ends the row
        if run_jobs([job], store).interrupted:
            raise KeyboardInterrupt  # run_jobs kept what finished; stop here rather than start the next row
        kept = stored_rows(store, [job])
        if any(marked_not_counted(r) for r in kept):  # the model stopped answering: more now would measure nothing
            left = len(todo) - todo.index(job) - 1
            say(f"{row.label} in {row.world}: {job.episode}: {unanswered_text(kept[0])}, not counted; "
                f"{left} episodes left for a rerun, which plays it again")
            break
        ran = [r for r in kept if r["status"] == "done"]
        stop = budget_stop(ran[0]) if ran else None
        if stop is not None:
            left = len(todo) - todo.index(job) - 1
            say(f"{row.label} in {row.world}: {job.episode} stopped at the budget at {stop['step']} of "
                f"{stop['max_steps']} after {minutes(stop['wall_time_s'])} min; {left} episodes left unrun")
            break
    return None


def unanswered_text(row: dict[str, Any]) -> str:
    missing = unanswered(row)
    return missing.text if missing is not None else ""


def not_counted_text(rows: list[dict[str, Any]]) -> str:
    """`cramped_room: 777 questions without a model answer (server unavailable), not counted`, one per episode."""
    return "; ".join(f"{r['episode']}: {unanswered_text(r)}, not counted" for r in rows)


def stored_rows(store: Any, jobs: list[Job]) -> list[dict[str, Any]]:
    """The store's rows (done or failed) of `jobs`."""
    from coopgraph.evals.parallel import kept_rows

    return kept_rows(jobs, store)


def budget_stop(row: dict[str, Any]) -> dict[str, Any] | None:
    """Where the row's episode stopped at its wall-clock budget (`stopped_at_budget`), or None: it finished (or
    was stored before episodes had a budget)."""
    stop = (row.get("metrics") or {}).get("stopped_at_budget")
    return stop if isinstance(stop, dict) else None


def _measure(row: Row, rows: list[dict[str, Any]]) -> str:
    world = WORLDS[row.world]
    fmt: Format = "stat_pct" if world.pct else "stat"
    return f"{world.measure_label} {stat_text(stat(rows, world.measure), world.digits, fmt)}"


def stopped_text(row: Row, stopped: dict[str, Any], unit: str) -> str:
    """`cannot finish in 30 min: test/0 stopped at frame 812 of 3000 after 30 min (measured; transport rate 21% by
    then, partial)`: where the row's episode stopped at its budget, and its measure at that point."""
    stop = budget_stop(stopped) or {}
    world = WORLDS[row.world]
    partial = stat_text(stat([stopped], world.measure), world.digits, "stat_pct" if world.pct else "stat")
    by_then = f"; {world.measure_label} {partial.split(' (')[0]} by then, partial" if partial != "–" else ""
    return (f"cannot finish in {minutes(float(stop['budget_s']))} min: {stopped['episode']} stopped at "
            f"{unit.removesuffix('s')} {stop['step']} of {stop['max_steps']} after "
            f"{minutes(float(stop['wall_time_s']))} min (measured{by_then})")


def pace_text(pace: DecisionPace | None) -> str:
    """The model seconds per decision, with n when some decisions had no computed call; what happened when none
    had."""
    if pace is None or not pace.decisions:
        return "–"
    each = pace.seconds_per_decision
    if each is None:
        return (f"none computed: all {pace.decisions} decisions from the cache" if pace.cached == pace.decisions else
                f"none computed of {pace.decisions} decisions ({pace.cached} from the cache, the rest without a call)")
    cached = f"; {pace.cached} from the cache" if pace.cached else ""  # a row stored when runs read a cache
    return seconds_text(each) + (f" (n={pace.computed} of {pace.decisions}{cached})"
                                 if pace.computed < pace.decisions else "")


def trace_pace(rows: list[dict[str, Any]]) -> DecisionPace | None:
    """The model's pace over the rows' traces (None when none of them is on disk)."""
    from coopgraph.record.trace_file import read_events

    paths = [Path(r["trace_path"]) for r in rows if r.get("trace_path")]
    found = [decision_pace(read_events(path)) for path in paths if path.is_file()]
    return sum(found, DecisionPace()) if found else None


def table_row(row: Row, done: list[dict[str, Any]], errors: int, wanted: int, bound: Bound | None,
              budget_s: float, unit: str, pace: DecisionPace | None = None,
              without_model: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The table's cells for one row: measured figures (`pace`: the model's, from the episodes' traces), or the
    bound it failed; `without_model`, the episodes that went partly without a model answer, are named and left out
    of every figure."""
    cells: dict[str, Any] = {"wiring": row.wiring, "world": row.world, "profile": row.profile_text}
    named = f"; {not_counted_text(without_model)}" if without_model else ""
    if bound is not None and not done:
        return {**cells, "episodes": f"0 of {wanted}{named}", "measure": bound.text(budget_s), "time": "–",
                "invalid": "–", "pace": f"{seconds_text(bound.seconds_per_decision)} (probe, n={bound.probe_n})"}
    decisions = sum(int(r.get("decisions") or 0) for r in done)  # a stopped episode's decisions were measured too
    invalid = sum(int(r.get("invalid_answers") or 0) for r in done)
    stopped = next((r for r in done if budget_stop(r) is not None), None)
    finished = [r for r in done if budget_stop(r) is None]
    over = [r["episode"] for r in finished if float(r.get("wall_time_s") or 0.0) > budget_s]
    episodes = f"{len(finished)}" + (f" of {wanted}" if len(finished) < wanted else "") + (
        f" ({errors} failed)" if errors else "") + named + (f"; over budget: {', '.join(over)}" if over else "") + (
        f"; the rest: {bound.text(budget_s)}" if bound is not None and stopped is None else "")  # a lowered budget
    measure = _measure(row, finished) if finished else "–"
    if stopped is not None:
        measure = ("" if not finished else measure + "; ") + stopped_text(row, stopped, unit)
    return {**cells, "episodes": episodes, "measure": measure,
            "time": f"{stat_text(stat(finished, 'steps'), 1)} {unit}" if finished else "–",
            "invalid": f"{invalid} ({invalid / decisions:.0%} of {decisions})" if decisions else "–",
            "pace": pace_text(pace)}


def build_table(settings: Settings, *, say: Callable[[str], None] = print, run: bool = True) -> Table:
    """Run (or resume) every selected row and return the table; with `run` false, only what the store and the
    ledger hold (no probe, no episode), and a row with neither says it has not been run."""
    from coopgraph.evals.store import STORE_NAME, ResultStore

    if not run and not (settings.store / STORE_NAME).is_file():
        raise ValueError(f"{settings.store} holds no eval store to read a table from")

    budget = budget_seconds(settings.budget_min)
    if settings.probe_decisions < 2:
        raise ValueError(f"--probe-decisions must be 2 or more (seconds per decision need two), got "
                         f"{settings.probe_decisions}")
    rows = plan_rows(settings.wirings, settings.worlds, distilled=settings.distilled,
                     default=settings.default)
    ledger = Ledger(settings.store / "probes.json")
    cells = []
    with ResultStore(settings.store) as store:
        for world in dict.fromkeys(row.world for row in rows):
            in_world = [row for row in rows if row.world == world]
            suite = world_suite(world, in_world, max_steps=settings.max_steps)
            jobs = expand_jobs(suite, settings.store, limit=settings.episodes, response_cache=RESPONSE_CACHE,
                               wall_budget_s=budget)
            unit = _time_unit(world)
            for row in in_world:
                mine = [job for job in jobs if job.team == row.label]
                bound = (run_row(row, mine, settings, store, ledger, say) if run
                         else kept_bound(mine, settings, ledger))
                stored = [as_read(r) for r in stored_rows(store, mine)]  # marked or not yet, the rule is one
                without_model = [r for r in stored if marked_not_counted(r)]
                done = [r for r in stored if r["status"] == "done"]
                cell = table_row(row, done, len(stored) - len(done) - len(without_model), len(mine), bound, budget,
                                 unit, trace_pace(done), without_model)
                if not run and not stored and bound is None:
                    cell["measure"] = (f"not run yet: `--wiring {row.wiring} --world {row.world}"
                                       f"{' --distilled-only' if row.distilled else ' --no-distilled'}` runs it")
                cells.append(cell)
    return Table("embedded-wirings", f"Published wirings on the embedded default (budget "
                 f"{settings.budget_min:g} min an episode)", COLUMNS, cells, LEGEND)


def plan_text(settings: Settings) -> str:
    """The rows the settings select, each with the episodes it would play and whether the store has them: what a
    run would do, without probing or playing anything."""
    from coopgraph.evals.store import STORE_NAME, ResultStore

    rows = plan_rows(settings.wirings, settings.worlds, distilled=settings.distilled,
                     default=settings.default)
    episodes = f"{settings.episodes} episode{'s' * (settings.episodes != 1)}"
    lines = [f"{len(rows)} rows, {episodes} each, into {settings.store} (no response cache: the model computes every "
             "decision)"]
    stored: dict[tuple[Any, ...], dict[str, Any]] = {}
    if (settings.store / STORE_NAME).is_file():  # listing the plan creates no store
        with ResultStore(settings.store) as store:
            read = [as_read(r) for r in store.rows(status=None)]
            stored = {(r["suite"], r["team"], r["episode"], r["seed"], r["repeat"], r["config_hash"]): r
                      for r in read if r["status"] == "done" or marked_not_counted(r)}
    for world in dict.fromkeys(row.world for row in rows):
        in_world = [row for row in rows if row.world == world]
        jobs = expand_jobs(world_suite(world, in_world, max_steps=settings.max_steps), settings.store,
                           limit=settings.episodes)
        for row in in_world:
            mine = [job for job in jobs if job.team == row.label]
            without_model = [stored[job.key] for job in mine if marked_not_counted(stored.get(job.key) or {})]
            measured = [stored[job.key] for job in mine if (stored.get(job.key) or {}).get("status") == "done"]
            stopped = [r["episode"] for r in measured if budget_stop(r) is not None]
            lines.append(f"{row.wiring:<7} {row.world:<15} {row.profile_text:<50} "
                         f"{', '.join(job.episode for job in mine)} ({len(measured)} of {len(mine)} stored"
                         + (f"; {not_counted_text(without_model)}: a run plays it again" if without_model else "")
                         + (f"; {stopped[0]} stopped at the budget: no more run)" if stopped else ")"))
    return "\n".join(lines)


def _time_unit(world: str) -> str:
    from coopgraph import envs

    env = envs.make(world, episode=envs.default_episode(world), num_agents=2)
    try:
        return str(env.time_unit)
    finally:
        env.close()


def parse_args(argv: list[str] | None = None) -> tuple[Settings, Path | None, str]:
    """The settings, the markdown file to write, and what to do: `run`, `plan` or `stored`."""
    parser = argparse.ArgumentParser(prog="python -m coopgraph.evals.bench.embedded_wirings", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--wiring", action="append", choices=WIRINGS, help="only this wiring (repeatable)")
    parser.add_argument("--world", action="append", choices=list(WORLDS), help="only this world (repeatable)")
    parser.add_argument("--episodes", type=int, default=3, help="episodes per row, the suite's first (default 3)")
    parser.add_argument("--budget-min", type=float, default=30.0,
                        help="minutes an episode may take: a row whose bound exceeds them runs nothing, an episode "
                        "past them stops at the end of its step and its row plays no more (default 30)")
    parser.add_argument("--probe-decisions", type=int, default=5, help="decisions the probe times (default 5)")
    parser.add_argument("--store", type=Path, default=Path("runs/embedded-wirings"),
                        help="the eval store to run into and resume from (default runs/embedded-wirings)")
    parser.add_argument("--max-steps", type=int, default=None, help="a trial horizon instead of the suite's")
    kinds = parser.add_mutually_exclusive_group()
    kinds.add_argument("--no-distilled", action="store_true", help="leave out the local-coop rows")
    kinds.add_argument("--distilled-only", action="store_true",
                       help="only the local-coop rows (minutes each), before the default ones (up to a budget each)")
    parser.add_argument("--out", type=Path, default=None, help="also write the table to this markdown file")
    modes = parser.add_mutually_exclusive_group()
    modes.add_argument("--plan", action="store_true",
                       help="list the rows and the episodes each would play (and how many the store has); run nothing")
    modes.add_argument("--from-store", action="store_true",
                       help="print the table from what the store and its probes hold; probe and play nothing")
    args = parser.parse_args(argv)
    if args.episodes < 1:
        parser.error(f"--episodes must be 1 or more, got {args.episodes}")
    settings = Settings(wirings=args.wiring or list(WIRINGS), worlds=args.world or list(WORLDS),
                        episodes=args.episodes, budget_min=args.budget_min, probe_decisions=args.probe_decisions,
                        store=args.store, max_steps=args.max_steps, distilled=not args.no_distilled,
                        default=not args.distilled_only)
    return settings, args.out, "plan" if args.plan else "stored" if args.from_store else "run"


def main(argv: list[str] | None = None) -> int:
    settings, out, mode = parse_args(argv)
    if mode == "plan":
        print(plan_text(settings))
        return 0
    try:
        table = build_table(settings, say=lambda text: print(text, file=sys.stderr), run=mode == "run")
    except ValueError as exc:
        print(f"embedded_wirings: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"embedded_wirings: interrupted; run the same command again to continue from {settings.store}",
              file=sys.stderr)
        return 130
    text = table.markdown()
    print(text)
    if out is not None:
        out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
