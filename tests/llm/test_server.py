"""The shared local server: one per profile for every process, leases cleaned, stopped when idle."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from coopgraph.llm import model_files
from coopgraph.llm import server as server_module
from coopgraph.llm.interface import ChatRequest
from coopgraph.llm.settings import parse_setting
from coopgraph.llm.supervisor import live_leases


def test_leases_of_dead_processes_are_dropped(tmp_path: Path) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    (tmp_path / dead.stdout.strip()).touch()
    (tmp_path / str(os.getpid())).touch()
    assert live_leases(tmp_path) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == [str(os.getpid())]


def test_command_binds_loopback_only_and_skips_full_logits() -> None:
    command = server_module.server_command(parse_setting("local"), Path("/m.gguf"), 1234)
    assert command[command.index("--host") + 1] == "127.0.0.1"
    assert command[command.index("--logits_all") + 1] == "false"


@pytest.mark.slow
def test_two_processes_share_one_server(local_lm) -> None:
    local_lm.complete(ChatRequest([{"role": "user", "content": "Say yes."}], max_tokens=2))
    here = server_module.local_url(parse_setting("local"))
    code = "from coopgraph.llm.server import local_url; from coopgraph.llm.settings import parse_setting; " \
           "print(local_url(parse_setting('local')))"
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert other.stdout.strip() == here


def test_local_coop_serves_the_base_with_its_adapter_and_chat_format() -> None:
    command = server_module.server_command(parse_setting("local-coop"), Path("/m.gguf"), 1234)
    assert Path(command[command.index("--lora_path") + 1]).name == "local-coop.gguf"
    assert command[command.index("--chat_format") + 1] == "chatml"
    assert "--lora_path" not in server_module.server_command(parse_setting("local"), Path("/m.gguf"), 1234)


def test_model_stop_stops_only_the_named_profiles_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from coopgraph.cli import app

    monkeypatch.setenv("COOPGRAPH_CACHE", str(tmp_path / "models"))
    folder = server_module.servers_dir()
    sleepers = {key: subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
                for key in ("local-coop@97bbf447-ctx4096", "local-coop@97bbf447-ctx4096-slot1",
                            "local@0123abcd-ctx8192")}
    try:
        for key, process in sleepers.items():
            (folder / f"{key}.json").write_text(f'{{"url": "u", "supervisor": {process.pid}}}')
        runner = CliRunner()
        result = runner.invoke(app, ["model", "stop", "local-coop"])
        assert result.exit_code == 0 and "stopped local-coop@97bbf447-ctx4096" in result.output
        assert "local-coop@97bbf447-ctx4096-slot1" in result.output  # a team's second server goes with the first
        assert sleepers["local-coop@97bbf447-ctx4096"].wait(timeout=10) != 0
        assert sleepers["local@0123abcd-ctx8192"].poll() is None
        assert list(server_module.running_servers()) == ["local@0123abcd-ctx8192"]
        assert runner.invoke(app, ["model", "stop"]).exit_code == 0 and not server_module.running_servers()
        assert "no model server was running" in runner.invoke(app, ["model", "stop"]).output
        unknown = runner.invoke(app, ["model", "stop", "gpt-9"])
        assert unknown.exit_code == 2 and "local-coop" in unknown.output
    finally:
        for process in sleepers.values():
            process.kill()


def test_a_teams_members_get_servers_of_their_own_keyed_by_slot() -> None:
    settings = parse_setting("local-coop")
    assert settings.slots == 2
    tag = model_files.MODEL_FILES["local-coop"].adapter_sha256[:8]
    assert server_module.server_key(settings) == f"local-coop@{tag}-ctx4096"
    assert server_module.server_key(settings, 1) == f"local-coop@{tag}-ctx4096-slot1"
    assert server_module.key_profile(server_module.server_key(settings, 1)) == "local-coop"


def test_a_checkout_with_another_adapter_gets_a_server_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """A server outlives its run: a second checkout whose adapter differs must not be answered by the first's."""
    settings = parse_setting("local-coop-tdw")
    before = server_module.server_key(settings)
    spec = model_files.MODEL_FILES["local-coop-tdw"]
    monkeypatch.setitem(model_files.MODEL_FILES, "local-coop-tdw", replace(spec, adapter_sha256="f" * 64))
    assert server_module.server_key(settings) != before
    assert server_module.server_key(settings) == "local-coop-tdw@ffffffff-ctx4096"
    no_adapter = model_files.MODEL_FILES["local"]
    assert server_module.server_key(parse_setting("local")).startswith(f"local@{no_adapter.sha256[:8]}-ctx")


def test_server_threads_stop_spinning_soon_whatever_the_callers_environment(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OMP_WAIT_POLICY", "ACTIVE")
    env = server_module.server_env(parse_setting("local", spin_count=500))
    assert env["GOMP_SPINCOUNT"] == "500" and "OMP_WAIT_POLICY" not in env and env["HF_HUB_OFFLINE"] == "1"


def test_one_server_computes_at_a_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import threading
    import time

    monkeypatch.setenv("COOPGRAPH_CACHE", str(tmp_path / "models"))
    settings = parse_setting("local")
    inside: list[int] = []
    most = [0]

    def ask() -> None:
        with server_module.compute_turn(settings):
            inside.append(1)
            most[0] = max(most[0], len(inside))
            time.sleep(0.05)
            inside.pop()

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert most[0] == 1
