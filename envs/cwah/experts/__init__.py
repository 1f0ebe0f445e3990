"""C-WAH's scripted partners: MHP (`mhp`, `mhp-silent`) with its sub-goal planner, and the full-information
oracle (`oracle`) whose plans also give the admissible bound on team steps. Registered in `coopgraph.envs`."""
