"""The spaces of a text world, shared by every world coopgraph ships: agents see JSON text and act in text.

PettingZoo asks each agent's observation and action space and wants the same object on every call; a world
keeps both here (`set_text_spaces` once, in its constructor) instead of repeating the same lines.
"""

from __future__ import annotations

import string

from gymnasium.spaces import Space, Text

#: Printable ASCII: what observations (JSON) and actions (`[gocheck] <cabinet> (13)`, message text) are written in.
TEXT_CHARSET = frozenset(string.printable)


class TextSpaces:
    """Observation space: an observation's JSON form; action space: a primitive's text form, a message included."""

    _observation_space: Space
    _action_space: Space

    def set_text_spaces(self, max_message_chars: int) -> None:
        """Room for a whole observation, and for the longest action: a message of `max_message_chars` plus its
        action's own text."""
        self._observation_space = Text(max_length=1_000_000, min_length=0, charset=TEXT_CHARSET)
        self._action_space = Text(max_length=max_message_chars + 100, min_length=1, charset=TEXT_CHARSET)

    def observation_space(self, agent: str) -> Space:
        """Text: an observation's JSON form; the same object on every call."""
        return self._observation_space

    def action_space(self, agent: str) -> Space:
        """Text: a primitive's text form; the same object on every call."""
        return self._action_space
