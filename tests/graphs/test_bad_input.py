"""Specs that used to crash the loader now get a coded error with file and line; validate checks every file."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from coopgraph.cli import app
from coopgraph.graphs.errors import SpecInvalid
from coopgraph.graphs.loader import load_spec

DEEP_MAP = b"a:\n" + b"".join(b"  " * i + b"k:\n" for i in range(1, 1000)) + b"  " * 1000 + b"v\n"
CASES = {
    # name -> (file bytes, code, line, phrase)
    "bad_byte": (b"name: x\n\xff\xfe bad: 1\n", "E101", 2, "not UTF-8 text"),
    "binary": (b"\x7fELF\x02\x01\x01\x00\x00\x00\xa1\xb2\xc3" * 20, "E101", 1, "binary file"),
    "nul_char": (b"name: x\nentry: a\x00b\n", "E101", 2, "not allowed"),
    "deep_flow": (b"a: " + b"[" * 1000 + b"]" * 1000 + b"\n", "E104", 1, "nesting deeper than 100 levels"),
    "deep_block": (DEEP_MAP, "E104", 101, "nesting deeper than 100 levels"),
    "huge_int": (b"name: x\nparams:\n  big: " + b"9" * 5000 + b"\n", "E201", 3, "4300 digits"),
    "bad_date": (b"name: x\nparams:\n  when: 2020-13-45\n", "E201", 3, "month must be in 1..12"),
    "empty_params_extends": (b"extends: coela\nparams:\n", "E201", 2, "params: must be a mapping, not null"),
    "empty_nodes_extends": (b"extends: coela\nnodes:\n", "E201", 2, "nodes: must be a mapping, not null"),
    "list_params_extends": (b"extends: coela\nparams: [1, 2]\n", "E201", 2, "params: must be a mapping, not a list"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_spec_gets_a_coded_error_with_file_and_line(tmp_path: Path, name: str) -> None:
    data, code, line, phrase = CASES[name]
    path = tmp_path / f"{name}.yaml"
    path.write_bytes(data)
    with pytest.raises(SpecInvalid) as caught:
        load_spec(path)
    errors = caught.value.errors
    assert [e.code for e in errors] == [code], [str(e) for e in errors]
    assert errors[0].file == str(path)
    assert errors[0].line == line, str(errors[0])
    assert phrase in errors[0].message
    assert errors[0].hint


def test_empty_params_in_a_base_spec_names_the_base(tmp_path: Path) -> None:
    (tmp_path / "base.yaml").write_bytes(b"extends: coela\nnodes:\n")
    (tmp_path / "child.yaml").write_bytes(b"extends: base.yaml\nparams: {x: 1}\n")
    with pytest.raises(SpecInvalid) as caught:
        load_spec(tmp_path / "child.yaml")
    error = caught.value.errors[0]
    assert (error.code, error.line) == ("E201", 2)
    assert error.file.endswith("base.yaml")


def test_validate_checks_every_file_even_after_a_failure(tmp_path: Path) -> None:
    names = []
    for name in ("bad_byte", "deep_flow", "huge_int", "empty_params_extends", "binary"):
        (tmp_path / f"{name}.yaml").write_bytes(CASES[name][0])
        names.append(str(tmp_path / f"{name}.yaml"))
    result = CliRunner().invoke(app, ["graph", "validate", *names, "coela"])
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    for name in names:
        assert f"{name}:" in result.output, name
    assert "ok " in result.output and "coela.yaml" in result.output


def test_validate_json_lists_every_file(tmp_path: Path) -> None:
    import json

    (tmp_path / "a.yaml").write_bytes(CASES["deep_block"][0])
    result = CliRunner().invoke(app, ["graph", "validate", "--json", str(tmp_path / "a.yaml"), "coela"])
    assert result.exit_code == 1
    payload = json.loads(result.stdout)
    assert [s["valid"] for s in payload["specs"]] == [False, True]
    assert payload["specs"][0]["errors"][0]["code"] == "E104"


def test_draw_reports_a_bad_spec_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_bytes(CASES["bad_byte"][0])
    result = CliRunner().invoke(app, ["graph", "draw", str(tmp_path / "a.yaml")])
    assert result.exit_code == 1
    assert "E101" in result.output and "Traceback" not in result.output


def test_validate_goes_on_after_an_unexpected_loader_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    import coopgraph.graphs.loader as loader

    real = loader.load_spec

    def flaky(ref: str, **kwargs: object) -> object:
        if ref == "capo":
            raise RuntimeError("boom")
        return real(ref, **kwargs)

    monkeypatch.setattr(loader, "load_spec", flaky)
    result = CliRunner().invoke(app, ["graph", "validate", "capo", "coela"])
    assert result.exit_code == 1
    assert "capo: internal error while checking this spec (RuntimeError: boom)" in result.output
    assert "coela.yaml" in result.output and "Traceback" not in result.output


def test_validate_says_which_file_when_the_problems_are_in_its_base(tmp_path: Path) -> None:
    child = tmp_path / "child.yaml"
    child.write_text("extends: coela\nedges:\n  - perceive -> END\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["graph", "validate", str(child)])
    assert result.exit_code == 1
    first = result.output.splitlines()[0]
    assert first.startswith(f"{child}: invalid; the problems are in what it takes from the spec(s) it extends")
    assert "coela.yaml" in result.output and "E305" in result.output


UNKNOWN_KEYS = {
    # spec text -> (line, the message's start, closest names offered)
    "extends: coela\nparams:\n  messages_kep: 6\n": (3, "spec param 'messages_kep' is taken by no node",
                                                      "did you mean agent: messages_kept?"),
    "extends: coela\nparams:\n  reasoning_char: 90\n": (3, "spec param 'reasoning_char' is taken by no node",
                                                         "did you mean reasoning_chars?"),
    "extends: coela\nllm:\n  tmperature: 0.5\n": (3, "llm.tmperature: unknown key 'tmperature'",
                                                   "did you mean temperature?"),
    "extends: coela\nagent:\n  messages_kep: 6\n": (3, "agent.messages_kep: unknown key 'messages_kep'",
                                                     "did you mean messages_kept"),
    "extends: coela\ndescriptoin: x\n": (2, "descriptoin: unknown key 'descriptoin'", "did you mean description?"),
}


@pytest.mark.parametrize("text", sorted(UNKNOWN_KEYS))
def test_a_key_nothing_takes_is_refused_with_the_closest_names(tmp_path: Path, text: str) -> None:
    line, start, close = UNKNOWN_KEYS[text]
    path = tmp_path / "typo.yaml"
    path.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(app, ["graph", "validate", str(path)])
    assert result.exit_code == 1
    assert result.output.splitlines() == [result.output.strip()], result.output  # one line
    assert result.output.startswith(f"{path}:{line}:3: " if line == 3 else f"{path}:{line}:1: "), result.output
    assert start in result.output and close in result.output


def test_an_inherited_param_a_child_no_longer_uses_is_not_the_childs_error(tmp_path: Path) -> None:
    (tmp_path / "base.yaml").write_text("extends: coela\nparams:\n  depth: 2\nnodes:\n  choose_action:\n"
                                        "    params: {retries: '${depth}'}\n", encoding="utf-8")
    (tmp_path / "child.yaml").write_text("extends: base.yaml\nnodes:\n  choose_action:\n    params: {retries: 1}\n",
                                         encoding="utf-8")
    load_spec(tmp_path / "base.yaml")
    load_spec(tmp_path / "child.yaml")  # `depth` is the base's; the child replaced the only node that took it
