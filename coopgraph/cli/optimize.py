"""`coopgraph optimize` (DSPy on a node's program) and `coopgraph distill` (LoRA adapter for `local-coop`)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import typer

from coopgraph.cli.app import app, console, emit_json, fail

DISTILL_PYTHON = Path(".venv-distill/bin/python")



def write_tuned_spec(spec_out: Path, base: str, node: str, program: Path) -> None:
    """A one-node override of the base spec that names the tuned program (path relative to the new spec)."""
    relative = Path(os.path.relpath(program.resolve(), spec_out.resolve().parent))
    spec_out.parent.mkdir(parents=True, exist_ok=True)
    spec_out.write_text(
        f"# {base} with {node}'s DSPy program tuned by `coopgraph optimize`\n"
        f"name: {spec_out.stem}\nextends: {base}\nnodes:\n  {node}:\n    program: {relative.as_posix()}\n")


@app.command("optimize")
def optimize(
    target: str = typer.Argument(None, help="`reasoning` tunes the reasoning prompt on a question file instead of "
                                 "a node on decision points (`optimize reasoning CSV`)"),
    questions: Path = typer.Argument(None, help="with `reasoning`: a question file with a Split column "
                                     "(`coopgraph data reasoning`), or the shipped set `coopgraph`",
                                     show_default=False),
    data: Path = typer.Option(None, "--data", help="decision points from `coopgraph data decisions`"),
    out: Path = typer.Option(..., "-o", "--out", help="where to save the tuned program (DSPy JSON)"),
    spec: str = typer.Option("coela", "--spec", help="graph spec whose node is tuned"),
    node: str = typer.Option(None, "--node", help="node id (default: the spec's planning.choose_action node)"),
    optimizer: str = typer.Option("bootstrap", "--optimizer", help="labeled, bootstrap, random-search or mipro"),
    llm: str = typer.Option(None, "--llm", help="LLM setting (default: COOPGRAPH_LLM or local)"),
    train: int = typer.Option(16, "--train", min=1, help="training decision points or questions (split 'train')"),
    held_out: int = typer.Option(40, "--eval", min=1, help="held-out decision points or questions (other splits)"),
    demos: int = typer.Option(2, "--demos", min=0, help="few-shot demos the program may keep"),
    seed: int = typer.Option(0, "--seed"),
    eval_data: Path = typer.Option(None, "--eval-data", help="held-out points from this file instead (all splits), "
                                   "e.g. the test houses' decisions"),
    spec_out: Path = typer.Option(None, "--spec-out", help="also write a spec that extends SPEC with the program"),
    as_json: bool = typer.Option(False, "--json", help="print the before/after agreement as JSON"),
) -> None:
    """Tune a choice node on expert decisions and print its agreement with the expert before and after (or, with
    `reasoning CSV`, the reasoning prompt on a question file's train split, accuracy before and after on the rest)."""
    if target == "reasoning":
        from coopgraph.cli.reasoning import optimize_reasoning

        if data is not None or eval_data is not None or spec_out is not None:
            fail("--data, --eval-data and --spec-out tune a node; `optimize reasoning` takes a question file")
        optimize_reasoning(questions, out=out, optimizer=optimizer, llm=llm, train=train, held_out=held_out,
                           demos=demos, seed=seed, as_json=as_json)
        return
    if target is not None:
        fail(f"unexpected argument {target!r}: `optimize` tunes a node (--data FILE) or, as `optimize reasoning CSV`, "
             "the reasoning prompt")
    if data is None:
        fail("name the decision points: coopgraph optimize --data FILE.jsonl -o PROGRAM.json "
             "(or tune the reasoning prompt: coopgraph optimize reasoning QUESTIONS.csv -o PROGRAM.json)")
    from coopgraph.evals.decision_reader import DecisionFileError, read_points
    from coopgraph.evals.optimize import EXAMPLE_KEYS, OPTIMIZERS, NodeTuner, sample_examples, split_examples
    from coopgraph.llm.factory import make_lm
    from coopgraph.llm.settings import LLMSettingError

    if optimizer not in OPTIMIZERS:
        fail(f"unknown optimizer {optimizer!r}; use one of: {', '.join(OPTIMIZERS)}")
    if not data.exists():
        fail(f"no decisions file {data}; write one with `coopgraph data decisions -o {data}`")
    if eval_data is not None and not eval_data.exists():
        fail(f"no decisions file {eval_data}")
    try:  # every line read and checked before make_lm starts the embedded server
        points = read_points(data, EXAMPLE_KEYS)
        eval_points = read_points(eval_data, EXAMPLE_KEYS) if eval_data is not None else None
    except DecisionFileError as exc:
        fail(str(exc))
    try:
        tuner = NodeTuner(spec, make_lm(llm), node=node)
    except (LLMSettingError, KeyError, ValueError) as exc:
        fail(str(exc.args[0] if exc.args else exc))
    trainset, held = split_examples(points, train, held_out, seed)
    if eval_points is not None:
        held = sample_examples(eval_points, held_out, seed)
    if not trainset or not held:
        fail(f"{data} needs points in the 'train' split and in the others (found {len(trainset)} / {len(held)})")
    say = (lambda text: None) if as_json else (lambda text: console.print(text, highlight=False))
    say(f"measuring {tuner.node} of {spec} on {len(held)} held-out decisions (before)")
    before = tuner.measure(tuner.program, held)
    say(f"optimizing with {optimizer} on {len(trainset)} decisions")
    tuned = tuner.optimize(trainset, optimizer, demos=demos, seed=seed)
    after = tuner.measure(tuned, held)
    out.parent.mkdir(parents=True, exist_ok=True)
    tuned.save(str(out))
    if spec_out is not None:
        write_tuned_spec(spec_out, spec, tuner.node, out)
    result = {"spec": spec, "node": tuner.node, "optimizer": optimizer, "train": len(trainset),
              "before": before.as_dict(), "after": after.as_dict(), "program": str(out),
              "spec_out": str(spec_out) if spec_out else None}
    if as_json:
        emit_json(result)
        return
    for label, agreement in (("before", before), ("after", after)):
        row = agreement.as_dict()
        say(f"{label:>6}: agreement {row['agreement']:.1%}, first option {row['first_option']:.1%}, "
            f"invalid {row['invalid']:.1%} (n={row['n']})")
    say(f"[green]saved[/green] {out}; name it in a spec as `program: <path relative to the spec>`"
        + (f" (written: {spec_out})" if spec_out else ""))


@app.command("distill")
def distill(
    data: list[Path] = typer.Option(..., "--data", help="decision points from `coopgraph data decisions` (train "
                                    "set); repeat to pool several files, e.g. the expert's and a DAgger round's"),
    out: Path = typer.Option(..., "-o", "--out", help="LoRA adapter GGUF to write"),
    spec: str = typer.Option("coela-lite", "--spec", help="graph spec whose choice prompt is distilled"),
    limit: int = typer.Option(1000, "--limit", min=1, help="training pairs (about 2.3 s each on 2 cores)"),
    epochs: float = typer.Option(1.0, "--epochs", min=0.01),
    lr: float = typer.Option(5e-4, "--lr"),
    rank: int = typer.Option(16, "--rank", min=1),
    seed: int = typer.Option(0, "--seed", help="the order of the pairs, the sample under --limit and (without "
                             "--init) the adapter's first weights; a round trained under two or three seeds tells "
                             "what its data did from what its order did"),
    init: Path | None = typer.Option(None, "--init", help="start from this adapter GGUF (an earlier round, e.g. "
                                     "the shipped one), so the round builds on what the earlier rounds learned"),
    python: Path = typer.Option(DISTILL_PYTHON, "--python", help="interpreter with torch (`make distill-env`)"),
) -> None:
    """Fit a LoRA adapter of Gemma 3 270M on the expert's choices, written as a llama.cpp GGUF adapter."""
    from coopgraph.llm.local_extra import LocalExtraMissing, require_local_runtime

    try:  # the pairs are rendered with llama-cpp-python's own chat formatter
        require_local_runtime()
    except LocalExtraMissing as exc:
        fail(str(exc))
    from coopgraph.evals.decision_reader import DecisionFileError, numbered_points
    from coopgraph.evals.distill import data as distill_data
    from coopgraph.llm import model_files

    if not python.exists():
        fail(f"no training interpreter at {python}; run `make distill-env` (PyTorch CPU, transformers, peft)")
    for path in data:
        if not path.exists():
            fail(f"no decisions file {path}; write one with `coopgraph data decisions --set train -o {path}`")
    if init is not None and not init.is_file():
        fail(f"no adapter {init} to start from; --init takes a LoRA adapter GGUF written by `coopgraph distill`")
    base = model_files.require("local-tiny")
    pairs = out.with_suffix(".pairs.jsonl")
    try:  # every point rendered before training starts; a file or point that cannot be is named, line and all
        numbered = [(f"{path}:{line}", point) for path in data for line, point in numbered_points(path)]
        counts = distill_data.write_numbered_examples(numbered, pairs, spec=spec)
    except DecisionFileError as exc:  # a line that is not JSON, or a point the spec cannot render (PairError)
        fail(str(exc))
    console.print(f"wrote {sum(counts.values())} prompt/completion pairs to {pairs} ({counts})", highlight=False)
    script = Path(distill_data.__file__).with_name("train.py")
    command = [str(python), str(script), str(pairs), "--base", str(base), "--out", str(out), "--limit", str(limit),
               "--epochs", str(epochs), "--lr", str(lr), "--rank", str(rank), "--seed", str(seed)]
    if init is not None:
        command += ["--init", str(init)]
    if subprocess.run(command, check=False).returncode != 0:
        fail("training failed (see its output above)")
    digest = model_files.sha256_of(out)
    from coopgraph.runtime.teams import choice_prompt

    learned = choice_prompt(spec)  # a shipped profile may play a variant of the spec with the same prompt
    shipped = {m.adapter: m.profile for m in model_files.MODEL_FILES.values()
               if m.adapter and m.spec is not None and choice_prompt(m.spec) == learned}
    where = ", ".join(f"{model_files.ADAPTERS_DIR / name} (profile `{profile}`)" for name, profile in shipped.items())
    console.print(f"[green]adapter[/green] {out} sha256 {digest}\nTo ship it: copy it over "
                  f"{where or 'a new file in ' + str(model_files.ADAPTERS_DIR)} and pin that hash in "
                  "coopgraph/llm/model_files.py.", highlight=False)
