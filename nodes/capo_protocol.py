"""CaPo's discussion protocol: a header that marks a message as part of a meta-plan discussion.

Discussion messages are ordinary environment messages (each one a `[send_message]` action that costs what
the environment says). The header lets another CaPo agent tell them apart from ordinary dialogue; any
message without it is ordinary dialogue. Three kinds, each one line:

    [capo plan V.R] Alice: ... // Bob: ...        the designer's meta-plan, version V, discussion round R
    [capo feedback V.R agree] <one line>          an evaluator's answer to that plan (or `revise`)
    [capo progress V] <what I found or finished>  an evaluator's progress (only `report_progress: true`)

A message longer than the world's limit (C-WAH: 500 characters) is split into parts, each a paid message of
its own with `i/n` at the end of its header (`[capo plan 2.1 1/3] ...`); the receiver acts on the whole once
the last part has arrived (`join_parts`). CaPo's appendix A.6 counts a 1,757-character plan as 4 frames of 500.

Plans speak of intentions ("put <x> (1) on <y> (2)"), and partners' free-text readers take
"<x> (i) on <y> (j)" as a fact, so plan and feedback bodies say "onto"/"into" instead: a plan can then
never be mistaken for a report that an object already sits on its target.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Literal

Kind = Literal["plan", "feedback", "progress"]

_HEADER = re.compile(
    r"^\s*\[capo (?P<kind>plan|feedback|progress) (?P<version>\d{1,6})(?:\.(?P<round>\d{1,3}))?"
    r"(?: (?P<verdict>agree|revise))?(?: (?P<part>[1-9])/(?P<parts>[1-9]))?\]\s*",
    re.IGNORECASE,
)
_LINE_SEPARATOR = " // "
_RELATIONS = re.compile(r"\b(on|in|inside)\b", re.IGNORECASE)
_INTENT_WORDS = {"on": "onto", "in": "into", "inside": "into"}
_PLAN_LINE = re.compile(r"^(?P<name>[A-Za-z][A-Za-z_-]{0,30})\s*:\s*(?P<task>.+)$")
_HEADING = re.compile(r"^(?P<name>[A-Za-z][A-Za-z_-]{0,30})\s*:\s*(?P<task>.*)$")
MAX_BODY_CHARS = 600  # a received body (one part) is cut here whatever the sender's environment allowed
MAX_PARTS = 9  # a message is split into at most this many parts (the header has one digit for each)


@dataclass(frozen=True)
class CapoMessage:
    """One recognised discussion message."""

    kind: Kind
    sender: str
    version: int
    round: int
    agree: bool | None
    body: str
    part: int = 1
    parts: int = 1


def parse_message(sender: str, text: str) -> CapoMessage | None:
    """The discussion message in `text`, or None when it is ordinary dialogue (or malformed)."""
    match = _HEADER.match(text or "")
    if match is None:
        return None
    kind = match["kind"].lower()
    verdict = (match["verdict"] or "").lower()
    if kind == "feedback" and (not verdict or match["round"] is None):
        return None
    if kind == "plan" and match["round"] is None:
        return None
    part, parts = int(match["part"] or 1), int(match["parts"] or 1)
    if part > parts:
        return None
    body = text[match.end():][:MAX_BODY_CHARS]
    if parts == 1:
        body = _body(kind, body)
    return CapoMessage(
        kind=kind,  # type: ignore[arg-type]
        sender=sender,
        version=int(match["version"]),
        round=int(match["round"] or 0),
        agree=(verdict == "agree") if kind == "feedback" else None,
        body=body,
        part=part,
        parts=parts,
    )


def _body(kind: str, raw: str) -> str:
    """A whole message's body on one line, or a plan's one-line transport turned back into its lines.

    Line breaks a sender put in are folded into spaces: a partner's text must not add lines of its own to the
    prompts it is shown in (a fake option line, say)."""
    if kind == "plan":
        return "\n".join(" ".join(part.split()) for part in raw.split(_LINE_SEPARATOR.strip()) if part.strip())
    return " ".join(raw.split())


def join_parts(parts: list[CapoMessage]) -> CapoMessage | None:
    """The whole message once every part of it is here (in any order), else None."""
    if not parts:
        return None
    first = parts[0]
    by_index = {p.part: p for p in parts if (p.kind, p.version, p.round, p.parts) ==
                (first.kind, first.version, first.round, first.parts)}
    if len(by_index) < first.parts:
        return None
    raw = " ".join(by_index[i].body.strip() for i in range(1, first.parts + 1))  # parts are cut at spaces
    return replace(first, body=_body(first.kind, raw), part=1, parts=1)


def split_message(text: str, limit: int) -> list[str]:
    """`text` as one message, or as parts of at most `limit` characters each (header included).

    Each part repeats the header with `i/n`, so a receiver can tell a part from a whole message; the body is
    cut between words where it can. A body too long for `MAX_PARTS` parts is cut at the end."""
    if len(text) <= limit:
        return [text]
    match = _HEADER.match(text)
    if match is None:
        return [text[:limit]]
    head, body = match.group(0).rstrip()[:-1], text[match.end():]
    room = max(20, limit - len(head) - len(" 9/9] "))
    chunks: list[str] = []
    body = body.strip()
    while body and len(chunks) < MAX_PARTS:
        chunk = body[:room]
        if len(body) > room and " " in chunk[room // 2:]:
            chunk = chunk[: chunk.rindex(" ")]
        chunks.append(chunk.strip())
        body = body[len(chunk):].strip()
    return [f"{head} {i}/{len(chunks)}] {chunk}" for i, chunk in enumerate(chunks, 1)]


def plan_message(version: int, round_: int, plan: str) -> str:
    """The designer's broadcast: header, then the plan's lines on one line."""
    lines = [line.replace("//", "/") for line in plan.splitlines() if line.strip()]
    return f"[capo plan {version}.{round_}] " + _LINE_SEPARATOR.join(lines)


def feedback_message(version: int, round_: int, agree: bool, text: str, progress: list[str] | None = None) -> str:
    """The evaluator's answer; its own progress since the last plan rides along as facts, at no extra step."""
    verdict = "agree" if agree else "revise"
    body = neutralize(" ".join(text.split())) or ("The plan works for me." if agree else "Please change the plan.")
    news = "; ".join(e.strip().rstrip(".") for e in progress or [] if e.strip())
    return f"[capo feedback {version}.{round_} {verdict}] {body}" + (f" My progress: {news}." if news else "")


