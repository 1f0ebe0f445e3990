"""How much of each prompt llama.cpp's prefix cache could reuse, read from episode traces.

An embedded server keeps the last prompt's tokens; a call reads only what follows the prefix it shares with
that prompt. Replaying every model call of the traces in order (drafts, choices, ratings...), this prints, for
all calls and for the `choose_action` calls alone, the prompt's length and the tokens read anew with one server
shared by the team and with one server per agent (`slots`, the default), the median tokens per section of
CoELA's template, and the latency that implies at the measured prompt-reading speed.
Example (one configuration's traces, by its config hash):
`.venv/bin/python -m coopgraph.evals.bench.prompt_reuse runs/coop/traces/cwah-comparison/CoELA_+_CoELA_local-coop
--glob '*73937d0c.jsonl'`.
"""

from __future__ import annotations

import argparse
import re
import statistics
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from coopgraph.record.trace_file import read_events

#: CoELA's choice prompt, section by section (docs/planner.md measures each)
SECTIONS = re.compile(r"(Goal:.*?\n)(Progress:.*?\n)(Dialogue so far:\n.*?)(My previous actions:.*?\n)(It is step.*)",
                      re.S)
SECTION_NAMES = ("goal", "progress", "dialogue", "previous actions", "step, options and format")

Tokenize = Callable[[list[dict[str, str]]], list[int]]


def shared_prefix(a: list[int], b: list[int]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def reuse(calls: Iterable[dict[str, Any]], tokenize: Tokenize) -> dict[str, list[int]]:
    """Per call (in trace order): prompt tokens, tokens read with one shared server, with one server per agent."""
    out: dict[str, list[int]] = {"prompt": [], "shared_slot": [], "slot_per_agent": []}
    last_any: list[int] = []
    last: dict[str, list[int]] = {}
    for call in calls:
        tokens = tokenize(call["prompt"])
        out["prompt"].append(len(tokens))
        out["shared_slot"].append(len(tokens) - shared_prefix(tokens, last_any))
        out["slot_per_agent"].append(len(tokens) - shared_prefix(tokens, last.get(call["agent"], [])))
        last_any = last[call["agent"]] = tokens
    return out


def section_sizes(calls: Iterable[dict[str, Any]], count: Callable[[str], int]) -> dict[str, list[int]]:
    """Tokens per section of CoELA's template (calls whose prompt does not follow it are skipped)."""
    sizes: dict[str, list[int]] = {"system": [], **{name: [] for name in SECTION_NAMES}}
    for call in calls:
        match = SECTIONS.match(call["prompt"][-1]["content"])
        if match is None:
            continue
        sizes["system"].append(count(call["prompt"][0]["content"]))
        for name, part in zip(SECTION_NAMES, match.groups(), strict=True):
            sizes[name].append(count(part))
    return sizes


def model_calls(folder: Path, pattern: str = "*.jsonl") -> list[list[dict[str, Any]]]:
    """The calls that reached the model in each trace in `folder` (not cache hits), one list per episode (a
    server's cache starts empty)."""
    return [[e for e in read_events(path) if e["type"] == "llm_call" and e.get("prompt") and not e.get("cache_hit")]
            for path in sorted(folder.glob(pattern))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("traces", type=Path, help="a folder of episode traces (JSONL)")
    parser.add_argument("--glob", default="*.jsonl", help="which trace files (e.g. one config hash: '*73937d0c.jsonl')")
    parser.add_argument("--llm", default="local-coop", help="embedded profile whose tokenizer counts")
    parser.add_argument("--ms-per-token", type=float, default=1.85, help="prompt reading speed (Gemma 270M, 2 cores)")
    parser.add_argument("--answer-s", type=float, default=0.35, help="time to write the answer")
    args = parser.parse_args()
    from llama_cpp import Llama
    from llama_cpp.llama_chat_format import format_chatml

    from coopgraph.llm import model_files

    vocab = Llama(model_path=str(model_files.model_path(args.llm)), vocab_only=True, verbose=False)

    def tokenize(messages: list[dict[str, str]]) -> list[int]:
        return vocab.tokenize(format_chatml(messages).prompt.encode(), add_bos=False, special=True)

    def count(text: str) -> int:
        return len(vocab.tokenize(text.encode(), add_bos=False))

    episodes = model_calls(args.traces, args.glob)
    totals: dict[str, dict[str, list[int]]] = {"all calls": {}, "choose_action": {}}
    for calls in episodes:
        for key, values in reuse(calls, tokenize).items():
            totals["all calls"].setdefault(key, []).extend(values)
            chosen = [v for v, call in zip(values, calls, strict=True) if call.get("node") == "choose_action"]
            totals["choose_action"].setdefault(key, []).extend(chosen)
    if not any(totals["all calls"].values()):
        raise SystemExit(f"no model calls in {args.traces}/{args.glob}")
    print(f"{sum(len(c) for c in episodes)} model calls in {len(episodes)} traces ({args.traces})")
    for group, figures in totals.items():
        for key, values in figures.items():
            if values:
                median, total = statistics.median(values), sum(values)
                seconds = median * args.ms_per_token / 1000 + args.answer_s
                print(f"{group:<14} {key:<15} median {median:5.0f} tokens read (total {total:6d})  "
                      f"~{seconds:.2f} s a call")
    choices = [c for calls in episodes for c in calls if c.get("node") == "choose_action"]
    for name, values in section_sizes(choices, count).items():
        if values:
            print(f"  {name:<26} median {statistics.median(values):5.0f} tokens")


if __name__ == "__main__":
    main()
