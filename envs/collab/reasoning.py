"""Reasoning questions from the games' states, in the columns of LLM-Co's reasoning set (EC, JP, TOM per row).

`reasoning_rows(seed, n)` plays both games from their starts with random legal moves (seeded) and, at `n` states
where the game is still on, asks the three kinds of question LLM-Co asks, with answers computed by the rules and the
planners: EC (environment comprehension: whether the thief can be reached through open doors, how many moves away
it is; whether my room is safe from the killer this turn, how many fixes a generator still needs), TOM (what my
partner will do under the planner's convention, or where the thief goes if we both stay, or where a hunting killer
goes) and JP (my best action: every action that starts a shortest capture, or the Escape planner's). Options are
`A. ...` lines; an ordinal lists every accepted letter (`A,C`).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from coopgraph.envs.collab import capture, capture_plan, escape, escape_plan
from coopgraph.envs.collab.capture import CaptureMove, CaptureState
from coopgraph.envs.collab.episodes import CAPTURE_STARTS, ESCAPE_START, capture_episode
from coopgraph.envs.collab.escape import EscapeMove, EscapeState, KillerPlan
from coopgraph.envs.collab.maps import (
    CAPTURE_BUTTONS,
    CAPTURE_ROOMS,
    ESCAPE_CODED,
    EXIT_ROOM,
    FIXES_NEEDED,
    GENERATOR_ROOMS,
    Adjacency,
)

COLUMNS: tuple[str, ...] = ("EC Question", "EC Answer", "EC Answer Ordinal", "JP Question", "JP Answer",
                            "JP Answer Ordinal", "TOM Question", "TOM Answer", "TOM Answer Ordinal",
                            "Game Description", "Scenario", "Tags", "JP Directive", "TOM Directive", "EC Directive",
                            "State", "State Description", "Game", "Map", "Concept")
NAMES = ("Alice", "Bob")
GAME = "CollabGames"
JP_DIRECTIVE = ("Help me ({me}) choose my next action. Reply in this form:\nAnalysis: <why this action is best>\n"
                "Action: <the action you choose from the list>\nSay nothing else. Understood?")
TOM_DIRECTIVE = ("I will give you the current state. Help me guess what will be done next, choosing from the "
                 "list. Reply in this form: Explanation: <why> Action: <the action you choose from the list>\n"
                 "Say nothing else. Understood?")
EC_DIRECTIVE = ("I will give you the current state, a question about the environment and the possible answers. "
                "Help me answer it. Reply in this form: Explanation: <why> Answer: <one answer from the list>. "
                "Say nothing else. Understood?")
Question = tuple[str, list[str], list[int], str]  # question, options, accepted indexes, concept


def _links(rooms: Adjacency, verb: str) -> str:
    return "\n".join(f"- Room {room} {verb} room{'s' if len(links) > 1 else ''} {', '.join(map(str, links))}."
                     for room, links in rooms.items())


def capture_description(me: str, partner: str) -> str:
    """Collab Capture's rules and map, as a reasoning row's Game Description."""
    doors = " ".join(f"The link between room {a} and room {b} has a door; the button in room {button} toggles it."
                     for (a, b), button in CAPTURE_BUTTONS.items())
    return (f"I ({me}) am playing Collab Capture with {partner}. We want to catch a thief in as few turns as "
            f"possible. The map:\n{_links(CAPTURE_ROOMS, 'links to')}\n{doors} Every link takes one turn and nobody "
            "passes a closed door; a button is pressed by someone standing in its room. Each turn the two of us and "
            "the thief act at the same time; the thief runs as far as it can from whichever of us is nearer. It is "
            "caught when it ends a turn in one of our rooms, or when it swaps rooms with one of us.")


def escape_description(me: str, partner: str) -> str:
    """Collab Escape's rules and map (as the reference code links it), as a reasoning row's Game Description."""
    return (f"I ({me}) am playing Collab Escape with {partner}. We must repair the generators in rooms "
            f"{GENERATOR_ROOMS[0]} and {GENERATOR_ROOMS[1]}, then one of us must reach the exit in room {EXIT_ROOM}. "
            f"The rooms:\n{_links(ESCAPE_CODED, 'leads to')}\nA generator is repaired by {FIXES_NEEDED} fixes on "
            "consecutive turns (a turn without a fix undoes them), or at once when both of us fix it together. A "
            "killer goes after anyone in a room next to its own, otherwise it wanders; ending a turn in its room "
            "loses the game.")


def _capture_text(state: CaptureState, me: int) -> str:
    doors = " ".join(f"The door between room {a} and room {b} is {'open' if is_open else 'closed'}."
                     for (a, b), is_open in state.doors)
    return (f"I ({NAMES[me]}) am in room {state.players[me]}. {NAMES[1 - me]} is in room {state.players[1 - me]}. "
            f"The thief is in room {state.thief}. {doors}")


def _capture_phrase(state: CaptureState, index: int, move: CaptureMove) -> str:
    if move.kind == "move":
        return f"Move to room {move.room}"
    if move.kind == "press":
        return f"Press button in room {state.players[index]}"
    return "Stay in current room"


def _turns_after(state: CaptureState, joint: capture_plan.JointMove) -> int:
    after, caught = capture.step(state, joint)
    if caught:
        return 1
    rest = capture_plan.turns_to_capture(after)
    return 1 + rest if rest is not None else 99


def _capture_questions(state: CaptureState, me: int, rng: random.Random) -> tuple[Question, Question, Question]:
    apart = capture.moves_apart(state, state.players[me], state.thief)
    if rng.random() < 0.5:
        ec: Question = ("Can I reach the thief's room from mine through the open doors?", ["No", "Yes"],
                        [int(apart != float("inf"))], "reachability through doors")
    else:
        answers = ["1", "2", "3", "4 or more", "It cannot be reached now"]
        index = 4 if apart == float("inf") else min(int(apart), 4) - 1
        ec = ("How many moves am I from the thief's room through the open doors?", answers, [max(index, 0)],
              "distance through doors")
    joints = capture_plan.joint_moves(state)
    costs = {joint: _turns_after(state, joint) for joint in joints}
    best = min(costs.values())
    mine, partners = capture_plan.options(state, me), capture_plan.options(state, 1 - me)
    jp_ok = [i for i, m in enumerate(mine) if any(costs[j] == best for j in joints if j[me] == m)]
    jp: Question = ("What action should I take next?", [_capture_phrase(state, me, m) for m in mine], jp_ok,
                    "shortest capture")
    if rng.random() < 0.5:
        tom_ok = [i for i, m in enumerate(partners) if any(costs[j] == best for j in joints if j[1 - me] == m)]
        tom: Question = ("What action does my partner intend to take?",
                         [_capture_phrase(state, 1 - me, m) for m in partners], tom_ok, "partner's plan")
    else:
        rooms = [state.thief, *capture.accessible(state, state.thief)]
        goes = capture.thief_plan(state, state.players)
        tom = ("If we both stay where we are, where will the thief be after this turn?",
               [f"Room {r}" for r in rooms], [rooms.index(goes)], "the thief's flight")
    return ec, jp, tom


def _escape_text(state: EscapeState, plan: KillerPlan, me: int) -> str:
    parts = [f"I ({NAMES[me]}) am in room {state.players[me]}."]
    if state.fixing[me] and state.players[me] in GENERATOR_ROOMS:
        parts.append("I was fixing the generator here last turn.")
    parts.append(f"{NAMES[1 - me]} is in room {state.players[1 - me]}.")
    if state.fixing[1 - me]:
        parts.append(f"{NAMES[1 - me]} was fixing a generator last turn.")
    parts.append(escape.killer_words(state, plan))
    for room, fixes in state.fixes:
        left = max(FIXES_NEEDED - fixes, 0)
        parts.append(f"The generator in room {room} is repaired." if left == 0 else
                     f"The generator in room {room} needs {left} more fix{'es' if left > 1 else ''}.")
    parts.append(f"The exit is {'open' if state.exit_open else 'closed'}.")
    return " ".join(parts)


def _escape_options(state: EscapeState, graph: Adjacency, index: int) -> list[EscapeMove]:
    here = state.players[index]
    moves = [EscapeMove("move", room) for room in graph[here]]
    if here in GENERATOR_ROOMS and not state.repaired(here):
        moves.append(EscapeMove("fix", here))
    return [*moves, EscapeMove()]


def _escape_phrase(move: EscapeMove) -> str:
    return {"move": f"move to room {move.room}", "fix": f"fix generator in room {move.room}"}.get(move.kind, "wait")


def _escape_questions(state: EscapeState, plan: KillerPlan, me: int,
                      rng: random.Random) -> tuple[Question, Question, Question]:
    graph, here = ESCAPE_CODED, state.players[me]
    if rng.random() < 0.5 or here not in GENERATOR_ROOMS:
        safe = here not in escape_plan.danger(state, graph, plan)
        ec: Question = ("Is my room safe from the killer if I stay this turn?", ["Yes", "No"], [0 if safe else 1],
                        "killer's reach")
    else:
        left = max(FIXES_NEEDED - state.generator_fixes[here], 0)
        ec = ("How many more fixes does the generator in my room need?", ["0", "1", "2"], [left],
              "generator repair")
    mine = _escape_options(state, graph, me)
    best = escape_plan.best_move(state, graph, me, plan)
    jp: Question = ("What action should I take next?", [_escape_phrase(m) for m in mine], [mine.index(best)],
                    "planner's move")
    if plan.chasing is not None and rng.random() < 0.5:
        rooms = sorted(set(graph[state.killer]) | {plan.room})
        tom: Question = ("Which room will the killer move to this turn?", [f"Room {r}" for r in rooms],
                         [rooms.index(plan.room)], "the killer's hunt")
    else:
        partners = _escape_options(state, graph, 1 - me)
        guess = escape_plan.best_move(state, graph, 1 - me, plan)
        tom = ("What action does my partner intend to take?", [_escape_phrase(m) for m in partners],
               [partners.index(guess)], "partner's plan")
    return ec, jp, tom


def _listed(state_text: str, question: Question, head: str) -> tuple[str, str, str]:
    text, options, accepted, _ = question
    lines = "\n".join(f"{chr(ord('A') + i)}. {option}" for i, option in enumerate(options))
    letters = ",".join(chr(ord("A") + i) for i in accepted)
    return f"{state_text}\n\n{text}\n{head}\n{lines}", options[accepted[0]], letters


def _row(state_text: str, listing: str, questions: tuple[Question, Question, Question], description: str, me: str,
         scenario: str, game_map: str) -> dict[str, str]:
    ec, jp, tom = questions
    row = dict.fromkeys(COLUMNS, "")
    for kind, question, head in (("EC", ec, "Available Answers:"), ("JP", jp, "Available Actions:"),
                                 ("TOM", tom, "Available Actions:")):
        row[f"{kind} Question"], row[f"{kind} Answer"], row[f"{kind} Answer Ordinal"] = _listed(state_text, question,
                                                                                                 head)
    row.update({"Game Description": description, "Scenario": scenario, "Tags": "generated",
                "JP Directive": JP_DIRECTIVE.format(me=me), "TOM Directive": TOM_DIRECTIVE,
                "EC Directive": EC_DIRECTIVE,
                "State": state_text, "State Description": f"{state_text}\n{listing}", "Game": GAME, "Map": game_map,
                "Concept": f"EC: {ec[3]}; JP: {jp[3]}; TOM: {tom[3]}"})
    return row


def _capture_row(rng: random.Random) -> dict[str, str] | None:
    episode = rng.randrange(len(CAPTURE_STARTS))
    _, state = capture_episode(f"test/{episode}")
    turns = rng.randrange(6)
    for _ in range(turns):
        joint = (rng.choice(capture_plan.options(state, 0)), rng.choice(capture_plan.options(state, 1)))
        state, caught = capture.step(state, joint)
        if caught:
            return None
    me = rng.randrange(2)
    text = _capture_text(state, me)
    listing = "Available actions: [" + ", ".join(_capture_phrase(state, me, m)
                                                  for m in capture_plan.options(state, me)) + "]"
    return _row(text, listing, _capture_questions(state, me, rng), capture_description(NAMES[me], NAMES[1 - me]),
                NAMES[me], f"collab-capture test/{episode}, turn {turns}", "Collab Capture")


def _escape_row(rng: random.Random) -> dict[str, str] | None:
    graph, killer = ESCAPE_CODED, random.Random(rng.random())
    alice, bob, start = ESCAPE_START
    state, turns = EscapeState((alice, bob), start), rng.randrange(8)
    plan = escape.killer_plan(state, graph, killer)
    for _ in range(turns):
        joint = (rng.choice(_escape_options(state, graph, 0)), rng.choice(_escape_options(state, graph, 1)))
        state, outcome = escape.step(state, graph, plan, joint)
        if outcome != "playing":
            return None
        plan = escape.killer_plan(state, graph, killer)
    me = rng.randrange(2)
    text = _escape_text(state, plan, me)
    listing = "Available actions: [" + ", ".join(_escape_phrase(m) for m in _escape_options(state, graph, me)) + "]"
    return _row(text, listing, _escape_questions(state, plan, me, rng), escape_description(NAMES[me], NAMES[1 - me]),
                NAMES[me], f"collab-escape, turn {turns}", "Collab Escape")


def reasoning_rows(seed: int, n: int) -> list[dict[str, str]]:
    """`n` rows (Capture and Escape in turn) in the columns of LLM-Co's reasoning set, from seeded random play.

    Each game has one map, so rows cannot be held out by map as the other worlds' are: every third pair of rows
    (one per game) is `test` in the `Split` column, the rest `train`."""
    rng = random.Random(seed)
    makers: tuple[Callable[[random.Random], dict[str, str] | None], ...] = (_capture_row, _escape_row)
    rows: list[dict[str, str]] = []
    while len(rows) < n:
        row = makers[len(rows) % 2](rng)
        if row is not None:
            rows.append(row | {"Split": "test" if len(rows) // 2 % 3 == 2 else "train"})
    return rows
