"""Done-when: a person plays a whole short C-WAH episode in Debian's Chromium beside MHP, as a session of a user
study. The page's action list is the agent's affordances, its map shows the house with only what the agent knows
(its room, what it has seen; an unseen item is not in the page's state), a click moves the episode on, a typed
message (HTML shown as text) is sent to the partner, the ratings are stored with the run and in the study's store,
and the report shows the run; a screenshot mid-episode is kept in the test's tmp dir."""

from __future__ import annotations

from pathlib import Path

from coopgraph import envs
from coopgraph.envs.registry import agent_kit
from coopgraph.evals.report import write_report
from coopgraph.evals.store import open_store
from coopgraph.play.ratings import read_ratings
from coopgraph.record.trace_file import read_events
from tests.play.browser import Served, browser_or_skip, launch

MESSAGE = "<b>hi</b> I take the kitchen & you the bedroom"
STUDY = """name: browser-study
kind: user-study
environment: {name: cwah}
episodes: [test/0]
max_steps: 40
teams:
  - label: MHP
    members: [human, mhp]
  - label: MHP silent
    members: [human, mhp-silent]
"""


def _first_options() -> list[str]:
    env = envs.make("cwah", episode="test/0", num_agents=2)
    observations, _ = env.reset(seed=0)
    kit = agent_kit("cwah", env.agent_info("alice"))
    kit.belief.update(observations["alice"])
    return [o.text for o in kit.affordances.available(kit.belief)]


def _unseen_items() -> tuple[int, list[int]]:
    """Alice's first room, and items she cannot see at the start: elsewhere, or shut in a cabinet of her room."""
    env = envs.make("cwah", episode="test/0", num_agents=2)
    observations, _ = env.reset(seed=0)
    first = observations["alice"]
    seen = {o.id for o in first.visible_objects}
    items = [o["id"] for o in env.layout()["objects"] if o["kind"] == "item" and o["id"] not in seen]
    return first.room_id, items


def _check_the_map_shows_only_what_alice_knows(page) -> None:  # noqa: ANN001 - playwright's page
    """The house is drawn with Alice in her room; items she has not seen are neither drawn nor in the page's
    state (the served layout has rooms and doors only; each turn's objects come from her belief)."""
    room, unseen = _unseen_items()
    page.wait_for_selector("#map svg.house rect.room.here", timeout=10_000)
    assert page.locator("#map svg.house").get_attribute("data-room") == str(room)
    assert page.locator("#map rect.room.here").get_attribute("data-room") == str(room)
    assert page.locator("#map .agent-marker[data-agent='alice']").count() == 1
    assert page.locator("#map [data-object]").count() > 0, "what she sees in her room is drawn"
    state = page.evaluate("() => fetch('state').then((r) => r.json())")
    assert set(state["layout"]) == {"kind", "rooms", "doors"} and state["layout"]["kind"] == "house"
    drawn = {o["id"] for o in state["turn"]["known_map"]["objects"]}
    assert unseen and not drawn & set(unseen)
    for item in unseen:
        assert page.locator(f"#map [data-object='{item}']").count() == 0


def _next_turn(page, after: int) -> None:  # noqa: ANN001 - playwright's page
    page.wait_for_function(f"() => document.body.dataset.ended === 'true' || (Number(document.body.dataset.step) > "
                           f"{after} && !document.querySelector('#options button').disabled)", timeout=30_000)


def test_a_person_plays_cwah_beside_mhp_in_chromium(tmp_path: Path) -> None:
    sync_playwright = browser_or_skip()
    suite = tmp_path / "study.yaml"
    suite.write_text(STUDY, encoding="utf-8")
    served = Served(tmp_path / "study", study=str(suite), participant="P1")
    errors: list[str] = []
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(served.address)
            page.wait_for_selector("#options button:not([disabled])", timeout=30_000)
            assert page.locator("#options button").all_inner_texts() == _first_options()
            assert page.locator("body").get_attribute("data-step") == "0"
            _check_the_map_shows_only_what_alice_knows(page)
            page.locator("#options button").first.click()
            _next_turn(page, 0)
            step = int(page.locator("body").get_attribute("data-step") or 0)
            assert step > 0, "a click moved the episode on"
            page.fill("#message-text", MESSAGE)
            page.click("#send")
            _next_turn(page, step)
            mine = page.locator("#dialogue li[data-sender='alice'] .text")
            assert mine.first.inner_text() == MESSAGE and page.locator("#dialogue b").count() == 0
            page.evaluate("window.scrollTo(0, 0)")
            page.screenshot(path=str(tmp_path / "play-cwah-mid-episode.png"))
            for _ in range(60):
                if page.locator("body").get_attribute("data-ended") == "true":
                    break
                step = int(page.locator("body").get_attribute("data-step") or 0)
                page.locator("#options button").first.click()
                _next_turn(page, step)
            page.wait_for_selector("#end:not([hidden])", timeout=30_000)
            page.check("input[name='helpfulness'][value='5']")
            page.check("input[name='trust'][value='6']")
            page.fill("#comment", "<i>quick</i> partner")
            page.click("#rate")
            page.wait_for_selector("body[data-rated='true']", timeout=15_000)
        finally:
            browser.close()
    result = served.join()
    assert not errors, errors
    assert (tmp_path / "play-cwah-mid-episode.png").stat().st_size > 10_000
    assert result["steps"] == 40 or result["success"]
    sent = [m for m in result["messages"] if m["sender"] == "alice"]
    assert sent and sent[0]["text"] == MESSAGE, "the world sent the typed message to the partner"
    events = read_events(result["trace_path"])
    delivered = [e for e in events if e["type"] == "env_step" and (e["agents"]["alice"].get("message") == MESSAGE)]
    assert delivered
    ratings = read_ratings(result["trace_path"])
    assert ratings is not None and ratings["helpfulness"] == 5 and ratings["trust"] == 6
    assert ratings["comment"] == "<i>quick</i> partner" and ratings["agent"] == "alice"
    assert result["ratings"]["trust"] == 6 and result["condition"] == "MHP"
    with open_store(tmp_path / "study") as store:
        (row,) = store.rows(suite="browser-study")
    assert row["study"]["participant"] == "P1" and row["study"]["ratings"]["helpfulness"] == 5
    assert row["trace_path"] == result["trace_path"]
    report = write_report(tmp_path / "study")
    text = Path(report["report"]).read_text(encoding="utf-8")
    assert "| MHP | 1 | 1 | 0 |" in text and "5.0 (n=1)" in text and "6.0 (n=1)" in text
