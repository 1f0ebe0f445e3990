"""LLM settings from one string, so every command and suite names a model the same way.

`local` (default) and `local-tiny` run the embedded model behind coopgraph's own llama.cpp
server; `openai:MODEL`, `vllm:MODEL` and `llamacpp:MODEL` talk to an OpenAI-compatible server
whose base URL and key come from the environment (OPENAI_BASE_URL, OPENAI_API_KEY), never
from files or traces. Which backend a string names, and what its settings hold, is the registered
backend's to say (`coopgraph.llm.backends`).
"""

from __future__ import annotations

import os
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr


class LLMSettingError(ValueError):
    """The LLM setting string does not name a known profile or backend, or its backend cannot be used here."""


class LLMSettings(BaseModel):
    """A resolved LLM setting; `public()` is what traces and manifests may record."""

    model_config = ConfigDict(extra="forbid")

    setting: str
    kind: str = Field(description="the registered backend that reaches the model (`local`, `openai`, `vllm`...)")
    model: str
    backend: str = Field(description="the registered backend whose words its requests use, as traces record it "
                         "(`llamacpp` for the embedded model)")
    base_url: str | None = None
    api_key: SecretStr | None = None
    temperature: float = 0.0
    seed: int = 0
    timeout_s: float = Field(default=120.0, gt=0, description="longest wait for one request to the server")
    max_retries: int = Field(
        default=2, ge=0, le=10, description="retries of one request after a time-out, a dropped connection, a 429, a "
        "5xx or an unreadable reply, with exponential backoff and jitter (a 429 waits what its Retry-After asks)")
    retry_wait_s: float = Field(
        default=0.5, ge=0, description="the first retry waits a random time up to this; the window doubles with "
        "each retry of the same call")
    retry_max_wait_s: float = Field(
        default=20.0, ge=0, description="the longest wait before one retry; a 429 asking for longer fails the call "
        "at once")
    decision_deadline_s: float = Field(
        default=300.0, gt=0, description="a node starts no new attempt at one decision after this long, and no "
        "retry waits past it; it then takes its declared fallback")
    max_failures: int = Field(
        default=2, ge=1, le=100, description="requests in a row that timed out or found no server before the "
        "server's circuit opens: calls then fail at once (counted) and nodes take their fallbacks without waiting")
    circuit_cooldown_s: float = Field(
        default=30.0, gt=0, description="how long an open circuit fails calls at once before one probe request; an "
        "answer closes it, a failed probe opens it again for twice as long")
    circuit_max_cooldown_s: float = Field(
        default=600.0, gt=0, description="the longest an open circuit waits between two probes")
    n_ctx: int = 4096
    threads: int = Field(default_factory=lambda: os.cpu_count() or 2)
    spin_count: int = Field(
        default=1000, ge=0, description="embedded model: how long llama.cpp's threads spin at a barrier before they "
        "sleep (GOMP_SPINCOUNT). Short, so a server that loses CPU to another process slows in proportion instead "
        "of spinning on a core that the thread it waits for needs")
    slots: int = Field(
        default=2, ge=1, le=8, description="embedded model: server processes on the same memory-mapped weights, "
        "each keeping its own cached prompt prefix; member i of a team asks server i mod slots, one at a time")
    reasoning_chars_max: int | None = Field(
        default=None, description="cap on choice nodes' reasoning line (a distilled model answers at once)")
    drafts_messages: bool = Field(
        default=True, description="False: message-drafting nodes write nothing (a planner-only distilled model)")
    lazy_grammar: bool = Field(
        default=True, description="at temperature 0 on llama.cpp, ask answer-only choices without the grammar first")
    answer_format: Literal["letter", "text"] | None = Field(
        default=None, description="choice nodes answer this way whatever their params say (what it was taught)")

    def public(self) -> dict[str, object]:
        data = self.model_dump(exclude={"api_key"})
        data["api_key"] = "***" if self.api_key else None
        return data


# How long to wait for a model and how often to try, from the environment (a run against a slow server).
PATIENCE_ENV = {"timeout_s": "COOPGRAPH_LLM_TIMEOUT_S", "max_retries": "COOPGRAPH_LLM_MAX_RETRIES",
                "retry_wait_s": "COOPGRAPH_LLM_RETRY_WAIT_S", "retry_max_wait_s": "COOPGRAPH_LLM_RETRY_MAX_WAIT_S",
                "decision_deadline_s": "COOPGRAPH_LLM_DECISION_DEADLINE_S",
                "max_failures": "COOPGRAPH_LLM_MAX_FAILURES",
                "circuit_cooldown_s": "COOPGRAPH_LLM_CIRCUIT_COOLDOWN_S",
                "circuit_max_cooldown_s": "COOPGRAPH_LLM_CIRCUIT_MAX_COOLDOWN_S"}


def parse_setting(setting: str | None = None, **overrides: Any) -> LLMSettings:
    """Resolve `local`, `local-tiny`, `openai:gpt-4o-mini`, `vllm:Qwen/Qwen2.5-7B-Instruct`, ...

    The waiting knobs (`timeout_s`, `max_retries`, `retry_wait_s`, `retry_max_wait_s`, `decision_deadline_s`,
    `max_failures`, `circuit_cooldown_s`, `circuit_max_cooldown_s`) may also come from `COOPGRAPH_LLM_TIMEOUT_S`
    and its siblings (`PATIENCE_ENV`); explicit overrides win.

    `overrides` are typed `Any` on purpose: they may be any `LLMSettings` field, and an environment value is a
    string for a numeric field, so it is `LLMSettings` (pydantic) that checks and converts each one."""
    setting = (setting or os.environ.get("COOPGRAPH_LLM") or "local").strip()
    for field_name, variable in PATIENCE_ENV.items():
        if os.environ.get(variable):
            overrides.setdefault(field_name, os.environ[variable])
    from coopgraph.llm.backends.registry import backend_for_setting, setting_forms

    found = backend_for_setting(setting)
    if found is None:
        prefix, colon, _ = setting.partition(":")
        unknown = f" (no backend {prefix!r} is registered)" if colon else ""
        raise LLMSettingError(f"unknown LLM setting {setting!r}{unknown}; use one of: {', '.join(setting_forms())}")
    backend, model = found
    return backend.settings_for(setting, model, overrides)
