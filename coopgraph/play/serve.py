"""Serving one played episode: the web app on uvicorn in a thread, the episode in the caller's thread, the ratings.

The address is printed (with the token when the host is not 127.0.0.1) and opened in a browser where there is one.
After the episode the page asks CoELA's questions; the answers are appended to the run's trace.
"""

from __future__ import annotations

import contextlib
import secrets
import signal
import socket
import threading
import time
import webbrowser
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import uvicorn

from coopgraph.envs.protocol import World
from coopgraph.play.known_map import house_layout
from coopgraph.play.ratings import Ratings, store_ratings
from coopgraph.play.session import human_agent, play_episode
from coopgraph.play.turn import MOVES
from coopgraph.play.web import LOCAL, make_app
from coopgraph.play.web_seat import WebSeat

if TYPE_CHECKING:
    from pettingzoo import ParallelEnv


def _context(world: ParallelEnv, env: str, episode: str, team: list[str]) -> dict[str, Any]:
    """What the page shows beside the turns: the world, episode, agents; a grid world's layout or a house's rooms
    and doors (each fixed and known to every agent, so they give nothing away; objects come with each turn, from
    the agent's belief). Not the team: in a study the partner condition stays hidden. Read off the world the episode
    is then played in."""
    agents = list(world.possible_agents)
    layout = world.layout() if isinstance(world, World) else None
    return {"env": env, "episode": episode, "agents": agents, "agent": human_agent(team, agents),
            "layout": house_layout(layout),
            "moves": MOVES.get(env, {})}


def _stop(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _leave_on_sigterm() -> Any:
    """In the main thread, make SIGTERM leave like Ctrl-C (the trace is then marked abandoned); the old handler."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, _stop)


def serve_episode(env: str, episode: str, team: list[str], llm: Any, out: Path, *,
                  env_options: dict[str, Any] | None = None, max_steps: int | None = None, seed: int = 0,
                  step_limit_s: float | None = None, show_plans: bool = False, host: str = LOCAL, port: int = 8765,
                  open_browser: bool = True, say: Callable[[str], None] = print, participant: str | None = None,
                  ratings_wait_s: float | None = None, on_ready: Callable[[str], None] | None = None,
                  trace_name: str | None = None, world: ParallelEnv | None = None) -> dict[str, Any]:
    """Serve the page, play the episode through it, wait for the ratings (`ratings_wait_s`, None: until given
    or Ctrl-C), store them with the run and return the result (with `ratings`, or None when none were given).
    One world, built here unless the caller built it (`world`), gives the page its context and is played in."""
    from coopgraph import envs

    options = env_options or {}
    if world is None:
        world = envs.make(env, episode=episode, num_agents=len(team), **options)
    try:  # until the episode takes the world over, a failure here closes it
        context = _context(world, env, episode, team)
    except BaseException:
        world.close()
        raise
    seat = WebSeat()
    token = None if host == LOCAL else secrets.token_urlsafe(16)
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        world.close()
        raise ValueError(f"--host {host} --port {port}: cannot listen there ({exc.strerror}); try another --port "
                         "(0 picks a free one)") from None
    bound = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(make_app(seat, token=token, context=context), log_level="warning",
                                           timeout_graceful_shutdown=1, lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started and thread.is_alive():
        time.sleep(0.02)
    shown = "localhost" if host == LOCAL else host
    address = f"http://{shown}:{bound}/" + (f"?token={token}" if token else "")
    say(f"play {context['agent']} at {address}" + ("  (the token is required on every request)" if token else ""))
    if on_ready is not None:
        on_ready(address)
    if open_browser:
        webbrowser.open(address)
    previous = _leave_on_sigterm()
    try:
        result = play_episode(env, episode, team, llm, seat, out, env_options=options, max_steps=max_steps,
                              seed=seed, step_limit_s=step_limit_s, show_plans=show_plans, trace_name=trace_name,
                              world=world)
        say("the episode has ended; the page asks two questions about your partner (Ctrl-C to skip)")
        with contextlib.suppress(KeyboardInterrupt):
            seat.rated.wait(timeout=ratings_wait_s)
        result["ratings"] = seat.ratings
        if seat.ratings is not None:
            store_ratings(result["trace_path"], Ratings.model_validate(seat.ratings), context["agent"], participant)
        return result
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
        seat.close()
        server.should_exit = True
        thread.join(timeout=5)
