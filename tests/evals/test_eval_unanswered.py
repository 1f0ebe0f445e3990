"""`coopgraph eval` on a model server that stops answering mid-episode: the episode is stored failed with why, named
on the terminal and in the report, left out of every figure and played again by a rerun, which redoes nothing
else; `--count-unanswered` counts it; scripted baselines are untouched."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from coopgraph.cli import app
from coopgraph.evals.store import ResultStore
from coopgraph.testing import scripted_lm
from coopgraph.testing.kitchen_policy import kitchen_policy

runner = CliRunner()

SUITE = """\
name: kitchen-check
environment: {name: overcooked}
episodes: [cramped_room, asymmetric_advantages]
max_steps: 30
llm: local
teams:
  - label: LLM-Co pair
    members: [llmco, llmco]
  - label: Greedy pair
    members: [greedy, greedy]
"""
DIES_IN = "asymmetric_advantages"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The scripted kitchen policy stands for the model server. While `dies` is on, it answers the first four
    questions of the DIES_IN episode and then refuses every call as an open circuit does, as when a server stops
    mid-episode; `played` lists the episodes each run played (baselines included)."""
    from coopgraph.evals import parallel
    from coopgraph.llm.circuit import ModelUnavailable

    state: dict[str, Any] = {"dies": True, "left": 10**9, "played": []}

    def policy(messages: Any, kwargs: Any) -> Any:
        if state["left"] <= 0:
            return ModelUnavailable("the model server stopped answering")
        state["left"] -= 1
        return kitchen_policy(messages, kwargs)

    def run_job(job: dict[str, Any]) -> dict[str, Any]:
        state["played"].append((job["team"], job["episode"]))
        state["left"] = 4 if state["dies"] and job["episode"] == DIES_IN else 10**9
        return real_run_job(job)

    real_run_job = parallel.run_job
    monkeypatch.setattr(parallel, "run_job", run_job)
    monkeypatch.setattr("coopgraph.llm.factory.make_lm", lambda setting=None, **_: scripted_lm(policy))
    return state


def _eval(tmp_path: Path, *options: str) -> tuple[int, dict[str, Any]]:
    suite = tmp_path / "suite.yaml"
    suite.write_text(SUITE, encoding="utf-8")
    result = runner.invoke(app, ["eval", str(suite), "--out", str(tmp_path / "out"), "--json", *options])
    return result.exit_code, json.loads(result.stdout)


def _rows(tmp_path: Path) -> dict[tuple[str, str], dict[str, Any]]:
    with ResultStore(tmp_path / "out") as store:
        return {(r["team"], r["episode"]): r for r in store.rows(status=None)}


