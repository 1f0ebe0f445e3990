"""Take the README's screenshot of `coopgraph play` (docs/img/play-cwah.png) in headless Chromium.

A person plays Alice beside MHP on C-WAH test/0: a plan, a message, another plan, then the page is captured.
Run: .venv/bin/python scripts/play_screenshot.py [OUT.png]   (needs Debian's chromium and Playwright)
"""

from __future__ import annotations

import sys
import tempfile
import threading
from pathlib import Path

from PIL import Image
from playwright.sync_api import sync_playwright

from coopgraph.play.serve import serve_episode

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
MESSAGE = "I check the fridges in the kitchen; can you take the bedroom?"


def main(out: Path) -> None:
    listening = threading.Event()
    address: list[str] = []

    def ready(url: str) -> None:
        address.append(url)
        listening.set()

    with tempfile.TemporaryDirectory() as runs:
        server = threading.Thread(target=serve_episode, daemon=True, kwargs={
            "env": "cwah", "episode": "test/0", "team": ["human", "mhp"], "llm": "local", "out": Path(runs),
            "max_steps": 60, "port": 0, "open_browser": False, "say": lambda _: None, "on_ready": ready,
            "ratings_wait_s": 0})
        server.start()
        listening.wait(60)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page(viewport={"width": 1100, "height": 820})
            page.goto(address[0])
            page.wait_for_selector("#options button:not([disabled])")
            for choice in ("[goexplore] <kitchen> (60)", None, "[gocheck] <fridge> (69)"):
                step = page.locator("body").get_attribute("data-step")
                if choice is None:
                    page.fill("#message-text", MESSAGE)
                    page.click("#send")
                else:
                    page.locator("#options button", has_text=choice).first.click()
                page.wait_for_function(f"() => document.body.dataset.step !== '{step}' && "
                                       "!document.querySelector('#options button').disabled")
            page.evaluate("window.scrollTo(0, 0)")
            page.screenshot(path=str(out))
            browser.close()
    Image.open(out).quantize(colors=48).save(out, optimize=True)  # a small file for the README (< 150 KB)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/img/play-cwah.png"))
