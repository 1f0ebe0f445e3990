"""LLM-Co's reasoning question files: three multiple-choice questions (EC, TOM, JP) per row, read with their options.

A row holds one game snapshot and an environment-comprehension, a theory-of-mind and a joint-planning question about
it, each with its directive and its answer letter(s). Each question becomes a `Question`; one with a defect that makes
its answer ambiguous or impossible (no options, an option letter listed twice, no answer letter, an answer letter
not among the options) is reported as a `SkippedQuestion` naming the defect, never scored, and the published data is
never mended. A file that cannot be read as such (missing columns, a row with another number of fields than the
header, broken quoting) is refused with its file, line and problem (`QuestionFileError`).
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

KINDS = ("EC", "TOM", "JP")
#: LLM-Co's 20 columns, in its order.
COLUMNS = ("EC Question", "EC Answer", "EC Answer Ordinal", "JP Question", "JP Answer", "JP Answer Ordinal",
           "TOM Question", "TOM Answer", "TOM Answer Ordinal", "Game Description", "Scenario", "Tags",
           "JP Directive", "TOM Directive", "EC Directive", "State", "State Description", "Game", "Map", "Concept")
#: An optional column of coopgraph's own sets: `train` or `test`, for `coopgraph optimize`.
SPLIT_COLUMN = "Split"

_HEADER = re.compile(r"^\s*Available\s+(?:Answers|Actions)\s*:", re.IGNORECASE)
_OPTION = re.compile(r"^\s*([A-Z])[.)]\s*(.*?)\s*$")


class QuestionFileError(ValueError):
    """The file cannot be read as a question file (missing, not CSV, or missing columns)."""


@dataclass(frozen=True)
class Question:
    """One question as asked and scored: its prompt parts, its lettered options and its accepted letters."""

    id: str  # `<row>/<kind>`, stable for a file: the result store's key
    row: int  # 1-based data row
    line: int  # the CSV line the row starts on
    kind: str  # EC, TOM or JP
    game: str
    directive: str
    description: str
    text: str  # the question with its options, as the file words it
    letters: tuple[str, ...]
    options: tuple[str, ...]  # option texts without their letters
    ordinal: str  # the file's answer letter(s), raw (`B`, `A,C`)
    answer: str
    split: str = ""

    @property
    def option_lines(self) -> tuple[str, ...]:
        """`A. Yes.` ...: the options as the question lists them."""
        return tuple(f"{letter}. {text}" for letter, text in zip(self.letters, self.options, strict=True))

    def accepted(self, faithful: bool) -> set[str]:
        """Letters scored correct: LLM-Co splits on commas and keeps the spaces (so `D, F` never accepts F)."""
        parts = self.ordinal.split(",")
        return set(parts) if faithful else {p.strip() for p in parts if p.strip()}

    def chance(self, faithful: bool) -> float:
        """What a uniform random pick among the options scores on average."""
        return len(self.accepted(faithful) & set(self.letters)) / len(self.letters)


@dataclass(frozen=True)
class SkippedQuestion:
    """A question left out of scoring, and why (named by file, line, row and kind)."""

    path: str
    line: int
    kind: str
    reason: str
    row: int = 0  # 1-based data row

    @property
    def id(self) -> str:
        """`<row>/<kind>`, as the question would have been stored."""
        return f"{self.row}/{self.kind}"

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.kind} question of row {self.row} left out: {self.reason}"

    def as_dict(self) -> dict[str, object]:
        return {"id": self.id, "row": self.row, "line": self.line, "kind": self.kind, "reason": self.reason}


def parse_options(text: str) -> list[tuple[str, str]]:
    """(letter, text) of the lettered lines after the last `Available Answers:` / `Available Actions:` header
    (without one: the lettered lines that end the question)."""
    lines = text.splitlines()
    heads = [i for i, line in enumerate(lines) if _HEADER.match(line)]
    if heads:
        found = [_OPTION.match(line) for line in lines[heads[-1] + 1:]]
        return [(m.group(1), m.group(2)) for m in found if m]
    tail: list[tuple[str, str]] = []
    for line in reversed(lines):
        match = _OPTION.match(line)
        if match:
            tail.insert(0, (match.group(1), match.group(2)))
        elif line.strip() or tail:
            break
    return tail


def defect(letters: list[str], ordinal: str) -> str | None:
    """Why a question with these option letters and this answer ordinal cannot be scored (None: it can)."""
    if not letters:
        return "no lettered options (`A. ...` lines after `Available Answers:` or `Available Actions:`)"
    repeated = sorted({letter for letter in letters if letters.count(letter) > 1})
    if repeated:
        return (f"option letter {' and '.join(repeated)} listed twice ({', '.join(letters)}): a reply of "
                f"{' or '.join(repeated)} names no single option")
    wanted = [p.strip() for p in ordinal.split(",") if p.strip()]
    if not wanted:
        return "no answer letter"
    unknown = [p for p in wanted if p not in letters]
    if unknown:
        return f"answer {', '.join(unknown)} is not among its options ({', '.join(letters)})"
    return None


def _question(path: str, row: dict[str, str], number: int, line: int,
              kind: str) -> Question | SkippedQuestion | None:
    text = (row.get(f"{kind} Question") or "").strip()
    if not text:
        return None  # a row may leave a question type out
    ordinal = (row.get(f"{kind} Answer Ordinal") or "").strip()
    options = parse_options(text)
    letters = [letter for letter, _ in options]
    reason = defect(letters, ordinal)
    if reason is not None:
        return SkippedQuestion(path, line, kind, reason, number)
    return Question(
        id=f"{number}/{kind}", row=number, line=line, kind=kind, game=(row.get("Game") or "").strip() or "?",
        directive=(row.get(f"{kind} Directive") or "").strip(), description=(row.get("Game Description") or "").strip(),
        text=text, letters=tuple(letters), options=tuple(t for _, t in options), ordinal=ordinal,
        answer=(row.get(f"{kind} Answer") or "").strip(), split=(row.get(SPLIT_COLUMN) or "").strip())


def _header(path: Path, names: list[str]) -> list[str]:
    """The header's column names, checked for LLM-Co's columns. A name listed twice (LLM-Co's full set repeats `Game
    Description`, with the same text) is read from its first column, as LLM-Co's pandas reading does."""
    header = [h.strip() for h in names]
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise QuestionFileError(f"{path}:1: missing column{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
                                f"(LLM-Co's question files have {len(COLUMNS)}: {', '.join(COLUMNS)})")
    return header


def _fields(header: list[str], values: list[str]) -> dict[str, str]:
    row: dict[str, str] = {}
    for name, value in zip(header, values, strict=True):
        row.setdefault(name, value)
    return row


def load_questions(path: str | Path) -> tuple[list[Question], list[SkippedQuestion]]:
    """Every question of a file in row order (EC, TOM, JP per row), and those left out with the reason."""
    path = Path(path)
    if not path.is_file():
        raise QuestionFileError(f"no question file {path}")
    questions: list[Question] = []
    skipped: list[SkippedQuestion] = []
    line = 1
    try:
        with path.open(encoding="utf-8-sig", newline="") as fh:
            reader = csv.reader(fh, strict=True)
            header = _header(path, next(reader, []))
            line = reader.line_num + 1
            number = 0
            for values in reader:
                if not values:  # a blank line, as csv.DictReader skips it
                    line = reader.line_num + 1
                    continue
                number += 1
                if len(values) != len(header):
                    raise QuestionFileError(f"{path}:{line}: row {number} has {len(values)} fields, the header "
                                            f"{len(header)} (a stray comma or quote?)")
                row = _fields(header, values)
                for kind in KINDS:
                    made = _question(str(path), row, number, line, kind)
                    if isinstance(made, Question):
                        questions.append(made)
                    elif made is not None:
                        skipped.append(made)
                line = reader.line_num + 1
    except csv.Error as exc:
        raise QuestionFileError(f"{path}:{line}: not readable as CSV ({exc}; a quote left open?)") from None
    except UnicodeDecodeError as exc:
        raise QuestionFileError(f"{path}:{line}: not UTF-8 text ({exc.reason} at byte {exc.start} of a chunk "
                                f"read from about here)") from None
    return questions, skipped
