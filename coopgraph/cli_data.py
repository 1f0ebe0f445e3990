"""Dataset commands: `data decisions` writes the decision points of expert runs as JSONL (docs/decisions.md)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from coopgraph.cli import app, console, emit_json, fail

data_app = typer.Typer(no_args_is_help=True, help="Build datasets from expert runs.")
app.add_typer(data_app, name="data")



@data_app.command("decisions")
def decisions(
    out: Path = typer.Option(..., "-o", "--out", help="JSONL file to write (one decision point per line)"),
    env: str = typer.Option("cwah", "--env", help="environment: cwah, cwah-noisy, overcooked or tdw-mat"),
    episode_set: str = typer.Option("train", "--set", help="episode set: train or test (Overcooked: test is LLM-Co's "
                                    "seven paper layouts, train every other layout of LLM-Co's set and coopgraph's "
                                    "training kitchens, kitchens those kitchens alone)"),
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
    horizon: int = typer.Option(400, "--horizon", min=1, help="Overcooked: ticks per layout"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object summarising what was written"),
) -> None:
    """Play the expert team on every episode of a set and record each new plan as a labelled decision point."""
    from coopgraph.envs.registry import UnknownEnvironmentError
    from coopgraph.evals.decisions import DECISION_SPEC, DecisionRenderer, episode_decisions, episode_ids, write_jsonl
    from coopgraph.evals.teams import UnknownMemberError, parse_team

    kitchen, transport = env == "overcooked", env == "tdw-mat"
    if kitchen:
        from coopgraph.evals import overcooked_decisions
    if transport:
        from coopgraph.evals import tdw_decisions
    team = team or ("greedy,greedy" if kitchen else "planner,planner" if transport else "mhp,mhp")
    spec = spec or (overcooked_decisions.KITCHEN_SPEC if kitchen else DECISION_SPEC)
    try:
        members = parse_team(team)
        if transport and episode_set != "train":
            raise ValueError(f"TDW-MAT decision data comes from the train split only (the test split is for "
                             f"checking); no episode set {episode_set!r}")
        episodes = (overcooked_decisions.layout_set(episode_set) if kitchen else tdw_decisions.episode_ids()
                    if transport else episode_ids(episode_set))[:limit_episodes]
        renderer = DecisionRenderer(spec)
        if learner is not None and not (kitchen or transport):
            raise ValueError("--learner drives a scripted planner through a kit: it works with --env overcooked "
                             "(the greedy cook) and --env tdw-mat (the transport planner)")
        if expert_share and (learner is None or not kitchen):
            raise ValueError("--expert-share mixes the greedy cook into a learner's roll-in: it needs --env "
                             "overcooked and --learner")
        learner_lm = None
        if learner is not None:
            from coopgraph.llm.factory import make_lm
            learner_lm = make_lm(learner)
    except (UnknownMemberError, ValueError, KeyError) as exc:
        fail(str(exc.args[0] if exc.args else exc))
    progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), console=console, transient=True, disable=as_json)

    def records() -> Iterator[dict[str, Any]]:
        task = progress.add_task("layouts" if kitchen else "episodes", total=len(episodes))
        for episode in episodes:
            if kitchen:
                yield from overcooked_decisions.layout_decisions(episode, members, renderer=renderer, seed=seed,
                                                                 perturb=perturb, horizon=horizon,
                                                                 learner_lm=learner_lm, expert_share=expert_share)
            elif transport:
                yield from tdw_decisions.episode_decisions(episode, members, renderer=renderer, seed=seed,
                                                           perturb=perturb, learner_lm=learner_lm)
            else:
                yield from episode_decisions(env, episode, members, renderer=renderer, seed=seed,
                                             oracle_restarts=oracle_restarts, perturb=perturb)
            progress.advance(task)

    try:
        with progress:
            summary = write_jsonl(records(), out)
    except (UnknownEnvironmentError, ValueError) as exc:
        fail(str(exc.args[0] if exc.args else exc))
    summary |= {"env": env, "set": episode_set, "team": members, "seed": seed, "spec": spec, "perturb": perturb,
                "learner": learner, "expert_share": expert_share}
    if as_json:
        emit_json(summary)
        return
    splits = ", ".join(f"{name} {count}" for name, count in summary["splits"].items())
    console.print(f"[green]wrote[/green] {summary['decisions']} decision points from {summary['episodes']} episodes "
                  f"to {summary['path']} ({splits}); oracle label on {summary['oracle_labelled']}", highlight=False)
