"""The exceptions a chat model raises for each fault, built as openai and httpx build them (for unit tests)."""

from __future__ import annotations

import httpx
import openai

URL = "http://127.0.0.1:9/v1/chat/completions"


def status_error(status: int, headers: dict[str, str] | None = None) -> openai.APIStatusError:
    request = httpx.Request("POST", URL)
    response = httpx.Response(status, headers=headers or {}, request=request)
    kinds: dict[int, type[openai.APIStatusError]] = {429: openai.RateLimitError, 500: openai.InternalServerError,
                                                     400: openai.BadRequestError, 401: openai.AuthenticationError}
    return kinds.get(status, openai.APIStatusError)(f"Error code: {status}", response=response, body=None)


def timed_out() -> openai.APITimeoutError:
    error = openai.APITimeoutError(request=httpx.Request("POST", URL))
    error.__cause__ = httpx.ReadTimeout("timed out")
    return error


def refused() -> openai.APIConnectionError:
    error = openai.APIConnectionError(request=httpx.Request("POST", URL))
    error.__cause__ = httpx.ConnectError("[Errno 111] Connection refused")
    return error


def dropped() -> openai.APIConnectionError:
    error = openai.APIConnectionError(request=httpx.Request("POST", URL))
    error.__cause__ = httpx.RemoteProtocolError("Server disconnected without sending a response.")
    return error
