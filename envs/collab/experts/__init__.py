"""The Collab games' scripted partners: the planner (`collab-planner`) and random (`collab-random`) players; one
name serves both games. Registered in `coopgraph.envs`."""
