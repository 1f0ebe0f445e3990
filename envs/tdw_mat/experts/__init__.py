"""TDW-MAT's scripted partners: CoELA's rule-based hierarchical planner (`rhp`), the full-information oracle
(`tdw-oracle`) and the transport planner that decision data records (RHP's rules on CoELA's action list).
Registered in `coopgraph.envs`."""
