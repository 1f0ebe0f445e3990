"""Record what the shipped wirings do under a scripted model, to prove a refactor leaves behaviour alone.

Each run pairs one wiring (coela, capo, reveca, llmco and their lite variants) with its world's scripted partner
in C-WAH, TDW-MAT and Overcooked, under a deterministic scripted model whose answer depends only on the prompt.
What is recorded per run: every primitive action of every agent, every message, every prompt the model was
sent (in order), and the run's trace events; timestamps, latencies, thread and checkpoint ids and object
addresses are left out. Record once before a change and compare after:

    .venv/bin/python -m coopgraph.evals.bench.behaviour_traces --out /tmp/before.json
    .venv/bin/python -m coopgraph.evals.bench.behaviour_traces --out /tmp/after.json --compare /tmp/before.json

`--compare` prints the first difference of each run that differs and exits 1 when any does.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

from coopgraph import envs
from coopgraph.envs.partners import make_partner
from coopgraph.record.trace_file import Tracer
from coopgraph.runtime.episode_loop import run_episode
from coopgraph.testing import scripted_lm
from coopgraph.testing.chat import ScriptedChatModel

SPECS = ("coela", "coela-lite", "coela-brief", "coela-news", "capo", "capo-lite", "reveca", "reveca-rules", "llmco",
         "llmco-lite", "coela-nomemory", "capo-noadapt", "reveca-novalidation", "llmco-helper")

#: world name → (make options, scripted partner, steps in the world's unit)
WORLDS: dict[str, tuple[dict[str, Any], str, int]] = {
    "cwah": ({"episode": "test/0", "num_agents": 2}, "mhp", 30),
    "tdw-mat": ({"episode": "train/0", "num_agents": 2}, "tdw-oracle", 300),
    "overcooked": ({"layout": "cramped_room"}, "greedy", 50),
}

_OPTION = re.compile(r"^\s*([A-Z]{1,2})[.)] ", re.MULTILINE)
_WHERE = re.compile(r"^\S+?:\d+:\d+: ")
_ADDRESS = re.compile(r" at 0x[0-9a-f]+")
#: Trace fields that differ from run to run whatever the agents do.
_UNSTABLE = frozenset({"t", "latency_s", "wall_time_s", "thread_id", "checkpoint_id", "file", "trace_path"})


def prompt_driven(messages: list[Any], kwargs: dict[str, Any]) -> str:
    """A deterministic answer chosen by a hash of the prompt: an option letter where options are listed, a short
    sentence naming the hash elsewhere, so different prompts get different (but repeatable) answers."""
    text = str(messages[-1].content)
    digest = int(hashlib.sha256(text.encode()).hexdigest(), 16)
    letters = _OPTION.findall(text)
    if letters:
        return f"Reasoning: scripted {digest % 97}\nAnswer: {letters[digest % len(letters)]}"
    return f"Let us split the work; plan {digest % 89}: I take the nearest goal objects."


def record_run(spec: str, world: str) -> dict[str, Any]:
    """One episode of `spec` beside its world's scripted partner: actions, messages and prompts."""
    from coopgraph.runtime.teams import make_team

    options, partner, steps = WORLDS[world]
    lm = scripted_lm(prompt_driven)
    try:
        team = make_team([spec], lm_factory=lambda: lm, env=world)
    except Exception as refused:  # noqa: BLE001  # a wiring that does not fit the world is recorded as such
        return {"refused": _WHERE.sub("", str(refused).splitlines()[0])}  # the reason, not the checkout's path
    env = envs.make(world, **options)
    actions: list[str] = []
    members = [*team, make_partner(partner)]
    for member in members:
        _record_actions(member, actions)
    tracer = Tracer(None)
    result = run_episode(env, members, max_steps=steps, seed=0, tracer=tracer)
    chat = lm.chat_model
    assert isinstance(chat, ScriptedChatModel), "scripted_lm wraps a ScriptedChatModel"
    return {"actions": actions, "messages": [f"{m.step} {m.sender}: {m.text}" for m in result.messages],
            "prompts": chat.prompts(), "success": result.success, "steps": result.steps,
            "trace": [_stable(event) for event in tracer.events]}


def _stable(event: dict[str, Any]) -> str:
    """One trace event as JSON without what differs between identical runs."""
    kept = {key: value for key, value in event.items() if key not in _UNSTABLE}
    return _ADDRESS.sub("", json.dumps(kept, default=str, sort_keys=True))


def _record_actions(member: Any, actions: list[str]) -> None:
    """Wrap `member.act` so each action it returns is appended to `actions` with the agent's id."""
    act, reset = member.act, member.reset
    who: list[str] = ["?"]

    def recording_reset(agent_id: str, *args: Any, **kwargs: Any) -> Any:
        who[0] = agent_id
        return reset(agent_id, *args, **kwargs)

    def recording_act(observation: Any) -> Any:
        action = act(observation)
        actions.append(f"{observation.time} {who[0]}: {action!r}")
        return action

    member.reset, member.act = recording_reset, recording_act


def first_difference(before: Any, after: Any, where: str = "") -> str | None:
    """Where two recordings first differ, as a path and the two values, or None when they are equal."""
    if isinstance(before, dict) and isinstance(after, dict):
        for key in sorted(set(before) | set(after)):
            found = first_difference(before.get(key), after.get(key), f"{where}.{key}")
            if found:
                return found
        return None
    if isinstance(before, list) and isinstance(after, list):
        for index, (old, new) in enumerate(zip(before, after, strict=False)):
            found = first_difference(old, new, f"{where}[{index}]")
            if found:
                return found
        return None if len(before) == len(after) else f"{where}: {len(before)} items, now {len(after)}"
    return None if before == after else f"{where}: {str(before)[:300]!r}\n   now {str(after)[:300]!r}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, required=True, help="where to write the recording (JSON)")
    parser.add_argument("--compare", type=Path, help="a recording to compare against")
    parser.add_argument("--specs", default=",".join(SPECS))
    parser.add_argument("--worlds", default=",".join(WORLDS))
    args = parser.parse_args(argv)
    recording: dict[str, Any] = {}
    for world in args.worlds.split(","):
        for spec in args.specs.split(","):
            run = record_run(spec, world)
            recording[f"{world}/{spec}"] = run
            print(f"{world}/{spec}: " + (f"refused ({run['refused'][:80]})" if "refused" in run else
                  f"{len(run['actions'])} actions, {len(run['messages'])} messages, {len(run['prompts'])} prompts"),
                  flush=True)
    args.out.write_text(json.dumps(recording, indent=1))
    if args.compare is None:
        return 0
    before = json.loads(args.compare.read_text())
    differing = 0
    for name in sorted(set(before) | set(recording)):
        found = first_difference(before.get(name), recording.get(name))
        if found:
            differing += 1
            print(f"DIFFERS {name}{found}")
    print(f"{len(recording) - differing} of {len(recording)} runs identical")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
