"""The trace page replays an Overcooked episode on its grid: the kitchen from `layout()`, and per step the cooks
(where they stand and face, what they hold), the pots with their onions and timers, counters and gates."""

from __future__ import annotations

import json
import re
from pathlib import Path

import coopgraph
from coopgraph.record.viewer import load_trace, write_view
from coopgraph.record.viewer.model import build_view
from coopgraph.testing import scripted_lm
from coopgraph.testing.kitchen_policy import kitchen_policy

HOSTILE = "</script><script>alert(1)</script><img src=x onerror=alert(2)>"


def _trace(tmp_path: Path, layout: str = "no_counter_door", ticks: int = 30) -> Path:
    lm = scripted_lm(lambda messages, kwargs: kitchen_policy(messages, kwargs).replace(
        "Explanation: ", f"Explanation: {HOSTILE} "))
    result = coopgraph.run(env="overcooked", episode=layout, team=["llmco", "greedy"], llm=lambda: lm,
                           max_steps=ticks, out=tmp_path)
    assert result.trace_path is not None
    return Path(result.trace_path)


def test_the_view_has_the_kitchen_and_every_steps_cooks_pots_and_gates(tmp_path: Path) -> None:
    view = build_view(load_trace(_trace(tmp_path)))
    assert view["layout"]["kind"] == "grid" and view["layout"]["terrain"][0] == "XWPWX"
    assert view["layout"]["labels"]["g0"] == [1, 3] and view["layout"]["labels"]["c0"] == [2, 0]
    assert len(view["frames"]) == 31
    first, later = view["frames"][0], view["frames"][30]
    assert first["agents"]["alice"]["pos"] == [1, 2]
    assert set(later["agents"]) == {"alice", "bob"} and later["agents"]["bob"]["facing"] in {"north", "south",
                                                                                             "east", "west"}
    assert [p[:2] for p in later["kitchen"]["pots"]] == [[2, 0]] and len(later["kitchen"]["gates"]) == 2
    assert any(f["kitchen"] and any(p[2] > 0 for p in f["kitchen"]["pots"]) for f in view["frames"][1:])
    assert later["score"] is not None


def test_the_page_draws_the_grid_and_keeps_trace_text_as_text(tmp_path: Path) -> None:
    out = tmp_path / "page.html"
    info = write_view(_trace(tmp_path), out)
    html = out.read_text(encoding="utf-8")
    assert info["has_layout"] and "buildGrid" in html and 'kind":"grid"' in html
    assert "<script>alert(1)</script>" not in html and "onerror=alert" not in html.replace("\\u003c", "<").split(
        '<script id="trace-data"', 1)[0]
    data = html.split('<script id="trace-data" type="application/json">', 1)[1].split("</script>", 1)[0]
    assert HOSTILE.replace("<", "\\u003c").replace(">", "\\u003e") in data  # kept, as inert JSON text
    view = json.loads(data)
    assert view["layout"]["terrain"] and view["frames"][1]["kitchen"]
    # the one innerHTML of the page sets the spec's own generated SVG; the grid is built with textContent only
    assert re.findall(r"\.innerHTML\s*=\s*[\w.]+", html) == [".innerHTML = g.svg"]


def _greedy_trace(tmp_path: Path, ticks: int = 120) -> tuple[Path, dict[str, float]]:
    result = coopgraph.run(env="overcooked", episode="cramped_room", team=["greedy", "greedy"], max_steps=ticks,
                           out=tmp_path)
    assert result.trace_path is not None
    by_agent = result.metrics["deliveries_by_agent"]
    assert isinstance(by_agent, dict)
    return Path(result.trace_path), by_agent


def test_the_view_says_who_served_each_soup_and_counts_them_per_cook(tmp_path: Path) -> None:
    trace, by_agent = _greedy_trace(tmp_path)
    served = build_view(load_trace(trace))["served"]
    assert served["source"] == "steps" and sum(by_agent.values()) >= 2
    assert served["by_agent"] == {agent: int(n) for agent, n in by_agent.items()}
    assert [s["agent"] for s in served["soups"]].count("alice") == by_agent["alice"]
    steps = [s["step"] for s in served["soups"]]
    assert steps == sorted(steps) and all(0 < s <= 120 for s in steps)
    totals = [(e["step"], e["agents"]["alice"]["deliveries"]) for e in load_trace(trace) if e.get("type") == "env_step"]
    rose = [step for (step, n), (_, before) in zip(totals[1:], totals, strict=False) if n > before]
    assert sorted(set(steps)) == rose  # each soup on the tick the team's deliveries rose


def test_an_older_trace_without_served_flags_still_counts_soups_per_cook(tmp_path: Path) -> None:
    trace, by_agent = _greedy_trace(tmp_path, ticks=60)
    events = load_trace(trace)
    for event in events:
        for info in (event.get("agents") or {}).values() if event.get("type") == "env_step" else []:
            info.pop("served", None)
        if event.get("type") == "episode_end":
            event["metrics"].pop("deliveries_by_agent")  # older still: only per_agent said it
    served = build_view(events)["served"]
    assert served == {"soups": [], "by_agent": {a: int(n) for a, n in by_agent.items()}, "source": "episode_end"}


def test_the_page_shows_the_served_table_and_marks_on_the_timeline(tmp_path: Path) -> None:
    from tests.browser import ARGS, CHROMIUM, browser_or_skip

    sync_playwright = browser_or_skip()
    trace, by_agent = _greedy_trace(tmp_path)
    html = tmp_path / "view.html"
    write_view(trace, html)
    errors: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1360, "height": 1000})
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(html.as_uri())
            page.wait_for_selector("body[data-ready='true']", timeout=15_000)
            counts = page.evaluate("""() => Object.fromEntries(
                [...document.querySelectorAll('table.served tr[data-agent]')]
                .map(r => [r.dataset.agent, r.querySelector('.served-count').textContent]))""")
            assert counts == {agent: str(int(n)) for agent, n in by_agent.items()}
            assert "[object Object]" not in page.locator("#metrics").inner_text()
            marks = page.locator("#timeline .tl-mark.soup")
            assert marks.count() == sum(int(n) for n in by_agent.values())
            first = page.locator("table.served td.served-steps a").first
            step = int(first.inner_text())
            first.click()
            assert int(page.locator("#scrubber").input_value()) == step
            assert "served a soup" in page.locator("#step-info").inner_text()
        finally:
            browser.close()
    assert not errors, errors


def test_a_gate_shows_shut_until_a_cook_opens_it_and_then_its_ticks_open(tmp_path: Path) -> None:
    """The kitchen record's gates are `[x, y, open, ticks open]`: every gate read as open before this was fixed."""
    result = coopgraph.run(env="overcooked", episode="no_counter_door", team=["greedy", "greedy"], max_steps=120,
                           out=tmp_path)
    assert result.trace_path is not None
    frames = [f for f in build_view(load_trace(Path(result.trace_path)))["frames"] if f["kitchen"]]
    assert [g[2:] for g in frames[0]["kitchen"]["gates"]] == [[False, 0], [False, 0]]
    opened = [g for f in frames for g in f["kitchen"]["gates"] if g[2]]
    assert opened and any(g[3] > 0 for g in opened)
    assert sum(1 for f in frames if not any(g[2] for g in f["kitchen"]["gates"])) > len(frames) / 2
