"""The embedded-wirings benchmark (`evals/bench/embedded_wirings.py`) on a scripted model: which rows the table has,
its columns and cells, the "cannot finish" rule and its arithmetic, the probe, and resuming from the store."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from coopgraph.evals.bench import embedded_wirings
from coopgraph.evals.bench.decision_pace import DecisionPace
from coopgraph.evals.bench.embedded_plan import WORLDS, Row, plan_rows
from coopgraph.evals.bench.embedded_probe import Bound, Probe, cheapest_bound, count_choices, expert_decisions, probe
from coopgraph.evals.bench.embedded_wirings import Ledger, Settings, build_table, main
from coopgraph.testing import scripted_lm
from coopgraph.testing.kitchen_policy import kitchen_policy

HEAD = ("| Wiring | World | Profile | Episodes (n) | Success or score | Steps or frames | Invalid answers "
        "| Model s / decision |")


@pytest.fixture
def kitchen_model(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every profile answers as the scripted kitchen policy; the list collects the settings asked for."""
    asked: list[str] = []

    def make_lm(setting: Any = None, **_: Any) -> Any:
        asked.append(str(setting))
        return scripted_lm(kitchen_policy)

    monkeypatch.setattr("coopgraph.llm.factory.make_lm", make_lm)
    return asked


def _cells(markdown: str) -> list[list[str]]:
    return [line.strip("| ").split(" | ") for line in markdown.splitlines() if line.startswith("| llmco")]


def test_the_rows_are_each_wiring_in_each_world_its_spec_plays_plus_the_distilled_planners_that_fit() -> None:
    rows = {(r.wiring, r.world, r.profile, r.member) for r in plan_rows()}
    on_default = {(w, world) for w, world, profile, _ in rows if profile == "local"}
    assert on_default == {(w, world) for w in ("coela", "capo") for world in WORLDS} | {
        ("reveca", "cwah"), ("reveca", "tdw-mat"),
        ("llmco", "overcooked"), ("llmco", "collab-capture"), ("llmco", "collab-escape")}
    assert rows - {(w, world, "local", w) for w, world in on_default} == {
        ("coela", "cwah", "local-coop", "coela-lite"), ("coela", "cwah", "local-coop-brief", "coela-brief"),
        ("coela", "tdw-mat", "local-coop-tdw", "coela-lite"),
        ("llmco", "overcooked", "local-coop-kitchen", "llmco-lite-nohistory"),
        ("llmco", "overcooked", "local-coop-llmco", "llmco-steady")}
    assert [r.wiring for r in plan_rows()] == sorted((r.wiring for r in plan_rows()),
                                                    key=["coela", "capo", "reveca", "llmco"].index)
    assert Row("coela", "tdw-mat", "local-coop-tdw", "coela-lite").profile_text == \
        "local-coop-tdw (distilled; plays coela-lite)"
    assert plan_rows(["reveca"], ["overcooked"]) == [] and plan_rows(["llmco"], ["cwah"]) == []


def test_distilled_only_keeps_the_distilled_rows_and_no_distilled_the_others() -> None:
    every = plan_rows()
    distilled_only = embedded_wirings.parse_args(["--distilled-only"])[0]
    rows = plan_rows(distilled_only.wirings, distilled_only.worlds, distilled=distilled_only.distilled,
                     default=distilled_only.default)
    assert rows == [r for r in every if r.profile != "local"] and len(rows) == 5
    no_distilled = embedded_wirings.parse_args(["--no-distilled"])[0]
    assert plan_rows(distilled=no_distilled.distilled, default=no_distilled.default) == \
        [r for r in every if r.profile == "local"]
    with pytest.raises(SystemExit):  # the two are exclusive
        embedded_wirings.parse_args(["--distilled-only", "--no-distilled"])


