"""`coopgraph play`: a person on the team, in the browser (default) or the terminal (docs/play.md)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer

from coopgraph.cli.app import app, console, emit_json, fail, whole_number


def _print_result(payload: dict[str, Any]) -> None:
    state = "solved" if payload["success"] else "not solved"
    console.print(f"[bold]{state}[/bold] in {payload['steps']} steps; you played {payload['human_agent']}",
                  highlight=False)
    console.print(f"trace: {payload['trace_path']}", highlight=False)


def terminal_runner(as_json: bool, step_limit: float | None, show_plans: bool) -> Callable[..., dict[str, Any]]:
    """Plays one episode on standard input and asks the ratings there; stores them with the run."""
    from coopgraph.play.ratings import store_ratings
    from coopgraph.play.session import play_episode
    from coopgraph.play.terminal import TerminalSeat

    def run(*, env: str, episode: str, team: list[str], llm: Any, out: Path, participant: str | None = None,
            **options: Any) -> dict[str, Any]:
        seat = TerminalSeat(sys.stdin, sys.stderr if as_json else sys.stdout)
        result = play_episode(env, episode, team, llm, seat, out, step_limit_s=step_limit, show_plans=show_plans,
                              **options)
        ratings = seat.ask_ratings()
        if ratings is not None:
            store_ratings(result["trace_path"], ratings, result["human_agent"], participant)
        result["ratings"] = None if ratings is None else ratings.model_dump()
        return result

    return run


def web_runner(host: str, port: int, no_browser: bool, step_limit: float | None, show_plans: bool
               ) -> Callable[..., dict[str, Any]]:
    from coopgraph.play.serve import serve_episode

    def run(*, env: str, episode: str, team: list[str], llm: Any, out: Path, **options: Any) -> dict[str, Any]:
        return serve_episode(env, episode, team, llm, out, step_limit_s=step_limit, show_plans=show_plans,
                             host=host, port=port, open_browser=not no_browser,
                             say=lambda text: console.print(text, highlight=False, markup=False), **options)

    return run


@app.command("play")
def play(
    env: str = typer.Option("cwah", "--env", help="environment name (coopgraph.envs.registered())"),
    env_opt: list[str] = typer.Option([], "--env-opt", help="environment option KEY=VALUE, repeatable"),
    episode: str = typer.Option("test/0", help="SET/INDEX, e.g. test/0 (Overcooked: the layout)"),
    team: str = typer.Option("human,mhp", help="comma-separated members, exactly one of them `human` (you)"),
    llm: str = typer.Option(None, help="LLM for graph partners, as for `coopgraph run` (default: local; in a "
                            "study, the suite's)"),
    max_steps: int = typer.Option(None, help="step budget (default: the environment's horizon)"),
    seed: str = typer.Option("0", help="the run's seed (a whole number)"),
    out: Path = typer.Option(None, help="folder for the trace (default runs/play); with --study, the study's "
                             "result store (default runs/study)"),
    ui: str = typer.Option("web", "--ui", help="web (a page in the browser) or terminal (numbered lines on "
                           "standard input)"),
    step_limit: float = typer.Option(None, "--step-limit", help="seconds you have per decision; when they run "
                                     "out your agent waits that step (default: no limit)"),
    show_plans: bool = typer.Option(False, "--show-plans", help="show partners' plans as they choose them (they "
                                    "name things your agent may not have seen)"),
    study: str = typer.Option(None, "--study", help="a `kind: user-study` suite: play the participant's next "
                              "session (--env, --episode and --team then come from the suite)"),
    participant: str = typer.Option(None, "--participant", help="with --study: the participant's id (a short "
                                    "code such as P7; nothing else about them is kept)"),
    host: str = typer.Option("127.0.0.1", "--host", help="web: address to listen on; any other than 127.0.0.1 "
                             "requires the token printed at start on every request"),
    port: int = typer.Option(8765, "--port", help="web: port to listen on (0: any free port)"),
    no_browser: bool = typer.Option(False, "--no-browser", help="web: print the address, open no browser"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object with the result"),
) -> None:
    """Play one agent of a team yourself: choose from its action list and send messages, beside agent partners."""
    from coopgraph.envs.registry import UnknownEnvironmentError
    from coopgraph.evals.suite import SuiteInvalid
    from coopgraph.play.session import PlayAbandoned
    from coopgraph.runtime.episode_loop import check_step_budget
    from coopgraph.runtime.teams import UnknownMemberError, parse_team

    try:
        check_step_budget(max_steps, "--max-steps")
    except ValueError as exc:
        fail(str(exc))
    if step_limit is not None and step_limit <= 0:
        fail(f"--step-limit must be more than 0 seconds, got {step_limit}")
    if ui not in ("web", "terminal"):
        fail(f"--ui {ui}: choose web or terminal")
    if (study is None) != (participant is None):
        fail("--study and --participant go together: coopgraph play --study SUITE --participant P7")
    run_seed = whole_number(seed, "--seed")
    from coopgraph.cli.run import _check_env_options, _parse_options, check_out_folder

    folder = out or Path("runs/study" if study else "runs/play")
    check_out_folder(folder)
    runner = terminal_runner(as_json, step_limit, show_plans) if ui == "terminal" else \
        web_runner(host, port, no_browser, step_limit, show_plans)
    try:
        if study is not None:
            from coopgraph.evals.study_sessions import play_study

            payload = play_study(study, participant, folder, runner, llm=llm,
                                 say=lambda text: console.print(text, highlight=False, markup=False))
            if payload is None:
                if as_json:
                    emit_json({"study": study, "participant": participant, "finished": True})
                return
        else:
            members = parse_team(team)
            options = _parse_options(env_opt)
            world = _check_env_options(env, options, episode, len(members)) if options else None
            payload = runner(env=env, episode=episode, team=members, llm=llm or "local", out=folder,
                             env_options=options, max_steps=max_steps, seed=run_seed, world=world)
    except PlayAbandoned as exc:
        fail(str(exc), code=1)
    except SuiteInvalid as exc:
        fail("\n".join(str(e) for e in exc.errors))
    except (UnknownEnvironmentError, UnknownMemberError, KeyError, ValueError) as exc:
        fail(str(exc.args[0] if exc.args else exc))
    if as_json:
        emit_json(payload)
    else:
        _print_result(payload)
