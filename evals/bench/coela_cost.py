"""What a CoELA episode costs: prompt tokens per decision, LLM calls per episode, time outside the LLM.

Runs CoELA+CoELA on C-WAH test episodes with the embedded model (or `--llm`), within a step budget so it
finishes on 2 cores, and prints per-episode and mean figures read from the traces. Example:
`.venv/bin/python evals/bench/coela_cost.py --episodes 2 --max-steps 60`.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from coopgraph.llm.factory import apply_offline_env, make_lm
from coopgraph.record.trace_file import read_events
from coopgraph.runtime.launch import run_configured


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--episodes", type=int, default=2)
    parser.add_argument("--max-steps", type=int, default=60)
    parser.add_argument("--llm", default="local")
    parser.add_argument("--team", default="coela,coela")
    parser.add_argument("--out", type=Path, help="keep the traces here (for evals/bench/prompt_reuse.py)")
    args = parser.parse_args()
    apply_offline_env()
    lm = make_lm(args.llm, cache=False)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.out or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for index in range(args.episodes):
            payload = run_configured("cwah", {}, f"test/{index}", args.team.split(","), lambda: lm,
                                     args.max_steps, folder, seed=0)
            events = read_events(str(payload.trace_path))
            calls = [e for e in events if e["type"] == "llm_call"]
            choices = [e for e in calls if e.get("node") == "choose_action"]
            llm_s = sum(e["latency_s"] for e in calls)
            rows.append({
                "episode": f"test/{index}", "steps": payload.steps, "success": payload.success,
                "llm_calls": len(calls), "decisions": len(choices),
                "prompt_tokens_per_decision": statistics.mean(e["prompt_tokens"] for e in choices) if choices else 0,
                "prompt_tokens_per_call": statistics.mean(e["prompt_tokens"] for e in calls) if calls else 0,
                "wall_s": payload.wall_time_s, "llm_s": llm_s,
                "outside_llm_share": 1 - llm_s / payload.wall_time_s if payload.wall_time_s else 0,
                "invalid": payload.invalid_answers,
            })
    header = ("episode", "steps", "success", "llm_calls", "decisions", "prompt_tokens_per_decision",
              "prompt_tokens_per_call", "wall_s", "llm_s", "outside_llm_share", "invalid")
    print(" | ".join(header))
    for row in rows:
        print(" | ".join(f"{row[h]:.2f}" if isinstance(row[h], float) else str(row[h]) for h in header))
    print(f"mean prompt tokens per decision: {statistics.mean(r['prompt_tokens_per_decision'] for r in rows):.0f}; "
          f"LLM calls per episode ({args.max_steps}-step budget): {statistics.mean(r['llm_calls'] for r in rows):.1f}; "
          f"share of wall time outside the LLM: {statistics.mean(r['outside_llm_share'] for r in rows):.1%}")


if __name__ == "__main__":
    main()
