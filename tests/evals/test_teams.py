"""Teams from names: baselines and graph specs, unknown names listed, per-member LLMs."""

from __future__ import annotations

from pathlib import Path

import pytest

from coopgraph.evals.episode_run import run_configured
from coopgraph.evals.graph_agent import GraphAgent
from coopgraph.evals.teams import UnknownMemberError, make_team, parse_team
from coopgraph.testing import scripted_lm


def test_unknown_member_lists_baselines_and_specs() -> None:
    with pytest.raises(UnknownMemberError, match=r"baselines: .*mhp.*graph specs: .*coela"):
        make_team(["mhp", "cola"])


def test_parse_team_rejects_empty() -> None:
    assert parse_team("mhp, coela") == ["mhp", "coela"]
    with pytest.raises(UnknownMemberError):
        parse_team(" , ")


def test_members_of_one_team_may_use_different_llms(tmp_path: Path) -> None:
    first, second = scripted_lm(["Answer: A"]), scripted_lm(["Answer: B"])
    payload = run_configured("cwah", {}, "test/8", ["coela", "mhp", "coela"], [lambda: first, None, lambda: second],
                             3, tmp_path)
    assert payload["steps"] == 3
    assert first.chat_model.calls and second.chat_model.calls  # each graph agent used its own model


def test_graph_members_share_one_compiled_graph() -> None:
    team = make_team(["coela", "coela"], lm_factory=lambda: scripted_lm(["Answer: A"]))
    assert all(isinstance(m, GraphAgent) for m in team)
    assert team[0].graph is team[1].graph and team[0] is not team[1]


def test_a_distilled_profile_warns_only_about_choice_prompts_it_never_learned() -> None:
    from coopgraph.evals.teams import prompt_mismatch

    assert prompt_mismatch("coela-lite", "local-coop") is None and prompt_mismatch("coela-news", "local-coop") is None
    assert "planning/choose_action_lite" in (prompt_mismatch("coela", "local-coop") or "")  # learned the variants'
    assert prompt_mismatch("coela-brief", "local-coop-brief") is None
    assert prompt_mismatch("coela", "local") is None and prompt_mismatch("mhp", "local-coop-brief") is None
    warning = prompt_mismatch("coela", "local-coop-brief")
    assert warning is not None and "planning/choose_brief" in warning and "planning/choose_action" in warning
    assert "candidates/choose" in (prompt_mismatch("reveca", "local-coop") or "")
