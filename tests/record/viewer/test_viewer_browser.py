"""The trace page in a real headless Chromium: it loads offline, has one timeline row per agent, scrubbing the
map moves the agents, clicking a decision opens its prompt, and the process measures show as a table and as
marks on the agents' timeline rows.

Needs Debian's `chromium` (/usr/bin/chromium) and Playwright for Python (its own browser download is not
used). Without them the test skips, except under CI=true, where it fails: CI installs both.
"""

from __future__ import annotations

import json
from pathlib import Path

from coopgraph.record.viewer import write_view
from tests.browser import ARGS, CHROMIUM, browser_or_skip

ARTIFACTS = Path(__file__).parents[2] / "test-artifacts"




def _agent_positions(page) -> dict[str, tuple[str, str]]:  # noqa: ANN001
    return page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('#map circle.agent')]
        .map(c => [c.dataset.agent, [c.getAttribute('cx'), c.getAttribute('cy')]]))""")


def test_page_loads_scrubs_and_opens_a_decision(traces: dict[str, Path], tmp_path: Path) -> None:
    sync_playwright = browser_or_skip()
    html = tmp_path / "view.html"
    write_view(traces["decided"], html)
    requests: list[str] = []
    errors: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1360, "height": 1000})
            page.on("request", lambda r: requests.append(r.url))
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.goto(html.as_uri())
            page.wait_for_selector("body[data-ready='true']", timeout=15_000)

            rows = page.locator("#timeline .tl-row")
            assert rows.count() == 2
            assert [rows.nth(i).get_attribute("data-agent") for i in range(2)] == ["alice", "bob"]
            process = page.locator("#process table.process tr[data-agent]")
            assert [process.nth(i).get_attribute("data-agent") for i in range(3)] == ["alice", "bob", "team"]
            assert page.locator("#timeline .tl-row .tl-process").count() == 2
            assert page.locator("#process td.na").first.get_attribute("title").startswith("the trace does not say")

            start = _agent_positions(page)
            slider = page.locator("#scrubber")
            box = slider.bounding_box()
            assert box is not None
            page.mouse.move(box["x"] + 4, box["y"] + box["height"] / 2)
            page.mouse.down()
            page.mouse.move(box["x"] + box["width"] * 0.6, box["y"] + box["height"] / 2, steps=8)
            page.mouse.up()
            step = int(slider.input_value())
            assert step > 10
            assert page.locator("#step-label").inner_text().startswith(f"step {step} /")
            moved = _agent_positions(page)
            assert moved["alice"] != start["alice"] and moved["bob"] != start["bob"]
            assert page.locator(f".tl-cell.current[data-step='{step}']").count() == 2

            assert page.locator("#decision-detail pre").count() == 0
            page.locator("#decisions .decision", has_text="1 LLM call").first.click()
            detail = page.locator("#decision-detail")
            assert "alice at step 0" in detail.inner_text()
            prompts = detail.locator("pre")
            assert prompts.count() >= 3
            assert "Goal: put the apple on the table" in detail.inner_text()
            assert "<script>alert(1)</script>" in detail.inner_text()  # shown as text, not run
            assert "120 → 9 tokens" in detail.inner_text()
            assert page.locator("svg.graph g.current[data-node='choose_action']").count() == 1
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "trace-view.png"), full_page=True)
        finally:
            browser.close()
    assert errors == []
    assert {url.split(":", 1)[0] for url in requests} <= {"file"}  # nothing fetched from the network


def test_process_marks_sit_on_the_agents_timeline_rows(tmp_path: Path) -> None:
    """Idle spans, duplicated effort, conflicts and a plan a message changed, from a small hand-built run."""
    from tests.record.process.shapes import act, message, plan, start, step

    walk = "[walk] <juice> (310)"
    events = [*start(), plan("alice", 0, "[gograb] <juice> (310)"), plan("bob", 0, "[gograb] <juice> (310)"),
              step(1, alice=act(walk, position=[1.0, 1.0]), bob=act(walk, position=[3.0, 1.0])),
              message("bob", 2), step(2, alice=act("[wait]", position=[1.0, 1.0]),
                                       bob=act("[send_message] mine", position=[3.0, 1.0])),
              plan("alice", 2, "[gograb] <wine> (313)"),
              step(3, alice=act("[open] <cabinet> (113)", ok=False, position=[1.0, 1.0]),
                   bob=act(walk, position=[2.0, 1.0]))]
    trace = tmp_path / "hand.jsonl"
    trace.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    sync_playwright = browser_or_skip()
    html = tmp_path / "hand.html"
    write_view(trace, html)
    errors: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(html.as_uri())
            page.wait_for_selector("body[data-ready='true']", timeout=15_000)
            alice = page.locator(".tl-row[data-agent='alice'] .tl-process")
            bob = page.locator(".tl-row[data-agent='bob'] .tl-process")
            assert alice.locator(".tl-idle").get_attribute("title") == "idle: steps 2–2"
            assert alice.locator(".tl-dup").count() == 1 and bob.locator(".tl-dup").count() == 1
            assert "refused" in (alice.locator(".tl-conflict").get_attribute("title") or "")
            assert "a message from bob changed the plan" in (alice.locator(".tl-planchange").get_attribute("title")
                                                              or "")
            assert bob.locator(".tl-planchange").count() == 0
            assert page.locator("#process tr[data-agent='bob'] td").nth(7).inner_text() == "1"  # its message
            alice.locator(".tl-conflict").click()
            assert page.locator("#scrubber").input_value() == "3"
        finally:
            browser.close()
    assert errors == []


def test_a_tdw_floorplan_draws_with_the_shared_house_code(tmp_path: Path) -> None:
    """The floorplan (rooms, doors, bed, goal circle) comes from house.js, shared with the play page; scrubbing to
    the end moves Alice's marker and its heading nose along."""
    import coopgraph
    from coopgraph.testing import scripted_lm

    result = coopgraph.run(env="tdw-mat", episode="train/0", team=["rhp", "rhp"],
                           llm=lambda: scripted_lm(lambda messages, kwargs: "Answer: A"), max_steps=300,
                           out=tmp_path)
    assert result.trace_path is not None
    sync_playwright = browser_or_skip()
    html = tmp_path / "floor.html"
    write_view(result.trace_path, html)
    errors: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(html.as_uri())
            page.wait_for_selector("body[data-ready='true']", timeout=15_000)
            floor = page.locator("#map svg.floorplan")
            assert floor.locator("rect.room").count() >= 4 and floor.locator("circle.door").count() >= 1
            assert floor.locator("rect.bed").count() == 1 and floor.locator("circle.goal-zone").count() == 1
            start = _agent_positions(page)
            page.locator("#scrubber").fill(page.locator("#scrubber").get_attribute("max") or "0")
            assert _agent_positions(page)["alice"] != start["alice"]
            nose = page.locator(".agent-marker[data-agent='alice'] line.facing")
            assert nose.get_attribute("x1") != nose.get_attribute("x2") or nose.get_attribute("y1") != \
                nose.get_attribute("y2")
        finally:
            browser.close()
    assert errors == []
