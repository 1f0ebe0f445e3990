"""What reaches the terminal about a model server: its address without secrets, each notice as one warning, and
repeated news not more than once in a while."""

from __future__ import annotations

import warnings

import pytest

from coopgraph.llm.announce import Announcer, ModelServerWarning, public_url


def test_the_address_shown_keeps_no_user_password_or_query() -> None:
    assert public_url("https://user:sk-secret@api.example.com:8443/v1?api-key=sk-2#x") == \
        "https://api.example.com:8443/v1"
    assert public_url("http://127.0.0.1:8000/v1") == "http://127.0.0.1:8000/v1"
    assert public_url("ChatAnthropic") == "ChatAnthropic"  # a chat model without a base URL is named by its class


def test_each_notice_is_one_warning_even_when_it_repeats() -> None:
    announcer = Announcer("http://s/v1")
    with pytest.warns(ModelServerWarning) as said:
        announcer.say("circuit open")
        announcer.say("circuit open")
    assert [str(w.message) for w in said] == ["circuit open", "circuit open"]


def test_once_and_seldom() -> None:
    now = [0.0]
    announcer = Announcer("http://s/v1", every_s=30.0, clock=lambda: now[0])
    with pytest.warns(ModelServerWarning) as said:
        announcer.once("first", "a")
        announcer.once("first", "a again")
        for second in (0.0, 5.0, 10.0, 31.0, 32.0, 70.0):
            now[0] = second
            announcer.seldom("429", f"429 at {second:g}")
    assert [str(w.message) for w in said] == ["a", "429 at 0", "429 at 31 (2 more like it since the last notice)",
                                              "429 at 70 (1 more like it since the last notice)"]


def test_a_quiet_announcer_says_nothing() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Announcer("ScriptedChatModel", quiet=True).say("nothing to see")
