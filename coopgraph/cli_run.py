"""Commands that run agents: the toy `demo` that proves the whole path end to end."""

from __future__ import annotations

import time
from pathlib import Path

import typer

from coopgraph.cli import app, console, emit_json


@app.command("demo")
def demo(
    llm: str = typer.Option("local", help="LLM setting: local, local-tiny, openai:MODEL, vllm:MODEL"),
    max_steps: int = typer.Option(6, help="decisions before giving up"),
    out: Path = typer.Option(Path("runs/demo"), help="folder for the trace"),
    spec: str = typer.Option("describe_choose", help="graph spec to run"),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Run a small graph on the toy world with the embedded model and print what it chose."""
    from coopgraph.graphs.compiler import compile_spec
    from coopgraph.llm.factory import make_lm
    from coopgraph.manifest import manifest
    from coopgraph.nodes.context import AgentResources
    from coopgraph.testing.world import ToyWorld
    from coopgraph.tracing import Tracer

    trace_path = out / f"toy-{time.strftime('%Y%m%d-%H%M%S')}.jsonl"
    tracer = Tracer(trace_path)
    graph = compile_spec(spec)
    console.print(f"[bold]coopgraph demo[/bold]: graph [cyan]{graph.spec.spec.name}[/cyan] on the toy world, "
                  f"LLM [cyan]{llm}[/cyan] (starting the model server…)", highlight=False)
    lm = make_lm(llm, tracer=tracer.bind(agent="Alice"))
    tracer.event("manifest", **manifest(specs={"Alice": graph.spec.path}, llm=lm.settings_public, seed=0))
    world = ToyWorld()
    resources = AgentResources(agent_id="Alice", env="toy", lm=lm, tracer=tracer.bind(agent="Alice"))
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
            console.print(f"step {step}: [green]{state.get('choice')}[/green]  ({decisions[-1]['seconds']} s) "
                          f"— {state.get('reasoning') or ''}", highlight=False)
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
