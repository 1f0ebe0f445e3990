"""One launch for a run and a fork: the same result type, manifest and run summary, one step-budget check."""

from __future__ import annotations

from pathlib import Path

import pytest

from coopgraph.record.trace_file import read_events
from coopgraph.runtime.episode_loop import check_step_budget
from coopgraph.runtime.fork import fork_run
from coopgraph.runtime.launch import run_configured
from coopgraph.runtime.result import RunResult
from coopgraph.testing import scripted_lm
from tests.runtime.test_replay_decision import by_prompt


def _manifest_and_summary(trace: str | None) -> tuple[dict[str, object], dict[str, object]]:
    assert trace is not None
    events = read_events(trace)
    return (next(e for e in events if e["type"] == "manifest"),
            next(e for e in events if e["type"] == "run_summary" and not e.get("forked_prefix")))


def test_a_run_and_its_fork_return_one_result_type_and_record_the_same_manifest(tmp_path: Path) -> None:
    run = run_configured("toyhouse", {}, "toyhouse/0", ["coela-brief", "toyhouse-expert"],
                         lambda: scripted_lm(by_prompt()), 12, tmp_path, trace_name="run.jsonl", keep_checkpoints=True)
    fork = fork_run(run.trace_path or "", 4, llm=lambda: scripted_lm(by_prompt()), out=tmp_path)
    assert type(run) is type(fork) is RunResult
    assert run.forked_from is None and run.replay is not None and run.replay.endswith("--agent agent_0 --decision 1")
    assert fork.forked_from is not None and fork.forked_from["step"] == 4 and fork.replay is None
    assert run.episode == run.episode_id == fork.episode == "toyhouse/0"
    assert set(run.payload()) == set(fork.payload())  # --json prints the same keys for both
    (run_manifest, run_summary), (fork_manifest, fork_summary) = (_manifest_and_summary(run.trace_path),
                                                                  _manifest_and_summary(fork.trace_path))
    assert set(fork_manifest) - set(run_manifest) == {"forked_from"}
    assert fork_manifest["model_seeds"] == run_manifest["model_seeds"] == run.model_seeds == fork.model_seeds
    assert run_summary["llm_usage"] == run.llm_usage and fork_summary["llm_usage"] == fork.llm_usage


def test_a_member_that_cannot_be_built_leaves_no_file(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="needs an LLM setting"):
        run_configured("cwah", {}, "test/0", ["coela", "mhp"], [None, None], 5, tmp_path, keep_checkpoints=True)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("value", [0, -2, 2.5, True, "5"])
def test_the_step_budget_is_checked_once_with_the_name_the_caller_uses(value: object) -> None:
    with pytest.raises(ValueError, match=f"--max-steps must be a whole number of 1 or more, got {value!r}"):
        check_step_budget(value, "--max-steps")
    with pytest.raises(ValueError, match="max_steps must be a whole number of 1 or more"):
        run_configured("cwah", {}, "test/0", ["mhp", "mhp"], "local", value, Path("unused"))  # type: ignore[arg-type]


def test_no_budget_means_the_worlds_horizon() -> None:
    assert check_step_budget(None) is None and check_step_budget(7) == 7


def test_a_run_builds_its_models_with_the_response_cache_it_is_given(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[tuple[object, object]] = []

    def make_lm(setting: object = None, *, cache: object = True, **_: object) -> object:
        asked.append((setting, cache))
        return scripted_lm(by_prompt())

    monkeypatch.setattr("coopgraph.llm.factory.make_lm", make_lm)
    team = ["coela-brief", "toyhouse-expert"]
    run_configured("toyhouse", {}, "toyhouse/0", team, "local", 4, tmp_path)
    run_configured("toyhouse", {}, "toyhouse/0", team, "local", 4, tmp_path, response_cache=False)
    run_configured("toyhouse", {}, "toyhouse/0", team, "local", 4, tmp_path, response_cache=tmp_path / "own.sqlite")
    assert asked == [("local", True), ("local", False), ("local", tmp_path / "own.sqlite")]  # True: the user's


def test_a_bad_wall_budget_is_refused_before_anything_is_built_and_a_good_one_reaches_the_loop(
        tmp_path: Path) -> None:
    team = ["coela-brief", "toyhouse-expert"]
    with pytest.raises(ValueError, match="wall_budget_s must be a number of seconds above 0"):
        run_configured("toyhouse", {}, "toyhouse/0", team, lambda: scripted_lm(by_prompt()), 4, tmp_path / "bad",
                       wall_budget_s=-5)
    assert not (tmp_path / "bad").exists()
    run = run_configured("toyhouse", {}, "toyhouse/0", team, lambda: scripted_lm(by_prompt()), 12, tmp_path,
                         wall_budget_s=1e-9)
    assert run.stopped_at_budget is not None and run.stopped_at_budget.step == run.steps < 12
