"""Hostile specs: random bytes, random YAML and mutated shipped specs either load or fail with coded errors.

Whatever a file holds, `load_spec` must return a spec or raise `SpecInvalid` whose every error has a code
and names the file: never a traceback from deeper down (UnicodeDecodeError, RecursionError, TypeError...).
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coopgraph.graphs.errors import HINTS, SpecInvalid
from coopgraph.graphs.loader import load_spec, shipped_specs

SHIPPED = sorted(shipped_specs().values())  # graphs/*.yaml, ablations and examples
FUZZ = settings(max_examples=200, deadline=None, derandomize=True,  # no timing in tests: a loaded CI machine is slow
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
_counter = itertools.count()


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    load_spec("coela")  # import the node registry once, outside the per-example deadline
    return tmp_path_factory.mktemp("fuzz")


def _check(folder: Path, data: bytes) -> None:
    path = folder / f"spec{next(_counter)}.yaml"
    path.write_bytes(data)
    try:
        load_spec(path)
    except SpecInvalid as exc:
        assert exc.errors
        for error in exc.errors:
            assert error.code in HINTS, str(error)
            assert error.file, str(error)
    finally:
        path.unlink()


@FUZZ
@given(data=st.binary(max_size=400))
def test_random_bytes(folder: Path, data: bytes) -> None:
    _check(folder, data)


_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=20),
    st.sampled_from(["${reasoning_chars}", "END", "perceive -> END", "coela", "planning.choose_action", "-> ->"]),
)
_keys = st.one_of(st.sampled_from(["name", "extends", "params", "entry", "nodes", "edges", "use", "prompt",
                                   "program", "from", "router", "branches", "description"]),
                  st.text(max_size=8), st.integers(), st.booleans(), st.none())
_values = st.recursive(_scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                         st.dictionaries(_keys, inner, max_size=4)),
                       max_leaves=25)


@FUZZ
@given(doc=st.dictionaries(_keys, _values, max_size=7))
def test_random_yaml_documents(folder: Path, doc: dict) -> None:
    _check(folder, yaml.safe_dump(doc, allow_unicode=True).encode("utf-8"))


@FUZZ
@given(text=st.text(alphabet=st.sampled_from(list("ab:-[]{}&*!|>'\"#,? \n\t0123456789.%@`~\\\x00\u00e9")),
                    max_size=200))
def test_random_yaml_text(folder: Path, text: str) -> None:
    _check(folder, text.encode("utf-8"))


_DEEP_BLOCK = b"a:\n" + b"".join(b" " * i + b"k:\n" for i in range(1, 400))
_INSERTS = [b"\xff", b"\x00", b"\n", b"  ", b"- ", b":", b"[", b"{", b"&a ", b"*a", b"!!python/object:os.system ",
            b"<<: *a", b"9" * 5000, b"2020-13-45", b"[" * 150, _DEEP_BLOCK,
            b"params:\n", b"nodes:\n", b"extends: coela\n", b"extends: ./spec.yaml\n", b"~", b"null", b"${x}",
            b" -> ", b"END", b"\t"]


@st.composite
def _mutants(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(st.sampled_from(SHIPPED)).read_bytes())
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(data)))
        kind = draw(st.sampled_from(["insert", "delete", "replace", "truncate", "drop_line", "dup_line"]))
        if kind == "insert":
            data[at:at] = draw(st.sampled_from(_INSERTS))
        elif kind == "delete":
            del data[at:at + draw(st.integers(1, 40))]
        elif kind == "replace" and at < len(data):
            data[at] = draw(st.integers(0, 255))
        elif kind == "truncate":
            del data[at:]
        else:
            lines = bytes(data).split(b"\n")
            i = draw(st.integers(0, max(0, len(lines) - 1)))
            if kind == "drop_line":
                del lines[i]
            else:
                lines.insert(i, lines[i])
            data = bytearray(b"\n".join(lines))
    return bytes(data)


@FUZZ
@given(data=_mutants())
def test_mutated_shipped_specs(folder: Path, data: bytes) -> None:
    _check(folder, data)
