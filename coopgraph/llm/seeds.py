"""Model seeds: the sampling seed each agent's requests carry, one per replicate, so replicates are separate draws.

A replicate is one (episode seed, repeat) of a run; each of its agents gets its own model seed, derived from the
three with SHA-256 (never Python's `hash`, which changes between processes), so the same replicate always asks
with the same seed, and two replicates share one only by a one-in-2^31 chance. Seeds fit in 31 bits: every server
takes them (OpenAI's and vLLM's signed integers, llama.cpp's unsigned 32 bits, whose all-ones value means
"random").
"""

from __future__ import annotations

import hashlib

#: Seeds are below 2**31.
MODEL_SEED_BITS = 31


def model_seed(episode_seed: int, repeat: int, agent: str) -> int:
    """The model seed of `agent` in the replicate (`episode_seed`, `repeat`): the same on every machine and run."""
    text = f"coopgraph model seed\x00{episode_seed}\x00{repeat}\x00{agent}"
    digest = hashlib.sha256(text.encode()).digest()
    return int.from_bytes(digest[:8], "big") >> (64 - MODEL_SEED_BITS)


def model_seeds(episode_seed: int, repeat: int, agents: list[str]) -> dict[str, int]:
    """Each agent's model seed in one replicate."""
    return {agent: model_seed(episode_seed, repeat, agent) for agent in agents}
