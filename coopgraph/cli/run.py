"""Commands that run agents: `run` (one episode of any team) and the toy `demo`."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.markup import escape
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from coopgraph.cli.app import app, console, emit_json, fail, whole_number

if TYPE_CHECKING:
    from pettingzoo import ParallelEnv

    from coopgraph.runtime.result import RunResult


def _parse_options(pairs: list[str]) -> dict[str, Any]:
    """`KEY=VALUE` pairs; values that look like numbers or booleans become them."""
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep:
            raise typer.BadParameter(f"--env-opt takes KEY=VALUE, got {pair!r}")
        value: Any = raw
        for cast in (int, float):
            try:
                value = cast(raw)
                break
            except ValueError:
                continue
        if raw.lower() in ("true", "false"):
            value = raw.lower() == "true"
        options[key] = value
    return options


_RESERVED_OPTIONS = {"episode": "--episode", "num_agents": "--team (one agent per member)"}


def _option_kinds(env_name: str) -> dict[str, type]:
    """The simple type (int, float, bool, str) of each keyword a world takes, read from its factory's defaults,
    the class it returns and that class's pydantic `config`; used only to name a bad value's type before the world
    sees it (the world itself still checks everything when it is built)."""
    import inspect
    import typing

    from coopgraph.envs.registry import UnknownEnvironmentError
    from coopgraph.envs.registry import factory as env_factory

    simple = (int, float, bool, str)
    out: dict[str, type] = {}
    try:
        factory = env_factory(env_name)
    except UnknownEnvironmentError:
        return out  # building the world names the known ones
    try:
        returned = typing.get_type_hints(factory).get("return")
        signatures = [inspect.signature(factory)]
        if inspect.isclass(returned):
            signatures.append(inspect.signature(returned))
            config = typing.get_type_hints(returned.__init__).get("config")
            for model in typing.get_args(config) or (config,):
                for name, field in (getattr(model, "model_fields", None) or {}).items():
                    if field.annotation in simple:
                        out.setdefault(name, field.annotation)
    except Exception:  # noqa: BLE001 - unreadable annotations only cost the clearer message
        return out
    for signature in signatures:
        for name, param in signature.parameters.items():
            if type(param.default) in simple:
                out[name] = type(param.default)
    return out


def _check_env_options(env_name: str, options: dict[str, Any], episode: str, agents: int) -> ParallelEnv:
    """Refuse an --env-opt the world does not take, or a value of the wrong type, in one line; else the world, built
    with them, which the run then plays (`run_configured(world=...)`), so checking the options costs no build."""
    from pydantic import ValidationError

    from coopgraph import envs

    for key in options:
        if key in _RESERVED_OPTIONS:
            fail(f"--env-opt {key}=...: set it with {_RESERVED_OPTIONS[key]} instead")
    kinds = _option_kinds(env_name)
    names = {int: "a whole number", float: "a number", bool: "true or false", str: "text"}
    for key, value in options.items():
        kind = kinds.get(key)
        if kind is None:
            continue  # an option the world does not declare: envs.make below names it
        fits = (kind is float and isinstance(value, int | float) and not isinstance(value, bool)) \
            or (kind is int and isinstance(value, int) and not isinstance(value, bool)) \
            or (kind is bool and isinstance(value, bool)) or kind is str
        if not fits:
            fail(f"--env-opt {key}={value}: {key} takes {names[kind]} in world {env_name!r}")
        if kind is str and not isinstance(value, str):
            options[key] = str(value)
    try:
        return envs.make(env_name, episode=episode, num_agents=agents, **options)
    except TypeError as exc:
        if "unexpected keyword argument" in str(exc):
            unknown = [k for k in options if k not in kinds]
            takes = ", ".join(sorted(set(kinds) - set(_RESERVED_OPTIONS))) or "no options"
            fail(f"--env-opt: world {env_name!r} takes no option {', '.join(map(repr, unknown))}; it takes: {takes}")
        fail(f"--env-opt: {exc}")
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        fail(f"--env-opt: {problems}")
    except (ValueError, KeyError) as exc:
        envs.make(env_name, episode=episode, num_agents=agents).close()  # not the options' fault: raises again
        fail(f"--env-opt: {exc.args[0] if exc.args else exc}")


def _live_printer(record: dict[str, Any]) -> None:
    kind = record["type"]
    who = record.get("agent", "?")
    if kind == "plan":
        flag = " [red](invalid answer, fallback)[/red]" if record.get("invalid") else ""
        console.print(f"  step {record.get('step')}: [bold]{who}[/bold] → [green]{escape(str(record.get('plan')))}"
                      f"[/green]{flag}", highlight=False)
    elif kind == "message":
        console.print(f"  step {record.get('step')}: [bold]{who}[/bold] says [cyan]{escape(str(record.get('text')))}"
                      "[/cyan]", highlight=False)


def _run_live(env_name: str, env_options: dict[str, Any], episode: str, team_names: list[str], llm: str,
              max_steps: int | None, out: Path, *, live: bool, seed: int, trace_name: str | None = None,
              world: ParallelEnv | None = None) -> RunResult:
    """Run with a progress bar and each agent's plans and messages printed as they happen; `world`, when the
    option check built it, is the one the run plays."""
    from coopgraph.runtime.launch import run_configured

    if not live:
        return run_configured(env_name, env_options, episode, team_names, llm, max_steps, out, seed=seed,
                              keep_checkpoints=True, trace_name=trace_name, world=world)
    progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(),
                        TextColumn("{task.completed}/{task.total}"), TimeElapsedColumn(), console=console,
                        transient=True)
    task = progress.add_task("steps", total=max_steps or 250)

    def advance(record: dict[str, Any]) -> None:
        if record["type"] == "episode_start":
            progress.start()  # only now: a run refused before its first step leaves just its one error line
            progress.update(task, total=record.get("max_steps"))
        elif record["type"] == "env_step":
            progress.update(task, completed=record["step"])

    try:
        return run_configured(env_name, env_options, episode, team_names, llm, max_steps, out, seed=seed,
                              listeners=[_live_printer, advance], keep_checkpoints=True, trace_name=trace_name,
                              world=world)
    finally:
        if progress.live.is_started:  # stopping one never started still prints an empty line
            progress.stop()


def _print_result(result: RunResult) -> None:
    def figure(key: str) -> float:
        return result.number(key) if key in result.metrics else 0.0

    if "score" in result.metrics:  # a world scored in points (Overcooked) says its score first
        served = result.metrics.get("deliveries_by_agent")
        who = "; served by " + ", ".join(f"{agent} {int(n)}" for agent, n in served.items()) \
            if isinstance(served, dict) and served else ""
        console.print(f"score {int(figure('score'))} ({int(figure('deliveries'))} deliveries{who})", highlight=False)
    console.print(
        f"[bold]{'success' if result.success else 'not finished'}[/bold] in {result.steps} steps "
        f"(subgoals {int(figure('subgoals_done'))}/{int(figure('subgoals_total'))}), "
        f"travel {figure('travel_distance'):.1f} m, messages {int(figure('communication_steps'))} "
        f"({int(figure('characters_sent'))} chars), invalid answers {result.invalid_answers}, "
        f"wall {result.wall_time_s:.0f} s", highlight=False)
    for agent, u in result.llm_usage.items():
        console.print(f"  {agent}: {u['llm_calls']} LLM calls, {u['prompt_tokens']} prompt + "
                      f"{u['completion_tokens']} completion tokens, {u['llm_seconds']} s in the LLM"
                      f"{_model_trouble(u)}", highlight=False)
    console.print(f"trace: {result.trace_path}", highlight=False)
    if result.replay:
        console.print(f"replay a decision: {escape(result.replay)}", highlight=False)


def _model_trouble(usage: dict[str, Any]) -> str:
    """What an agent's summary line adds when its model failed it: failed calls and decisions played on fallbacks
    for want of a model (nothing for a run the model answered throughout)."""
    failed, fallbacks = int(usage.get("llm_errors", 0)), int(usage.get("llm_fallbacks", 0))
    if not failed and not fallbacks:
        return ""
    text = f"{failed} failed calls, {fallbacks} decisions fell back for want of a model"
    return f"; [yellow]{text}[/yellow]" if fallbacks else f"; {text}"


def check_out_folder(out: Path, flag: str = "--out") -> None:
    """`--out` must be a folder (existing or new), not a file or a path through one."""
    for part in (out, *out.parents):
        if part.exists() and not part.is_dir():
            fail(f"{flag} {out}: {part} is a file; {flag} takes a folder (existing or new)")


@app.command("run")
def run(
    env: str = typer.Option("cwah", "--env", help="environment name (coopgraph.envs.registered())"),
    env_opt: list[str] = typer.Option([], "--env-opt", help="environment option KEY=VALUE, repeatable"),
    episode: str | None = typer.Option(None, help="the world's episode: C-WAH's SET/INDEX (test/0, train/12), an "
                                       "Overcooked layout (cramped_room)... (default: the world's own, e.g. test/0 "
                                       "in C-WAH, cramped_room in Overcooked)", show_default=False),
    team: str = typer.Option("mhp", help="comma-separated members: baselines (mhp) or graph specs (coela), one "
                             "agent each, up to the world's limit (C-WAH, TDW-MAT, toyhouse: 4; Overcooked, Collab: "
                             "2)"),
    llm: str = typer.Option("local", help="LLM for graph agents: local, local-tiny, openai:MODEL, vllm:MODEL, "
                            "langchain:PROVIDER:MODEL, a distilled planner (local-coop-kitchen...), or local-coop: "
                            "each member's distilled planner for its prompt in this world"),
    max_steps: int = typer.Option(None, help="step budget (default: the environment's horizon)"),
    seed: str = typer.Option("0", help="the run's seed: it resets the environment and the agents, and each graph "
                             "agent samples with a model seed derived from it (a whole number)"),
    out: Path = typer.Option(Path("runs"), help="folder for the trace"),
    trace: Path | None = typer.Option(None, "--trace", help="the trace file to write (default: a new file in --out "
                                      "named after the world, episode, team and time); checkpoints go beside it"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object with the result"),
) -> None:
    """Run one episode with a team and print its metrics."""
    from coopgraph.envs.registry import UnknownEnvironmentError, check_team_size, default_episode
    from coopgraph.runtime.episode_loop import check_step_budget
    from coopgraph.runtime.teams import UnknownMemberError, parse_team, prompt_mismatch, team_settings

    try:
        check_step_budget(max_steps, "--max-steps")
    except ValueError as exc:
        fail(str(exc))
    run_seed = whole_number(seed, "--seed")
    if trace is not None:
        if trace.suffix != ".jsonl":
            fail(f"--trace {trace}: a trace is a .jsonl file (e.g. runs/pair.jsonl)")
        if trace.is_dir():
            fail(f"--trace {trace}: is a folder; give a file name ending in .jsonl")
        if trace.exists():
            fail(f"--trace {trace}: a trace of that name exists; give a new name (a run never overwrites a trace)")
        out = trace.parent
    check_out_folder(out, "--trace" if trace is not None else "--out")
    try:
        if episode is None:
            episode = default_episode(env)
        members = parse_team(team)
        check_team_size(env, len(members))
        options = _parse_options(env_opt)
        world = _check_env_options(env, options, episode, len(members)) if options else None
        try:  # the run takes the checked world over; until then a refusal closes it here
            settings = dict(zip(members, team_settings(members, llm, env), strict=True))
            for member, setting in settings.items():
                if setting is not None and setting != llm and not as_json:
                    console.print(f"--llm {escape(llm)}: {escape(member)} plays with {escape(setting)}, the "
                                  f"distilled planner that learned its prompt in {escape(env)}", highlight=False)
            warnings = [] if as_json else [prompt_mismatch(m, s, env) for m, s in settings.items()]
            for warning in filter(None, warnings):
                console.print(f"[yellow]warning:[/yellow] {escape(warning)}", highlight=False)
        except BaseException:
            if world is not None:
                world.close()
            raise
        result = _run_live(env, options, episode, members, llm, max_steps, out, live=not as_json, seed=run_seed,
                           trace_name=trace.name if trace is not None else None, world=world)
    except (UnknownEnvironmentError, UnknownMemberError, KeyError, ValueError) as exc:
        fail(str(exc.args[0] if exc.args else exc))
    if as_json:
        emit_json(result.payload())
    else:
        _print_result(result)


@app.command("demo")
def demo(
    llm: str = typer.Option("local-coop-brief", help="LLM setting: local-coop-brief (the distilled planner), local, "
                            "local-coop, local-tiny, openai:MODEL, vllm:MODEL"),
    episode: str = typer.Option("test/0", help="C-WAH episode (MHP+MHP needs 62 steps on test/0)"),
    team: str = typer.Option("coela-brief,coela-brief", help="the team to watch (coela,coela with --llm local: "
                             "CoELA as published on the general 1.5B model)"),
    max_steps: int = typer.Option(None, help="step budget (default: the environment's horizon; about 40 steps "
                                  "fit in 10 minutes with --llm local)"),
    out: Path = typer.Option(Path("runs/demo"), help="folder for the trace"),
    toy: bool = typer.Option(False, "--toy", help="instead, run the describe/choose graph on one toyhouse agent"),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Watch two agents tidy a C-WAH house together with an embedded model: by default CoELA-brief (CoELA on a
    short prompt whose action list follows the MHP expert's order) on the distilled planner, about a minute."""
    if toy:
        _toy_demo(llm, out, as_json)
        return
    if not as_json:
        console.print(f"[bold]coopgraph demo[/bold]: [cyan]{team}[/cyan] on C-WAH episode {episode}, "
                      f"LLM [cyan]{llm}[/cyan], step budget {max_steps or 'the horizon'}.", highlight=False)
        for name, what in team_descriptions(team.split(",")).items():
            console.print(f"  [cyan]{escape(name)}[/cyan]: {escape(what)}", highlight=False)
        console.print("Starting the model server…", highlight=False)
    run(env="cwah", env_opt=[], episode=episode, team=team, llm=llm, max_steps=max_steps, seed="0", out=out,
        trace=None, as_json=as_json)
    if not as_json:
        console.print("CoELA as published, on the general model (about 10 minutes for 40 steps): "
                      "coopgraph demo --team coela,coela --llm local --max-steps 40", highlight=False)


