"""Spec loading: every malformed fixture is reported with its code and line, good specs resolve."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from coopgraph.graphs.errors import SpecInvalid
from coopgraph.graphs.loader import load_spec, shipped_specs

FIXTURES = Path(__file__).parent / "fixtures"

# fixture -> (code, line of the problem, a phrase the message must contain)
BAD = {
    "bad_indent": ("E101", 6, "invalid YAML"),
    "unknown_node": ("E202", 7, "did you mean planning.choose_action"),
    "missing_edge_target": ("E301", 9, "'chose'"),
    "router_undeclared_branch": ("E302", 11, "never returns maybe"),
    "duplicate_node": ("E102", 6, "duplicate key 'choose' (first at line 4)"),
    "wrong_param_type": ("E203", 7, "param reasoning_chars"),
    "unreachable": ("E305", 6, "'orphan' is unreachable"),
    "loop_no_exit": ("E306", 4, "never reaches END"),
    "python_tag": ("E103", 5, "not allowed"),
    "alias_bomb": ("E104", 6, "key 'e' expands to more than"),
    "missing_entry": ("E201", 1, "entry: Field required"),
    "unknown_router": ("E204", 8, "did you mean planning.has_choice"),
    "extends_missing": ("E209", 1, "no_such_base"),
    "undeclared_param": ("E205", 9, "${retry_budget}"),
    "dead_end": ("E304", 6, "'choose' has no outgoing edge"),
    "unwritten_read": ("E308", 12, "'actions', which nothing writes before it on the path perceive -> choose "
                       "(written by list_actions, not on that path)"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_malformed_spec_reports_code_line_and_problem(name: str) -> None:
    code, line, phrase = BAD[name]
    with pytest.raises(SpecInvalid) as caught:
        load_spec(FIXTURES / "bad" / f"{name}.yaml")
    matching = [e for e in caught.value.errors if e.code == code and phrase in e.message]
    assert matching, f"expected {code} with {phrase!r}, got {[str(e) for e in caught.value.errors]}"
    error = matching[0]
    assert error.file.endswith(f"{name}.yaml")
    assert error.line == line, str(error)
    assert phrase in error.message
    assert error.hint


def test_every_bad_fixture_is_covered() -> None:
    assert {p.stem for p in (FIXTURES / "bad").glob("*.yaml")} == set(BAD)


def test_all_problems_are_reported_at_once() -> None:
    errors = pytest.raises(SpecInvalid, load_spec, FIXTURES / "bad" / "wrong_param_type.yaml").value.errors
    assert {e.message.split("param ")[1].split(":")[0] for e in errors} == {"reasoning_chars", "answer_format"}


def test_alias_bomb_is_refused_quickly() -> None:
    started = time.perf_counter()
    with pytest.raises(SpecInvalid):
        load_spec(FIXTURES / "bad" / "alias_bomb.yaml")
    assert time.perf_counter() - started < 5  # a guard against expansion, not a speed target


def test_extends_merges_params_nodes_and_replaces_edges() -> None:
    loaded = load_spec(FIXTURES / "good" / "ablation.yaml")
    spec = loaded.spec
    assert set(spec.nodes) == {"choose"}
    assert spec.nodes["choose"].params == {"reasoning_chars": 0, "retries": 1, "answer_format": "text"}
    assert spec.edges == ["choose -> END"]
    assert spec.entry == "choose"


def test_param_substitution_uses_the_spec_params() -> None:
    spec = load_spec(FIXTURES / "good" / "base.yaml").spec
    assert spec.nodes["choose"].params["reasoning_chars"] == 80


def test_unknown_shipped_name_lists_what_exists() -> None:
    with pytest.raises(SpecInvalid) as caught:
        load_spec("no_such_spec")
    assert "describe_choose" in caught.value.errors[0].message


def test_shipped_specs_all_validate() -> None:
    specs = shipped_specs()
    assert "describe_choose" in specs
    for path in specs.values():
        load_spec(path)
