"""Overcooked-AI as LLM-Co plays it: two cooks, three-onion soups, its layouts (gates included), and its kit.

`coopgraph.envs.make("overcooked", layout="cramped_room", horizon=400)`; the rules, the kit and the partners are in
`docs/envs/overcooked.md`. Modules: `upstream` (the parts of overcooked-ai 1.1.0 used), `layouts` (the shipped
layouts, read safely), `kitchen` (LLM-Co's numbered places), `paths` (BFS distances and paths), `mdp` (the paper's
rules, walls and gates on overcooked-ai's gridworld), `observation` and `observe`, `metrics`, `env` (the
ParallelEnv), `belief` (LLM-Co's state description), `affordances` (its feasible actions), `skillbook` (its action
manager), `kit`, `experts.cooks` (the greedy and random partners).
"""
