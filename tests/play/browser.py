"""Shared by the browser tests: Debian's Chromium through Playwright (skipped with the reason when absent, failed
under CI=true, where CI installs both), and a played episode served in a thread."""

from __future__ import annotations

import threading
from functools import partial
from pathlib import Path
from typing import Any

from coopgraph.evals.study_sessions import play_study
from coopgraph.play.serve import serve_episode
from tests.browser import ARGS, CHROMIUM, browser_or_skip  # noqa: F401 - the browser tests import them from here


class Served:
    """An episode served on a free port in a background thread (a study's next session when `study` names a suite
    file); `address` once it listens, `result` at the end."""

    def __init__(self, out: Path, ratings_wait_s: float = 60, study: str | None = None,
                 participant: str | None = None, **options: Any) -> None:
        self.ready = threading.Event()
        self.address = ""
        self.result: dict[str, Any] | None = None
        self.error: BaseException | None = None

        def listening(address: str) -> None:
            self.address = address
            self.ready.set()

        def run() -> None:
            serve = partial(serve_episode, port=0, open_browser=False, say=lambda _: None, on_ready=listening,
                            ratings_wait_s=ratings_wait_s)
            try:
                if study is not None:
                    self.result = play_study(study, participant or "P1", out, serve, say=lambda _: None)
                else:
                    self.result = serve(out=out, **options)
            except BaseException as exc:  # noqa: BLE001 - handed to the test thread
                self.error = exc
                self.ready.set()

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        assert self.ready.wait(60) and self.error is None, self.error

    def join(self, timeout: float = 60) -> dict[str, Any]:
        self.thread.join(timeout)
        if self.error is not None:
            raise self.error
        assert self.result is not None, "the served episode did not end"
        return self.result


def launch(playwright: Any) -> Any:
    return playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)

