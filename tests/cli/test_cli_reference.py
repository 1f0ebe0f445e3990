"""docs/cli.md is generated from the CLI: it lists every command and option, and is never stale."""

from __future__ import annotations

from pathlib import Path

from coopgraph.cli.reference import markdown

DOC = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def test_cli_reference_is_current() -> None:
    assert DOC.read_text(encoding="utf-8") == markdown(), "run: python -m coopgraph.cli.reference > docs/cli.md"


def test_cli_reference_lists_nested_commands_and_their_options() -> None:
    page = markdown()
    assert "## `coopgraph graph validate`" in page and "## `coopgraph trace diff`" in page
    run = page[page.index("## `coopgraph run`"):page.index("## `coopgraph demo`")]
    assert "| `--trace` |" in run and "| `--team` |" in run
    nodes = page[page.index("## `coopgraph nodes`"):page.index("## `coopgraph eval`")]
    assert "| `--json` | print one JSON object |" in nodes  # an option without help still says what it does
