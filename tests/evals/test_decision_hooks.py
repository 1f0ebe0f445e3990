"""`coopgraph data decisions` asks the world for its decision data: sets, defaults and recorder, by registration."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from coopgraph import envs
from coopgraph.cli import app
from coopgraph.evals.decision_hooks import DecisionHooks, decision_hooks, learner_worlds


def test_the_worlds_that_record_decision_data_register_their_hooks() -> None:
    assert envs.decision_worlds() == ["cwah", "cwah-noisy", "overcooked", "tdw-mat"]
    hooks = {world: decision_hooks(world) for world in envs.decision_worlds()}
    assert all(isinstance(h, DecisionHooks) for h in hooks.values())
    assert hooks["cwah"] is hooks["cwah-noisy"]  # the noisy houses record as the plain ones do
    assert {w: (h.team, h.spec, h.unit) for w, h in hooks.items() if w != "cwah-noisy"} == {
        "cwah": ("mhp,mhp", "coela-lite", "episodes"), "overcooked": ("greedy,greedy", "llmco-lite", "layouts"),
        "tdw-mat": ("planner,planner", "coela-lite", "episodes")}


def test_each_worlds_sets_are_its_own() -> None:
    assert decision_hooks("cwah").episodes("test")[:2] == ["test/0", "test/1"]
    assert decision_hooks("overcooked").episodes("test")[0] == "cramped_room"
    assert decision_hooks("tdw-mat").episodes("train")[0] == "train/0"
    with pytest.raises(ValueError, match="train split only"):
        decision_hooks("tdw-mat").episodes("test")


def test_the_learner_message_names_the_worlds_whose_planner_it_drives() -> None:
    assert learner_worlds() == "--env overcooked (the greedy cook) and --env tdw-mat (the transport planner)"


@pytest.mark.parametrize(("options", "phrase"), [
    (["--env", "toyhouse"], "world 'toyhouse' records no decision data; worlds that do: cwah, cwah-noisy, "
                            "overcooked, tdw-mat"),
    (["--env", "overcoked"], "unknown environment 'overcoked'; registered:"),
    (["--learner", "local-coop"], "it works with --env overcooked (the greedy cook) and --env tdw-mat"),
])
def test_a_world_without_decision_data_is_refused_in_one_line(tmp_path: Path, options: list[str],
                                                               phrase: str) -> None:
    result = CliRunner().invoke(app, ["data", "decisions", "-o", str(tmp_path / "d.jsonl"), *options])
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert phrase in " ".join(result.output.split()), result.output
    assert not (tmp_path / "d.jsonl").exists()
