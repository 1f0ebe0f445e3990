"""Dataset commands: `data decisions` writes the decision points of expert runs as JSONL (docs/decisions.md).

Each episode's points are written as soon as it ends, with one progress line on stderr, so a long roll-in shows
how far it got and a stopped one keeps its finished episodes.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from coopgraph.cli.app import app, console, emit_json, fail

if TYPE_CHECKING:
    from coopgraph.evals.decision_hooks import RecordedEpisode

data_app = typer.Typer(no_args_is_help=True, help="Build datasets from expert runs.")
app.add_typer(data_app, name="data")


@data_app.command("decisions")
def decisions(
    out: Path = typer.Option(..., "-o", "--out", help="JSONL file to write (one decision point per line)"),
    env: str = typer.Option("cwah", "--env", help="environment: cwah, cwah-noisy, overcooked or tdw-mat"),
    episode_set: str = typer.Option("train", "--set", help="episode set: train or test (Overcooked: test is LLM-Co's "
                                    "seven paper layouts, train every other layout of LLM-Co's set and coopgraph's "
                                    "training kitchens, kitchens those kitchens alone, gated the training "
                                    "layouts with a gate)"),
    team: str = typer.Option(None, "--team", help="expert team: mhp / mhp-silent (recorded), other baselines "
                             "[default: mhp,mhp; Overcooked: greedy,greedy, greedy cooks recorded; TDW-MAT: "
                             "planner,planner, RHP's rules on CoELA's list, recorded]"),
    limit_episodes: int = typer.Option(None, "--limit-episodes", min=1, help="only the first N episodes (layouts) "
                                       "of the set"),
    seed: int = typer.Option(0, "--seed", help="episode seed; also keys the train/validation/test split"),
    spec: str = typer.Option(None, "--spec", help="graph spec whose nodes render facts, options and prompt "
                             "[default: coela-lite, the planner-only CoELA variant the local-coop planner learned; "
                             "Overcooked: llmco-lite, LLM-Co's prompt answered with the action alone]"),
    oracle_restarts: int = typer.Option(300, "--oracle-restarts", min=0, help="randomised restarts of the oracle"),
    perturb: float = typer.Option(0.0, "--perturb", min=0.0, max=1.0,
                                  help="share of decision points where the expert follows a random option instead "
                                       "(still labelled with its own choice), so the data covers off-course states"),
    learner: str = typer.Option(None, "--learner", help="Overcooked and TDW-MAT: an LLM setting (e.g. "
                                "local-coop-kitchen) that drives the first recorded planner through the spec's "
                                "choice node, each point still labelled with the planner's own choice (a DAgger "
                                "round: the states the learner reaches)"),
    expert_share: float = typer.Option(0.0, "--expert-share", min=0.0, max=1.0,
                                       help="Overcooked, with --learner: share of the learner's choices where the "
                                            "greedy cook follows its own pick instead (DAgger's mixing), so one "
                                            "loop of the learner's cannot fill a layout's roll-in"),
    max_learner_choices: int = typer.Option(None, "--max-learner-choices", min=1,
                                            help="with --learner: the learner's choices per episode after which "
                                                 "its roll-in stops there, the episode's records saying so "
                                                 "(`rollin_cut`) [default: TDW-MAT 200, one per 15 of its 3000 "
                                                 "frames; Overcooked none, --horizon bounds it]"),
    horizon: int = typer.Option(400, "--horizon", min=1, help="Overcooked: ticks per layout"),
    idle_choices: bool = typer.Option(False, "--idle-choices",
                                      help="Overcooked: record the choices between `wait.` and `move away.` alone "
                                           "too (and, with --learner, let the learner make them), as an LLM-Co "
                                           "planner is asked them in play"),
    labeller: str = typer.Option(None, "--labeller",
                                 help="Overcooked: the rules that label (and, without --learner, play) the planner's "
                                      "seat: greedy; greedy-gates (holding a soup it cannot serve, it steps aside "
                                      "from the gates an empty-handed partner would open, and opens the gate away "
                                      "from a stuck partner); greedy-ahead (greedy-gates, and holding a soup, it "
                                      "steps aside from the pots too for an empty-handed partner) [default: greedy]"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object summarising what was written"),
) -> None:
    """Play the expert team on every episode of a set and record each new plan as a labelled decision point."""
    from coopgraph.envs.registry import UnknownEnvironmentError
    from coopgraph.evals.decision_hooks import DecisionRun, decision_hooks, learner_worlds
    from coopgraph.evals.decision_writer import DecisionWriter
    from coopgraph.evals.decisions import DecisionRenderer
    from coopgraph.runtime.teams import UnknownMemberError, parse_team

    try:
        hooks = decision_hooks(env)  # the world says what its decision data is; none: the ones that have some
        team = team or hooks.team
        spec = spec or hooks.spec
        members = parse_team(team)
        episodes = hooks.episodes(episode_set)[:limit_episodes]
        renderer = DecisionRenderer(spec)
        if learner is not None and hooks.learner is None:
            raise ValueError(f"--learner drives a scripted planner through a kit: it works with {learner_worlds()}")
        if expert_share and (learner is None or not hooks.mixes_expert):
            raise ValueError("--expert-share mixes the expert into a learner's roll-in: it needs --learner and a "
                             "world whose recorder mixes (--env overcooked, the greedy cook)")
        if max_learner_choices is not None and learner is None:
            raise ValueError("--max-learner-choices bounds a learner's roll-in: it needs --learner")
        if idle_choices and not hooks.records_idle:
            raise ValueError(f"--idle-choices records the choices between waiting and stepping aside, which only "
                             f"--env overcooked's greedy cook makes by rule (not {env})")
        if labeller is not None and labeller not in hooks.labellers:
            raise ValueError(f"unknown labeller {labeller!r}; labellers: {', '.join(hooks.labellers)}"
                             if hooks.labellers else f"--labeller names the rules of Overcooked's recorded cook "
                             f"(--env overcooked), not {env}'s")
        learner_lm = None
        if learner is not None:
            from coopgraph.llm.factory import make_lm
            learner_lm = make_lm(learner)
    except (UnknownMemberError, ValueError, KeyError) as exc:
        fail(str(exc.args[0] if exc.args else exc))
    run = DecisionRun(seed=seed, perturb=perturb, learner_lm=learner_lm, horizon=horizon,
                      oracle_restarts=oracle_restarts, expert_share=expert_share,
                      max_learner_choices=max_learner_choices or hooks.max_learner_choices,
                      idle_choices=idle_choices, labeller=labeller)
    progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), console=console, transient=True, disable=as_json)
    cut: list[dict[str, object]] = []
    try:
        with progress, DecisionWriter(out) as writer:
            task = progress.add_task(hooks.unit, total=len(episodes))
            for number, episode in enumerate(episodes, 1):
                began = time.perf_counter()
                played = hooks.record(env, episode, members, renderer=renderer, run=run)
                writer.write(played.records)  # on disk before the next episode starts
                if played.cut is not None:
                    cut.append({"episode": played.name, **played.cut})
                progress.console.print(progress_line(f"{number}/{len(episodes)}", episode, played, writer.count,
                                                     time.perf_counter() - began), highlight=False, markup=False)
                progress.advance(task)
    except (UnknownEnvironmentError, ValueError) as exc:
        fail(str(exc.args[0] if exc.args else exc))
    summary = writer.summary() | {
        "env": env, "set": episode_set, "team": members, "seed": seed, "spec": spec, "perturb": perturb,
        "learner": learner, "expert_share": expert_share,
        "max_learner_choices": run.max_learner_choices if learner else None, "idle_choices": idle_choices,
        "labeller": labeller, "cut": cut}
    if as_json:
        emit_json(summary)
        return
    splits = ", ".join(f"{name} {count}" for name, count in summary["splits"].items())
    stopped = f"; roll-in cut at {run.max_learner_choices} learner choices in {len(cut)} of them" if cut else ""
    console.print(f"[green]wrote[/green] {summary['decisions']} decision points from {summary['episodes']} episodes "
                  f"to {summary['path']} ({splits}); oracle label on {summary['oracle_labelled']}{stopped}",
                  highlight=False)


def progress_line(count: str, episode: str, played: RecordedEpisode, written: int, seconds: float) -> str:
    """`episode 4/6 train/3 (1a_1_1/food): 214 decisions (200 learner), 2461 frames, 180 records (314 so far),
    241 s; roll-in cut ...`: one line on stderr per finished episode."""
    named = episode if played.name == episode else f"{episode} ({played.name})"
    learner = f" ({played.learner_choices} learner)" if played.learner_choices else ""
    line = (f"episode {count} {named}: {played.decisions} decisions{learner}, {played.time} {played.time_unit}, "
            f"{len(played.records)} records ({written} so far), {seconds:.1f} s")
    if played.cut is not None:
        line += (f"; roll-in cut after {played.cut['choices']} learner choices at {played.cut['time']} "
                 f"{played.time_unit} (--max-learner-choices)")
    return line
