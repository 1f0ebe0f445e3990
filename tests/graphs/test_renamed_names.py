"""A spec naming a renamed node or router still loads, rewritten to the new name, with a located W202 warning."""

from __future__ import annotations

from pathlib import Path

import pytest

from coopgraph.graphs.compiler import compile_spec
from coopgraph.graphs.errors import SpecWarning
from coopgraph.graphs.loader import load_spec, shipped_specs

OLD_ROUTER = """\
name: old_router
entry: choose
nodes:
  choose:
    use: planning.choose_action
  describe:
    use: text.describe
edges:
  - from: choose
    router: route.has_choice
    branches: {chosen: END, none: describe}
  - describe -> END
inputs: [facts, actions]
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "old_router.yaml"
    path.write_text(text)
    return path


def test_old_router_name_loads_as_the_new_one_with_a_located_warning(tmp_path: Path) -> None:
    path = _write(tmp_path, OLD_ROUTER)
    with pytest.warns(SpecWarning, match="W202 router `route.has_choice` is now `planning.has_choice`"):
        loaded = load_spec(path)
    assert loaded.spec.router_edges()[0][1].router == "planning.has_choice"
    [warning] = loaded.warnings
    assert (warning.code, warning.file, warning.line) == ("W202", str(path), 10)
    assert warning.hint
    compile_spec(loaded)  # and it runs as the new router


def test_the_warning_points_at_the_spec_file_and_line(tmp_path: Path) -> None:
    path = _write(tmp_path, OLD_ROUTER)
    with pytest.warns(SpecWarning) as caught:
        load_spec(path)
    assert [(w.filename, w.lineno) for w in caught] == [(str(path), 10)]


def test_shipped_specs_use_no_old_name() -> None:
    for path in shipped_specs().values():
        assert load_spec(path).warnings == [], path.name
