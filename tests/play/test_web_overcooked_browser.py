"""Done-when: a person plays an Overcooked episode with keys in Debian's Chromium beside the greedy cook. The
kitchen is drawn with the trace viewer's grid code, each key is one tick, the cook moves on the grid, and LLM-Co's
feasible actions are clickable as the options."""

from __future__ import annotations

from pathlib import Path

from coopgraph.record.trace_file import read_events
from tests.play.browser import Served, browser_or_skip, launch

KEYS = ["ArrowUp", "ArrowRight", "ArrowDown", "ArrowLeft", " ", "ArrowUp"]


def _cook(page) -> tuple[str | None, str | None]:  # noqa: ANN001 - playwright's page
    circle = page.locator("#map circle.agent[data-agent='alice']")
    return circle.get_attribute("cx"), circle.get_attribute("cy")


def test_a_person_cooks_with_keys_in_chromium(tmp_path: Path) -> None:
    sync_playwright = browser_or_skip()
    served = Served(tmp_path / "runs", env="overcooked", episode="cramped_room", team=["human", "greedy"],
                    llm="local", max_steps=len(KEYS) + 1, ratings_wait_s=0)
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.goto(served.address)
            page.wait_for_selector("#options button:not([disabled])", timeout=30_000)
            assert page.locator("#map svg.grid rect.cell").count() == 20  # cramped_room: 5 x 4 cells
            assert "pick up onion from o0." in page.locator("#options button").all_inner_texts()
            assert page.locator("#moves button").count() == 6
            start = _cook(page)
            for step, key in enumerate(KEYS):
                page.keyboard.press(key)
                page.wait_for_function(f"() => Number(document.body.dataset.step) > {step} && "
                                       "!document.querySelector('#options button').disabled", timeout=30_000)
            assert _cook(page) != start, "the cook moved on the grid"
            page.locator("#options button").first.click()  # one of LLM-Co's feasible actions
            page.wait_for_selector("body[data-ended='true']", timeout=30_000)
            page.screenshot(path=str(tmp_path / "play-overcooked.png"))
        finally:
            browser.close()
    result = served.join()
    assert result["ratings"] is None  # none given: the run is stored without them
    events = read_events(result["trace_path"])
    moves = [e["move"] for e in events if e["type"] == "plan" and e.get("human") and "move" in e]
    assert moves == ["north", "east", "south", "west", "interact", "north"]
    steps = [e for e in events if e["type"] == "env_step"]
    assert [s["agents"]["alice"]["action"] for s in steps[:2]] == ["[north]", "[east]"]
