"""Replicates are samples: against a server that samples by the request's seed, a suite's seeds x repeats give
independent episodes, and a rerun into a new store reads every reply back from the response cache and stores the
same results (issue 34, "Done when", first point). Real HTTP to a loopback server; real LangGraph, Chroma, C-WAH."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from coopgraph.evals.parallel import run_jobs
from coopgraph.evals.store import ResultStore
from coopgraph.evals.suite import expand_jobs, parse_suite
from coopgraph.llm.seeds import model_seeds
from coopgraph.record.trace_file import read_events
from coopgraph.testing.sampling_server import sampling_server

SUITE = """\
name: sampled-pairs
environment: {name: cwah}
episodes: [test/0, test/1]
seeds: [0, 1]
repeats: 3
max_steps: 12
llm: vllm:sampler
teams:
  - label: CoELA + CoELA
    members: [coela, coela]
"""
#: What a rerun must store again exactly (the rest is when, where and how long).
RESULT_FIELDS = ("success", "steps", "max_steps", "metrics", "per_agent", "progress", "decisions", "llm_calls",
                 "prompt_tokens", "completion_tokens", "invalid_answers", "model_seeds", "deterministic")


def _actions(row: dict[str, Any]) -> list[tuple[int, tuple[tuple[str, str], ...]]]:
    """Every agent's primitive action at every step of the row's episode, from its trace."""
    return [(e["step"], tuple(sorted((agent, str(info.get("action"))) for agent, info in e["agents"].items())))
            for e in read_events(row["trace_path"]) if e["type"] == "env_step"]


def _run(out: Path) -> list[dict[str, Any]]:
    jobs = expand_jobs(parse_suite(SUITE), out)
    with ResultStore(out) as store:
        summary = run_jobs(jobs, store)
        assert (summary.done, summary.errors) == (12, 0), summary.error_messages
        return sorted(store.rows(), key=lambda r: (r["episode"], r["seed"], r["repeat"]))


@pytest.fixture
def sampler(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("COOPGRAPH_CACHE", str(tmp_path / "cache"))  # a response cache of this test's own
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with sampling_server() as (url, seen):
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        yield seen


def test_seeds_and_repeats_are_independent_draws_and_a_rerun_reproduces_them(tmp_path: Path, sampler: Any) -> None:
    rows = _run(tmp_path / "first")
    requests = sampler.requests

    # Each replicate's agents asked with their own model seeds, recorded in the row and the trace's manifest.
    assert len(set(sampler.seeds)) > 1 and None not in sampler.seeds
    for row in rows:
        assert row["model_seeds"] == model_seeds(row["seed"], row["repeat"], ["alice", "bob"])
        assert row["deterministic"] is False  # CoELA samples at the paper's temperature 0.7
        manifest = next(e for e in read_events(row["trace_path"]) if e["type"] == "manifest")
        assert manifest["model_seeds"] == row["model_seeds"] and manifest["repeat"] == row["repeat"]
    asking = {row["model_seeds"][agent] for row in rows for agent, use in row["llm_usage"].items() if use["llm_calls"]}
    assert set(sampler.seeds) == asking and len(asking) == 12  # 2 seeds x 3 repeats x 2 agents, in either house

    # At least half the replicates of each house played differently from one another.
    by_house: dict[str, list[Any]] = defaultdict(list)
    for row in rows:
        by_house[row["episode"]].append(tuple(_actions(row)))
    for house, sequences in by_house.items():
        assert len(sequences) == 6 and len(set(sequences)) >= len(sequences) / 2, house

    # The same suite into a new store, with the same response cache: no request, the same results.
    again = _run(tmp_path / "again")
    assert sampler.requests == requests
    for first, second in zip(rows, again, strict=True):
        assert {k: first[k] for k in RESULT_FIELDS} == {k: second[k] for k in RESULT_FIELDS}
        assert _actions(first) == _actions(second)
        assert second["llm_usage"]["alice"]["cache_hits"] == second["llm_usage"]["alice"]["llm_calls"]
