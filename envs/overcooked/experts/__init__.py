"""Overcooked's scripted partners: the greedy and the random cook, which play through the kit as an LLM-Co agent
does. Registered in `coopgraph.envs`."""
