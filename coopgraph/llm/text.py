"""What a model's reply may carry onwards: printable text, newlines and tabs, nothing else."""

from __future__ import annotations

import re

# C0 controls but tab and newline, DEL, C1 controls; a lone CR becomes a newline first.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def strip_control(text: str) -> str:
    """The reply without control characters (a NUL byte must not reach a partner, a trace or a prompt)."""
    if not _CONTROL.search(text):
        return text
    return _CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
