"""Commands that need no model import no LLM stack: --help, graph validate, graph draw, nodes, report.

Only which modules get imported is checked here; how fast those commands start is printed by
`evals/bench/cli_startup.py` (a benchmark, never a timed test)."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("langchain_openai", "dspy", "litellm", "chromadb")

PROBE = f"""
import contextlib, io, sys
import coopgraph.cli
from coopgraph.cli import app
from coopgraph.graphs.loader import load_spec
from coopgraph.graphs.mermaid import to_mermaid
import coopgraph.evals.report

import coopgraph
coopgraph.load_spec('coela')
to_mermaid(load_spec('coela'))
for argv in (['--help'], ['graph', 'validate', 'graphs/coela.yaml', 'coela'], ['graph', 'draw', 'coela'], ['nodes']):
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            app(argv, standalone_mode=False)
        except SystemExit:
            pass
loaded = [m for m in {HEAVY!r} if m in sys.modules]
assert not loaded, loaded
print("light")
"""


def test_commands_that_need_no_model_import_no_llm_stack() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0 and done.stdout.strip() == "light", done.stderr[-2000:]


def test_building_a_program_still_gives_a_dspy_module() -> None:
    import dspy

    from coopgraph.nodes.families.validation import ScenarioProgram
    from coopgraph.nodes.programs import ChoiceProgram, JinjaAdapter, TextProgram

    program = ScenarioProgram()
    assert isinstance(program, dspy.Module) and isinstance(program, ScenarioProgram)
    assert isinstance(program, ChoiceProgram) and type(program).__name__ == "ScenarioProgram"
    assert program.predict.signature.instructions.startswith("Pick the account")
    assert program.named_predictors()[0][0] == "predict"
    twin = program.deepcopy()
    assert type(twin) is type(program) and twin.predict is not program.predict
    assert isinstance(TextProgram(), dspy.Module)
    assert isinstance(JinjaAdapter("planning/choose_action"), dspy.Adapter)