def _report(tmp_path: Path) -> tuple[dict[str, Any], str]:
    result = runner.invoke(app, ["report", str(tmp_path / "out"), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    return {t["team"]: t for t in data["teams"]}, Path(data["report"]).read_text(encoding="utf-8")


def test_an_episode_whose_model_stops_answering_is_failed_named_left_out_and_the_only_one_a_rerun_plays(
        server: dict[str, Any], tmp_path: Path) -> None:
    code, payload = _eval(tmp_path)
    assert code == 1 and payload["done"] == 3 and payload["errors"] == 1
    (named,) = payload["not_counted"]
    assert named.startswith(f"LLM-Co pair {DIES_IN} seed 0: ") and named.endswith(
        "questions without a model answer (server unavailable)")
    rows = _rows(tmp_path)
    dead = rows[("LLM-Co pair", DIES_IN)]
    assert dead["status"] == "error" and dead["error"] == (
        f"not a measurement of the model: {named.split(': ', 1)[1]}; a rerun plays it again")
    assert sum(int(agent["llm_fallbacks"]) for agent in dead["llm_usage"].values()) > 0  # its figures are kept
    assert [r["status"] for r in rows.values()].count("done") == 3
    assert payload["teams"]["LLM-Co pair"]["episodes"] == 1  # the summary counts what the report counts
    teams, text = _report(tmp_path)
    assert teams["LLM-Co pair"]["episodes"] == 1 and teams["LLM-Co pair"]["errors"] == 1
    assert f"LLM-Co pair: {DIES_IN} (seed 0): not a measurement of the model: " in text
    assert "never answered" not in text  # no counted episode went without its model

    with ResultStore(tmp_path / "out") as store:  # as the runner stored it before the rule: done
        store.conn.execute("UPDATE runs SET status = 'done', error = NULL WHERE status = 'error'")
    teams, _ = _report(tmp_path)
    assert teams["LLM-Co pair"]["episodes"] == 1  # read as failed, marked or not

    server["dies"], server["played"] = False, []
    kept = {key: row["run_id"] for key, row in rows.items() if row["status"] == "done"}
    code, payload = _eval(tmp_path)
    assert code == 0 and server["played"] == [("LLM-Co pair", DIES_IN)] and payload["marked_kept"] == 1
    assert payload["skipped_done"] == 3 and payload["not_counted"] == []
    rows = _rows(tmp_path)
    assert {key: rows[key]["run_id"] for key in kept} == kept  # nothing that finished properly was redone or lost
    assert rows[("LLM-Co pair", DIES_IN)]["status"] == "done"
    assert _report(tmp_path)[0]["LLM-Co pair"]["episodes"] == 2


def test_the_terminal_says_when_an_episode_is_not_counted(server: dict[str, Any], tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(SUITE, encoding="utf-8")
    result = runner.invoke(app, ["eval", str(suite), "--out", str(tmp_path / "out"), "--team", "LLM-Co pair"])
    assert result.exit_code == 1
    said = " ".join(result.output.split())
    assert f"not counted LLM-Co pair {DIES_IN} seed 0: " in said and "a rerun plays it again" in said
    assert "1 of the failed went partly without their model" in said


def test_count_unanswered_counts_the_episode_stored_or_played(server: dict[str, Any], tmp_path: Path) -> None:
    code, _ = _eval(tmp_path, "--team", "LLM-Co pair")
    assert code == 1 and _rows(tmp_path)[("LLM-Co pair", DIES_IN)]["status"] == "error"
    server["played"] = []
    code, payload = _eval(tmp_path, "--team", "LLM-Co pair", "--count-unanswered")
    assert code == 0 and server["played"] == []  # its figures were kept: counted without playing it again
    counted = _rows(tmp_path)[("LLM-Co pair", DIES_IN)]
    assert counted["status"] == "done" and counted["metrics"]["unanswered_counted"] is True
    teams, text = _report(tmp_path)
    assert teams["LLM-Co pair"]["episodes"] == 2 and teams["LLM-Co pair"]["errors"] == 0
    assert "Episodes with questions the model never answered" in text and f"{DIES_IN} (seed 0): " in text

    code, payload = _eval(tmp_path, "--team", "LLM-Co pair")  # without the option, the rule holds again
    assert code == 1 and server["played"] == [("LLM-Co pair", DIES_IN)] and payload["marked_kept"] == 1
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    code, payload = _eval(fresh, "--team", "LLM-Co pair", "--count-unanswered")  # played and counted at once
    assert code == 0 and payload["done"] == 2 and payload["not_counted"] == []
    assert _rows(fresh)[("LLM-Co pair", DIES_IN)]["metrics"]["unanswered_counted"] is True


def test_scripted_baselines_are_stored_the_same_with_or_without_the_option(
        server: dict[str, Any], tmp_path: Path) -> None:
    stored = []
    for folder, options in (("plain", ()), ("counted", ("--count-unanswered",))):
        (tmp_path / folder).mkdir()
        code, payload = _eval(tmp_path / folder, "--team", "Greedy pair", *options)
        assert code == 0 and payload["done"] == 2 and payload["not_counted"] == [] and payload["marked_kept"] == 0
        rows = _rows(tmp_path / folder)
        stored.append({key: (row["status"], row["metrics"], row["steps"]) for key, row in rows.items()})
    assert stored[0] == stored[1] and all(status == "done" for status, _, _ in stored[0].values())
    assert not any("unanswered_counted" in metrics for _, metrics, _ in stored[0].values())
