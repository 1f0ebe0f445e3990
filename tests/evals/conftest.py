"""Shared traces for the viewer, diff and export tests (each a real baseline run, made once per session)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.evals.trace_fixtures import baseline_trace, with_llm_decisions


@pytest.fixture(scope="session")
def traces(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("traces")
    decided = with_llm_decisions(baseline_trace(folder, name="decided.jsonl"))
    return {
        "decided": decided,  # mhp,mhp on test/0 plus synthetic graph decisions for alice
        "pair": baseline_trace(folder, name="pair.jsonl"),
        "quiet": baseline_trace(folder, team=["mhp", "mhp-silent"], name="quiet.jsonl"),
    }
