"""The web app without a browser: only the current turn's token acts (two tabs cannot both act), answers outside
the turn are refused, a remote host needs the token, the page never writes HTML from data, and a person who leaves
leaves a trace marked abandoned."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from coopgraph.play.session import PlayAbandoned, play_episode
from coopgraph.play.turn import Answer, Turn
from coopgraph.play.web import STATIC, TRACE_VIEW, make_app
from coopgraph.play.web_seat import WebSeat
from coopgraph.record.trace_file import read_events

TURN = Turn(env="cwah", agent="alice", agent_name="Alice", step=0, horizon=10, goal="", view=["You hold nothing."],
            options=["[goexplore] <kitchen> (60)", "[gocheck] <fridge> (69)"], message_limit=20)


def _asking(seat: WebSeat) -> tuple[threading.Thread, list[Answer | None]]:
    got: list[Answer | None] = []
    thread = threading.Thread(target=lambda: got.append(seat.ask(TURN, 10)), daemon=True)
    thread.start()
    while seat.turn is None:
        threading.Event().wait(0.01)
    return thread, got


def test_only_the_current_token_acts_once() -> None:
    seat = WebSeat()
    client = TestClient(make_app(seat))
    thread, got = _asking(seat)
    assert client.get("/state").json()["turn"]["options"] == TURN.options
    assert client.post("/act", json={"token": TURN.token, "choice": 3}).status_code == 400
    assert client.post("/act", json={"token": "stale", "choice": 1}).status_code == 409
    assert client.post("/act", json={"token": TURN.token, "choice": 2}).json() == {"ok": True}
    second_tab = client.post("/act", json={"token": TURN.token, "choice": 1})
    assert second_tab.status_code == 409 and "another tab" in second_tab.json()["error"]
    thread.join(5)
    assert got and got[0] is not None and got[0].choice == 2
    assert [e["type"] for e in seat.log] == ["turn", "answered"]


def test_ratings_only_after_the_end_and_once() -> None:
    seat = WebSeat()
    client = TestClient(make_app(seat))
    assert client.post("/rate", json={"helpfulness": 4, "trust": 4}).status_code == 409
    seat.finish({"success": True, "steps": 3})
    assert client.post("/rate", json={"helpfulness": 8, "trust": 4}).status_code == 400
    assert client.post("/rate", json={"helpfulness": 4, "trust": 5, "comment": "ok"}).json() == {"ok": True}
    assert client.post("/rate", json={"helpfulness": 4, "trust": 5}).status_code == 409
    assert seat.ratings == {"helpfulness": 4, "trust": 5, "comment": "ok"}


def test_a_remote_host_needs_the_token_on_every_request() -> None:
    client = TestClient(make_app(WebSeat(), token="s3cret-token"))
    for path in ("/", "/state", "/static/page.js"):
        assert client.get(path).status_code == 403
        assert client.get(path, params={"token": "s3cret-token"}).status_code == 200
    assert client.get("/state", headers={"X-Play-Token": "s3cret-token"}).status_code == 200
    assert client.post("/act", json={"token": "t", "choice": 1}).status_code == 403


def test_the_page_is_served_with_a_strict_policy_and_sets_text_only() -> None:
    client = TestClient(make_app(WebSeat()))
    page = client.get("/")
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert client.get("/static/grid.js").status_code == 200  # the trace viewer's grid drawing
    assert client.get("/static/house.js").status_code == 200  # and its house drawing
    assert client.get("/static/../web.py").status_code == 404
    for script in ((STATIC / "page.js").read_text(), (TRACE_VIEW / "house.js").read_text()):
        assert "innerHTML" not in script and "insertAdjacentHTML" not in script and "document.write" not in script


def test_a_person_who_leaves_leaves_a_trace_marked_abandoned(tmp_path: Path) -> None:
    seat = WebSeat()
    seat.close()  # the server stopped before the person answered
    with pytest.raises(PlayAbandoned) as left:
        play_episode("cwah", "test/0", ["human", "mhp"], "local", seat, tmp_path, max_steps=5)
    events = read_events(left.value.trace)
    assert events[-1]["type"] == "abandoned" and events[-1]["step"] == 0
    assert [e["type"] for e in events][:2] == ["manifest", "episode_start"]


def test_the_step_limit_spends_the_step_waiting() -> None:
    seat = WebSeat()
    assert seat.ask(TURN, 0.05) is None
    assert [e["type"] for e in seat.log] == ["turn", "timeout"] and seat.log[0]["limit_s"] == 0.05
    assert TestClient(make_app(seat)).post("/act", json={"token": TURN.token, "choice": 1}).status_code == 409
