"""The terminal front end: numbered options, typed messages, read as plain lines so a script can play.

A line is an option number, `m TEXT` or `say TEXT` (a message), a move word the world offers (`north`,
`interact`, ...), or `?` (show the turn again). When input ends the person idles: every later turn is answered
with nothing, so the agent waits and the episode runs on to its end or horizon. After the episode come CoELA's
two questions (a number 1-7 each) and a comment line.
"""

from __future__ import annotations

import queue
import threading
import time
from typing import Any, TextIO

from coopgraph.play.ratings import COMMENT_LIMIT, QUESTIONS, Ratings
from coopgraph.play.turn import Answer, Turn

_END = object()


class TerminalSeat:
    """Implements `Seat` on a pair of text streams (standard input and output by default)."""

    def __init__(self, lines: TextIO, out: TextIO) -> None:
        self.out = out
        self.ended = False
        self.shown = 0  # messages already printed
        # One line read ahead at most: an endless input (`yes 1 | coopgraph play ...`) must not be read into memory
        # faster than the episode asks for it.
        self._lines: queue.Queue[object] = queue.Queue(maxsize=1)
        threading.Thread(target=self._read, args=(lines,), daemon=True).start()

    def _read(self, lines: TextIO) -> None:
        for line in lines:
            self._lines.put(line.rstrip("\n"))
        self._lines.put(_END)

    def _say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def _show(self, turn: Turn) -> None:
        self._say(f"\n— step {turn.step}/{turn.horizon}: you play {turn.agent_name} ({turn.agent}) —")
        if turn.last_action:
            result = "ok" if turn.last_action_ok else f"failed: {turn.last_action_reason}"
            self._say(f"last action: {turn.last_action} ({result})")
        for line in turn.view:
            self._say(line)
        for message in turn.messages[self.shown:]:
            self._say(f"[step {message.step}] {message.sender}: {message.text}")
        self.shown = len(turn.messages)
        for number, option in enumerate(turn.options, 1):
            self._say(f"  {number}. {option}")
        moves = f", a move ({', '.join(dict.fromkeys(turn.moves.values()))})" if turn.moves else ""
        self._say(f"choose a number{moves}, or type 'm TEXT' to send a message (up to {turn.message_limit} chars)")

    def _parse(self, line: str, turn: Turn) -> Answer | str:
        text = line.strip()
        if text == "?":
            return "?"
        head, _, rest = text.partition(" ")
        if head in ("m", "say"):
            answer = Answer(message=rest)
        elif text.isdigit():
            answer = Answer(choice=int(text))
        elif text in turn.moves.values():
            answer = Answer(move=text)
        else:
            return f"not understood: {text[:60]!r}"
        return answer.problem(turn) or answer

    def ask(self, turn: Turn, limit_s: float | None) -> Answer | None:
        if self.ended:
            return None
        self._show(turn)
        started = time.perf_counter()
        deadline = None if limit_s is None else started + limit_s
        while True:
            try:
                left = None if deadline is None else max(0.0, deadline - time.perf_counter())
                line = self._lines.get(timeout=left)
            except queue.Empty:
                self._say("time is up: you wait this step")
                return None
            if line is _END:
                self.ended = True
                self._say("input ended: you wait from now on")
                return None
            parsed = self._parse(str(line), turn)
            if isinstance(parsed, Answer):
                parsed.response_s = round(time.perf_counter() - started, 3)
                if parsed.message is not None and len(parsed.message.strip()) > turn.message_limit:
                    self._say(f"the message is cut to {turn.message_limit} characters")
                return parsed
            if parsed == "?":
                self._show(turn)
            else:
                self._say(parsed)

    def notice(self, event: dict[str, Any]) -> None:
        """Nothing: partners' messages show at the person's next turn, in the order they were heard."""

    def _line(self) -> str | None:
        line = self._lines.get()
        if line is _END:
            self.ended = True
            return None
        return str(line).strip()

    def ask_ratings(self) -> Ratings | None:
        """CoELA's questions, one line each (a number 1-7, then a comment line); None when input ends first."""
        if self.ended:
            return None
        answers: dict[str, int] = {}
        for name, question in QUESTIONS.items():
            while name not in answers:
                self._say(question)
                line = self._line()
                if line is None:
                    return None
                if line.isdigit() and 1 <= int(line) <= 7:
                    answers[name] = int(line)
                else:
                    self._say("answer with a number from 1 to 7")
        self._say(f"a comment (one line, up to {COMMENT_LIMIT} characters; empty for none)")
        comment = self._line() or ""
        return Ratings(**answers, comment=comment[:COMMENT_LIMIT])

    def finish(self, result: dict[str, Any]) -> None:
        state = "solved" if result.get("success") else "not solved"
        self._say(f"\nthe episode ended: {state} at step {result.get('steps')}")
