"""Teams from names: baselines and graph specs, unknown names listed, per-member LLMs."""

from __future__ import annotations

from pathlib import Path

import pytest

from coopgraph.runtime.graph_agent import GraphAgent
from coopgraph.runtime.launch import run_configured
from coopgraph.runtime.teams import UnknownMemberError, make_team, parse_team
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
    assert payload.steps == 3
    assert first.chat_model.calls and second.chat_model.calls  # each graph agent used its own model


def test_graph_members_share_one_compiled_graph() -> None:
    team = make_team(["coela", "coela"], lm_factory=lambda: scripted_lm(["Answer: A"]))
    assert all(isinstance(m, GraphAgent) for m in team)
    assert team[0].graph is team[1].graph and team[0] is not team[1]


def test_a_distilled_profile_warns_only_about_choice_prompts_it_never_learned() -> None:
    from coopgraph.runtime.teams import prompt_mismatch

    assert prompt_mismatch("coela-lite", "local-coop") is None and prompt_mismatch("coela-news", "local-coop") is None
    assert "planning/choose_action_lite" in (prompt_mismatch("coela", "local-coop") or "")  # learned the variants'
    assert prompt_mismatch("coela-brief", "local-coop-brief") is None
    assert prompt_mismatch("coela", "local") is None and prompt_mismatch("mhp", "local-coop-brief") is None
    warning = prompt_mismatch("coela", "local-coop-brief")
    assert warning is not None and "planning/choose_brief" in warning and "planning/choose_action" in warning
    assert "candidates/choose" in (prompt_mismatch("reveca", "local-coop") or "")


def test_local_coop_gives_each_member_the_distilled_planner_that_learned_its_prompt_in_this_world() -> None:
    """`local-coop` names the family: a member plays with the planner distilled on its choice prompt in this
    world; a member none learned keeps `local-coop` (its spec checks then say what it cannot be asked)."""
    from coopgraph.runtime.teams import team_settings

    assert team_settings(["coela-lite", "mhp"], "local-coop", "cwah") == ["local-coop", None]
    assert team_settings(["coela-news"], "local-coop", "cwah") == ["local-coop"]  # coela-lite's prompt
    assert team_settings(["coela-brief", "coela"], "local-coop", "cwah") == ["local-coop-brief", "local-coop"]
    assert team_settings(["coela-lite", "rhp"], "local-coop", "tdw-mat") == ["local-coop-tdw", None]
    assert team_settings(["llmco-lite-nohistory", "llmco-helper"], "local-coop", "overcooked") == [
        "local-coop-kitchen", "local-coop"]
    # since round 7 the kitchen planner learned llmco-lite's prompt without the history: llmco-lite itself is no
    # longer its prompt, so it keeps `local-coop` (and the spec checks say what that cannot be asked)
    assert team_settings(["llmco-lite"], "local-coop", "overcooked") == ["local-coop"]
    assert team_settings(["coela-brief", "mhp"], "local-coop-tdw", "cwah") == ["local-coop-tdw", None]  # as named
    assert team_settings(["coela-lite"], "local", "tdw-mat") == ["local"]


def test_a_scripted_partner_of_another_world_is_refused_naming_this_worlds_partners() -> None:
    with pytest.raises(UnknownMemberError, match="'rhp' plays tdw-mat, not overcooked; overcooked's scripted "
                                                 "partners: greedy, random"):
        make_team(["greedy", "rhp"], env="overcooked")