def team_descriptions(members: list[str]) -> dict[str, str]:
    """What each distinct member of a team is, in its own spec's words (a baseline: its registered name), so the
    demo says which wiring runs and whether it is a published method or a variant."""
    from coopgraph.graphs.errors import SpecInvalid
    from coopgraph.graphs.loader import load_spec
    from coopgraph.runtime.teams import UnknownMemberError, member_kind

    described: dict[str, str] = {}
    for name in dict.fromkeys(m.strip() for m in members):
        try:
            kind = member_kind(name)
            described[name] = load_spec(name).spec.description if kind == "graph" else "a scripted baseline"
        except (UnknownMemberError, SpecInvalid):
            continue  # the run itself names what is wrong and what exists
    return described


def _toy_demo(llm: str, out: Path, as_json: bool, spec: str = "describe_choose", max_steps: int = 6) -> None:
    """The smallest end-to-end path: YAML -> LangGraph -> embedded model -> trace, on one toyhouse agent."""
    from coopgraph.graphs.compiler import compile_spec
    from coopgraph.llm.factory import make_lm
    from coopgraph.nodes.context import AgentResources
    from coopgraph.record.manifest import manifest
    from coopgraph.record.trace_file import Tracer
    from coopgraph.testing import TextSession

    trace_path = out / f"toy-{time.strftime('%Y%m%d-%H%M%S')}.jsonl"
    tracer = Tracer(trace_path)
    graph = compile_spec(spec)
    console.print(f"[bold]coopgraph demo[/bold]: graph [cyan]{graph.spec.spec.name}[/cyan] on one toyhouse agent, "
                  f"LLM [cyan]{llm}[/cyan] (starting the model server…)", highlight=False)
    lm = make_lm(llm, tracer=tracer.bind(agent="Alice"))
    tracer.event("manifest", **manifest(specs={"Alice": graph.spec.path}, llm=lm.settings_public, seed=0))
    world = TextSession("toyhouse/0")
    resources = AgentResources(agent_id="Alice", env="toyhouse", lm=lm, tracer=tracer.bind(agent="Alice"))
    decisions = []
    for step in range(max_steps):
        started = time.perf_counter()
        state = graph.invoke({"step": step, "facts": world.facts(), "actions": world.actions()}, context=resources)
        result = world.step(state.get("choice"))
        decisions.append({"step": step, "description": state.get("description"), "reasoning": state.get("reasoning"),
                          "choice": state.get("choice"), "invalid": state.get("invalid"), "result": result,
                          "seconds": round(time.perf_counter() - started, 2)})
        tracer.event("env_step", agent="Alice", step=step, action=state.get("choice"), result=result)
        if not as_json:
            console.print(f"step {step}: [green]{escape(str(state.get('choice')))}[/green]  "
                          f"({decisions[-1]['seconds']} s) — {escape(state.get('reasoning') or '')}", highlight=False)
        if world.done:
            break
    summary = {"success": world.done, "steps": world.steps, "llm_calls": lm.usage.calls,
               "prompt_tokens": lm.usage.prompt_tokens, "completion_tokens": lm.usage.completion_tokens,
               "invalid": sum(bool(d["invalid"]) for d in decisions), "trace": str(trace_path)}
    tracer.event("episode_end", **summary)
    tracer.close()
    if as_json:
        emit_json({**summary, "decisions": decisions})
    else:
        console.print(f"success={summary['success']} steps={summary['steps']} llm_calls={summary['llm_calls']} "
                      f"invalid={summary['invalid']}\ntrace: {trace_path}", highlight=False)
