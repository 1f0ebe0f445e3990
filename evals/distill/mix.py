"""A DAgger round's training mix: distinct decision points drawn from several files, so the round is one command.

A roll-in by a planner stuck in a loop records the same state hundreds of times (the same prompt, the same label),
and the greedy cook's own runs repeat their stalls too; sampled as they are, those copies crowd out everything
else. The mix keeps one point per distinct (state, history, options, label), then draws a seeded number from each
file's train split, and optionally some of the validation split for the trainer's held-out accuracy. With
`--balance` each train draw is spread evenly over the points' `situation` (what the recorder says a point is a case
of; Overcooked: what the cook holds and what the kitchen needs of it), so a rare situation gives all its points
before a common one gives more than its share. With `--cap "wait.|move away.=0.15"` the train points whose expert
label is one of those answers are thinned (a seeded sample) until they are at most that share of the train split:
a 270M planner trained on a mix where idle answers pass about a fifth of the labels answers `wait.` in states where
the expert seldom does (docs/methods/llmco.md, "Rounds 12 and 13"). Every mix prints its train split's most
frequent answers and their shares, the figure to read before training.

Run: `python -m coopgraph.evals.distill.mix FILE:N [FILE:N ...] [--learner FILE:N] [--validation FILE:N]
-o MIX.jsonl [--seed 0] [--balance] [--cap LABEL|LABEL=SHARE]` (`N` may be `all`; `--learner` takes only the states a
learner's roll-in reached).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from coopgraph.evals.decision_reader import DecisionFileError, numbered_points


class MixError(DecisionFileError):
    """A source argument or a decisions file the mix cannot read."""


def point_key(point: dict[str, Any]) -> str:
    """What makes two decision points the same training pair: the prompt the recording spec rendered (state,
    history, options, as the model reads them; not the tick or the point's id) and the expert's label."""
    return json.dumps([point.get("messages") or point.get("facts"), point.get("options"), point.get("expert_choice")],
                      sort_keys=True)


def distinct(points: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The first point of each distinct key, in file order."""
    seen: set[str] = set()
    kept = []
    for point in points:
        key = point_key(point)
        if key not in seen:
            seen.add(key)
            kept.append(point)
    return kept


def balanced(pool: list[dict[str, Any]], count: int, rng: random.Random) -> list[int]:
    """`count` indices of `pool` spread evenly over the points' situations: each situation's points in a seeded
    order, taken one situation after another (in name order) until `count` are taken."""
    by_situation: dict[str, list[int]] = defaultdict(list)
    for index, point in enumerate(pool):
        by_situation[point["situation"]].append(index)
    queues = []
    for situation in sorted(by_situation):
        indices = by_situation[situation]
        rng.shuffle(indices)
        queues.append(indices)
    chosen: list[int] = []
    while len(chosen) < count:
        for queue in queues:
            if queue and len(chosen) < count:
                chosen.append(queue.pop())
    return sorted(chosen)


def parse_source(text: str) -> tuple[Path, int | None]:
    """`FILE:N` or `FILE:all` (None: every distinct point)."""
    path, sep, count = text.rpartition(":")
    if not sep or not path:
        raise MixError(f"{text!r}: expected FILE:N (N a number or 'all')")
    if count == "all":
        return Path(path), None
    if not count.isdigit():
        raise MixError(f"{text!r}: the count after ':' must be a number or 'all'")
    return Path(path), int(count)


def draw(path: Path, count: int | None, split: str, rng: random.Random, rollin: str | None = None,
         balance: bool = False) -> list[dict[str, Any]]:
    """`count` distinct points of one split of a file (only those reached by `rollin`, when given), a seeded sample
    in file order (all of them if fewer); with `balance`, spread evenly over their situations (`balanced`)."""
    if not path.exists():
        raise MixError(f"{path}: no such decisions file")
    numbered = [(n, p) for n, p in numbered_points(path) if p.get("split") == split
                and (rollin is None or p.get("rollin") == rollin)]
    if balance:
        unclassed = next((n for n, p in numbered if not isinstance(p.get("situation"), str)), None)
        if unclassed is not None:
            raise MixError(f"{path}:{unclassed}: this decision point has no `situation` to balance on (recorded "
                           "before points carried one); record it again, or mix without --balance")
    pool = distinct(p for _, p in numbered)
    if count is None or count >= len(pool):
        return pool
    chosen = balanced(pool, count, rng) if balance else sorted(rng.sample(range(len(pool)), count))
    return [pool[i] for i in chosen]


def mix(sources: list[str], validation: list[str], seed: int = 0, learner: list[str] | None = None,
        balance: bool = False) -> tuple[list[dict[str, Any]], list[str]]:
    """The mixed points and one line per source saying how many it gave; `learner` sources give only the points a
    learner's roll-in reached (a DAgger file also records the expert partner's own states); with `balance` the
    train draws are spread evenly over situations, and each source's line says how many each situation gave (the
    validation draws keep the roll-in's own proportions, so held-out accuracy is the planner's in play)."""
    rng = random.Random(seed)
    points: list[dict[str, Any]] = []
    report = []
    groups = (("train", None, sources), ("train", "learner", learner or []), ("validation", None, validation))
    for split, rollin, group in groups:
        for text in group:
            path, count = parse_source(text)
            spread = balance and split == "train"
            drawn = draw(path, count, split, rng, rollin, spread)
            points += drawn
            report.append(f"{path} ({split}{', learner states' if rollin else ''}): {len(drawn)} distinct points")
            if spread:
                shares = Counter(p["situation"] for p in drawn)
                report += [f"  {n:5d}  {situation}" for situation, n in sorted(shares.items())]
    return points, report


def parse_weight(text: str) -> tuple[str, int]:
    """`SITUATION=K`: a situation's name (or the start of it) and how many times its train points appear."""
    situation, sep, times = text.rpartition("=")
    if not sep or not situation.strip() or not times.isdigit() or int(times) < 1:
        raise MixError(f"{text!r}: expected SITUATION=K, K a whole number of at least 1")
    return situation.strip(), int(times)


def weighted(points: list[dict[str, Any]], weights: list[str]) -> tuple[list[dict[str, Any]], list[str]]:
    """The points with each train point of a weighted situation repeated (in place, so the file stays in draw
    order), and one report line per weight saying how many points it repeated."""
    parsed = [parse_weight(text) for text in weights]
    counts = Counter[str]()
    out: list[dict[str, Any]] = []
    for point in points:
        times = 1
        if point.get("split") == "train":
            for situation, k in parsed:
                if str(point.get("situation", "")).startswith(situation):
                    times = k
                    counts[situation] += 1
                    break
        out += [point] * times
    return out, [f"weight {k} on {counts[situation]} train points of {situation!r}" for situation, k in parsed]


def parse_cap(text: str) -> tuple[tuple[str, ...], float]:
    """`LABEL|LABEL=SHARE`: expert answers (exactly as the options list them) and the largest share of the train
    split they may have together."""
    labels, sep, share = text.rpartition("=")
    names = tuple(name.strip() for name in labels.split("|") if name.strip())
    try:
        value = float(share)
    except ValueError:
        value = -1.0
    if not sep or not names or not 0.0 < value < 1.0:
        raise MixError(f"{text!r}: expected LABEL|LABEL=SHARE, SHARE between 0 and 1")
    return names, value


def capped(points: list[dict[str, Any]], caps: list[str], seed: int = 0) -> tuple[list[dict[str, Any]], list[str]]:
    """The points with each cap's train points thinned to a seeded sample of at most its share of the train split
    (caps apply in order, each on what the ones before it left), and one report line per cap."""
    rng = random.Random(seed)
    report: list[str] = []
    for text in caps:
        names, share = parse_cap(text)
        hit = [i for i, p in enumerate(points) if p.get("split") == "train" and p.get("expert_choice") in names]
        train = sum(1 for p in points if p.get("split") == "train")
        keep = min(len(hit), int(share * (train - len(hit)) / (1.0 - share) + 1e-9))
        dropped = set(hit) - set(rng.sample(hit, keep))
        points = [p for i, p in enumerate(points) if i not in dropped]
        report.append(f"cap {share:g} on {' | '.join(names)}: kept {keep} of {len(hit)} train points")
    return points, report


def answer_shares(points: list[dict[str, Any]], top: int = 5) -> str:
    """The train split's most frequent expert answers and their shares, printed with every mix: across the kitchen
    rounds this, not held-out agreement, is what lined up with how a planner played."""
    answers = Counter(str(p.get("expert_choice")) for p in points if p.get("split") == "train")
    total = sum(answers.values())
    if not total:
        return "train answers: none"
    return "train answers: " + ", ".join(f"{answer} {n / total:.2f}" for answer, n in answers.most_common(top))


def write_points(points: list[dict[str, Any]], path: Path) -> None:
    """One decision point per line, keys sorted, so two runs that made the same points write the same bytes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as fh:
        for point in points:
            fh.write(json.dumps(point, sort_keys=True) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sources", nargs="*", help="FILE:N, N distinct train points of FILE (or FILE:all)")
    parser.add_argument("--learner", action="append", default=[], help="FILE:N of the train split's points a "
                        "learner's roll-in reached")
    parser.add_argument("--validation", action="append", default=[], help="FILE:N of the validation split")
    parser.add_argument("-o", "--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--weight", action="append", default=[], help="SITUATION=K: repeat the train points whose "
                        "situation starts with SITUATION K times in all")
    parser.add_argument("--balance", action="store_true", help="spread each train draw evenly over the points' "
                        "`situation` (what the cook holds and what the kitchen needs of it), rare ones first in full")
    parser.add_argument("--cap", action="append", default=[], help="LABEL|LABEL=SHARE: thin the train points whose "
                        "expert answer is one of the LABELs to at most SHARE of the train split")
    args = parser.parse_args(argv)
    try:
        points, report = mix(args.sources, args.validation, args.seed, args.learner, args.balance)
        points, cap_report = capped(points, args.cap, args.seed)
        points, weight_report = weighted(points, args.weight)
    except DecisionFileError as exc:  # a MixError, or a line of a file that is not JSON
        print(f"error: {exc}", file=sys.stderr)
        return 2
    write_points(points, args.out)
    print("\n".join([*report, *cap_report, *weight_report, answer_shares(points)])
          + f"\nwrote {len(points)} points to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
