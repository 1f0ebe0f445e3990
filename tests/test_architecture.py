"""The import directions of docs/architecture.md, enforced: every module's imports (function-local ones too) are
read with `ast`, following setup's package mapping, and an import against the layers fails naming file and line."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Each layer (the longest matching module prefix names it) and the layers it may import besides its own.
#: Keep in step with the table in docs/architecture.md.
#: The seam between worlds and everything else: the protocols, the capabilities, the registries of worlds and of
#: scripted partners (and the package, which re-exports them). Every other module under `coopgraph.envs` is a
#: world's (its scripted partners in its `experts/`).
SEAM = ("coopgraph.envs", "coopgraph.envs.protocol", "coopgraph.envs.capabilities", "coopgraph.envs.registry",
        "coopgraph.envs.partners")
LAYERS: dict[str, str] = {
    "coopgraph.envs": "world",
    "coopgraph.memory": "memory",
    "coopgraph.llm": "llm",
    "coopgraph.prompts": "prompts",
    "coopgraph.nodes": "nodes",
    "coopgraph.graphs": "graphs",
    "coopgraph.record": "record",
    "coopgraph.runtime": "runtime",
    "coopgraph.testing": "testing",
    "coopgraph.evals": "evals",
    "coopgraph.api": "api",
    "coopgraph": "api",  # the package's __init__: the front door, which loads coopgraph.api on first use
    "coopgraph.play": "play",
    "coopgraph.cli": "cli",
    "coopgraph.__main__": "cli",
}
_BELOW_RUNTIME = {"seam", "world", "memory", "llm", "prompts", "nodes", "graphs", "record"}
ALLOWED: dict[str, set[str]] = {
    "seam": set(),  # the registry names worlds by lazy "module:function" strings, never by import
    "world": {"seam"},
    "memory": {"seam"},
    "llm": {"seam", "testing"},  # a profile's prompt world; the fake backend's scripted chat model
    "prompts": {"llm"},
    "nodes": {"seam", "memory", "llm", "prompts"},
    "graphs": {"seam", "memory", "llm", "prompts", "nodes"},
    "record": {"seam", "graphs"},
    "runtime": _BELOW_RUNTIME,
    "testing": _BELOW_RUNTIME | {"runtime"},
    "evals": _BELOW_RUNTIME | {"runtime", "testing"},
    "api": {"graphs", "runtime", "record"},
    "play": _BELOW_RUNTIME | {"runtime"},
    "cli": _BELOW_RUNTIME | {"runtime", "testing", "evals", "api", "play"},
}


def _package_dirs() -> dict[str, Path]:
    """pyproject's `[tool.setuptools] package-dir`: `coopgraph.nodes` is `nodes/`, `coopgraph.evals` is `evals/`."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return {name: ROOT / folder for name, folder in config["tool"]["setuptools"]["package-dir"].items()}


def _modules() -> dict[str, Path]:
    """Every module of the package by its import name (a folder mapped on its own is not counted twice)."""
    dirs = _package_dirs()
    mapped = {folder.resolve() for name, folder in dirs.items() if name != "coopgraph"}
    found: dict[str, Path] = {}
    for name, folder in dirs.items():
        for path in sorted(folder.rglob("*.py")):
            if name == "coopgraph" and any(parent.resolve() in mapped for parent in path.parents):
                continue
            parts = path.relative_to(folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join((name, *parts))] = path
    return found


def layer_of(module: str) -> str | None:
    """The layer of a `coopgraph` module: `seam` for SEAM's modules, else by the longest prefix in LAYERS (None
    outside the package)."""
    if module in SEAM or any(module.startswith(f"{seam}.") for seam in SEAM[1:]):
        return "seam"
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        prefix = ".".join(parts[:end])
        if prefix in LAYERS:
            return LAYERS[prefix]
    return None


def _imports(path: Path, module: str, modules: set[str] | frozenset[str] = frozenset()) -> list[tuple[int, str]]:
    """(line, module imported) for every import in the file, at any depth; `from coopgraph import envs` counts as
    `coopgraph.envs` (a name that is one of `modules`), `from coopgraph.envs import make` as `coopgraph.envs`, and
    relative imports are resolved against `module`."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            found += [(node.lineno, f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base)
                      for alias in node.names]
    return [(line, name) for line, name in found if name == "coopgraph" or name.startswith("coopgraph.")]


def violations() -> list[str]:
    problems = []
    modules = _modules()
    for module, path in modules.items():
        source = layer_of(module)
        assert source is not None, f"{path}: module {module} has no layer in tests/test_architecture.py"
        for line, imported in _imports(path, module, set(modules)):
            target = layer_of(imported)
            if target is None or target == source or target in ALLOWED[source]:
                continue
            problems.append(f"{path.relative_to(ROOT)}:{line}: {module} ({source}) imports {imported} ({target}); "
                            f"{source} may import {', '.join(sorted(ALLOWED[source])) or 'nothing else'}")
    return problems


def test_every_import_follows_the_layers_of_docs_architecture() -> None:
    assert violations() == []


def test_the_layer_table_matches_the_documented_one() -> None:
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    for layer, allowed in ALLOWED.items():
        row = next((line for line in page.splitlines() if line.startswith(f"| {layer} |")), None)
        assert row is not None, f"docs/architecture.md has no row for layer {layer}"
        documented = {name.strip("` ") for name in row.split("|")[3].split(",") if name.strip("` ")} - {"(nothing)"}
        assert documented == allowed, f"docs/architecture.md's {layer} row says {sorted(documented)}"


@pytest.mark.parametrize(("source", "target"), [("runtime", "evals"), ("record", "runtime"), ("nodes", "graphs"),
                                                ("nodes", "world"), ("api", "evals"), ("play", "evals")])
def test_the_directions_refuse_what_the_layers_forbid(source: str, target: str) -> None:
    assert target not in ALLOWED[source]


def test_an_import_against_the_layers_is_named_with_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "loop.py"
    bad.write_text("def f():\n    from coopgraph.evals.report import build\n", encoding="utf-8")
    assert _imports(bad, "coopgraph.runtime.loop") == [(2, "coopgraph.evals.report")]
    assert layer_of("coopgraph.evals.report") == "evals" and "evals" not in ALLOWED["runtime"]
    assert layer_of("coopgraph.envs.protocol") == layer_of("coopgraph.envs") == "seam"
    assert layer_of("coopgraph.envs.cwah.belief") == "world" and layer_of("coopgraph.envs.protocols") == "world"


def test_a_run_from_the_api_loads_no_evaluation_module(tmp_path: Path) -> None:
    script = ("import sys, coopgraph\n"
              f"coopgraph.run(env='cwah', episode='test/0', team=['mhp', 'mhp'], max_steps=5, out={str(tmp_path)!r})\n"
              "print(sorted(m for m in sys.modules if m == 'coopgraph.evals' or m.startswith('coopgraph.evals.')))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"
