"""Templates run sandboxed with StrictUndefined; partner text is data; env-specific files win."""

from __future__ import annotations

import pytest
from jinja2 import UndefinedError
from jinja2.exceptions import SecurityError

from coopgraph.prompts import render
from coopgraph.prompts.render import PromptError, render_messages, template_file


def test_generic_template_renders_system_then_user() -> None:
    messages = render_messages("planning/choose_action", {"instructions": "Be quick.", "goal": "g",
                                                          "options": ["x", "y"]})
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[1]["content"].endswith("A. x\nB. y")


def test_missing_variable_is_an_error_not_an_empty_string() -> None:
    with pytest.raises(UndefinedError):
        render_messages("planning/choose_action", {"instructions": "", "options": []})


def test_sandbox_blocks_attribute_escapes(tmp_path, monkeypatch) -> None:
    (tmp_path / "evil").mkdir()
    (tmp_path / "evil" / "t.j2").write_text(
        "{% block system %}{{ ''.__class__.__mro__[1].__subclasses__() }}{% endblock %}{% block user %}x{% endblock %}")
    monkeypatch.setattr(render, "PROMPTS_DIR", tmp_path)
    with pytest.raises(SecurityError):
        render_messages("evil/t", {})


def test_partner_text_with_template_syntax_stays_literal() -> None:
    text = "{{ 7*7 }} {% for x in range(3) %}loop{% endfor %}"
    messages = render_messages("text/describe", {"instructions": "", "goal": "g", "facts_text": text})
    assert text in messages[1]["content"] and "49" not in messages[1]["content"]


def test_environment_specific_template_is_preferred(tmp_path, monkeypatch) -> None:
    (tmp_path / "fam").mkdir()
    for name in ("fam/node.j2", "fam/node.cwah.j2"):
        (tmp_path / name).write_text("{% block system %}s{% endblock %}{% block user %}" + name + "{% endblock %}")
    monkeypatch.setattr(render, "PROMPTS_DIR", tmp_path)
    assert template_file("fam/node", "cwah") == "fam/node.cwah.j2"
    assert template_file("fam/node", "tdw") == "fam/node.j2"
    with pytest.raises(PromptError, match="fam/node"):
        template_file("fam/other")
