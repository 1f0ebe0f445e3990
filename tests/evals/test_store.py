"""The result store: finished rows are kept, never overwritten, and failed ones are replaced on a retry."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from coopgraph.evals.store import STORE_NAME, ResultStore, existing_store


def _row(status: str = "done", run_id: str = "r1", steps: int = 50, **extra: Any) -> dict[str, Any]:
    return {"run_id": run_id, "suite": "s", "team": "t", "env": "cwah", "episode": "test/0", "seed": 0, "repeat": 0,
            "config_hash": "abc", "status": status, "steps": steps, "success": True, "members": ["mhp"],
            "metrics": {"steps": steps}, "progress": [[1, 0], [9, 1]], "finished_at": 1.0, **extra}


def test_rows_round_trip_with_json_columns_and_wal_mode(tmp_path: Path) -> None:
    with ResultStore(tmp_path) as store:
        store.record(_row())
        assert store.done_keys() == {("s", "t", "test/0", 0, 0, "abc")}
        (row,) = store.rows()
    assert row["members"] == ["mhp"] and row["progress"] == [[1, 0], [9, 1]] and row["success"] == 1.0
    conn = sqlite3.connect(tmp_path / STORE_NAME)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_done_row_is_never_overwritten_but_an_error_row_is_replaced(tmp_path: Path) -> None:
    store = ResultStore(tmp_path)
    store.record(_row(status="error", run_id="failed", steps=0, error="boom"))
    assert store.done_keys() == set() and store.counts() == {"error": 1}
    store.record(_row(run_id="second", steps=42))
    store.record(_row(run_id="third", steps=7))  # a duplicate finish must not replace the first one
    store.close()
    with existing_store(tmp_path) as again:
        (row,) = again.rows(status=None)
    assert row["run_id"] == "second" and row["steps"] == 42 and row["error"] is None


def test_a_done_row_marked_failed_keeps_its_figures_and_a_retry_replaces_it(tmp_path: Path) -> None:
    key = ("s", "t", "test/0", 0, 0, "abc")
    with ResultStore(tmp_path) as store:
        assert not store.mark_failed(key, "nothing there")
        store.record(_row(steps=30))
        assert store.mark_failed(key, "not a measurement of the model")
        assert store.done_keys() == set() and not store.mark_failed(key, "again")  # only a done row is marked
        (row,) = store.rows(status=None)
        assert row["status"] == "error" and row["error"] == "not a measurement of the model" and row["steps"] == 30
        store.record(_row(run_id="replayed", steps=12))
        (row,) = store.rows(status=None)
    assert row["status"] == "done" and row["run_id"] == "replayed" and row["error"] is None


def test_a_row_marked_failed_can_be_counted_again_from_its_kept_figures(tmp_path: Path) -> None:
    key = ("s", "t", "test/0", 0, 0, "abc")
    with ResultStore(tmp_path) as store:
        assert not store.mark_done(key, {"counted": True})  # no row: nothing to count
        store.record(_row(steps=30))
        store.mark_failed(key, "not a measurement of the model")
        assert store.mark_done(key, {"counted": True})
        (row,) = store.rows(status=None)
        assert store.done_keys() == {key}
    assert row["status"] == "done" and row["error"] is None and row["steps"] == 30 and row["metrics"] == {
        "counted": True}


def test_suites_are_kept_for_the_report_and_a_missing_store_is_a_clear_error(tmp_path: Path) -> None:
    with ResultStore(tmp_path / "a") as store:
        store.save_suite("s", "s.yaml", "name: s")
        store.save_suite("s", "s.yaml", "name: s\n# edited")
        assert store.suite_texts() == {"s": "name: s\n# edited"}
    with pytest.raises(FileNotFoundError, match="coopgraph eval"):
        existing_store(tmp_path / "nothing-here")


def test_rows_keep_model_seeds_and_whether_the_run_sampled(tmp_path: Path) -> None:
    with ResultStore(tmp_path) as store:
        store.record(_row(model_seeds={"alice": 17, "bob": 23}, deterministic=False))
        store.record(_row(run_id="r2", seed=1, deterministic=True))
        store.record(_row(run_id="r3", seed=2))
        rows = {r["seed"]: r for r in store.rows()}
    assert (rows[0]["model_seeds"], rows[0]["deterministic"]) == ({"alice": 17, "bob": 23}, False)
    assert (rows[1]["model_seeds"], rows[1]["deterministic"]) == (None, True)
    assert rows[2]["deterministic"] is None  # not said: unknown


def test_a_store_from_before_model_seeds_opens_and_its_rows_read_unknown(tmp_path: Path) -> None:
    from coopgraph.evals import store as store_module

    columns = [c for c in store_module.ALL_COLUMNS if c not in store_module.ADDED_COLUMNS]
    conn = sqlite3.connect(tmp_path / STORE_NAME)
    conn.execute(f"CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, {', '.join(columns)}, "
                 f"UNIQUE ({', '.join(store_module.KEY_COLUMNS)}))")
    conn.execute("CREATE TABLE suites (name TEXT PRIMARY KEY, path TEXT, text TEXT, updated_at REAL)")
    conn.execute("INSERT INTO runs (suite, team, episode, seed, repeat, config_hash, status, steps, members) "
                 "VALUES ('s', 't', 'test/0', 0, 0, 'abc', 'done', 50, '[\"mhp\"]')")
    conn.execute("PRAGMA user_version=1")
    conn.commit()
    conn.close()
    with existing_store(tmp_path) as store:
        (old,) = store.rows()
        assert (old["steps"], old["model_seeds"], old["deterministic"]) == (50, None, None)
        store.record(_row(run_id="new", seed=1, model_seeds={"alice": 5}, deterministic=False))
        new = next(r for r in store.rows() if r["seed"] == 1)
    assert (new["model_seeds"], new["deterministic"]) == ({"alice": 5}, False)
