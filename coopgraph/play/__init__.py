"""A person on the team: the `human` member, the seat it asks through, and the terminal and web front ends.

The person plays one agent through that agent's kit, as a scripted or graph member does: they see what its belief
holds, choose among its affordances and may type messages; the episode runner and the trace are the same as for
agent-only teams (`coopgraph play`, docs/play.md).
"""
