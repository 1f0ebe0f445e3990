"""TDW-MAT decision data end to end on a tiny dataset: the transport planner's choices become records in C-WAH's
format (CoELA's TDW-MAT lettered list, the planner's pick among them), distillation pairs answer with that option's
text, and the agreement bench scores a scripted model that answers it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from coopgraph import envs
from coopgraph.cli import app
from coopgraph.envs.tdw_mat.experts.planner import TransportPlanner
from coopgraph.evals.bench.decision_agreement import evaluate, summarize
from coopgraph.evals.decisions import read_jsonl, write_jsonl
from coopgraph.evals.tdw_decisions import generate
from coopgraph.runtime.episode_loop import run_episode
from coopgraph.testing import scripted_lm

#: Every field `evals.decisions.point_record` writes, for C-WAH and Overcooked alike.
FIELDS = {"id", "env", "episode", "step", "agent", "split", "team", "facts", "options", "expert_index",
          "expert_choice", "oracle_index", "oracle_choice", "oracle_subgoal", "oracle_match", "spec", "prompt_env",
          "messages", "prerank", "prerank_notes", "followed", "rollin"}
OPTION = re.compile(r"^[A-Z]{1,2}\. (.+)$", re.MULTILINE)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    path = tmp_path_factory.mktemp("tdw") / "decisions.jsonl"
    summary = write_jsonl(generate(limit_episodes=1, max_frames=300), path)
    assert summary["decisions"] > 5
    return path, read_jsonl(path)


def test_records_label_the_planners_pick_on_coelas_lettered_list(tiny: tuple[Path, list[dict[str, Any]]]) -> None:
    _, records = tiny
    for record in records:
        assert set(record) == FIELDS
        assert record["env"] == "tdw-mat" and record["prompt_env"] == "tdw-mat" and record["split"] == "train"
        assert record["options"][record["expert_index"]] == record["expert_choice"]
        prompt = record["messages"][-1]["content"]
        assert OPTION.findall(prompt) == record["options"]  # the lettered list is the record's options, in order
        assert "to the bed" in prompt and "frames" in prompt
    kinds = {r["expert_choice"].split("]")[0] + "]" for r in records}
    assert {"[gograb]", "[explore]"} <= kinds


def test_distillation_pairs_answer_with_the_option_text(tiny: tuple[Path, list[dict[str, Any]]]) -> None:
    from coopgraph.evals.distill.data import write_examples

    path, records = tiny
    out = path.with_name("pairs.jsonl")
    counts = write_examples(records, out)
    pairs = read_jsonl(out)
    assert counts == {"train": len(pairs)} and pairs
    by_id = {r["id"]: r for r in records}
    for pair in pairs:
        assert pair["completion"] == f"Answer: {by_id[pair['id']]['expert_choice']}"
        assert "frames" in pair["prompt"]


def test_agreement_bench_scores_a_model_that_answers_the_expert(tiny: tuple[Path, list[dict[str, Any]]]) -> None:
    _, records = tiny
    chosen = [r for r in records if len(r["options"]) > 1][:6]
    answers = iter(f"Answer: {r['expert_choice']}" for r in chosen)
    rows = evaluate(chosen, scripted_lm(lambda messages, kwargs: next(answers)), answer_format="text")
    summary = summarize(rows)  # the bench names the expert "mhp", whoever it is
    assert summary["decisions"] == len(chosen) and summary["agree_mhp"] == 1.0 and summary["invalid"] == 0


def test_the_planner_moves_targets_to_the_bed() -> None:
    env = envs.make("tdw-mat", episode="train/0", num_agents=1)
    result = run_episode(env, [TransportPlanner()], seed=0)
    assert result.metrics["transport_rate"] >= 0.5


def test_cli_refuses_a_member_it_cannot_record(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["data", "decisions", "--env", "tdw-mat", "--team", "mhp,planner",
                                      "-o", str(tmp_path / "x.jsonl")])
    assert result.exit_code != 0 and "cannot play in TDW-MAT decision data" in result.output
    assert "Traceback" not in result.output


def test_a_dagger_round_goes_where_the_learner_sends_the_first_planner() -> None:
    """The learner's answer (always the last option here) is followed; the label stays the planner's own pick."""
    from coopgraph.evals.decisions import DecisionRenderer
    from coopgraph.evals.tdw_decisions import episode_decisions

    def last_option(messages: list[Any], _: dict[str, Any]) -> str:
        return "Answer: " + OPTION.findall(messages[-1].content)[-1]

    lm = scripted_lm(last_option)
    records = episode_decisions("train/0", ["planner", "planner"], renderer=DecisionRenderer("coela-lite"),
                                max_frames=300, learner_lm=lm)
    driven = [r for r in records if r["rollin"] == "learner"]
    assert driven and {r["agent"] for r in driven} == {"alice"}
    assert {r["rollin"] for r in records if r["agent"] == "bob"} == {"expert"}
    assert all(r["followed"] == r["options"][-1] for r in driven)
    assert any(r["expert_choice"] != r["followed"] for r in driven)
    assert len(lm.chat_model.calls) == len(driven)


#: The grab of a loaf of bread in the living room (7000) of 4a_2_1/food (`train/11`), by the kitchen's wall. The world
#: used to refuse every grasp of it in one frame, saying nothing the belief could learn (it took the loaf's room from
#: the metadata, the kitchen); it now grasps it, so the test below makes it refuse it as it did.
STUCK_GRAB = "[gograb] <loaf_bread> (5167889)"
STUCK_ID = 5167889


def _sticks_to_the_refused_grab(messages: list[Any], _: dict[str, Any]) -> str:
    """A learner that walks into the living room and looks round it, then picks the refused grab whenever it is
    listed."""
    options = OPTION.findall(messages[-1].content)
    wanted = (STUCK_GRAB, "[explore] <Livingroom> (7000)", "[goto] <Livingroom> (7000)")
    return "Answer: " + next((o for o in wanted if o in options), options[0])


def test_a_learner_repeating_a_grab_refused_every_frame_is_cut_at_the_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """Unbounded, this roll-in asked its learner about 2,700 times (one choice per frame to the horizon); it now
    stops after `MAX_LEARNER_CHOICES`, and each record of the episode says where."""
    from coopgraph.envs.tdw_mat.world import World
    from coopgraph.evals.decisions import DecisionRenderer
    from coopgraph.evals.tdw_decisions import MAX_LEARNER_CHOICES, record_episode

    grasp_problem = World._grasp_problem

    def refuse_the_loaf(self: World, body: Any, thing: Any) -> tuple[str, Any]:
        if thing is not None and thing.id == STUCK_ID:
            return "<loaf_bread> (5167889) is stuck", None  # a refusal no belief learns from
        return grasp_problem(self, body, thing)

    monkeypatch.setattr(World, "_grasp_problem", refuse_the_loaf)

    lm = scripted_lm(_sticks_to_the_refused_grab)
    played = record_episode("train/11", ["planner", "planner"], renderer=DecisionRenderer("coela-lite"),
                            learner_lm=lm)
    assert played.cut is not None and played.cut["agent"] == "alice"
    assert played.cut["choices"] == played.learner_choices == MAX_LEARNER_CHOICES == len(lm.chat_model.calls)
    assert played.time == played.cut["time"] < 1000 and played.time_unit == "frames"
    driven = [r for r in played.records if r["rollin"] == "learner"]
    assert sum(r["followed"] == STUCK_GRAB for r in driven) > MAX_LEARNER_CHOICES - 10
    assert all(r["rollin_cut"] == played.cut for r in played.records)


def test_the_command_reports_each_episode_and_the_cut_and_keeps_json_on_stdout(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    monkeypatch.setattr("coopgraph.llm.factory.make_lm", lambda setting=None, **_: scripted_lm(
        lambda messages, kwargs: "Answer: " + OPTION.findall(messages[-1].content)[-1]))
    out = tmp_path / "rollin.jsonl"
    result = CliRunner().invoke(app, ["data", "decisions", "--env", "tdw-mat", "--limit-episodes", "2", "--learner",
                                      "scripted", "--max-learner-choices", "3", "-o", str(out), "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)  # one JSON object, the progress lines went to stderr
    records = read_jsonl(out)
    assert summary["decisions"] == len(records) and summary["max_learner_choices"] == 3
    assert [c["episode"] for c in summary["cut"]] == ["1a_0_0/food", "1a_0_1/food"]
    lines = [line for line in result.stderr.splitlines() if line.startswith("episode ")]
    assert len(lines) == 2 and lines[0].startswith("episode 1/2 train/0 (1a_0_0/food): ")
    first = [r for r in records if r["episode"] == "1a_0_0/food"]
    assert f"{len(first)} records ({len(first)} so far)" in lines[0] and f"({len(records)} so far)" in lines[1]
    assert "(3 learner)" in lines[0] and "roll-in cut after 3 learner choices at" in lines[0]
    assert all("rollin_cut" in r for r in records)
    alone = CliRunner().invoke(app, ["data", "decisions", "--env", "tdw-mat", "--max-learner-choices", "3",
                                     "-o", str(out)])
    assert alone.exit_code == 2 and "needs --learner" in alone.output and "Traceback" not in alone.output


def test_a_run_stopped_midway_keeps_the_episodes_it_finished(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from coopgraph.evals import decision_hooks as hooks_module
    from coopgraph.evals.decision_hooks import DecisionHooks, RecordedEpisode

    out = tmp_path / "stopped.jsonl"
    on_disk: list[int] = []

    def record(env: str, episode: str, team: list[str], **_: Any) -> RecordedEpisode:
        if episode == "second":
            on_disk.extend(r["n"] for r in read_jsonl(out))  # what a kill (no clean exit) would leave
            raise KeyboardInterrupt  # the run is stopped while it plays its second episode
        points = [{"episode": episode, "split": "train", "oracle_match": "none", "n": n} for n in range(3)]
        return RecordedEpisode(name=episode, records=points, decisions=3, time=120, time_unit="frames")

    hooks = DecisionHooks(team="planner,planner", spec="coela-lite", episodes=lambda _: ["first", "second"],
                          record=record)
    monkeypatch.setattr(hooks_module, "decision_hooks", lambda env: hooks)
    result = CliRunner().invoke(app, ["data", "decisions", "--env", "tdw-mat", "-o", str(out)])
    assert result.exit_code != 0
    assert on_disk == [0, 1, 2] and [r["n"] for r in read_jsonl(out)] == [0, 1, 2]
    assert "episode 1/2 first: 3 decisions, 120 frames, 3 records (3 so far)" in result.stderr
