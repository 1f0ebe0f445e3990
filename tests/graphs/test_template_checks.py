"""Templates are checked at load against what their node hands them (E312), and a spec that needs its caller's
per-step inputs is refused as a team member (E313), instead of an `UndefinedError` mid-episode."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from coopgraph.cli import app
from coopgraph.envs import kit_info, kits
from coopgraph.graphs.errors import SpecInvalid
from coopgraph.graphs.loader import load_spec, shipped_specs
from coopgraph.graphs.template_checks import template_reads
from coopgraph.runtime.teams import UnknownMemberError, make_team

DESCRIBE_AFTER_RETRIEVE = """\
name: describe-after-retrieve
entry: retrieve
nodes:
  retrieve:
    use: memory.retrieve
  describe:
    use: text.describe
edges:
  - retrieve -> describe -> END
"""


def test_a_templates_variables_are_read_from_its_parse() -> None:
    required, optional = template_reads("text/describe.j2")
    assert required == {"instructions", "goal", "facts_text"} and not optional


def test_what_a_defined_test_guards_is_optional() -> None:
    required, optional = template_reads("metaplan/choose_action.j2")
    assert {"goal", "options"} <= required
    assert {"meta_plan", "plan_status", "my_part", "option_notes"} <= optional  # read under `meta_plan is defined`


def test_a_variable_the_node_never_hands_its_template_is_refused_with_line_and_name(tmp_path: Path) -> None:
    path = tmp_path / "describe.yaml"
    path.write_text(DESCRIBE_AFTER_RETRIEVE, encoding="utf-8")
    with pytest.raises(SpecInvalid) as caught:
        load_spec(path)
    (error,) = caught.value.errors
    assert (error.code, error.file, error.line) == ("E312", str(path), 7)
    assert "node 'describe' (text.describe) renders prompts/text/describe.j2, which reads 'facts_text'" in \
        error.message
    assert "goal" in error.message.split("never handed")[1]  # retrieve's facts, listed as what it does hand


def test_a_variable_handed_on_one_path_only_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "layout.yaml"
    path.write_text("""\
name: layout-on-one-path
entry: perceive
nodes:
  perceive:
    use: perception.perceive
  retrieve:
    use: memory.retrieve
    params: {action_texts: true}
  layout:
    use: memory.layout
  list_actions:
    use: planning.list_actions
  choose:
    use: planning.choose_action
    prompt: planning/llmco_choose
    params: {reply_format: in_prompt}
edges:
  - perceive -> retrieve
  - from: retrieve
    router: execution.needs_plan
    branches: {plan: layout, continue: list_actions}
  - layout -> list_actions -> choose -> END
""", encoding="utf-8")
    with pytest.raises(SpecInvalid) as caught:
        load_spec(path, env="overcooked")
    messages = [e.message for e in caught.value.errors if e.code == "E312"]
    assert len(messages) == 1 and "reads 'layout': never handed" in messages[0], messages
    both = tmp_path / "layout_both.yaml"
    both.write_text(path.read_text(encoding="utf-8").replace("continue: list_actions", "continue: layout"),
                    encoding="utf-8")
    load_spec(both, env="overcooked")  # every path now writes the layout before the choice


def test_facts_from_the_caller_or_an_undeclared_writer_are_not_second_guessed() -> None:
    load_spec("describe_choose")  # its caller hands it facts (inputs:), whatever keys they hold
    load_spec("describe_choose", env="cwah")


@pytest.mark.parametrize("name", sorted(shipped_specs()))
def test_every_shipped_spec_loads_as_a_team_member_wherever_its_world_fits(name: str) -> None:
    fitted = []
    for world in kits():
        try:
            load_spec(name, env=world, member=name != "describe_choose")
        except SpecInvalid as exc:
            assert {e.code for e in exc.errors} <= {"E310", "E311"}, str(exc)  # capabilities or prompts, never E312
            continue
        fitted.append(kit_info(world).name)
    assert fitted, f"{name} fits no world"


def test_the_example_is_refused_as_a_team_member_at_load_with_its_inputs_line() -> None:
    with pytest.raises(SpecInvalid) as caught:
        load_spec("describe_choose", env="cwah", member=True)
    (error,) = caught.value.errors
    assert (error.code, error.line) == ("E313", 8)
    assert "not a team member: it takes facts, actions from its caller" in error.message
    assert "coopgraph demo --toy" in error.hint
    with pytest.raises(UnknownMemberError, match="E313"):
        make_team(["describe_choose", "mhp"], lm_factory=lambda: None, env="cwah")


def test_run_with_the_example_says_so_in_one_line_and_validate_says_it_is_no_member(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["run", "--env", "cwah", "--team", "describe_choose,mhp", "--llm",
                                      "openai:never-called", "--max-steps", "2", "--json", "--out", str(tmp_path)])
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 2 and len(lines) == 1, result.output
    assert "describe_choose.yaml:8:1: E313 spec 'describe_choose' is not a team member" in lines[0]
    assert "Traceback" not in result.output and not list(tmp_path.iterdir())
    validated = CliRunner().invoke(app, ["graph", "validate", "describe_choose", "--env", "toyhouse"])
    assert validated.exit_code == 0
    assert "fits toyhouse; not a team member: its caller hands it facts, actions" in validated.output
