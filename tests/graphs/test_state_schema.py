"""A spec's state is assembled from the keys its nodes declare: new keys need no central edit, clashing
declarations are refused at load with the spec's file and line, and a reducer folds several writers' values."""

from __future__ import annotations

import operator
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from coopgraph.cli import app
from coopgraph.graphs.compiler import compile_spec
from coopgraph.graphs.errors import SpecInvalid
from coopgraph.graphs.loader import load_spec
from coopgraph.graphs.state_schema import spec_keys
from coopgraph.nodes.registry import NODES, node
from coopgraph.nodes.state import CORE_CHANNELS, RUNNER_KEYS, key, step_start
from coopgraph.record.checkpoints import memory_saver

WORD_COUNT = key("word_count", int, doc="words in the goal (a key only these tests declare)")
WORD_COUNT_AS_TEXT = key("word_count", str, doc="the same key declared with another type")
TALLY = key("tally", list[str], reducer=operator.add, start=[], doc="names of the nodes that ran, in order")


def _count(state: dict[str, Any], ctx: Any) -> dict[str, Any]:
    return {WORD_COUNT: len(state["observation"].split())}


def _count_as_text(state: dict[str, Any], ctx: Any) -> dict[str, Any]:
    return {WORD_COUNT_AS_TEXT: "many"}


def _tally_first(state: dict[str, Any], ctx: Any) -> dict[str, Any]:
    return {TALLY: ["first"]}


def _tally_second(state: dict[str, Any], ctx: Any) -> dict[str, Any]:
    return {TALLY: [f"second saw {len(state['tally'])}"]}


@pytest.fixture(autouse=True)
def test_nodes() -> Iterator[None]:
    """Nodes registered by these tests only (the node catalogue must not see them)."""
    node("testing.count_words", reads=("observation",), writes=(WORD_COUNT,))(_count)
    node("testing.count_as_text", writes=(WORD_COUNT_AS_TEXT,))(_count_as_text)
    node("testing.tally_first", writes=(TALLY,))(_tally_first)
    node("testing.tally_second", reads=("tally",), writes=(TALLY,))(_tally_second)
    yield
    for name in ("testing.count_words", "testing.count_as_text", "testing.tally_first", "testing.tally_second"):
        NODES.entries.pop(name)


def _spec(tmp_path: Path, *uses: str) -> Path:
    nodes = "".join(f"  n{i}:\n    use: {use}\n" for i, use in enumerate(uses))
    chain = " -> ".join([*(f"n{i}" for i in range(len(uses))), "END"])
    path = tmp_path / "spec.yaml"
    path.write_text(f"name: keyed\nentry: n0\nnodes:\n{nodes}edges:\n  - {chain}\n")
    return path


def test_a_node_with_a_new_key_compiles_and_runs_with_no_edit_elsewhere(tmp_path: Path) -> None:
    graph = compile_spec(_spec(tmp_path, "testing.count_words"))
    assert "word_count" in graph.channels
    out = graph.invoke({"observation": "put the apple in the fridge"})
    assert out["word_count"] == 6


def test_the_schema_holds_exactly_the_runners_keys_the_core_channels_and_what_the_nodes_declare(
        tmp_path: Path) -> None:
    keys = spec_keys(load_spec(_spec(tmp_path, "testing.count_words", "testing.tally_first")))
    assert set(keys) == {*RUNNER_KEYS, *CORE_CHANNELS, "word_count", "tally"}
    assert keys["word_count"].type is int and keys["tally"].reducer is operator.add
    graph_keys = {name for name in compile_spec(_spec(tmp_path, "testing.count_words")).channels
                  if not name.startswith("__") and ":" not in name}
    assert graph_keys == {*RUNNER_KEYS, *CORE_CHANNELS, "word_count"}


def test_each_shipped_wiring_carries_its_own_methods_keys_only() -> None:
    coela, capo, reveca = (set(spec_keys(load_spec(name))) for name in ("coela", "capo", "reveca"))
    assert {"message", "facts", "choice"} <= coela and not coela & {"capo", "meta_plan", "reveca", "validation"}
    assert {"capo", "meta_plan", "utterance", "progress_event"} <= capo and "reveca" not in capo
    assert {"reveca", "validation", "question", "candidates"} <= reveca and "capo" not in reveca


def test_one_key_declared_with_two_types_is_refused_at_load_with_the_file_and_line(tmp_path: Path) -> None:
    path = _spec(tmp_path, "testing.count_words", "testing.count_as_text")
    with pytest.raises(SpecInvalid) as caught:
        load_spec(path)
    [error] = [e for e in caught.value.errors if e.code == "E316"]
    assert error.file == str(path) and error.line == 6  # the second node, `n1:`
    assert "node 'n1' declares per-step key 'word_count': str" in error.message
    assert "node 'n0' declares per-step key 'word_count': int" in error.message


def test_the_cli_says_the_clash_in_one_line_without_a_traceback(tmp_path: Path) -> None:
    path = _spec(tmp_path, "testing.count_words", "testing.count_as_text")
    result = CliRunner().invoke(app, ["graph", "validate", str(path)])
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert f"{path}:6" in result.output and "E316" in result.output


def test_a_reducer_folds_two_writers_and_the_step_starts_it_afresh(tmp_path: Path) -> None:
    loaded = load_spec(_spec(tmp_path, "testing.tally_first", "testing.tally_second"))
    graph = compile_spec(loaded, checkpointer=memory_saver())
    config = {"configurable": {"thread_id": "t"}}
    keys = spec_keys(loaded)
    first = graph.invoke(step_start(keys, 0, "obs"), config=config)
    assert first["tally"] == ["first", "second saw 1"]
    again = graph.invoke(step_start(keys, 1, "obs"), config=config)  # same thread: per-step keys start over
    assert again["tally"] == ["first", "second saw 1"]
