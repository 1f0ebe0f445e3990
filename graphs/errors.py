"""Spec problems with a short code, the place they occur and a one-line hint on how to fix them.

Codes starting with E make a spec invalid; codes starting with W are warnings (the spec loads).
"""

from __future__ import annotations

from dataclasses import dataclass

HINTS = {
    "E100": "check the path; shipped specs can be named without .yaml",
    "E101": "fix the YAML at the marked spot (save it as UTF-8 text; indentation uses spaces, lists need '- ')",
    "E102": "each key may appear once in a mapping; rename or remove the second one",
    "E103": "specs hold plain values only; remove the tag",
    "E104": "flatten the structure: nest at most 100 levels and write values out instead of nesting aliases",
    "E201": "see docs/graph-specs.md for the fields a spec takes",
    "E202": "run `coopgraph nodes` to list the registered nodes",
    "E203": "see the node's params in docs/nodes.md",
    "E204": "run `coopgraph nodes` to list the registered routers",
    "E205": "declare the value under the spec's top-level params:",
    "E206": "refer to the param from a node's params as ${name}, or remove it; the agent's memory windows go under "
            "agent:",
    "E207": "templates live in prompts/<family>/<name>.j2",
    "E208": "save a program with `coopgraph optimize` or fix the path (relative to the spec file)",
    "E209": "`extends:` names a shipped spec or a path relative to this file",
    "W202": "write the new name; the old one still loads for now",
    "E301": "an edge may only point at a declared node or END",
    "E302": "a router's branches must be the ones it declares",
    "E304": "every node needs a way out: add `NODE -> END` or an edge to another node",
    "E305": "connect the node from the entry or remove it",
    "E306": "add an edge or router branch that leaves the loop (to END or onwards)",
    "E307": "give a node either plain edges or one router, not both",
    "E308": "write the key in a node before the reader on every path, or list it under `inputs:` if the caller "
            "supplies it",
    "E316": "give the key one type and reducer in every node that writes it, or rename one node's key",
    "E310": "run the spec in a world that has the capability (listed), or use a node that does not need it",
    "E311": "add prompts/<family>/<node>.<world>.j2 or a world-neutral prompts/<family>/<node>.j2",
    "E312": "hand the template the value (a node before it that writes it into the facts, e.g. memory.retrieve) "
            "or guard the template's use with `{% if NAME is defined %}`",
    "E313": "drive the spec from code that hands it those keys (coopgraph demo --toy does for describe_choose), or "
            "wire nodes that compute them (perception.perceive, memory.retrieve, planning.list_actions)",
    "E320": "set the node's answer_format to what the profile answers with, or use another model",
    "E321": "lower the node's reasoning_chars to the profile's maximum, or use another model",
    "E322": "remove the drafting node (e.g. extends: coela-news) or use a model that writes",
}


@dataclass(frozen=True)
class SpecError:
    code: str
    message: str
    file: str
    line: int | None = None
    column: int | None = None

    @property
    def hint(self) -> str:
        return HINTS.get(self.code, "")

    def __str__(self) -> str:
        where = self.file
        if self.line is not None:
            where += f":{self.line}:{self.column or 1}"
        hint = f" (hint: {self.hint})" if self.hint else ""
        return f"{where}: {self.code} {self.message}{hint}"

    def as_dict(self) -> dict[str, object]:
        return {
            "code": self.code, "message": self.message, "file": self.file,
            "line": self.line, "column": self.column, "hint": self.hint,
        }


class SpecWarning(UserWarning):
    """A spec that loads but says something the way it should no longer (e.g. a renamed node, W202)."""


class SpecInvalid(Exception):
    """Raised with every problem of a spec at once."""

    def __init__(self, errors: list[SpecError]) -> None:
        self.errors = errors
        super().__init__("\n".join(str(e) for e in errors))
