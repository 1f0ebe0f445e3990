"""The question sets coopgraph ships, by name, so `coopgraph eval reasoning full` needs no path into the package.

`full` is LLM-Co's whole published test set (66 scenarios, 198 questions) and the default: it is the set the paper's
figures and the chance figures describe. `sample` is six of its rows, `coopgraph` the set generated from coopgraph's
own worlds (with a train/test split for `coopgraph optimize reasoning`).
"""

from __future__ import annotations

from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent / "data"
#: Shipped set name -> file in `DATA_DIR`. The file stem names the result-store suite (`reasoning-<stem>`).
SETS = {"full": "llmco_full.csv", "sample": "llmco_sample.csv", "coopgraph": "coopgraph_reasoning.csv"}
DEFAULT_SET = "full"


def set_path(name: str) -> Path:
    return DATA_DIR / SETS[name]


def resolve_questions(given: str | Path | None) -> tuple[Path, str | None]:
    """The question file a command argument means, and the shipped set's name if it is one: no argument is the
    default set, a shipped name is its file unless a file of that name exists here, anything else is a path."""
    if given is None:
        return set_path(DEFAULT_SET), DEFAULT_SET
    text = str(given)
    if text in SETS and not Path(text).exists():
        return set_path(text), text
    return Path(text), None


def describe_sets() -> str:
    """`full (llmco_full.csv), ...`: the names a user can give, with their files."""
    return ", ".join(f"{name} ({SETS[name]})" for name in SETS)
