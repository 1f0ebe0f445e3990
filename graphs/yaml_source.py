"""Safe YAML reading that remembers where every value came from.

Specs are untrusted input: only plain YAML types are built (no tags that create Python objects),
duplicate keys are errors rather than silent overwrites, and a document nested more than 100 levels deep
or whose aliases would expand into a huge structure is refused before it is built. Bytes that are not UTF-8
and values YAML cannot build (a 5,000-digit integer, the 13th month) are coded problems too, never exceptions.
Every value keeps its line and column so later checks can point at the exact spot.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

MAX_EXPANDED_NODES = 20_000
MAX_DEPTH = 100

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
    if depth > MAX_DEPTH:
        raise YamlProblem("E104", f"nesting deeper than {MAX_DEPTH} levels", _mark(node))
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
    try:
        value = _SCALAR_LOADER.construct_object(node, deep=True)
    except (ValueError, OverflowError) as exc:  # an int past Python's 4,300-digit limit, a date like 2020-13-45
        shown = node.value if len(node.value) <= 40 else f"{node.value[:20]}...({len(node.value)} characters)"
        kind = node.tag.rsplit(":", 1)[-1]
        raise YamlProblem("E201", f"value {shown!r} cannot be read as {kind}: {str(exc).split(';')[0]} "
                          "(quote it to keep it as text)", _mark(node)) from None
    finally:
        _SCALAR_LOADER.constructed_objects.clear()
    return value


def decode_text(data: bytes) -> str:
    """Spec and suite files are UTF-8 text; anything else is a YamlProblem pointing at the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        what = "a binary file, not UTF-8 text" if b"\0" in data[:1024] else "not UTF-8 text"
        raise YamlProblem("E101", f"{what}: byte 0x{data[exc.start]:02x} here is not valid UTF-8 "
                          "(YAML files must be UTF-8 text)", Mark(line, column)) from None


def _position_mark(text: str, position: int) -> Mark:
    line = text.count("\n", 0, position) + 1
    return Mark(line, position - (text.rfind("\n", 0, position) + 1) + 1)


def _check_depth(text: str) -> None:
    """Refuse deep nesting from the event stream, before the (recursive) composer could overflow the stack."""
    depth = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                mark = event.start_mark
                raise YamlProblem("E104", f"nesting deeper than {MAX_DEPTH} levels",
                                  Mark(mark.line + 1, mark.column + 1))
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def load_source(text: str) -> SourceDoc:
    """Parse YAML text into plain data and marks, or raise YamlProblem with where and why."""
    try:
        _check_depth(text)
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = Mark(mark.line + 1, mark.column + 1) if mark else None
        problem = exc.problem or str(exc)
        if exc.context:
            problem = f"{problem} ({exc.context})"
        raise YamlProblem("E101", f"invalid YAML: {problem}", where) from None
    except yaml.reader.ReaderError as exc:
        character = f"U+{exc.character:04X}" if isinstance(exc.character, int) else repr(exc.character)
        raise YamlProblem("E101", f"invalid YAML: character {character} is not allowed in a YAML file ({exc.reason})",
                          _position_mark(text, exc.position)) from None
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
