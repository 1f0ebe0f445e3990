"""Benchmark the embedded model on this machine: load, prompt and generation speed, a constrained choice, and a
decision's latency alone and while another CPU-bound process runs (`--compete`).

Run: `.venv/bin/python evals/bench/llm_local.py [--profile local] [--json] [--compete N] [--spin-count C]`.
`--compete N` starts N busy processes for the second measurement; `--spin-count -1` serves with OpenMP's own
spinning (what the server did before `LLMSettings.spin_count`), for comparison. Figures are printed, never
asserted: they depend on the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import uuid

from coopgraph.llm import model_files
from coopgraph.llm.client import CoopLM
from coopgraph.llm.constraints import ChoiceConstraint
from coopgraph.llm.factory import apply_offline_env, chat_model_for
from coopgraph.llm.interface import ChatRequest
from coopgraph.llm.server import free_port, ready, server_command, server_env
from coopgraph.llm.settings import parse_setting

HOUSE = (
    "The house has a kitchen, a livingroom, a bedroom and a bathroom. In the kitchen there are a fridge, a stove, "
    "a dishwasher, two kitchencabinets and a kitchentable. The livingroom has a sofa, a coffeetable and a cabinet. "
)


def _lm(url: str, profile: str) -> CoopLM:
    settings = parse_setting(profile)
    chat = chat_model_for(settings.model_copy(update={"kind": "openai", "base_url": url}))
    return CoopLM(chat, backend="llamacpp", model=profile)


def decision_latency(lm: CoopLM, calls: int = 4) -> float:
    """Median seconds of a decision-sized call: a fresh ~450-token prompt (no cached prefix) and a short answer."""
    seconds = []
    for _ in range(calls):
        prompt = f"[{uuid.uuid4()}] " + HOUSE * 6 + "\nList the rooms of the house, one per line."
        seconds.append(lm.complete(ChatRequest([{"role": "user", "content": prompt}], max_tokens=32)).latency_s)
    return statistics.median(seconds)


def busy_processes(count: int) -> list[subprocess.Popen[bytes]]:
    """Processes that each want a whole core, as a test suite or a second job would."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--profile", default="local")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--compete", type=int, default=1, help="busy processes during the contended measurement")
    parser.add_argument("--spin-count", type=int, default=None,
                        help="the server's GOMP_SPINCOUNT (default: the setting's); -1: OpenMP's own spinning")
    args = parser.parse_args()
    apply_offline_env()

    settings = parse_setting(args.profile)
    env = server_env(settings)
    if args.spin_count is not None and args.spin_count < 0:
        env.pop("GOMP_SPINCOUNT")
    elif args.spin_count is not None:
        env["GOMP_SPINCOUNT"] = str(args.spin_count)
    port = free_port()
    url = f"http://127.0.0.1:{port}/v1"
    started = time.perf_counter()  # a private server, so the load is measured cold and nothing shares it
    server = subprocess.Popen(server_command(settings, model_files.require(args.profile), port), env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while not ready(url):
        time.sleep(0.05)
    load_s = time.perf_counter() - started
    lm = _lm(url, args.profile)
    try:
        long_prompt = f"[{uuid.uuid4()}] " + HOUSE * 12 + "\nSummarise the house in one word."
        cold = lm.complete(ChatRequest([{"role": "user", "content": long_prompt}], max_tokens=1))
        warm = lm.complete(ChatRequest([{"role": "user", "content": long_prompt}], max_tokens=1))
        count = f"[{uuid.uuid4()}] Count from 1 to 200, separated by spaces, and nothing else."
        lm.complete(ChatRequest([{"role": "user", "content": count}], max_tokens=1))
        gen = lm.complete(ChatRequest([{"role": "user", "content": count}], max_tokens=96))
        options = tuple(f"[gocheck] <kitchencabinet> ({100 + i})" for i in range(9)) + ("[gograb] <apple> (302)",)
        constraint = ChoiceConstraint(options, reasoning_chars=0)
        listed = "\n".join(f"{chr(65 + i)}. {o}" for i, o in enumerate(options))
        goal = f"[{uuid.uuid4()}] Goal: put the apple in the fridge."
        question = f"{goal}\nActions:\n{listed}\n\n{constraint.instructions()}"
        choice_cold = lm.complete(ChatRequest([{"role": "user", "content": question}], constraint=constraint,
                                             max_tokens=8))
        choice_warm = lm.complete(ChatRequest([{"role": "user", "content": question}], constraint=constraint,
                                             max_tokens=8))
        alone_s = decision_latency(lm)
        competitors = busy_processes(args.compete)
        try:
            time.sleep(0.5)
            contended_s = decision_latency(lm)
        finally:
            for process in competitors:
                process.kill()
    finally:
        server.terminate()
        server.wait()

    figures = {
        "profile": args.profile,
        "load_s": round(load_s, 2),
        "prompt_tokens": cold.prompt_tokens,
        "prompt_tokens_per_s": round(cold.prompt_tokens / cold.latency_s, 1),
        "same_prompt_again_s": round(warm.latency_s, 2),
        "generated_tokens": gen.completion_tokens,
        "generated_tokens_per_s": round(gen.completion_tokens / max(gen.latency_s, 1e-6), 1),
        "choice_of_10_cold_s": round(choice_cold.latency_s, 2),
        "choice_of_10_prefix_cached_s": round(choice_warm.latency_s, 2),
        "choice_answer": choice_cold.text,
        "spin_count": env.get("GOMP_SPINCOUNT", "OpenMP default"),
        "decision_alone_s": round(alone_s, 2),
        f"decision_with_{args.compete}_busy_process_s": round(contended_s, 2),
        "slowdown": round(contended_s / alone_s, 2),
        "fair_share_slowdown": round(max(1.0, (settings.threads + args.compete) / (os.cpu_count() or 2)), 2),
    }
    if args.json:
        print(json.dumps(figures))
        return
    for key, value in figures.items():
        print(f"{key:32s} {value}")


if __name__ == "__main__":
    main()
