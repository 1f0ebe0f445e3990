"""A damaged result store is named, explained and left untouched; `eval` and `report` exit non-zero."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from coopgraph.cli import app
from coopgraph.evals.store import STORE_NAME, ResultStore, StoreDamaged


def _row(i: int) -> dict:
    return {"run_id": f"r{i}", "suite": "s", "team": "t", "env": "cwah", "episode": f"test/{i}", "seed": 0,
            "repeat": 0, "config_hash": "abc", "status": "done", "steps": 50, "success": True, "members": ["mhp"],
            "metrics": {"steps": 50}, "error": "x" * 400, "finished_at": 1.0}


@pytest.fixture(scope="module")
def sound_store(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    folder = tmp_path_factory.mktemp("sound")
    with ResultStore(folder) as store:
        for i in range(120):
            store.record(_row(i))
    conn = sqlite3.connect(folder / STORE_NAME)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return (folder / STORE_NAME).read_bytes()


DAMAGE = {
    "truncated": (lambda good: good[: len(good) // 2], "SQLite cannot read it"),
    "truncated_to_header": (lambda good: good[:100], "SQLite cannot read it"),
    "garbage": (lambda good: bytes(range(256)) * 40, "not an SQLite database"),
    "garbage_after_header": (lambda good: good[:4096] + b"\xde\xad" * 20_000, "SQLite cannot read it"),
    "text_file": (lambda good: b"my notes about the runs\n" * 20, "not an SQLite database (480 bytes of a text file)"),
    "empty": (lambda good: b"", "empty (0 bytes)"),
}


def _damaged(tmp_path: Path, sound_store: bytes, name: str) -> tuple[Path, bytes]:
    folder = tmp_path / "out"
    (folder / "traces").mkdir(parents=True)
    content = DAMAGE[name][0](sound_store)
    (folder / STORE_NAME).write_bytes(content)
    return folder, content


def _untouched(folder: Path, content: bytes) -> None:
    assert hashlib.sha256((folder / STORE_NAME).read_bytes()).digest() == hashlib.sha256(content).digest()
    assert sorted(p.name for p in folder.iterdir() if p.name.startswith(STORE_NAME)) == [STORE_NAME]


@pytest.mark.parametrize("name", sorted(DAMAGE))
def test_opening_a_damaged_store_raises_and_leaves_it_alone(tmp_path: Path, sound_store: bytes, name: str) -> None:
    folder, content = _damaged(tmp_path, sound_store, name)
    with pytest.raises(StoreDamaged) as caught:
        ResultStore(folder)
    message = str(caught.value)
    assert str(folder / STORE_NAME) in message and DAMAGE[name][1] in message
    assert "left untouched" in message and "move it aside" in message and str(folder / "traces") in message
    _untouched(folder, content)


@pytest.mark.parametrize("name", sorted(DAMAGE))
def test_report_on_a_damaged_store_says_how_to_recover(tmp_path: Path, sound_store: bytes, name: str) -> None:
    folder, content = _damaged(tmp_path, sound_store, name)
    result = CliRunner().invoke(app, ["report", str(folder)])
    assert result.exit_code not in (0, None) and not isinstance(result.exception, sqlite3.Error)
    assert "Traceback" not in result.output
    assert f"result store {folder / STORE_NAME} is damaged" in result.output
    assert "mv " in result.output and "traces" in result.output
    _untouched(folder, content)


@pytest.mark.parametrize("name", ["truncated", "text_file", "empty"])
def test_eval_on_a_damaged_store_stops_before_running_anything(tmp_path: Path, sound_store: bytes, name: str) -> None:
    folder, content = _damaged(tmp_path, sound_store, name)
    result = CliRunner().invoke(app, ["eval", "cwah-baselines", "--out", str(folder), "--limit", "1"])
    assert result.exit_code not in (0, None) and not isinstance(result.exception, sqlite3.Error)
    assert "Traceback" not in result.output
    assert f"result store {folder / STORE_NAME} is damaged" in result.output
    assert not any((folder / "traces").iterdir())
    _untouched(folder, content)


def test_a_sound_store_and_one_left_by_a_killed_writer_still_open(tmp_path: Path, sound_store: bytes) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / STORE_NAME).write_bytes(sound_store)
    with ResultStore(tmp_path / "a") as store:
        assert len(store.rows()) == 120
    writer = ResultStore(tmp_path / "b")  # rows only in the WAL, never checkpointed, connection never closed
    writer.record(_row(1))
    with ResultStore(tmp_path / "b") as again:
        assert len(again.rows()) == 1
    writer.close()


def test_a_sqlite_file_of_another_program_is_not_taken_for_a_store(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / STORE_NAME)
    conn.execute("CREATE TABLE photos (id INTEGER)")
    conn.commit()
    conn.close()
    before = (tmp_path / STORE_NAME).read_bytes()
    with pytest.raises(StoreDamaged, match="not a result store"):
        ResultStore(tmp_path)
    assert (tmp_path / STORE_NAME).read_bytes() == before
