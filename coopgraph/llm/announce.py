"""Saying on the terminal what a model server is doing to the run, one line each time, as Python warnings.

A warning (`ModelServerWarning`) reaches stderr from the command line (which prints it as its own one-line
`warning:`), from a notebook and from a test runner alike, and a caller who wants quiet can filter it. Repeated
news (every 429) is said at most once per `every_s` seconds, with how many went unsaid in between.
"""

from __future__ import annotations

import threading
import time
import warnings
from collections.abc import Callable
from urllib.parse import urlsplit, urlunsplit


class ModelServerWarning(UserWarning):
    """A model server times out, cannot be reached, rate-limits the run, or its circuit opens or closes."""


def public_url(base_url: str) -> str:
    """The server's address without user, password, query or fragment, so no key or token reaches the terminal."""
    parts = urlsplit(base_url)
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def warn(message: str) -> None:
    """One warning, shown every time it is said (not once per place, as Python's default would)."""
    warnings.warn_explicit(message, ModelServerWarning, __file__, 0, module=__name__, registry=None)


class Announcer:
    """The announcements about one server: some said once per run, some at most once per `every_s` seconds.
    A `quiet` one says nothing (the fakes of unit tests)."""

    def __init__(self, server: str, *, every_s: float = 30.0, clock: Callable[[], float] = time.monotonic,
                 quiet: bool = False) -> None:
        self.server = server
        self.every_s = every_s
        self.quiet = quiet
        self.clock = clock
        self._said: set[str] = set()
        self._last: dict[str, float] = {}
        self._unsaid: dict[str, int] = {}
        self._lock = threading.Lock()

    def say(self, message: str) -> None:
        if not self.quiet:
            warn(message)

    def once(self, key: str, message: str) -> None:
        """Say `message` the first time `key` comes up, and never again for this server."""
        with self._lock:
            if key in self._said:
                return
            self._said.add(key)
        self.say(message)

    def seldom(self, key: str, message: str) -> None:
        """Say `message` unless news of the same `key` was said less than `every_s` seconds ago."""
        with self._lock:
            now = self.clock()
            last = self._last.get(key)
            if last is not None and now - last < self.every_s:
                self._unsaid[key] = self._unsaid.get(key, 0) + 1
                return
            self._last[key] = now
            unsaid = self._unsaid.pop(key, 0)
        self.say(message + (f" ({unsaid} more like it since the last notice)" if unsaid else ""))
