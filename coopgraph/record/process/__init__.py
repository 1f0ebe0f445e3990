"""How a team cooperated, step by step: process measures read from a run's trace alone (docs/evals.md,
"Process measures"), so any past run can be reanalysed without running it again."""

from coopgraph.record.process.measures import MEASURES, NotAvailable, ProcessMeasures, process_measures

__all__ = ["MEASURES", "NotAvailable", "ProcessMeasures", "process_measures"]
