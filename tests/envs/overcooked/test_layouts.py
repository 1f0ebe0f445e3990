"""Shipped layouts load, carry LLM-Co's object counts, and bad names or files fail with a clear message."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from coopgraph import envs
from coopgraph.cli import app
from coopgraph.envs.overcooked.kit import make_kit
from coopgraph.envs.overcooked.kitchen import Kitchen
from coopgraph.envs.overcooked.layouts import LayoutError, UnknownLayoutError, layout_names, load_layout

CRAMPED = '{\n    "grid":  """XXPXX\n                O  2O\n                X1  X\n                XDXSX""",\n}\n'


def test_every_shipped_layout_loads_both_sets_included() -> None:
    names = layout_names()
    assert len([n for n in names if "/" not in n]) == 54  # LLM-Co's, the paper's seven among them
    assert len([n for n in names if n.startswith("overcooked_ai/")]) == 45  # overcooked-ai 1.1.0's own
    assert len([n for n in names if n.startswith("coopgraph/")]) == 14  # coopgraph's training kitchens
    for name in names:
        assert load_layout(name).starts
    assert load_layout("asymmetric_advantages").width == 11  # LLM-Co's map, not 1.1.0's narrower one
    assert load_layout("overcooked_ai/asymmetric_advantages").width == 9


@pytest.mark.parametrize(("layout", "counts"), [
    ("cramped_room", {"o": 2, "p": 1, "d": 1, "c": 1, "k": 9}),
    ("asymmetric_advantages", {"p": 2, "d": 2, "c": 2, "k": 29}),
    ("coordination_ring", {"c": 2, "k": 11}),
    ("forced_coordination", {"c": 2, "s": 3, "k": 10}),
    ("counter_circuit_o_1order", {"c": 2, "s": 4, "k": 16}),
    ("no_counter_door", {"g": 2}),
    ("soup_passing_door", {"g": 1, "p": 2, "c": 2}),
])
def test_llmco_numbering_counts_what_llmco_counts(layout: str, counts: dict[str, int]) -> None:
    kitchen = Kitchen.from_layout(load_layout(layout))
    assert {letter: len(kitchen.places[letter]) for letter in counts} == counts


def test_a_layout_may_declare_its_shared_counters_and_the_state_calls_them_s() -> None:
    layout = load_layout("coopgraph/passing_columns")
    assert layout.shared_counters == ((3, 1), (3, 2), (3, 3))
    kitchen = Kitchen.from_layout(layout)
    assert kitchen.places["s"] == ((3, 1), (3, 2), (3, 3)) and (3, 0) in kitchen.places["k"]
    env = envs.make("overcooked", layout="coopgraph/passing_columns")
    env.reset()
    assert make_kit(env.agent_info("alice")).belief.kitchen.places["s"] == kitchen.places["s"]
    assert Kitchen.from_layout(load_layout("cramped_room")).places["s"] == ()  # declares none, LLM-Co lists none


@pytest.mark.parametrize(("entry", "what"), [
    ('"shared_counters": [[1, 1]],', "shared counter [1, 1] is ' '"),
    ('"shared_counters": [[9, 9]],', "shared counter [9, 9] is outside the grid"),
    ('"shared_counters": "k0",', "must be a list of [x, y] counter cells"),
])
def test_a_bad_shared_counter_names_the_file_and_the_line(tmp_path: Path, entry: str, what: str) -> None:
    path = tmp_path / "shared.layout"
    path.write_text(CRAMPED.replace("}", f"    {entry}\n}}"))
    with pytest.raises(LayoutError) as error:
        load_layout(str(path))
    assert f"{path}:6:" in str(error.value) and what in str(error.value), str(error.value)


def test_gates_are_numbered_row_major_as_in_llmco() -> None:
    assert Kitchen.from_layout(load_layout("no_counter_door")).places["g"] == ((1, 3), (3, 3))
    assert Kitchen.from_layout(load_layout("soup_passing_door")).places["p"][1] == (0, 1)  # p1 is on Alice's side


def test_an_unknown_layout_lists_the_shipped_ones() -> None:
    with pytest.raises(UnknownLayoutError, match=r"'kitchen_nightmare'; shipped: .*cramped_room.*no_counter_door"):
        envs.make("overcooked", layout="kitchen_nightmare")


@pytest.mark.parametrize(("text", "where", "what"), [
    (CRAMPED.replace("X1  X", "X1 ZX"), ":4:20:", "bad cell 'Z' at x=3, y=2"),
    (CRAMPED.replace("XXPXX", "X PXX"), ":2:18:", "bad cell ' ' at x=1, y=0 on the border"),
    (CRAMPED.replace("X1  X", "X1  XX"), ":4:", "row 2 'X1  XX' is 6 cells wide"),
    (CRAMPED.replace("X1  X", "X2  X"), ":4:18:", "player 2 already starts"),
    (CRAMPED.replace('"grid"', '"grit"'), ":1:", "no \"grid\" entry"),
    (CRAMPED.replace("}", "]"), ":6:", "not a layout"),
])
def test_a_malformed_layout_names_the_file_the_line_and_the_cell(tmp_path: Path, text: str, where: str,
                                                                 what: str) -> None:
    path = tmp_path / "broken.layout"
    path.write_text(text)
    with pytest.raises(LayoutError) as error:
        envs.make("overcooked", layout=str(path))
    assert f"{path}{where}" in str(error.value) and what in str(error.value), str(error.value)


def test_a_layout_file_of_ones_own_plays(tmp_path: Path) -> None:
    path = tmp_path / "mine.layout"
    path.write_text(CRAMPED)
    env = envs.make("overcooked", layout=str(path))
    assert env.grid_layout.name == "mine" and env.grid_layout.starts == ((1, 2), (3, 1))


def test_at_the_cli_a_bad_layout_is_one_error_without_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "broken.layout"
    path.write_text(CRAMPED.replace("X1  X", "X1 ZX"))
    for episode, phrase in ((str(path), f"{path}:4:20: bad cell 'Z'"), ("nowhere", "shipped: ")):
        result = CliRunner().invoke(app, ["run", "--env", "overcooked", "--episode", episode, "--team",
                                          "greedy,greedy", "--out", str(tmp_path)])
        assert result.exit_code != 0 and "Traceback" not in result.output, result.output
        assert phrase in " ".join(result.output.split()), result.output
