"""How often CoELA's action-choice node picks what MHP (or the oracle) picked, on sampled expert decision points.

Each sampled decision point (evals/decisions.py) is put to `planning.choose_action` of a graph spec through
the node's own program and adapter, so the prompt is exactly the one that runs in episodes. Beside the
agreement it prints the baselines that make it readable: how often the first listed option is the expert's
(what a model that always says "A" would score) and what uniform random choice would score.

Run: `.venv/bin/python -m coopgraph.evals.bench.decision_agreement [--n 100] [--llm local] [--shuffle]`.
Figures are printed, never asserted: they depend on the model and the machine.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from coopgraph.envs.protocol import action_kind
from coopgraph.evals.decisions import DECISION_SPEC, DecisionRenderer, generate, read_jsonl
from coopgraph.nodes.context import AgentResources
from coopgraph.nodes.families.planning import choose
from coopgraph.nodes.order_vote import OrderVote


def sample(decisions: list[dict[str, Any]], n: int, seed: int) -> list[dict[str, Any]]:
    """`n` decision points where the node would call the model (two or more options), seeded."""
    pool = [d for d in decisions if len(d["options"]) >= 2]
    return random.Random(seed).sample(pool, min(n, len(pool)))


def presented(decision: dict[str, Any], shuffle: bool, seed: int,
              prerank: int | None = None) -> tuple[list[str], int | None, int | None]:
    """(options in the order shown, expert index, oracle index). Shuffled per decision when asked; with
    `prerank=K` only REVECA's K best are shown, best first, and a label that did not make the cut is None."""
    options, expert, oracle = list(decision["options"]), decision["expert_index"], decision["oracle_index"]
    order = list(range(len(options)))
    if prerank is not None:
        if "prerank" not in decision:
            raise ValueError(f"decision {decision['id']} has no 'prerank' field; regenerate the data")
        order = list(decision["prerank"])[:prerank] or order[:1]
    if shuffle:
        random.Random(f"{seed}:{decision['id']}").shuffle(order)

    def where(index: int | None) -> int | None:
        return order.index(index) if index is not None and index in order else None

    return [options[i] for i in order], where(expert), where(oracle)


def kind_of(option: str | None) -> str | None:
    """The action's kind, `[gograb]` in `[gograb] <apple> (3)`: a wrong option of the right kind is a nearer miss."""
    kind = action_kind(option)
    return f"[{kind}]" if kind else None


