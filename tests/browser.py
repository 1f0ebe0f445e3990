"""Debian's Chromium through Playwright for the browser tests: skipped with the reason when either is absent, failed
under CI=true, where CI installs both (Playwright's own browser download cannot work offline)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("COOPGRAPH_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def browser_or_skip() -> Any:
    missing = []
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing.append("the playwright package (pip install playwright)")
        sync_playwright = None
    if not (Path(CHROMIUM).is_file() or shutil.which(CHROMIUM)):
        missing.append(f"chromium at {CHROMIUM} (apt-get install -y chromium)")
    if missing:
        reason = "browser test needs " + " and ".join(missing)
        if os.environ.get("CI") == "true":
            pytest.fail(reason + " — CI must install them")
        pytest.skip(reason)
    return sync_playwright
