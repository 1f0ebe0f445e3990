"""LLM-Co's reasoning questions (EC, TOM, JP) as an evaluation, and a set generated from coopgraph's worlds."""
