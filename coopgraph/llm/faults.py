"""What went wrong with one request to a model server, read from the exception the chat model raised.

A dead server and a bad minute look different here: a time-out or a refused connection costs the caller its wait
and says nobody is answering (`UNREACHABLE`, what opens the circuit), while a dropped connection, a 429, a 5xx or
an unreadable body come back quickly from a server that is there (worth a retry, never a reason to stop asking).
Anything else (a 400, a wrong key, a bug) is not retried.
"""

from __future__ import annotations

import email.utils
import math
import time
from collections.abc import Iterator
from typing import Literal

import httpx
import openai

FaultKind = Literal["timeout", "no_server", "dropped", "rate_limited", "server_error", "malformed"]
#: The faults that mean nobody answered: they cost a time-out or found no server, and open the circuit.
UNREACHABLE: frozenset[FaultKind] = frozenset({"timeout", "no_server"})
_RETRIED_STATUS = {408, 409}


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """The exception and those it was raised from (LangChain wraps openai's, which wraps httpx's)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def fault_kind(exc: BaseException) -> FaultKind | None:
    """The kind of transient fault `exc` is, or None when asking again would not help."""
    for link in _chain(exc):
        if isinstance(link, openai.APITimeoutError | httpx.TimeoutException | TimeoutError):
            return "timeout"
        if isinstance(link, httpx.ConnectError | ConnectionRefusedError):
            return "no_server"
    if isinstance(exc, openai.APIConnectionError | ConnectionError | httpx.TransportError):
        return "dropped"
    status = _status(exc)
    if status is not None:
        if status == 429:
            return "rate_limited"
        return "server_error" if status >= 500 or status in _RETRIED_STATUS else None
    if isinstance(exc, openai.APIResponseValidationError | ValueError):
        return "malformed"  # a body that is not JSON, is empty, or is not a chat completion
    return None


def _status(exc: BaseException) -> int | None:
    """The HTTP status an error reports: openai's `APIStatusError`, or any provider's error that carries a
    `status_code` (Anthropic's, Ollama's `ResponseError`, httpx's `HTTPStatusError` through its response)."""
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code
    status = getattr(exc, "status_code", None)
    if status is None and isinstance(exc, httpx.HTTPStatusError):
        status = exc.response.status_code
    return status if isinstance(status, int) and status >= 400 else None


def retry_after_s(exc: BaseException, now: float | None = None) -> float | None:
    """How long a 429 (or 503) asks the caller to wait: `retry-after-ms`, else `Retry-After` in seconds or as an
    HTTP date; None when it says nothing readable."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            return _finite(float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return _finite(float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def _finite(seconds: float) -> float | None:
    return max(0.0, seconds) if math.isfinite(seconds) else None
