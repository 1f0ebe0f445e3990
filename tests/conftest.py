"""Shared fixtures: fakes for unit tests, and the real embedded model for tests marked slow."""

from __future__ import annotations

from pathlib import Path

import pytest

from coopgraph.record.trace_file import Tracer
from tests.record.trace_fixtures import baseline_trace, with_llm_decisions

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


@pytest.fixture
def tracer() -> Tracer:
    return Tracer(None)


@pytest.fixture(scope="session")
def local_lm():
    """The embedded model behind its server, shared by every slow test of the session."""
    from coopgraph.llm import model_files
    from coopgraph.llm.factory import make_lm

    if not model_files.is_installed("local"):
        pytest.fail("the embedded model is not installed; run `make setup` (make test does it)")
    return make_lm("local", cache=False)


@pytest.fixture
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not present (users do not have it)")
    return SHARED_DATA


@pytest.fixture(scope="session")
def traces(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Shared traces for the viewer, export and diff tests (each a real baseline run, made once per session)."""
    folder = tmp_path_factory.mktemp("traces")
    decided = with_llm_decisions(baseline_trace(folder, name="decided.jsonl"))
    return {
        "decided": decided,  # mhp,mhp on test/0 plus synthetic graph decisions for alice
        "pair": baseline_trace(folder, name="pair.jsonl"),
        "quiet": baseline_trace(folder, team=["mhp", "mhp-silent"], name="quiet.jsonl"),
    }
