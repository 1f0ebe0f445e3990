"""The Python front door: `coopgraph.run` and `coopgraph.load_spec`, as a user's script calls them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import coopgraph
from coopgraph.envs import UnknownEnvironmentError
from coopgraph.graphs.errors import SpecInvalid
from coopgraph.runtime.teams import UnknownMemberError
from coopgraph.testing import scripted_lm


def test_run_mhp_pair_solves_test_house_0_in_62_steps(tmp_path: Path) -> None:
    result = coopgraph.run(env="cwah", episode="test/0", team=["mhp", "mhp"], out=tmp_path)
    assert (result.steps, result.success, result.team) == (62, True, ["mhp", "mhp"])
    assert result.trace_path is not None and Path(result.trace_path).parent == tmp_path
    first = json.loads(Path(result.trace_path).read_text().splitlines()[0])
    assert first["type"] == "manifest" and first["episode"] == "test/0"


def test_run_a_graph_member_with_a_scripted_model_in_the_second_world(tmp_path: Path) -> None:
    result = coopgraph.run(env="toyhouse", episode="toyhouse/1", team=["toyhouse-expert", "coela"],
                           llm=[None, lambda: scripted_lm(lambda messages, kwargs: "A")], max_steps=12, out=tmp_path)
    assert result.env == "toyhouse" and result.steps == 12 and not result.success
    assert result.llm_usage["agent_1"]["llm_calls"] > 0 and "agent_0" not in result.llm_usage


def test_unknown_names_and_bad_budgets_say_what_exists_before_running(tmp_path: Path) -> None:
    with pytest.raises(UnknownEnvironmentError, match="registered: .*toyhouse"):
        coopgraph.run(env="atlantis", out=tmp_path)
    with pytest.raises(UnknownMemberError, match="baselines: .*mhp"):
        coopgraph.run(team=["mhp", "nobody"], out=tmp_path)
    with pytest.raises(ValueError, match="max_steps must be a whole number of 1 or more"):
        coopgraph.run(max_steps=0, out=tmp_path)
    assert not list(tmp_path.iterdir())


def test_load_spec_checks_against_a_world() -> None:
    assert coopgraph.load_spec("capo", env="toyhouse").spec.name == "capo"
    with pytest.raises(SpecInvalid) as caught:
        coopgraph.load_spec("no_such_spec")
    assert caught.value.errors[0].code == "E100"


def test_the_front_door_is_lazy() -> None:
    assert set(coopgraph.__all__) == {"RunResult", "fork", "load_spec", "run"}
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        coopgraph.nope  # noqa: B018


def test_run_then_fork_by_named_traces_in_python(tmp_path: Path) -> None:
    import coopgraph

    first = coopgraph.run(team=["mhp", "mhp"], trace_path=tmp_path / "pair.jsonl")
    assert first.trace_path == str(tmp_path / "pair.jsonl")
    forked = coopgraph.fork(tmp_path / "pair.jsonl", at=20, trace_path=tmp_path / "again.jsonl")
    assert forked.trace_path == str(tmp_path / "again.jsonl") and forked.steps == first.steps == 62
    with pytest.raises(ValueError, match="never overwrites"):
        coopgraph.run(team=["mhp", "mhp"], trace_path=tmp_path / "pair.jsonl")
    with pytest.raises(ValueError, match="never overwrites"):
        coopgraph.fork(tmp_path / "pair.jsonl", at=20, trace_path=tmp_path / "again.jsonl")


def test_run_seed_gives_graph_members_their_model_seeds(tmp_path: Path) -> None:
    from coopgraph.llm.client import CoopLM
    from coopgraph.llm.seeds import model_seed
    from coopgraph.testing import ScriptedChatModel

    chat = ScriptedChatModel(script=lambda messages, kwargs: "A")
    result = coopgraph.run(env="toyhouse", episode="toyhouse/1", team=["toyhouse-expert", "coela"], seed=3,
                           llm=[None, lambda: CoopLM(chat, backend="fake", model="scripted")], max_steps=6,
                           out=tmp_path)
    assert result.model_seeds == {"agent_1": model_seed(3, 0, "agent_1")}
    assert {kwargs["seed"] for _, kwargs in chat.calls} == {model_seed(3, 0, "agent_1")}
    assert result.deterministic is False  # coela samples at its paper's temperature 0.7
    brief = coopgraph.run(env="toyhouse", episode="toyhouse/1", team=["toyhouse-expert", "coela-brief"], seed=3,
                          llm=[None, lambda: scripted_lm(lambda messages, kwargs: "A")], max_steps=2, out=tmp_path)
    assert brief.deterministic is True  # its `llm: {}` asks at the setting's temperature 0
    pair = coopgraph.run(team=["mhp", "mhp"], seed=3, max_steps=2, out=tmp_path)
    assert (pair.model_seeds, pair.deterministic) == ({}, True)
    with pytest.raises(ValueError, match="seed must be a whole number of 0 or more, got '3'"):
        coopgraph.run(team=["mhp", "mhp"], seed="3", max_steps=2, out=tmp_path)  # type: ignore[arg-type]
