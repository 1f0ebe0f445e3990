"""`coopgraph nodes` names where each entry is defined, as `nodes/families/<module>.py:<line>`, in text and JSON."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from coopgraph.cli import app

ROOT = Path(__file__).parents[2]
runner = CliRunner()


def test_json_gives_every_entry_the_file_and_line_its_prefix_names() -> None:
    payload = json.loads(runner.invoke(app, ["nodes", "--json"]).stdout)
    entries = payload["nodes"] + payload["routers"]
    assert {e["name"] for e in entries} >= {"planning.list_actions", "execution.needs_plan"}
    for entry in entries:
        file, line = entry["module"].rsplit(":", 1)
        assert file.startswith("nodes/families/") and file.endswith(".py"), entry  # every family lives there
        start = (ROOT / file).read_text().splitlines()[int(line) - 1:int(line) + 2]
        assert start[0].startswith(("@node(", "@router(")), entry  # the line its registration starts at
        assert f'"{entry["name"]}"' in " ".join(start), entry


def test_text_lists_each_entry_with_its_module_and_line() -> None:
    result = runner.invoke(app, ["nodes"])
    assert result.exit_code == 0
    assert re.search(r"planning\.list_actions\s+nodes/families/planning\.py:\d+", result.output)
    assert re.search(r"execution\.needs_plan \(router\)\s+nodes/families/execution\.py:\d+", result.output)
