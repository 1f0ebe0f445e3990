"""Episodic memory: the agent's last K high-level actions and the last D lines of dialogue, rendered for prompts.

CoELA-style planners see only a short window of their own history and of the conversation; the windows are
bounded here (deques) so prompts stay short however long the episode runs. Beside them, for each action the
agent tried, whether its last attempt did nothing and in what situation (`note_effect`): a small planner at
temperature 0 would otherwise repeat it from the same state for as long as the episode runs.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass

OUTCOMES = ("done", "failed", "interrupted")


@dataclass(frozen=True)
class ActionRecord:
    """A finished (or abandoned) high-level action, e.g. `[gocheck] <fridge> (120)`, and how it ended."""

    text: str
    step: int
    outcome: str

    def render(self) -> str:
        return f"{self.text} ({self.outcome} at step {self.step})"


def quoted(text: str) -> str:
    """`text` as one double-quoted line that none of its characters can close or break (JSON string rules).

    A partner's message is data: rendered this way, a newline or a quote inside it cannot start a line of its
    own in a prompt (a fake option line, say) or end the quotation early. Plain text renders as `"text"`."""
    return json.dumps(text, ensure_ascii=False)


@dataclass(frozen=True)
class DialogueLine:
    """One message as it was said: who, what, and at which step."""

    sender: str
    text: str
    step: int

    def render(self, with_step: bool = False) -> str:
        said = f"{self.sender}: {quoted(self.text)}"
        return f"[step {self.step}] {said}" if with_step else said


class EpisodicMemory:
    """Bounded windows over one episode: `max_actions` actions and `max_messages` dialogue lines (0 keeps none)."""

    def __init__(self, max_actions: int = 10, max_messages: int = 3) -> None:
        if max_actions < 0 or max_messages < 0:
            raise ValueError("window sizes must be >= 0")
        self._actions: deque[ActionRecord] = deque(maxlen=max_actions)
        self._messages: deque[DialogueLine] = deque(maxlen=max_messages)
        self._no_effect: dict[str, str] = {}
        self._last_view: str | None = None

    def __setstate__(self, state: dict[str, object]) -> None:
        """A checkpoint pickled before `_no_effect` or `_last_view` existed restores with none recorded."""
        self.__dict__.update({"_no_effect": {}, "_last_view": None, **state})

    @property
    def max_actions(self) -> int:
        return self._actions.maxlen or 0

    @property
    def max_messages(self) -> int:
        return self._messages.maxlen or 0

    @property
    def actions(self) -> list[ActionRecord]:
        """Kept actions, oldest first."""
        return list(self._actions)

    @property
    def messages(self) -> list[DialogueLine]:
        """Kept dialogue lines, oldest first."""
        return list(self._messages)

    def add_action(self, text: str, step: int, outcome: str) -> ActionRecord:
        """Log a high-level action that ended `done`, `failed` or `interrupted` (a SkillStatus value works too)."""
        outcome = str(getattr(outcome, "value", outcome))
        if outcome not in OUTCOMES:
            raise ValueError(f"outcome must be one of {OUTCOMES}, got {outcome!r}")
        record = ActionRecord(text=text, step=int(step), outcome=outcome)
        self._actions.append(record)
        return record

    def note_effect(self, text: str, unchanged: str | None) -> None:
        """How the last attempt of the action `text` ended: having changed nothing, leaving the world's situation
        token `unchanged` (`SkillStep.unchanged`), or (None) otherwise. Unlike the action window, this keeps the
        last attempt of every action however long ago, so a planner can tell it would do nothing again."""
        if unchanged is None:
            self._no_effect.pop(text, None)
        else:
            self._no_effect[text] = unchanged

    def did_nothing(self, text: str, situation: str | None) -> bool:
        """Whether the last attempt of `text` did nothing and left exactly `situation` (None never matches)."""
        return situation is not None and self._no_effect.get(text) == situation

    def note_view(self, digest: str) -> bool:
        """Record what a decision was shown (a digest of its view); whether the decision before was shown the same.

        At temperature 0 the same view gets the same answer, so a planner shown what it was shown last time will
        choose what it chose last time (`skip_stalled_wait` uses this)."""
        same = digest == self._last_view
        self._last_view = digest
        return same

    def add_message(self, sender: str, text: str, step: int) -> DialogueLine:
        line = DialogueLine(sender=sender, text=text, step=int(step))
        self._messages.append(line)
        return line

    def new_messages_since(self, step: int) -> list[DialogueLine]:
        """Kept lines said after `step` (strictly later), oldest first."""
        return [line for line in self._messages if line.step > step]

    def actions_text(self) -> str:
        """`[goexplore] <kitchen> (11) (done at step 5); ...`, oldest first; empty when nothing was done yet."""
        return "; ".join(record.render() for record in self._actions)

    def dialogue_text(self, with_steps: bool = False) -> str:
        """One `Sender: "text"` line per kept message, oldest first; empty when nothing was said."""
        return "\n".join(line.render(with_steps) for line in self._messages)

    def clear(self) -> None:
        self._actions.clear()
        self._messages.clear()
        self._no_effect.clear()
        self._last_view = None