def test_the_bound_is_the_cheapest_episodes_expert_decisions_times_the_probes_seconds_each() -> None:
    timed = Probe(decisions=5, seconds=37.2)  # 4 intervals between the first and the fifth decision
    assert timed.seconds_per_decision == pytest.approx(9.3)
    bound = cheapest_bound({"test/0": 530, "test/3": 412, "test/7": 412, "test/9": 600}, timed)
    assert bound == Bound("test/3", 412, pytest.approx(9.3), 5, 4)  # ties go to the first name
    assert bound is not None and bound.seconds == pytest.approx(412 * 9.3)
    assert bound.exceeds(30 * 60) and not bound.exceeds(64 * 60)
    assert bound.text(30 * 60) == ("cannot finish in 30 min: ≥ 412 decisions × 9.3 s = 64 min (test/3, the fewest "
                                   "decisions of 4 episodes; probe n=5)")
    assert Bound("cramped_room", 40, 0.5, 3).text(60) == \
        "cannot finish in 1 min: ≥ 40 decisions × 0.5 s = 0.33 min (cramped_room; probe n=3)"
    assert cheapest_bound({"test/0": 10}, Probe(decisions=1, seconds=0.0)) is None  # one decision times nothing
    assert cheapest_bound({}, timed) is None


def test_the_expert_counts_its_choices_among_two_or_more_options() -> None:
    greedy = expert_decisions("overcooked", "cramped_room", {}, 60)
    assert greedy > 10 and expert_decisions("overcooked", "cramped_room", {}, 60) == greedy  # scripted: the same
    assert expert_decisions("overcooked", "cramped_room", {}, 120) > greedy
    assert expert_decisions("cwah", "test/0", {}, None) > 5  # MHP's planner
    with pytest.raises(TypeError, match="no choose"):
        count_choices(object())


def test_the_probe_stops_the_episode_at_its_decisions(kitchen_model: list[str]) -> None:
    row = Row("llmco", "overcooked", "local", "llmco")
    found = probe(row, "cramped_room", {}, 400, decisions=3)
    assert found.decisions == 3 and found.error is None and found.seconds_per_decision is not None
    assert set(kitchen_model) == {"local"}
    short = probe(row, "cramped_room", {}, 1, decisions=50)  # the episode ends first: what it timed
    assert 0 < short.decisions < 50 and not short.stopped
    capped = probe(row, "cramped_room", {}, 400, decisions=50, budget_s=1e-9)  # out of budget after the first
    assert capped.stopped and capped.decisions == 2 and capped.seconds > 0
    bound = cheapest_bound({"cramped_room": 300}, capped)
    assert bound is not None and bound.text(1e-9).endswith("(cramped_room; probe n=2, its last decision still "
                                                           "running at the budget)")


def test_the_table_has_a_measured_row_per_profile_and_resumes_without_running_again(
        kitchen_model: list[str], tmp_path: Path) -> None:
    settings = Settings(wirings=["llmco"], worlds=["overcooked"], episodes=2, store=tmp_path / "store", max_steps=30)
    said: list[str] = []
    text = build_table(settings, say=said.append).markdown()
    assert HEAD in text and "Published wirings on the embedded default (budget 30 min an episode)" in text
    rows = _cells(text)
    assert [r[2] for r in rows] == ["local (default)", "local-coop-kitchen (distilled; plays llmco-lite-nohistory)",
                                    "local-coop-llmco (distilled; plays llmco-steady)"]
    for cells in rows:
        assert cells[:2] == ["llmco", "overcooked"] and cells[3] == "2"
        assert cells[4].startswith("score ") and cells[4].endswith("(n=2, deterministic)")
        assert cells[5].endswith("(n=2, deterministic) ticks") and cells[5].startswith("30.0")
        answers = re.fullmatch(r"0 \(0% of (\d+)\)", cells[6])  # the policy always answers from the list
        assert answers is not None and int(answers[1]) > 0 and float(cells[7]) >= 0
    assert sorted(set(kitchen_model)) == ["local", "local-coop-kitchen", "local-coop-llmco"]
    assert any("2 episodes to run" in line for line in said)
    kitchen_model.clear()
    again = build_table(settings, say=said.append).markdown()
    assert kitchen_model == [] and _cells(again) == rows  # all from the store: no model asked, the same cells


