"""A model server that misbehaves for a while is not given up on, and one that never answers is named at once.

Real HTTP servers on 127.0.0.1 in the test (no embedded model): one fails 30% of requests in five ways and answers
valid choices otherwise; one accepts connections and never replies. The whole stack is real: ChatOpenAI, the
retry and circuit layers, the CaPo and REVECA graphs in C-WAH.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

import coopgraph
from coopgraph.llm.announce import ModelServerWarning
from coopgraph.llm.factory import make_lm
from coopgraph.llm.interface import ChatRequest
from coopgraph.llm.settings import LLMSettings
from tests.llm.fault_server import FAULTS, faulty_server, silent_server


@pytest.fixture
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A response cache of the test's own, so every call reaches the server."""
    monkeypatch.setenv("COOPGRAPH_CACHE", str(tmp_path / "cache"))
    return tmp_path


@pytest.mark.parametrize("house", ["test/5", "test/6", "test/7"])
def test_capo_and_reveca_play_on_a_server_that_fails_30_percent_of_requests(
    house: str, own_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with faulty_server(0.3, seed=int(house.split("/")[1])) as server, warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always", ModelServerWarning)
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-secret")
        result = coopgraph.run(env="cwah", episode=house, team=["capo", "reveca"], llm="openai:fault-test",
                               max_steps=60, out=own_cache / "runs", keep_checkpoints=False)
    assert result.steps == 60 or result.success
    faults = sum(server.counts[kind] for kind in FAULTS)
    assert faults >= 0.2 * sum(server.counts.values())  # the server did misbehave
    for agent, usage in result.llm_usage.items():
        assert usage["llm_calls"] > 0, agent
        assert usage["llm_errors"] <= usage["llm_calls"], (agent, usage)  # not played on failures
        assert usage["llm_fallbacks"] <= usage["llm_errors"], (agent, usage)
    lines = [str(w.message) for w in said]
    if server.counts["429"]:
        assert any("is rate limiting the run (429); retrying in 1.0 s as its Retry-After asks" in line
                   for line in lines), lines
    assert not any("circuit open" in line for line in lines)  # a bad minute is not a dead server
    assert "sk-test" not in " ".join(lines)
    summary = [json.loads(line) for line in Path(result.trace_path).read_text().splitlines()
               if '"run_summary"' in line][-1]
    assert summary["llm_usage"] == result.llm_usage


def _silent_settings(url: str, **knobs: Any) -> LLMSettings:
    return LLMSettings(setting="vllm:silent", kind="vllm", model="silent", backend="vllm", base_url=url,
                       **{"timeout_s": 0.5, "max_retries": 2, "retry_wait_s": 0.01, **knobs})


def test_a_silent_server_is_named_when_its_first_request_times_out() -> None:
    seen: list[tuple[str, int]] = []
    with silent_server() as server, warnings.catch_warnings():
        url = server.base_url

        def note(message: Warning | str, category: type[Warning], *_: Any, **__: Any) -> None:
            seen.append((str(message), server.accepted))  # said before any retry could connect again

        warnings.simplefilter("always")
        warnings.showwarning = note
        lm = make_lm(_silent_settings(url), cache=False)
        with pytest.raises(Exception, match="timed out"):
            lm.complete(ChatRequest([{"role": "user", "content": "hi"}]))
        connections = server.accepted
    first, at = seen[0]
    assert first.startswith(f"model server {url} did not answer within 0.5 s; the run keeps asking")
    assert at == 1  # at the first time-out, not after the retries
    assert "circuit open" in seen[1][0] and len(seen) == 2
    assert connections == 2  # the second time-out opened the circuit: the third request was never sent


def test_the_command_line_names_a_silent_server_and_counts_the_fallbacks(tmp_path: Path) -> None:
    with silent_server() as server:
        url = server.base_url
        env = {**os.environ, "OPENAI_BASE_URL": url, "COOPGRAPH_CACHE": str(tmp_path / "cache"),
               "COOPGRAPH_LLM_TIMEOUT_S": "0.5", "COOPGRAPH_LLM_RETRY_WAIT_S": "0.01"}
        done = subprocess.run(
            [sys.executable, "-m", "coopgraph", "run", "--env", "cwah", "--episode", "test/0", "--team",
             "coela,mhp", "--llm", "vllm:silent", "--max-steps", "2", "--out", str(tmp_path / "runs")],
            capture_output=True, text=True, timeout=300, env=env, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stderr.splitlines()
    assert any(line.startswith(f"warning: model server {url} did not answer within 0.5 s")
               for line in lines), done.stderr[-2000:]
    assert any(line.startswith(f"warning: model server {url}: 2 requests in a row got no answer; "
                               "circuit open") for line in lines)
    (alice,) = [line for line in lines if line.strip().startswith("alice:")]
    assert "decisions fell back for want of a model" in alice and "Traceback" not in done.stderr
