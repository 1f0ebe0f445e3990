"""Reading a failed request: which faults are worth a retry, which mean nobody answered, and what a 429 asks."""

from __future__ import annotations

import json

import pytest

from coopgraph.llm.circuit import ModelUnavailable
from coopgraph.llm.faults import UNREACHABLE, fault_kind, retry_after_s
from tests.llm.faults_made import dropped, refused, status_error, timed_out


@pytest.mark.parametrize(("error", "kind"), [
    (timed_out(), "timeout"),
    (TimeoutError("slow"), "timeout"),
    (refused(), "no_server"),
    (ConnectionRefusedError(111, "refused"), "no_server"),
    (dropped(), "dropped"),
    (ConnectionResetError(104, "reset"), "dropped"),
    (status_error(429), "rate_limited"),
    (status_error(500), "server_error"),
    (status_error(503), "server_error"),
    (json.JSONDecodeError("Expecting value", "", 0), "malformed"),
    (ValueError("Unexpected response type from OpenAI-compatible endpoint"), "malformed"),
])
def test_transient_faults_are_named(error: BaseException, kind: str) -> None:
    assert fault_kind(error) == kind


@pytest.mark.parametrize("error", [status_error(400), status_error(401), ModelUnavailable("circuit open"),
                                   KeyError("x"), RuntimeError("bug")])
def test_what_a_retry_cannot_fix_is_not_a_transient_fault(error: BaseException) -> None:
    assert fault_kind(error) is None


def test_only_time_outs_and_missing_servers_mean_nobody_answered() -> None:
    assert {"timeout", "no_server"} == UNREACHABLE


def test_a_wrapped_time_out_is_found_through_its_causes() -> None:
    outer = RuntimeError("the chat model failed")
    outer.__cause__ = timed_out()
    assert fault_kind(outer) == "timeout"


def test_retry_after_in_seconds_milliseconds_or_as_a_date() -> None:
    assert retry_after_s(status_error(429, {"retry-after": "3"})) == 3.0
    assert retry_after_s(status_error(429, {"retry-after": "1.5", "retry-after-ms": "250"})) == 0.25
    date = "Wed, 21 Oct 2015 07:28:10 GMT"  # 1445412490 seconds after the epoch
    assert retry_after_s(status_error(429, {"retry-after": date}), now=1445412480.0) == 10.0
    assert retry_after_s(status_error(429, {"retry-after": date}), now=1445412500.0) == 0.0
    assert retry_after_s(status_error(429, {"retry-after": "soon"})) is None
    assert retry_after_s(status_error(429, {"retry-after": "inf"})) is None
    assert retry_after_s(status_error(429)) is None and retry_after_s(TimeoutError()) is None


def test_any_providers_http_status_is_read() -> None:
    from coopgraph.llm.faults import fault_kind

    class ProviderError(Exception):  # as Ollama's ResponseError and Anthropic's errors carry it
        def __init__(self, status_code: int) -> None:
            super().__init__(f"status {status_code}")
            self.status_code = status_code

    assert [fault_kind(ProviderError(s)) for s in (429, 503, 409, 400, 401)] == \
        ["rate_limited", "server_error", "server_error", None, None]
