"""The response cache: a rerun is byte-identical and flagged as a hit; other params miss."""

from __future__ import annotations

from pathlib import Path

from coopgraph.llm.cache import SQLiteResponseCache
from coopgraph.llm.interface import ChatRequest
from coopgraph.testing import scripted_lm

MESSAGES = [{"role": "user", "content": "Pick one. Answer: <letter>"}]


def test_second_identical_call_is_served_from_disk(tmp_path: Path) -> None:
    cache = SQLiteResponseCache(tmp_path / "r.sqlite")
    lm = scripted_lm(["Answer: A", "Answer: B"], cache=cache)
    first = lm.complete(ChatRequest(MESSAGES, max_tokens=10))
    again = scripted_lm(["Answer: Z"], cache=SQLiteResponseCache(tmp_path / "r.sqlite")).complete(
        ChatRequest(MESSAGES, max_tokens=10))
    assert (first.text, first.cache_hit) == ("Answer: A", False)
    assert (again.text, again.cache_hit) == ("Answer: A", True)
    assert again.prompt_tokens == first.prompt_tokens


def test_different_parameters_do_not_share_entries(tmp_path: Path) -> None:
    lm = scripted_lm(["Answer: A", "Answer: B"], cache=SQLiteResponseCache(tmp_path / "r.sqlite"))
    assert lm.complete(ChatRequest(MESSAGES, max_tokens=10)).text == "Answer: A"
    assert lm.complete(ChatRequest(MESSAGES, max_tokens=11)).text == "Answer: B"
    assert lm.usage.calls == 2 and lm.usage.cache_hits == 0


def test_cache_file_holds_plain_json_only(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    scripted_lm(["Answer: A"], cache=SQLiteResponseCache(path)).complete(ChatRequest(MESSAGES, max_tokens=10))
    import sqlite3

    (value,) = sqlite3.connect(path).execute("SELECT value FROM responses").fetchone()
    assert value.startswith('[{"content": "Answer: A"') and "lc" not in value


def test_other_weights_do_not_share_entries(tmp_path: Path) -> None:
    """A retrained adapter (another pinned hash, so another namespace) asks its model instead of reading back what
    the adapter before it said; the same weights read it back."""
    from dataclasses import replace

    from coopgraph.llm.factory import weights_identity
    from coopgraph.llm.model_files import MODEL_FILES
    from coopgraph.llm.settings import parse_setting

    before = weights_identity(parse_setting("local-coop-kitchen"))
    MODEL_FILES["retrained"] = replace(MODEL_FILES["local-coop-kitchen"], profile="retrained", adapter_sha256="0" * 64)
    try:
        after = weights_identity(parse_setting("retrained"))
    finally:
        del MODEL_FILES["retrained"]
    assert before != after and weights_identity(parse_setting("openai:gpt-4o-mini")) == ""
    path = tmp_path / "r.sqlite"
    scripted_lm(["Action: wait."], cache=SQLiteResponseCache(path, before)).complete(ChatRequest(MESSAGES, 10))
    same = scripted_lm(["other"], cache=SQLiteResponseCache(path, before)).complete(ChatRequest(MESSAGES, 10))
    new = scripted_lm(["Action: pick up onion from o0."], cache=SQLiteResponseCache(path, after)).complete(
        ChatRequest(MESSAGES, 10))
    assert (same.text, same.cache_hit) == ("Action: wait.", True)
    assert (new.text, new.cache_hit) == ("Action: pick up onion from o0.", False)


def test_commits_are_not_synced_one_by_one(tmp_path: Path) -> None:
    """Every call writes the cache: each thread's connection commits without a sync of its own (WAL keeps the file
    whole), so episodes answered at the same moment do not queue on the file's write lock."""
    cache = SQLiteResponseCache(tmp_path / "r.sqlite")
    conn = cache._conn()
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
