"""Benchmark the embedded model on this machine: load, prompt and generation speed, a constrained choice.

Run: `.venv/bin/python evals/bench/llm_local.py [--profile local] [--json]`. Figures are printed,
never asserted: they depend on the machine.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import time
import uuid

from coopgraph.llm import model_files
from coopgraph.llm.client import CoopLM
from coopgraph.llm.constraints import ChoiceConstraint
from coopgraph.llm.factory import apply_offline_env, chat_model_for
from coopgraph.llm.interface import ChatRequest
from coopgraph.llm.server import free_port, ready, server_command
from coopgraph.llm.settings import parse_setting

HOUSE = (
    "The house has a kitchen, a livingroom, a bedroom and a bathroom. In the kitchen there are a fridge, a stove, "
    "a dishwasher, two kitchencabinets and a kitchentable. The livingroom has a sofa, a coffeetable and a cabinet. "
)


def _lm(url: str, profile: str) -> CoopLM:
    settings = parse_setting(profile)
    chat = chat_model_for(settings.model_copy(update={"kind": "openai", "base_url": url}))
    return CoopLM(chat, backend="llamacpp", model=profile)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--profile", default="local")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    apply_offline_env()

    settings = parse_setting(args.profile)
    port = free_port()
    url = f"http://127.0.0.1:{port}/v1"
    started = time.perf_counter()  # a private server, so the load is measured cold and nothing shares it
    server = subprocess.Popen(server_command(settings, model_files.require(args.profile), port),
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
    }
    if args.json:
        print(json.dumps(figures))
        return
    for key, value in figures.items():
        print(f"{key:32s} {value}")


if __name__ == "__main__":
    main()
