"""Safe YAML reading that remembers where every value came from.

Specs are untrusted input: only plain YAML types are built (no tags that create Python objects),
duplicate keys are errors rather than silent overwrites, and a document whose aliases would
expand into a huge structure is refused before it is built. Every value keeps its line and
column so later checks can point at the exact spot.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

MAX_EXPANDED_NODES = 20_000

Path = tuple[str | int, ...]


@dataclass(frozen=True)
class Mark:
    line: int  # 1-based
    column: int  # 1-based


@dataclass(frozen=True)
class YamlProblem(Exception):
    """A problem found while reading the YAML itself, before any schema check."""

    code: str
    message: str
    mark: Mark | None


@dataclass
class SourceDoc:
    """The plain data of a YAML file plus the mark of every key path in it."""

    data: Any
    marks: dict[Path, Mark]

    def mark_for(self, path: Path) -> Mark | None:
        """The mark of the deepest known prefix of `path` (pydantic paths may go past the YAML)."""
        for cut in range(len(path), -1, -1):
            if path[:cut] in self.marks:
                return self.marks[path[:cut]]
        return None


def _mark(node: yaml.Node) -> Mark:
    return Mark(node.start_mark.line + 1, node.start_mark.column + 1)


def _expanded_size(node: yaml.Node, memo: dict[int, int], depth: int = 0) -> int:
    if depth > 100:
        raise YamlProblem("E104", "nesting deeper than 100 levels", _mark(node))
    key = id(node)
    if key in memo:
        return memo[key]
    memo[key] = MAX_EXPANDED_NODES + 1  # a node that refers to itself counts as too big
    if isinstance(node, yaml.MappingNode):
        size = 1 + sum(_expanded_size(k, memo, depth + 1) + _expanded_size(v, memo, depth + 1) for k, v in node.value)
    elif isinstance(node, yaml.SequenceNode):
        size = 1 + sum(_expanded_size(v, memo, depth + 1) for v in node.value)
    else:
        size = 1
    memo[key] = min(size, MAX_EXPANDED_NODES + 1)
    return memo[key]


_PLAIN_TAGS = {
    "tag:yaml.org,2002:" + t for t in ("str", "int", "float", "bool", "null", "map", "seq", "timestamp")
}


def _build(node: yaml.Node, path: Path, marks: dict[Path, Mark]) -> Any:
    marks.setdefault(path, _mark(node))
    if node.tag not in _PLAIN_TAGS:
        raise YamlProblem("E103", f"YAML tag {node.tag!r} is not allowed in a spec (plain values only)", _mark(node))
    if isinstance(node, yaml.MappingNode):
        out: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                raise YamlProblem("E103", "YAML merge keys (<<) are not supported in specs", _mark(key_node))
            key = _build(key_node, path, {})
            if isinstance(key, dict | list):
                raise YamlProblem("E101", "a mapping key must be a plain value", _mark(key_node))
            if key in out:
                first = marks.get((*path, key))
                where = f" (first at line {first.line})" if first else ""
                raise YamlProblem("E102", f"duplicate key {key!r}{where}", _mark(key_node))
            marks[(*path, key)] = _mark(key_node)
            out[key] = _build(value_node, (*path, key), marks)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_build(item, (*path, i), marks) for i, item in enumerate(node.value)]
    return _scalar(node)


class _ScalarLoader(yaml.SafeLoader):
    def __init__(self) -> None:  # no stream: used only to construct single scalars
        yaml.SafeLoader.__init__(self, "")


_SCALAR_LOADER = _ScalarLoader()


def _scalar(node: yaml.ScalarNode) -> Any:
    value = _SCALAR_LOADER.construct_object(node, deep=True)
    _SCALAR_LOADER.constructed_objects.clear()
    return value


def load_source(text: str) -> SourceDoc:
    """Parse YAML text into plain data and marks, or raise YamlProblem with where and why."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = Mark(mark.line + 1, mark.column + 1) if mark else None
        problem = exc.problem or str(exc)
        if exc.context:
            problem = f"{problem} ({exc.context})"
        raise YamlProblem("E101", f"invalid YAML: {problem}", where) from None
    except yaml.YAMLError as exc:
        raise YamlProblem("E101", f"invalid YAML: {exc}", None) from None
    if root is None:
        return SourceDoc({}, {(): Mark(1, 1)})
    memo: dict[int, int] = {}
    if _expanded_size(root, memo) > MAX_EXPANDED_NODES:
        culprit, what = root, "the document"
        if isinstance(root, yaml.MappingNode):
            for key_node, value_node in root.value:
                if memo.get(id(value_node), 0) > MAX_EXPANDED_NODES:
                    culprit, what = key_node, f"key {key_node.value!r}"
                    break
        raise YamlProblem(
            "E104", f"{what} expands to more than {MAX_EXPANDED_NODES} values through aliases", _mark(culprit)
        )
    marks: dict[Path, Mark] = {}
    return SourceDoc(_build(root, (), marks), marks)
