"""The folder-per-subpackage layout installs completely: every package and data file is shipped."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

ROOT = Path(__file__).parents[1]
sys.path.insert(0, str(ROOT))
import setup as setup_script  # noqa: E402


def test_every_mapped_folder_package_is_listed_and_importable() -> None:
    packages = setup_script.mapped_packages()
    for name, folder in setup_script.ROOTS.items():
        assert name in packages
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder).parts
            assert ".".join((name, *rel)) in packages
    for name in packages:
        importlib.import_module(name)


def test_prompts_and_specs_are_package_data() -> None:
    text = (ROOT / "pyproject.toml").read_text()
    assert '"coopgraph.prompts" = ["**/*.j2"]' in text
    assert '"coopgraph.graphs" = ["*.yaml", "variants/*.yaml", "ablations/*.yaml", "examples/*.yaml"]' in text
    from coopgraph.graphs.loader import SHIPPED_FOLDERS

    for folder in SHIPPED_FOLDERS:  # every folder the shipped-spec lookup searches is installed with the package
        assert f'"{folder}/*.yaml"' in text if folder else '"*.yaml"' in text


def test_the_embedded_runtime_is_the_local_extra_and_make_installs_it() -> None:
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    core = [r.split("==")[0].split(">=")[0].split("[")[0] for r in project["dependencies"]]
    assert "llama-cpp-python" not in core and "wordllama" in core  # wordllama embeds Chroma's documents
    assert project["optional-dependencies"]["local"] == ["llama-cpp-python[server]==0.3.36"]
    lock = (ROOT / "requirements.lock").read_text()
    assert "\nllama-cpp-python==0.3.36\n" in lock  # `make setup` (demo, test) installs the lock: the extra with it
    assert "--extra local" in (ROOT / "Makefile").read_text().split("\nlock:")[1].splitlines()[1]
