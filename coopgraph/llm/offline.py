"""Keep every library off the network at run time; a module of its own so the CLI can call it at start-up
without importing the LLM stack (langchain-openai, dspy), which the commands that need no model never use."""

from __future__ import annotations

import os
from pathlib import Path

OFFLINE_ENV = {"ANONYMIZED_TELEMETRY": "False", "LITELLM_LOCAL_MODEL_COST_MAP": "True", "HF_HUB_OFFLINE": "1",
               "DSPY_CACHEDIR": str(Path.home() / ".cache" / "coopgraph" / "dspy")}


def apply_offline_env() -> None:
    """Make every library stay off the network at run time (telemetry, cost maps, hubs)."""
    for key, value in OFFLINE_ENV.items():
        os.environ.setdefault(key, value)
