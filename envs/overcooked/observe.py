"""Turns the gridworld's state into each cook's typed observation (the kitchen is fully observable)."""

from __future__ import annotations

from typing import Any

from coopgraph.envs.overcooked.mdp import COOK_TICKS, KitchenGridworld, KitchenState
from coopgraph.envs.overcooked.observation import (
    FACING,
    HELD_WORDS,
    CookView,
    CounterView,
    GateView,
    Held,
    OvercookedObservation,
    PotView,
)

GOAL_TEXT = ("Cook onion soups (three onions each: the third onion starts the pot, the soup is ready 20 ticks later), "
             "put each on a plate and deliver it; every soup served scores 20 points.")


def held(player: Any) -> Held | None:
    """What a player holds, in LLM-Co's words."""
    return HELD_WORDS.get(player.held_object.name) if player.held_object is not None else None


def pots(mdp: KitchenGridworld, state: KitchenState) -> list[PotView]:
    views = []
    for cell in mdp.kitchen.places["c"]:
        soup = state.objects.get(cell)
        if soup is None:
            views.append(PotView(position=cell))
            continue
        ticks = max(soup._cooking_tick, 0)  # the package keeps the tick private; read-only here
        views.append(PotView(position=cell, onions=len(soup.ingredients), cooking=soup.is_cooking,
                             ready=soup.is_ready, cook_ticks=ticks,
                             ticks_left=max(COOK_TICKS - ticks, 0) if soup.is_cooking else 0))
    return views


def observe(mdp: KitchenGridworld, state: KitchenState, agent_id: str, agents: list[str], names: dict[str, str],
            **core: Any) -> OvercookedObservation:
    """Agent `agent_id`'s observation; `core` carries the protocol fields (time, horizon, messages, last action)."""
    players = dict(zip(agents, state.players, strict=True))
    me = players[agent_id]
    kitchen = mdp.kitchen
    counters = [CounterView(position=cell, item=HELD_WORDS[obj.name]) for cell, obj in sorted(state.objects.items())
                if kitchen.terrain_at(cell) == "X" and obj.name in HELD_WORDS]
    return OvercookedObservation(
        agent_id=agent_id, agent_name=names[agent_id], layout=kitchen.layout, grid=kitchen.terrain,
        position=me.position, facing=FACING[me.orientation], holding=held(me),
        partners=[CookView(agent_id=a, name=names[a], position=p.position, facing=FACING[p.orientation],
                           holding=held(p)) for a, p in players.items() if a != agent_id],
        pots=pots(mdp, state), counters=counters,
        gates=[GateView(position=cell, open=state.gates.get(cell) is not None, timer=state.gates.get(cell) or 0)
               for cell in kitchen.places["g"]],
        goal_text=GOAL_TEXT, **core)
