"""The read check (E308): a key a node or router reads must be written before it on every path from the entry."""

from __future__ import annotations

from pathlib import Path

import pytest

from coopgraph.graphs.errors import SpecError, SpecInvalid
from coopgraph.graphs.loader import load_spec, shipped_specs
from coopgraph.nodes.registry import node


def _errors(tmp_path: Path, text: str) -> list[SpecError]:
    path = tmp_path / "spec.yaml"
    path.write_text(text)
    with pytest.raises(SpecInvalid) as caught:
        load_spec(path)
    return caught.value.errors


def test_a_key_written_only_later_in_a_loop_is_not_written_on_the_first_pass(tmp_path: Path) -> None:
    errors = _errors(tmp_path, """\
name: loop
entry: list_actions
nodes:
  list_actions:
    use: planning.list_actions
  retrieve:
    use: memory.retrieve
  step_plan:
    use: execution.step_plan
edges:
  - list_actions -> retrieve -> step_plan
  - from: step_plan
    router: execution.after_step
    branches: {act: END, replan: list_actions}
""")
    [error] = errors
    assert (error.code, error.line) == ("E308", 4)
    assert error.message == ("node 'list_actions' (planning.list_actions) reads 'facts', which nothing writes "
                             "before it on the path list_actions (written by list_actions, retrieve, not on that path)")


def test_a_router_reads_after_its_source_node(tmp_path: Path) -> None:
    errors = _errors(tmp_path, """\
name: routed
entry: retrieve
nodes:
  retrieve:
    use: memory.retrieve
  describe:
    use: text.describe
edges:
  - retrieve -> describe
  - from: describe
    router: execution.after_step
    branches: {act: END, replan: retrieve}
""")
    [error] = errors
    assert (error.code, error.line) == ("E308", 11)  # the router's line, not the node's
    assert error.message == ("router 'execution.after_step' after 'describe' reads 'action', which nothing "
                             "writes before it on the path retrieve -> describe (no node of the spec writes it)")


def test_inputs_declare_what_the_caller_supplies(tmp_path: Path) -> None:
    text = "name: x\nentry: describe\nnodes:\n  describe:\n    use: text.describe\nedges:\n  - describe -> END\n"
    [error] = _errors(tmp_path, text)
    assert error.code == "E308" and "reads 'facts'" in error.message
    path = tmp_path / "with_inputs.yaml"
    path.write_text(text + "inputs: [facts]\n")
    assert load_spec(path).spec.inputs == ["facts"]


def test_an_unknown_input_key_is_a_schema_error_listing_the_keys(tmp_path: Path) -> None:
    text = ("name: x\nentry: describe\nnodes:\n  describe:\n    use: text.describe\nedges:\n  - describe -> END\n"
            "inputs: [facts, fact_list]\n")
    [error] = _errors(tmp_path, text)
    assert (error.code, error.line) == ("E201", 8)
    assert "unknown state key 'fact_list'" in error.message and "options" in error.message


def test_describe_choose_needs_the_inputs_it_declares() -> None:
    assert load_spec("describe_choose").spec.inputs == ["facts", "actions"]


def test_optional_reads_are_left_alone_and_shipped_specs_read_nothing_unwritten() -> None:
    for path in shipped_specs().values():
        load_spec(path)  # coela never writes `description` and capo-noadapt no `progress_event`: both optional


def test_an_optional_read_must_also_be_a_read() -> None:
    with pytest.raises(ValueError, match=r"optional reads \['message'\] that are not in its reads \['facts'\]"):
        node("testing.stray_optional", reads=("facts",), optional_reads=("message",))