def test_invalid_answers_are_counted_with_their_share_of_the_decisions(monkeypatch: pytest.MonkeyPatch,
                                                                       tmp_path: Path) -> None:
    calls = [0]

    def sometimes_off(messages: Any, kwargs: Any) -> str:
        calls[0] += 1
        return "Explanation: hm.\nAction: juggle the pot." if calls[0] % 3 == 0 else kitchen_policy(messages, kwargs)

    monkeypatch.setattr("coopgraph.llm.factory.make_lm", lambda setting=None, **_: scripted_lm(sometimes_off))
    settings = Settings(wirings=["llmco"], worlds=["overcooked"], episodes=1, store=tmp_path / "store", max_steps=30,
                        distilled=False)
    (cells,) = _cells(build_table(settings, say=lambda _: None).markdown())
    from coopgraph.evals.store import ResultStore

    with ResultStore(tmp_path / "store") as store:
        (row,) = store.rows()
    invalid, decisions = int(row["invalid_answers"]), int(row["decisions"])
    assert invalid > 0 and cells[6] == f"{invalid} ({invalid / decisions:.0%} of {decisions})"
    from coopgraph.record.trace_file import read_events

    computed = sum(e["latency_s"] for e in read_events(row["trace_path"]) if e["type"] == "llm_call")
    assert float(cells[7]) == pytest.approx(computed / decisions, rel=0.05, abs=1e-4)  # every decision computed


def test_a_row_that_cannot_finish_in_the_budget_says_so_with_its_bound_and_runs_nothing(
        kitchen_model: list[str], tmp_path: Path) -> None:
    settings = Settings(wirings=["llmco"], worlds=["overcooked"], episodes=3, store=tmp_path / "store",
                        max_steps=30, budget_min=1e-6, probe_decisions=3, distilled=False)
    (cells,) = _cells(build_table(settings, say=lambda _: None).markdown())
    ledger = Ledger(tmp_path / "store" / "probes.json")
    (timed,) = [Probe(**v) for k, v in ledger.data.items() if k.startswith("probe ")]
    needed = {k.split()[-2]: v for k, v in ledger.data.items() if k.startswith("expert ")}
    assert len(needed) == 3 and timed.decisions >= 2  # the probe stops at 3, or at the budget (here, at once)
    bound = cheapest_bound(needed, timed)
    assert bound is not None and bound.decisions == min(needed.values())
    assert cells[3] == "0 of 3" and cells[4] == bound.text(1e-6 * 60) and cells[4].startswith("cannot finish in ")
    assert cells[5] == cells[6] == "–" and cells[7].endswith(f"(probe, n={timed.decisions})")
    kitchen_model.clear()
    (resumed,) = _cells(build_table(settings, say=lambda _: None).markdown())
    assert resumed == cells and kitchen_model == []  # the ledger answers: no probe, no episode