def evaluate(decisions: list[dict[str, Any]], lm: Any, *, spec: str = DECISION_SPEC, reasoning_chars: int | None = None,
             answer_format: str = "letter", shuffle: bool = False, seed: int = 0, prerank: int | None = None,
             orders: int = 1, give_up_after: int = 5,
             on_row: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
    """Ask the node to choose on every decision point; one row per decision with the answer and its cost.

    A row whose every attempt raised (server gone, timeout) is an `error`, not an invalid answer; after
    `give_up_after` such rows in a row the server is presumed dead and the rows so far are returned.
    """
    renderer = DecisionRenderer(spec)
    params: dict[str, Any] = {"answer_format": answer_format, "orders": orders}
    if reasoning_chars is not None:
        params["reasoning_chars"] = reasoning_chars
    rows = []
    for decision in decisions:
        ctx = renderer.choose_context(AgentResources(env=decision.get("prompt_env", "cwah"), lm=lm))
        ctx.params = ctx.params.model_copy(update=params)
        options, expert, oracle = presented(decision, shuffle, seed, prerank)
        calls, tokens, skipped = lm.usage.calls, lm.usage.prompt_tokens, lm.usage.grammar_skipped
        started = time.perf_counter()
        # as in an episode, a single candidate is taken without asking
        vote = choose(ctx, dict(decision["facts"]), options) if len(options) > 1 else OrderVote(0)
        row = {
            "id": decision["id"], "options": len(options), "expert_index": expert, "oracle_index": oracle,
            "answer_index": vote.index, "valid": vote.valid, "votes": vote.votes,
            "reasoning": vote.reasoning, "latency_s": round(time.perf_counter() - started, 3),
            "calls": lm.usage.calls - calls, "prompt_tokens": lm.usage.prompt_tokens - tokens,
            "grammar_skipped": lm.usage.grammar_skipped - skipped,
            "all_options": len(decision["options"]), "oracle_labelled": decision["oracle_index"] is not None,
            "expert_kind": kind_of(decision["expert_choice"]),
            "answer_kind": kind_of(options[vote.index]) if vote.index is not None else None,
        }
        row["error"] = not row["valid"] and row["calls"] == 0
        rows.append(row)
        if on_row is not None:
            on_row(row)
        if len(rows) >= give_up_after and all(r["error"] for r in rows[-give_up_after:]):
            break
    return rows


def _share(hits: int, total: int) -> float | None:
    return round(hits / total, 4) if total else None


def _hit(row: dict[str, Any], label: str) -> bool:
    """The answer is the labelled option (a label cut by pre-ranking, or an invalid answer, never is)."""
    return row[label] is not None and row["answer_index"] == row[label]


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Agreement and its baselines over the answered rows (transport errors are counted apart). An invalid
    answer agrees with nothing (in an episode the node would fall back to the first option)."""
    errors = sum(bool(r.get("error")) for r in rows)
    rows = [r for r in rows if not r.get("error")]
    n = len(rows)
    labelled = [r for r in rows if r["oracle_labelled"]]
    calls = sum(r["calls"] for r in rows)
    asked = [r for r in rows if r["calls"]]
    return {
        "decisions": n,
        "oracle_labelled": len(labelled),
        "agree_mhp": _share(sum(_hit(r, "expert_index") for r in rows), n),
        "agree_oracle": _share(sum(_hit(r, "oracle_index") for r in labelled), len(labelled)),
        "agree_kind_mhp": _share(sum(r["answer_kind"] is not None and r["answer_kind"] == r["expert_kind"]
                                     for r in rows), n),
        "invalid": _share(sum(not r["valid"] for r in rows), n),
        "answer_is_first": _share(sum(r["answer_index"] == 0 for r in rows), n),
        "first_is_mhp": _share(sum(r["expert_index"] == 0 for r in rows), n),
        "first_is_oracle": _share(sum(r["oracle_index"] == 0 for r in labelled), len(labelled)),
        "expert_shown": _share(sum(r["expert_index"] is not None for r in rows), n),
        # random choice is over everything the environment listed, pre-ranked or not
        "random_mhp": round(statistics.mean(1 / r["all_options"] for r in rows), 4) if rows else None,
        "random_oracle": round(statistics.mean(1 / r["all_options"] for r in labelled), 4) if labelled else None,
        "mean_options": round(statistics.mean(r["options"] for r in rows), 2) if rows else None,
        "median_latency_s": round(statistics.median(r["latency_s"] for r in asked), 3) if asked else None,
        "mean_prompt_tokens": round(sum(r["prompt_tokens"] for r in rows) / calls, 1) if calls else None,
        "llm_calls": calls,
        "grammar_skipped": _share(sum(r.get("grammar_skipped", 0) for r in rows), calls),
        "llm_errors": errors,
    }


def table(summary: dict[str, Any]) -> str:
    """The summary as aligned text lines."""

    def pct(key: str) -> str:
        return "n/a" if summary[key] is None else f"{summary[key]:.1%}"

    def num(key: str, form: str) -> str:
        return "n/a" if summary[key] is None else format(summary[key], form)

    lines = [
        ("decision points", f"{summary['decisions']} answered (mean {summary['mean_options']} options)"
                            + (f", {summary['llm_errors']} lost to LLM errors" if summary["llm_errors"] else "")),
        ("MHP's option shown", pct("expert_shown")),
        ("agreement with MHP", pct("agree_mhp")),
        ("agreement with oracle", f"{pct('agree_oracle')} of {summary['oracle_labelled']} labelled"),
        ("MHP's kind of action", pct("agree_kind_mhp")),
        ("invalid answers", pct("invalid")),
        ("answer = first option", pct("answer_is_first")),
        ("first option = MHP's", pct("first_is_mhp")),
        ("first option = oracle's", pct("first_is_oracle")),
        ("random choice vs MHP", pct("random_mhp")),
        ("random choice vs oracle", pct("random_oracle")),
        ("median latency", num("median_latency_s", ".2f") + " s"),
        ("mean prompt tokens", num("mean_prompt_tokens", ".0f")),
        ("LLM calls", str(summary["llm_calls"])),
        ("answered without grammar", pct("grammar_skipped")),
    ]
    return "\n".join(f"{label:<26}{value}" for label, value in lines)


def load_decisions(args: argparse.Namespace) -> list[dict[str, Any]]:
    if args.data:
        return read_jsonl(args.data)
    if args.env == "tdw-mat":  # the transport planner on the shipped train split (evals/tdw_decisions.py)
        from coopgraph.evals import tdw_decisions

        team = args.team.split(",") if args.team != "mhp,mhp" else None
        return list(tdw_decisions.generate(team, limit_episodes=args.limit_episodes, seed=args.seed, spec=args.spec))
    return list(generate(args.env, args.set, args.team.split(","), limit_episodes=args.limit_episodes,
                         seed=args.seed, spec=args.spec))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100, help="decision points to sample")
    parser.add_argument("--llm", default="local", help="LLM setting: local, local-tiny, openai:MODEL, ...")
    parser.add_argument("--reasoning-chars", type=int, default=None, help="override the spec's (coela: 160)")
    parser.add_argument("--answer-format", choices=("letter", "text"), default="letter")
    parser.add_argument("--shuffle", action="store_true", help="shuffle option order per decision (seeded)")
    parser.add_argument("--prerank", type=int, default=None, metavar="K",
                        help="show only REVECA's K best options (relevance, then proximity), best first")
    parser.add_argument("--orders", type=int, default=1, metavar="N",
                        help="ask in N rotated option orders and take the majority (cancels position bias)")
    parser.add_argument("--seed", type=int, default=0, help="sampling, shuffling and episode seed")
    parser.add_argument("--spec", default=DECISION_SPEC)
    parser.add_argument("--env", default="cwah")
    parser.add_argument("--set", default="train")
    parser.add_argument("--team", default="mhp,mhp", help="expert team (tdw-mat: planner,planner by default)")
    parser.add_argument("--limit-episodes", type=int, default=None)
    parser.add_argument("--data", type=Path, help="read decision points from this JSONL instead of generating")
    parser.add_argument("--cache", action="store_true", help="use the on-disk response cache (latency then lies)")
    parser.add_argument("--rows", type=Path, help="also write one JSON row per decision here")
    parser.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    parser.add_argument("--save", type=Path, help="also write the summary here, e.g. RUNS/planners/NAME.json, "
                        "which `coopgraph report RUNS` shows as the planner table")
    parser.add_argument("--label", default=None, help="the planner's name in that table (default: the LLM setting)")
    args = parser.parse_args()

    from coopgraph.llm.factory import make_lm

    started = time.perf_counter()
    decisions = load_decisions(args)
    chosen = sample(decisions, args.n, args.seed)
    lm = make_lm(args.llm, cache=args.cache)

    def progress(row: dict[str, Any]) -> None:
        done.append(row)
        if len(done) % 10 == 0 or row["error"]:
            print(f"  {len(done)}/{len(chosen)} decisions ({sum(r['error'] for r in done)} errors)", file=sys.stderr)

    done: list[dict[str, Any]] = []
    rows = evaluate(chosen, lm, spec=args.spec, reasoning_chars=args.reasoning_chars,
                    answer_format=args.answer_format, shuffle=args.shuffle, seed=args.seed, prerank=args.prerank,
                    orders=args.orders, on_row=progress)
    if len(rows) < len(chosen):
        print(f"stopped after {len(rows)} decisions: the LLM kept failing (server down?)", file=sys.stderr)
    if args.rows:
        args.rows.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    answer_format = lm.settings_public.get("answer_format") or args.answer_format  # a profile may fix it
    summary = summarize(rows) | {"llm": args.llm, "answer_format": answer_format, "shuffle": args.shuffle,
                                 "reasoning_chars": args.reasoning_chars, "pool": len(decisions),
                                 "prerank": args.prerank, "orders": args.orders,
                                 "wall_s": round(time.perf_counter() - started, 1), "spec": args.spec,
                                 "data": str(args.data or f"{args.team} {args.env} {args.set}"),
                                 "label": args.label or args.llm}
    if args.save:
        args.save.parent.mkdir(parents=True, exist_ok=True)
        args.save.write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    if args.json:
        print(json.dumps(summary))
        return
    print(f"CoELA planning.choose_action ({args.spec}) on {summary['decisions']} of {len(decisions)} decision points "
          f"({summary['data']}), llm={args.llm}, answer={answer_format}, "
          f"shuffle={args.shuffle}, prerank={args.prerank}, orders={args.orders}")
    print(table(summary))
    print(f"({summary['wall_s']:.0f} s)")


if __name__ == "__main__":
    main()
