"""The command line prints a model server's trouble as its own one-line `warning:` on stderr."""

from __future__ import annotations

import warnings

import pytest

from coopgraph.cli.app import print_model_server_warnings
from coopgraph.llm.announce import ModelServerWarning, warn


def test_a_model_server_warning_is_one_line_on_stderr_and_others_are_left_to_python(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(warnings, "showwarning", warnings.showwarning)  # put back after the test
    print_model_server_warnings()
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warn("model server http://127.0.0.1:8000/v1 did not answer within 120 s; the run keeps asking it")
        warnings.warn("something else", UserWarning, stacklevel=1)
    err = capsys.readouterr().err.splitlines()
    assert err == ["warning: model server http://127.0.0.1:8000/v1 did not answer within 120 s; the run keeps "
                   "asking it"]  # the other warning went to Python's own display (pytest's record, here)
    assert issubclass(ModelServerWarning, UserWarning)
