"""Scripted partners are registered by the worlds they play, made by name, and refused in another world."""

from __future__ import annotations

import subprocess
import sys

import pytest

from coopgraph import envs
from coopgraph.envs.partners import UnknownPartnerError, make_partner, partner_info, partners, register_partner
from coopgraph.envs.protocol import TeamMember

SHIPPED = ["collab-planner", "collab-random", "greedy", "mhp", "mhp-silent", "oracle", "random", "rhp",
           "tdw-oracle", "toyhouse-expert"]


def test_every_shipped_partner_is_registered_and_makes_a_team_member() -> None:
    assert partners() == SHIPPED
    assert all(isinstance(make_partner(name), TeamMember) for name in partners())


def test_every_world_has_a_partner_and_its_reference_one_comes_first() -> None:
    assert {world: partners(world)[0] for world in envs.registered() if "test" not in world} == {
        "cwah": "mhp", "cwah-noisy": "mhp", "toyhouse": "toyhouse-expert", "overcooked": "greedy",
        "tdw-mat": "rhp", "collab-capture": "collab-planner", "collab-escape": "collab-planner"}


def test_every_partner_plays_registered_worlds() -> None:
    for name in partners():
        assert set(partner_info(name).worlds) <= set(envs.registered()), name


def test_an_unknown_name_lists_the_registered_partners() -> None:
    with pytest.raises(UnknownPartnerError, match="unknown scripted partner 'mcts'; registered: collab-planner, "
                                                  "collab-random, greedy, mhp, mhp-silent, oracle, random, rhp"):
        make_partner("mcts")


def test_a_partner_of_another_world_is_refused_naming_that_worlds_partners() -> None:
    with pytest.raises(UnknownPartnerError, match="'mhp' plays cwah, cwah-noisy, not overcooked; overcooked's "
                                                  "scripted partners: greedy, random"):
        make_partner("mhp", world="overcooked")
    assert make_partner("mhp", world="cwah-noisy").name == "mhp"


def test_registered_options_are_defaults_the_caller_may_override() -> None:
    assert make_partner("mhp-silent").name == "mhp-silent"
    assert make_partner("mhp-silent", world="cwah").name == "mhp-silent"
    assert make_partner("mhp-silent", name="quiet").name == "quiet"


def test_a_name_is_registered_once_unless_replaced() -> None:
    with pytest.raises(ValueError, match="already registered"):
        register_partner("mhp", "coopgraph.envs.cwah.experts.mhp:MHPAgent", worlds=("cwah",))
    with pytest.raises(ValueError, match="name the worlds it plays"):
        register_partner("nobody", "x:y", worlds=())


def test_naming_the_partners_imports_no_world() -> None:
    code = ("import sys; from coopgraph import envs; envs.partners('cwah'); envs.partner_info('rhp'); "
            "print(sorted(m for m in sys.modules if m.startswith('coopgraph.envs.') and m.count('.') > 2))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]", out
