"""Without the `local` extra (llama-cpp-python[server]) everything but the embedded model works, and asking for
the embedded model says in one line how to get it. The missing runtime is simulated (`sys.modules[name] = None`),
never uninstalled."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from coopgraph.llm.factory import make_lm
from coopgraph.llm.local_extra import INSTALL_HINT, LocalExtraMissing, missing_local_runtime, require_local_runtime
from coopgraph.llm.settings import LLMSettingError

#: The modules only llama-cpp-python[server] brings (uvicorn and pydantic-settings also come with chromadb).
EXTRA_ONLY = ("llama_cpp", "fastapi", "sse_starlette", "starlette_context")

WITHOUT_EXTRA = f"""
import sys
sys.modules.update(dict.fromkeys({EXTRA_ONLY!r}))
import coopgraph
from coopgraph.cli import main
sys.argv = ["coopgraph", *sys.argv[1:]]
main()
"""


@pytest.fixture
def no_local_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in EXTRA_ONLY:
        monkeypatch.setitem(sys.modules, name, None)


def test_the_runtime_is_found_when_installed() -> None:
    assert missing_local_runtime() == []
    require_local_runtime()


def test_embedded_profiles_need_the_extra_and_say_so(no_local_extra: None) -> None:
    assert missing_local_runtime() == list(EXTRA_ONLY)
    for profile in ("local", "local-tiny", "local-coop-brief"):
        with pytest.raises(LocalExtraMissing, match="needs the local extra") as caught:
            make_lm(profile, cache=False)
        assert str(caught.value).endswith(INSTALL_HINT) and "\n" not in str(caught.value)
    assert issubclass(LocalExtraMissing, LLMSettingError)  # commands report it like any bad --llm


def test_a_model_server_needs_no_extra(no_local_extra: None) -> None:
    lm = make_lm("openai:gpt-4o-mini", cache=False)
    assert lm.backend == "openai" and lm.model == "gpt-4o-mini"


def _cli(*argv: str, tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", WITHOUT_EXTRA, *argv], capture_output=True, text=True, timeout=300,
                          check=False, env={**os.environ, "COOPGRAPH_CACHE": str(tmp_path / "cache"), **env})


def test_commands_run_without_the_extra(tmp_path: Path) -> None:
    assert _cli("--help", tmp_path=tmp_path).returncode == 0
    assert _cli("graph", "validate", "graphs/coela.yaml", tmp_path=tmp_path).returncode == 0
    done = _cli("run", "--team", "mhp,mhp", "--max-steps", "2", "--json", "--out", str(tmp_path), tmp_path=tmp_path)
    assert done.returncode == 0 and '"steps": 2' in done.stdout, done.stderr[-2000:]
    # a model server that refuses at once: the graph agents take their fallbacks and the episode ends
    served = _cli("run", "--team", "coela,coela", "--llm", "openai:gpt-4o-mini", "--max-steps", "1", "--json",
                  "--out", str(tmp_path), tmp_path=tmp_path, OPENAI_BASE_URL="http://127.0.0.1:9/v1",
                  OPENAI_API_KEY="none", COOPGRAPH_LLM_MAX_RETRIES="0")
    assert served.returncode == 0 and '"steps": 1' in served.stdout, served.stderr[-2000:]


def test_asking_for_the_embedded_model_without_the_extra_is_one_line(tmp_path: Path) -> None:
    done = _cli("run", "--team", "coela,coela", "--llm", "local", "--max-steps", "1", "--out", str(tmp_path),
                tmp_path=tmp_path)
    output = (done.stdout + done.stderr).strip()
    assert done.returncode != 0 and "Traceback" not in output
    assert output.splitlines() == [
        "error: the embedded model needs the local extra (llama_cpp, fastapi, sse_starlette, starlette_context not "
        "installed): pip install 'coopgraph[local]'"]