def progress_message(version: int, events: list[str]) -> str:
    """Progress is stated as fact on purpose: the partner's reader should fold it into its belief."""
    return f"[capo progress {version}] " + "; ".join(e.strip().rstrip(".") for e in events if e.strip()) + "."


def neutralize(text: str) -> str:
    """Say "onto/into" instead of "on/in/inside", so intentions do not read as object placements."""
    return _RELATIONS.sub(lambda m: _INTENT_WORDS[m.group(1).lower()], text)


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0]
    return cut.rstrip(",;:-") if len(cut) > limit // 2 else text[:limit]


def parse_meta_plan(text: str, names: list[str], max_chars: int | None = None) -> str:
    """Read a model's meta-plan into the fixed format: one `Name: subtasks` line per teammate, in team order.

    A teammate's line may also be a `Name:` heading over bullet lines, which are joined; lines under unknown
    names and decoration are dropped, and the first heading per teammate wins. A reply naming nobody is kept
    as one free-form line (a weak model's plan is still a plan). Each line is cut
    so the whole plan fits `max_chars`, and the result is neutralized (see the module docstring).
    """
    canonical = {name.lower(): name for name in names}
    tasks: dict[str, list[str]] = {}
    current: str | None = None  # the teammate whose bullet list is being read
    for raw in (text or "").splitlines():
        line = re.sub(r"^\d+[.)]\s*", "", raw.strip().lstrip("-*•>#").strip().replace("**", ""))
        match = _HEADING.match(line)
        if match is not None:
            key = match["name"].lower()
            current = key if key in canonical and key not in tasks else None
            if current is not None:
                tasks[current] = []
            line = match["task"]
        if current is not None and line.strip(" \"'"):
            tasks[current].append(" ".join(line.split()).strip(" \"'").rstrip(".;,"))
    lines = [f"{canonical[k]}: {', '.join(tasks[k])}" for k in (n.lower() for n in names) if tasks.get(k)]
    if not lines:
        free = " ".join((text or "").split()).strip(" \"'")
        lines = [free] if free else []
    if not lines:
        return ""
    if max_chars is None:
        return neutralize("\n".join(lines))
    share = max(40, max_chars // len(lines) - 1)
    return neutralize("\n".join(_cut(line, share) for line in lines))


def part_for(plan: str, name: str) -> str:
    """The task line a meta-plan gives `name` (without the name), or "" when it names nobody by that name."""
    for line in plan.splitlines():
        match = _PLAN_LINE.match(line.strip())
        if match and match["name"].lower() == name.lower():
            return match["task"].strip()
    return ""
