"""Shared fixtures: fakes for unit tests, and the real embedded model for tests marked slow."""

from __future__ import annotations

from pathlib import Path

import pytest

from coopgraph.tracing import Tracer

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