def test_the_command_writes_the_table_and_refuses_bad_options(kitchen_model: list[str], tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "table.md"
    assert main(["--wiring", "llmco", "--world", "overcooked", "--episodes", "1", "--max-steps", "20",
                 "--no-distilled", "--store", str(tmp_path / "store"), "--out", str(out)]) == 0
    assert HEAD in out.read_text(encoding="utf-8") and HEAD in capsys.readouterr().out
    assert main(["--wiring", "llmco", "--world", "overcooked", "--episodes", "1", "--max-steps", "20", "--plan",
                 "--store", str(tmp_path / "store")]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert listed[0].startswith("3 rows, 1 episode each") and "no response cache" in listed[0]
    assert listed[1].split()[:4] == ["llmco", "overcooked", "local", "(default)"]
    assert listed[1].endswith("cramped_room (1 of 1 stored)") and listed[2].endswith("cramped_room (0 of 1 stored)")
    kitchen_model.clear()
    assert main(["--plan", "--store", str(tmp_path / "elsewhere")]) == 0  # every row; probes and plays nothing
    assert len(capsys.readouterr().out.splitlines()) == 1 + len(plan_rows()) and kitchen_model == []
    assert not (tmp_path / "elsewhere").exists()
    assert main(["--probe-decisions", "1", "--store", str(tmp_path / "store")]) == 2
    assert "--probe-decisions must be 2 or more" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        embedded_wirings.parse_args(["--episodes", "0"])
    assert "--episodes must be 1 or more" in capsys.readouterr().err


def test_a_row_names_episodes_over_the_budget_failures_and_what_a_lower_budget_left_unrun() -> None:
    row = Row("coela", "cwah", "local", "coela")

    def done(episode: str, success: float, steps: int, wall: float) -> dict[str, Any]:
        return {"suite": "s", "team": row.label, "episode": episode, "seed": 0, "repeat": 0, "success": success,
                "steps": steps, "decisions": 20, "invalid_answers": 5, "wall_time_s": wall, "metrics": {}}

    cells = embedded_wirings.table_row(row, [done("test/0", 1.0, 60, 900.0), done("test/1", 0.0, 250, 2400.0)],
                                       errors=1, wanted=3, bound=None, budget_s=1800, unit="steps",
                                       pace=DecisionPace(40, 40, 0, 3300.0))
    assert cells["episodes"] == "2 of 3 (1 failed); over budget: test/1"
    assert cells["measure"].startswith("success 50% [") and cells["measure"].endswith("(n=2)")
    assert cells["time"].startswith("155.0 [") and cells["time"].endswith("(n=2) steps")
    assert cells["invalid"] == "10 (25% of 40)" and cells["pace"] == "82.5"
    lowered = embedded_wirings.table_row(row, [done("test/0", 1.0, 60, 300.0)], errors=0, wanted=3,
                                         bound=Bound("test/1", 18, 60.0, 5, 2), budget_s=600, unit="steps")
    assert lowered["episodes"] == ("1 of 3; the rest: cannot finish in 10 min: ≥ 18 decisions × 60.0 s = 18 min "
                                   "(test/1, the fewest decisions of 2 episodes; probe n=5)")


@pytest.fixture
def cached_kitchen(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[int]:
    """`make_lm` keeping replies as the real one does (`cache` True: the user's file at `default_cache_path`, here
    under tmp_path; False: none; a path: that file) around the scripted kitchen policy; the list counts the replies
    the policy computed, i.e. the calls no cache answered."""
    from coopgraph.llm.cache import SQLiteResponseCache
    from coopgraph.llm.factory import default_cache_path

    monkeypatch.setenv("COOPGRAPH_CACHE", str(tmp_path / "user-cache"))
    computed = [0]

    def policy(messages: Any, kwargs: Any) -> str:
        computed[0] += 1
        return kitchen_policy(messages, kwargs)

    def make_lm(setting: Any = None, *, cache: bool | str | Path = True, **_: Any) -> Any:
        store = None
        if cache:
            store = SQLiteResponseCache(default_cache_path() if cache is True else Path(cache), namespace=str(setting))
        return scripted_lm(policy, cache=store)

    monkeypatch.setattr("coopgraph.llm.factory.make_lm", make_lm)
    return computed


def _play_earlier(tmp_path: Path, max_steps: int) -> None:
    """The user's own run of the pair in cramped_room (into their default response cache), before the bench."""
    from coopgraph.runtime.launch import run_configured

    run_configured("overcooked", {}, "cramped_room", ["llmco", "llmco"], "local", max_steps, tmp_path / "earlier")


def test_the_probe_asks_the_model_although_the_users_cache_holds_its_answers(cached_kitchen: list[int],
                                                                             tmp_path: Path) -> None:
    _play_earlier(tmp_path, 30)
    assert cached_kitchen[0] > 10
    cached_kitchen[0] = 0
    _play_earlier(tmp_path, 30)
    assert cached_kitchen[0] == 0  # the user's cache answers that episode's every call
    found = probe(Row("llmco", "overcooked", "local", "llmco"), "cramped_room", {}, 30, decisions=5)
    assert found.decisions == 5 and found.error is None
    assert cached_kitchen[0] >= 5  # the model computed the decisions the probe timed
    assert not (tmp_path / "store").exists()


def test_a_row_asks_the_model_although_the_users_cache_holds_its_answers(cached_kitchen: list[int],
                                                                         tmp_path: Path) -> None:
    from coopgraph.evals.store import ResultStore
    from coopgraph.record.trace_file import read_events

    _play_earlier(tmp_path, 30)
    cached_kitchen[0] = 0
    settings = Settings(wirings=["llmco"], worlds=["overcooked"], episodes=1, store=tmp_path / "store", max_steps=30,
                        distilled=False)
    (cells,) = _cells(build_table(settings, say=lambda _: None).markdown())
    with ResultStore(tmp_path / "store") as store:
        (row,) = store.rows()
    calls = [e for e in read_events(row["trace_path"]) if e["type"] == "llm_call"]
    assert calls and not any(e["cache_hit"] for e in calls)  # no reply of the user's earlier run answered
    assert cached_kitchen[0] >= len(calls) + settings.probe_decisions  # the episode's calls and the probe's
    each = sum(e["latency_s"] for e in calls) / int(row["decisions"])  # one call a decision in this kitchen
    assert float(cells[7]) == pytest.approx(each, rel=0.05, abs=1e-4)


def test_the_probe_times_only_the_decisions_the_model_computed(cached_kitchen: list[int], tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    _play_earlier(tmp_path, 12)  # the user's cache holds the first 12 ticks' answers
    monkeypatch.setattr("coopgraph.evals.bench.embedded_probe.RESPONSE_CACHE", True)  # and the probe reads it
    cached_kitchen[0] = 0
    found = probe(Row("llmco", "overcooked", "local", "llmco"), "cramped_room", {}, 40, decisions=4)
    assert found.decisions == 4 and cached_kitchen[0] >= 4  # the cached decisions were not counted


def test_a_row_whose_decisions_were_all_cached_says_so_instead_of_a_pace() -> None:
    row = Row("llmco", "overcooked", "local", "llmco")
    done = [{"suite": "s", "team": row.label, "episode": "cramped_room", "seed": 0, "repeat": 0, "score": 0.0,
             "steps": 30, "decisions": 12, "invalid_answers": 0, "wall_time_s": 0.2, "metrics": {}}]
    cached = embedded_wirings.table_row(row, done, 0, 1, None, 1800, "ticks", DecisionPace(12, 0, 12, 0.0))
    assert cached["pace"] == "none computed: all 12 decisions from the cache"
    some = embedded_wirings.table_row(row, done, 0, 1, None, 1800, "ticks", DecisionPace(12, 8, 3, 240.0))
    assert some["pace"] == "30.0 (n=8 of 12; 3 from the cache)"
    assert embedded_wirings.pace_text(DecisionPace(12, 8, 0, 240.0)) == "30.0 (n=8 of 12)"  # 4 without a call
    assert embedded_wirings.pace_text(DecisionPace(12, 12, 0, 12 * 36.04)) == "36.0"
    assert embedded_wirings.pace_text(DecisionPace(5, 0, 2, 0.0)) == \
        "none computed of 5 decisions (2 from the cache, the rest without a call)"
    assert embedded_wirings.pace_text(None) == embedded_wirings.pace_text(DecisionPace()) == "–"


def _probe_says_it_fits(settings: Settings) -> None:
    """A probe kept in the ledger that timed the row's decisions at no time at all: the bound fits any budget, as
    it does for a wiring that asks its model more often than the expert decides."""
    _keep_probe(settings, {"decisions": settings.probe_decisions, "seconds": 0.0})


def _keep_probe(settings: Settings, entry: dict[str, Any]) -> str:
    """Keep `entry` in the ledger as the probe of the row's first episode, as an earlier run left it; its key."""
    from coopgraph.evals.bench.embedded_plan import world_suite
    from coopgraph.evals.suite import expand_jobs

    rows = plan_rows(settings.wirings, settings.worlds, distilled=settings.distilled)
    first = expand_jobs(world_suite("overcooked", rows, max_steps=settings.max_steps), settings.store, limit=1)[0]
    key = f"probe model-time {first.config_hash} {first.episode} {settings.probe_decisions}"
    Ledger(settings.store / "probes.json").get(key, lambda: entry)
    return key


def test_a_row_whose_episode_runs_past_the_budget_stops_there_plays_no_more_and_says_so(
        kitchen_model: list[str], tmp_path: Path) -> None:
    from coopgraph.evals.store import ResultStore
    from coopgraph.record.trace_file import read_events

    settings = Settings(wirings=["llmco"], worlds=["overcooked"], episodes=3, store=tmp_path / "store",
                        max_steps=30, budget_min=1e-6, probe_decisions=3, distilled=False)
    _probe_says_it_fits(settings)
    said: list[str] = []
    (cells,) = _cells(build_table(settings, say=said.append).markdown())
    with ResultStore(settings.store) as store:
        (row,) = store.rows(status=None)  # one episode: the row played no more after it stopped
    stop = row["metrics"]["stopped_at_budget"]
    assert row["status"] == "done" and stop["step"] == row["steps"] < 30 and stop["budget_s"] == pytest.approx(6e-5)
    assert [e["type"] for e in read_events(row["trace_path"])].count("env_step") == 1  # it stopped after its first
    assert cells[3] == "0 of 3" and cells[5] == "–"
    assert re.fullmatch(rf"cannot finish in 1e-06 min: {row['episode']} stopped at tick {stop['step']} of 30 after "
                        r"\S+ min \(measured; score 0 by then, partial\)", cells[4]), cells[4]
    assert cells[6].startswith("0 (0% of ") and cells[7] != "–"  # its decisions were measured
    assert any(f"{row['episode']} stopped at the budget at {stop['step']} of 30" in line and
               "2 episodes left unrun" in line for line in said)
    kitchen_model.clear()
    said.clear()
    (resumed,) = _cells(build_table(settings, say=said.append).markdown())
    assert resumed == cells and kitchen_model == []  # a rerun replays nothing of the stopped row
    assert any("stopped at the budget before; 2 episodes left unrun" in line for line in said)
    with ResultStore(settings.store) as store:
        assert len(store.rows(status=None)) == 1
    (listed,) = embedded_wirings.plan_text(settings).splitlines()[1:]
    assert listed.endswith(f"(1 of 3 stored; {row['episode']} stopped at the budget: no more run)")


def test_a_row_with_finished_episodes_and_one_stopped_at_the_budget_keeps_them_apart() -> None:
    row = Row("coela", "cwah", "local", "coela")

    def done(episode: str, success: float, steps: int, stop: dict[str, float] | None = None) -> dict[str, Any]:
        return {"suite": "s", "team": row.label, "episode": episode, "seed": 0, "repeat": 0, "success": success,
                "steps": steps, "decisions": 20, "invalid_answers": 2, "wall_time_s": 1000.0,
                "metrics": {"stopped_at_budget": stop} if stop else {}}

    stop = {"step": 120, "max_steps": 250, "budget_s": 1800.0, "wall_time_s": 1830.0}
    cells = embedded_wirings.table_row(row, [done("test/0", 1.0, 60), done("test/1", 0.0, 120, stop)], errors=0,
                                       wanted=3, bound=None, budget_s=1800, unit="steps")
    assert cells["episodes"] == "1 of 3"
    assert cells["measure"] == ("success 100% (n=1); cannot finish in 30 min: test/1 stopped at step 120 of 250 "
                                "after 30 min (measured; success 0% by then, partial)")
    assert cells["time"] == "60.0 (n=1) steps" and cells["invalid"] == "4 (10% of 40)"


def test_from_store_prints_what_the_store_and_ledger_hold_and_runs_nothing(
        kitchen_model: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "store"
    played = Settings(wirings=["llmco"], worlds=["overcooked"], episodes=1, store=store, max_steps=20,
                      distilled=False)
    measured = _cells(build_table(played, say=lambda _: None).markdown())
    failed = Settings(wirings=["capo"], worlds=["overcooked"], episodes=1, store=store, max_steps=20,
                      budget_min=1e-6, probe_decisions=2)
    bounded = _rows(build_table(failed, say=lambda _: None).markdown(), "capo")
    kitchen_model.clear()
    assert main(["--from-store", "--wiring", "llmco", "--wiring", "capo", "--world", "overcooked", "--episodes", "1",
                 "--max-steps", "20", "--budget-min", "1e-6", "--probe-decisions", "2", "--store", str(store)]) == 0
    text = capsys.readouterr().out
    assert kitchen_model == []  # no probe, no episode
    assert _rows(text, "capo") == bounded and bounded[0][4].startswith("cannot finish in ")
    by_profile = {cells[2]: cells for cells in _cells(text)}
    assert by_profile["local (default)"][4:6] == measured[0][4:6]  # the stored episode's figures
    unrun = by_profile["local-coop-kitchen (distilled; plays llmco-lite-nohistory)"]
    assert unrun[3] == "0 of 1" and unrun[4] == ("not run yet: `--wiring llmco --world overcooked --distilled-only` "
                                                 "runs it")
    assert main(["--from-store", "--store", str(tmp_path / "none")]) == 2
    assert "holds no eval store to read a table from" in capsys.readouterr().err
    assert not (tmp_path / "none").exists()


def _rows(markdown: str, wiring: str) -> list[list[str]]:
    return [line.strip("| ").split(" | ") for line in markdown.splitlines() if line.startswith(f"| {wiring}")]


@pytest.fixture
def server_stops(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The scripted kitchen policy on every profile until the list's first item is 0 (set it to the calls left);
    past that, every call is refused as by an open circuit, as when the model server stopped mid-episode. The
    second item counts the calls made."""
    from coopgraph.llm.circuit import ModelUnavailable

    state = [10**9, 0]

    def policy(messages: Any, kwargs: Any) -> Any:
        state[1] += 1
        if state[0] <= 0:
            return ModelUnavailable("the model server stopped answering")
        state[0] -= 1
        return kitchen_policy(messages, kwargs)

    monkeypatch.setattr("coopgraph.llm.factory.make_lm", lambda setting=None, **_: scripted_lm(policy))
    return state


def _stopping_settings(tmp_path: Path, episodes: int = 1) -> Settings:
    settings = Settings(wirings=["llmco"], worlds=["overcooked"], episodes=episodes, store=tmp_path / "store",
                        max_steps=30, distilled=False)
    _probe_says_it_fits(settings)  # the probe is kept: the episode is the first to meet the stopped server
    return settings


def test_an_episode_played_partly_without_its_model_is_named_not_counted_and_played_again(
        server_stops: list[int], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from coopgraph.evals.store import ResultStore

    settings = _stopping_settings(tmp_path)
    server_stops[0] = 6  # six answers, then the server is gone for the rest of the episode
    said: list[str] = []
    (cells,) = _cells(build_table(settings, say=said.append).markdown())
    with ResultStore(settings.store) as store:
        (row,) = store.rows(status=None)
    fallbacks = sum(int(agent["llm_fallbacks"]) for agent in row["llm_usage"].values())
    assert fallbacks > 0 and row["status"] == "error" and "not a measurement of the model" in row["error"]
    named = f"cramped_room: {fallbacks} questions without a model answer (server unavailable), not counted"
    assert cells[3] == f"0 of 1; {named}"
    assert cells[4] == cells[5] == cells[6] == cells[7] == "–"  # no figure of the fallbacks' episode
    assert any(named in line and "a rerun, which plays it again" in line for line in said)
    (listed,) = embedded_wirings.plan_text(settings).splitlines()[1:]
    assert listed.endswith(f"(0 of 1 stored; {named}: a run plays it again)")
    assert main(["--from-store", "--wiring", "llmco", "--world", "overcooked", "--episodes", "1", "--max-steps",
                 "30", "--no-distilled", "--store", str(settings.store)]) == 0
    assert _cells(capsys.readouterr().out) == [cells]

    server_stops[0], server_stops[1] = 10**9, 0  # the server is back
    (again,) = _cells(build_table(settings, say=lambda _: None).markdown())
    assert server_stops[1] > 0  # the episode was played again
    with ResultStore(settings.store) as store:
        (replayed,) = store.rows(status=None)
    assert replayed["status"] == "done" and replayed["error"] is None
    assert again[3] == "1" and again[4].startswith("score ") and again[6].startswith("0 (0% of ")


def test_a_done_row_stored_before_without_its_model_is_not_counted_and_a_rerun_plays_it_again(
        server_stops: list[int], tmp_path: Path) -> None:
    from coopgraph.evals.store import ResultStore

    settings = _stopping_settings(tmp_path, episodes=2)
    server_stops[0] = 0  # no answer at all: both episodes fall back from their first question
    build_table(settings, say=lambda _: None)
    with ResultStore(settings.store) as store:
        (first,) = store.rows(status=None)  # the row stopped after its first episode went without the model
        store.conn.execute("UPDATE runs SET status = 'done', error = NULL")  # as the bench stored it before
    (cells,) = _cells(build_table(settings, say=lambda _: None, run=False).markdown())
    assert cells[3].startswith(f"0 of 2; {first['episode']}: ") and cells[3].endswith(
        "(server unavailable), not counted") and cells[4] == "–"
    assert embedded_wirings.plan_text(settings).splitlines()[1].endswith(": a run plays it again)")
    server_stops[0] = 10**9
    (again,) = _cells(build_table(settings, say=lambda _: None).markdown())
    with ResultStore(settings.store) as store:
        rows = store.rows(status=None)
    assert [r["status"] for r in rows] == ["done", "done"] and again[3] == "2"


def test_a_probe_that_meets_a_stopped_server_is_not_kept_and_its_row_plays_nothing_until_a_rerun(
        server_stops: list[int], tmp_path: Path) -> None:
    from coopgraph.evals.store import STORE_NAME, ResultStore

    settings = Settings(wirings=["llmco"], worlds=["overcooked"], episodes=1, store=tmp_path / "store",
                        max_steps=30, distilled=False, probe_decisions=3)
    server_stops[0] = 2  # two answers, then nothing
    said: list[str] = []
    (cells,) = _cells(build_table(settings, say=said.append).markdown())
    assert any("the probe met a question without a model answer after " in line and "probes it again" in line
               for line in said)
    ledger = Ledger(settings.store / "probes.json")
    assert not [key for key in ledger.data if key.startswith("probe ")]  # no pace of a stopped server kept
    with ResultStore(settings.store) as store:
        assert store.rows(status=None) == []  # and no episode played
    assert cells[3] == "0 of 1" and cells[4] == "–"
    server_stops[0] = 10**9
    (again,) = _cells(build_table(settings, say=lambda _: None).markdown())
    assert again[3] == "1" and (settings.store / STORE_NAME).is_file()
    assert [key for key in Ledger(settings.store / "probes.json").data if key.startswith("probe ")]


@pytest.mark.parametrize("kept", [
    {"decisions": 1, "error": None, "seconds": 0.0, "stopped": False},  # before probes stopped at a fallback
    {"decisions": 2, "error": None, "seconds": 0.5, "stopped": False, "without_model": True},
], ids=["kept-before-the-check", "marked-without-model"])
def test_a_kept_probe_measured_without_its_model_is_dropped_with_a_notice_and_measured_again(
        kitchen_model: list[str], tmp_path: Path, kept: dict[str, Any]) -> None:
    settings = Settings(wirings=["llmco"], worlds=["overcooked"], episodes=1, store=tmp_path / "store",
                        max_steps=30, distilled=False, probe_decisions=3)
    key = _keep_probe(settings, kept)
    said: list[str] = []
    (cells,) = _cells(build_table(settings, say=said.append).markdown())
    (notice,) = [line for line in said if "the probe kept for cramped_room" in line]
    assert notice.endswith(": dropped, measured again") and "without a model answer" in notice
    again = Ledger(settings.store / "probes.json").data[key]
    assert again["decisions"] == 3 and again["without_model"] is False  # the model's pace, measured anew
    assert cells[3] == "1"


def test_a_kept_probe_of_an_older_ledger_that_measured_the_model_is_read_as_it_was(
        kitchen_model: list[str], tmp_path: Path) -> None:
    settings = Settings(wirings=["llmco"], worlds=["overcooked"], episodes=1, store=tmp_path / "store",
                        max_steps=30, distilled=False, probe_decisions=3)
    kept = {"decisions": 3, "error": None, "seconds": 0.0, "stopped": False, "from_a_later_version": 1}
    key = _keep_probe(settings, kept)
    said: list[str] = []
    build_table(settings, say=said.append)
    assert Ledger(settings.store / "probes.json").data[key] == kept and not any("probe kept" in s for s in said)


def test_which_kept_probes_are_stale() -> None:
    from coopgraph.evals.bench.embedded_probe import stale_probe

    assert stale_probe({"decisions": 5, "seconds": 1.0}, 5) is None  # an older ledger's probe that had its decisions
    assert stale_probe({"decisions": 2, "seconds": 1.0, "error": "ValueError: x"}, 5) is None  # it failed: said
    assert stale_probe({"decisions": 2, "seconds": 1.0, "stopped": True}, 5) is None  # the budget stopped it
    assert stale_probe({"decisions": 2, "seconds": 1.0, "without_model": False}, 5) is None  # its episode ended
    assert stale_probe({"decisions": 2, "seconds": 1.0}, 5) == (
        "timed 2 of 5 decisions before probes stopped at a question without a model answer, so its server may have "
        "stopped under it")
    assert stale_probe({"decisions": 4, "seconds": 1.0, "without_model": True}, 5) == (
        "met a question without a model answer after 4 decisions")
