"""LLM-Co's reasoning question files: three multiple-choice questions (EC, TOM, JP) per row, read with their options.

A row holds one game snapshot and an environment-comprehension, a theory-of-mind and a joint-planning question about
it, each with its directive and its answer letter(s). Each question becomes a `Question`; a row whose answer letter
is not among its options is reported as a `SkippedQuestion`, never scored, and a file that lacks columns is refused
with their names (`QuestionFileError`).
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
    """A question left out of scoring, and why (named by file, line and kind)."""

    path: str
    line: int
    kind: str
    reason: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.kind} question skipped: {self.reason}"


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


def _question(path: str, row: dict[str, str], number: int, line: int,
              kind: str) -> Question | SkippedQuestion | None:
    text = (row.get(f"{kind} Question") or "").strip()
    if not text:
        return None  # a row may leave a question type out
    ordinal = (row.get(f"{kind} Answer Ordinal") or "").strip()
    options = parse_options(text)
    letters = [letter for letter, _ in options]
    if not options:
        return SkippedQuestion(path, line, kind, "no lettered options (`A. ...` lines after `Available Answers:`)")
    if len(set(letters)) != len(letters):
        return SkippedQuestion(path, line, kind, f"option letters repeat ({', '.join(letters)})")
    wanted = [p.strip() for p in ordinal.split(",") if p.strip()]
    if not wanted:
        return SkippedQuestion(path, line, kind, "no answer letter")
    unknown = [p for p in wanted if p not in letters]
    if unknown:
        return SkippedQuestion(path, line, kind, f"answer {', '.join(unknown)} is not among its options "
                               f"({letters[0]}-{letters[-1]})")
    return Question(
        id=f"{number}/{kind}", row=number, line=line, kind=kind, game=(row.get("Game") or "").strip() or "?",
        directive=(row.get(f"{kind} Directive") or "").strip(), description=(row.get("Game Description") or "").strip(),
        text=text, letters=tuple(letters), options=tuple(t for _, t in options), ordinal=ordinal,
        answer=(row.get(f"{kind} Answer") or "").strip(), split=(row.get(SPLIT_COLUMN) or "").strip())


def load_questions(path: str | Path) -> tuple[list[Question], list[SkippedQuestion]]:
    """Every question of a file in row order (EC, TOM, JP per row), and those skipped with the reason."""
    path = Path(path)
    if not path.is_file():
        raise QuestionFileError(f"no question file {path}")
    try:
        with path.open(encoding="utf-8-sig", newline="") as fh:
            reader = csv.DictReader(fh)
            header = [h.strip() for h in (reader.fieldnames or [])]
            missing = [c for c in COLUMNS if c not in header]
            if missing:
                raise QuestionFileError(f"{path}: missing column{'s' if len(missing) > 1 else ''} "
                                        f"{', '.join(missing)} (LLM-Co's question files have {len(COLUMNS)}: "
                                        f"{', '.join(COLUMNS)})")
            reader.fieldnames = header
            questions: list[Question] = []
            skipped: list[SkippedQuestion] = []
            line = reader.line_num + 1
            for number, row in enumerate(reader, start=1):
                for kind in KINDS:
                    made = _question(str(path), row, number, line, kind)
                    if isinstance(made, Question):
                        questions.append(made)
                    elif made is not None:
                        skipped.append(made)
                line = reader.line_num + 1
    except (UnicodeDecodeError, csv.Error) as exc:
        raise QuestionFileError(f"{path}: not a readable CSV file ({exc})") from None
    return questions, skipped
