"""Prompt tokens per decision against the number of dummy objects (Noisy-C-WAH), for CoELA, CaPo and REVECA.

REVECA rates what it stores and keeps "none" (dummy objects) out of its prompts, so its cost per decision
should stay nearly flat as clutter grows, while a method that shows its whole memory grows with it. Decisions
come from a cheap scripted model (it prefers put > grab > check > explore and agrees to plans), so a run takes
about a minute; tokens are real: every prompt that was sent is counted with the embedded model's own
tokenizer (the GGUF loaded with `vocab_only=True`, nothing generated), in its ChatML chat format.

Run: `.venv/bin/python evals/bench/prompt_tokens_vs_noise.py [--steps 40] [--noise 0 10 20 50 100]`.
Each method plays with a teammate of the same method; both agents' prompts and decisions are counted.
"""

from __future__ import annotations

import argparse
import re
import statistics
import time
from collections.abc import Callable
from typing import Any

from coopgraph import envs
from coopgraph.graphs.loader import shipped_specs
from coopgraph.record.trace_file import Tracer
from coopgraph.runtime.episode_loop import run_episode
from coopgraph.runtime.graph_agent import GraphAgent
from coopgraph.testing import scripted_lm

METHODS = ("coela", "capo", "reveca", "reveca-norelevance")
_OPTION = re.compile(r"^([A-Z]{1,2})\. (.*)$", re.MULTILINE)
_PREFERENCE = ("[goput]", "[gograb]", "[gocheck]", "[goexplore]")


def cheap_model(messages: list[Any], kwargs: dict[str, Any]) -> str:
    """A deterministic stand-in for the LLM: sensible choices, short texts, agreement in discussions."""
    text = messages[-1].content
    options = _OPTION.findall(text)
    if options:
        for wanted in _PREFERENCE:
            for letter, option in options:
                if option.startswith(wanted):
                    return f"Reasoning: {wanted} moves us forward\nAnswer: {letter}"
        return "Reasoning: the first is fine\nAnswer: A"
    if "Rate every line" in text:
        return "1: low"
    return "Alice: search the kitchen and bring goal objects. Bob: search the other rooms."


def token_counter() -> tuple[Callable[[list[dict[str, str]]], int], str]:
    """Count a chat prompt's tokens with the embedded model's tokenizer; words as a fallback (said so)."""
    try:
        import llama_cpp

        from coopgraph.llm import model_files

        vocab = llama_cpp.Llama(model_path=str(model_files.require("local")), vocab_only=True, verbose=False)
    except Exception as exc:  # no model installed: still useful, but say what is counted
        print(f"note: embedded tokenizer unavailable ({type(exc).__name__}: {exc}); counting words instead")
        return (lambda messages: sum(len(m["content"].split()) for m in messages)), "words"

    def count(messages: list[dict[str, str]]) -> int:
        chat = "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in messages)
        chat += "<|im_start|>assistant\n"
        return len(vocab.tokenize(chat.encode(), add_bos=False, special=True))

    return count, "tokens (Qwen2.5 tokenizer, ChatML)"


def measure(method: str, noise: int, steps: int, count: Callable[[list[dict[str, str]]], int],
            episode: str) -> dict[str, float]:
    """One episode of `method` + `method`; prompt tokens per decision and per planner call."""
    env = envs.make("cwah-noisy", episode=episode, num_agents=2, noise=noise)
    team = [GraphAgent(method, lm=scripted_lm(cheap_model)) for _ in range(2)]
    tracer = Tracer(None)
    run_episode(env, team, max_steps=steps, tracer=tracer)
    calls = [e for e in tracer.events if e["type"] == "llm_call"]
    decisions = sum(1 for e in tracer.events if e["type"] == "plan")
    tokens = [count(e["prompt"]) for e in calls]
    planner = [t for t, e in zip(tokens, calls, strict=True) if e.get("node") == "choose_action"]
    for member in team:
        if member.memory is not None:
            member.memory.close()
    return {
        "per_decision": sum(tokens) / max(1, decisions),
        "planner": statistics.mean(planner) if planner else 0.0,
        "calls": len(calls),
        "decisions": decisions,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=40, help="environment steps per run")
    parser.add_argument("--noise", type=int, nargs="+", default=[0, 10, 20, 50, 100], help="dummy objects")
    parser.add_argument("--episode", default="test/0")
    args = parser.parse_args()
    shipped = shipped_specs()
    methods = [m for m in METHODS if m in shipped]
    for missing in sorted(set(METHODS) - set(methods)):
        print(f"note: skipping {missing}: graphs/{missing}.yaml does not exist yet")
    count, unit = token_counter()
    started = time.perf_counter()
    results = {(m, n): measure(m, n, args.steps, count, args.episode) for m in methods for n in args.noise}
    print(f"\nPrompt {unit} per decision (all LLM calls of a step / plans started), {args.episode}, "
          f"{args.steps} steps, same-method pairs:")
    header = f"{'dummies':>8} | " + " | ".join(f"{m:>18}" for m in methods)
    print(header)
    print("-" * len(header))
    for noise in args.noise:
        cells = [f"{results[m, noise]['per_decision']:>8.0f} ({results[m, noise]['planner']:>6.0f})" for m in methods]
        print(f"{noise:>8} | " + " | ".join(f"{c:>18}" for c in cells))
    print("\n(in brackets: mean tokens of one planner prompt; decisions/calls per run: "
          + "; ".join(f"{m} {results[m, args.noise[-1]]['decisions']:.0f}/{results[m, args.noise[-1]]['calls']:.0f}"
                      for m in methods) + f" at {args.noise[-1]} dummies)")
    for m in methods:
        low, high = results[m, args.noise[0]]["per_decision"], results[m, args.noise[-1]]["per_decision"]
        print(f"{m:>18}: {high / max(low, 1):.2f}x from {args.noise[0]} to {args.noise[-1]} dummies")
    print(f"\nwall time {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
