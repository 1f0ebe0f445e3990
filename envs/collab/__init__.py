"""LLM-Co's two room games, Collab Capture and Collab Escape, as two-player text worlds with their kits.

`coopgraph.envs.make("collab-capture")` and `make("collab-escape")`; rules, options and metrics are in
`docs/envs/collab.md`. Modules: `maps` (the room graphs), `capture` and `escape` (each game's rules as pure
functions, shared by the worlds, the scripted partners and the reasoning rows), `episodes` (the named starts),
`observation`, `metrics`, `capture_env` and `escape_env` (the ParallelEnvs, on `world`), `belief` (the reference
prompt's state text), `affordances` (its lettered action list), `skillbook`, `kit`, `experts.planners` (scripted
partners) and `reasoning` (question rows in LLM-Co's reasoning-set format).
"""
