"""The web front end: a Starlette app on uvicorn, one page for every world, live updates by server-sent events.

The page (static `page.html`, `page.js`, `page.css`; no inline script, a strict Content-Security-Policy) draws
whatever the turn holds: the agent's view, numbered options, the dialogue, key moves where the world has them, and
the grid of a grid world or the house as the agent knows it, with the trace viewer's drawing code (`grid.js`,
`house.js`). Bound to 127.0.0.1 it answers anyone on this machine; bound elsewhere every request must carry the
token printed at start (`?token=` or `X-Play-Token`).
"""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from sse_starlette.sse import EventSourceResponse
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from coopgraph.play.ratings import QUESTIONS, Ratings
from coopgraph.play.turn import Answer
from coopgraph.play.web_seat import WebSeat
from coopgraph.record import viewer

STATIC = Path(__file__).parent / "static"
TRACE_VIEW = Path(viewer.__file__).parent
LOCAL = "127.0.0.1"
_SHARED = ("grid.js", "house.js")
_POLL_S = 0.1
_HEADERS = {"Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; "
            "script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
            "X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"}


class _TokenGate(BaseHTTPMiddleware):
    """Refuse requests without the session token (only when one is required)."""

    def __init__(self, app: Any, token: str | None) -> None:
        super().__init__(app)
        self.token = token

    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        given = request.query_params.get("token") or request.headers.get("x-play-token")
        if self.token is not None and not (given and secrets.compare_digest(given, self.token)):
            return JSONResponse({"error": "this session needs the token printed when it started"}, status_code=403)
        response = await call_next(request)
        response.headers.update(_HEADERS)
        return response


def make_app(seat: WebSeat, *, token: str | None = None, context: dict[str, Any] | None = None) -> Starlette:
    """The app for one seat; `context` (world, episode, team, layout) is served with the state."""
    info = dict(context or {})

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "page.html", media_type="text/html")

    async def asset(request: Request) -> Response:
        name = request.path_params["name"]
        kinds = {"page.js": "text/javascript", "page.css": "text/css", "grid.js": "text/javascript",
                 "house.js": "text/javascript"}
        if name not in kinds:
            return JSONResponse({"error": "not found"}, status_code=404)
        folder = TRACE_VIEW if name in _SHARED else STATIC  # maps are drawn as the trace viewer draws them
        return FileResponse(folder / name, media_type=kinds[name])

    async def state(request: Request) -> Response:
        turn = seat.turn
        return JSONResponse({**info, "turn": turn.model_dump(mode="json") if turn else None, "log": seat.log,
                             "ended": seat.result is not None, "rated": seat.rated.is_set(), "questions": QUESTIONS})

    async def act(request: Request) -> Response:
        try:
            body = await request.json()
            token = str(body.pop("token", ""))
            answer = Answer.model_validate(body)
        except (ValueError, ValidationError) as exc:
            return JSONResponse({"error": f"unreadable answer: {str(exc).splitlines()[0]}"}, status_code=400)
        refused = seat.submit(token, answer)
        if refused is not None:
            status = 409 if "no longer open" in refused else 400
            return JSONResponse({"error": refused}, status_code=status)
        return JSONResponse({"ok": True})

    async def rate(request: Request) -> Response:
        try:
            ratings = Ratings.model_validate(await request.json())
        except (ValueError, ValidationError) as exc:
            return JSONResponse({"error": f"unreadable ratings: {str(exc).splitlines()[0]}"}, status_code=400)
        refused = seat.rate(ratings.model_dump())
        if refused is not None:
            return JSONResponse({"error": refused}, status_code=409)
        return JSONResponse({"ok": True})

    async def events(request: Request) -> Response:
        start = int(request.headers.get("last-event-id") or request.query_params.get("from") or 0)

        async def stream() -> AsyncIterator[dict[str, Any]]:
            sent = max(0, start)
            while True:
                while sent < len(seat.log):
                    entry = seat.log[sent]
                    yield {"id": str(entry["id"]), "event": entry["type"], "data": json.dumps(entry)}
                    sent += 1
                if seat.closed.is_set() or await request.is_disconnected():
                    return
                await asyncio.sleep(_POLL_S)

        return EventSourceResponse(stream(), ping=10)

    routes = [Route("/", page), Route("/static/{name}", asset), Route("/state", state),
              Route("/act", act, methods=["POST"]), Route("/rate", rate, methods=["POST"]), Route("/events", events)]
    return Starlette(routes=routes, middleware=[Middleware(_TokenGate, token=token)])
