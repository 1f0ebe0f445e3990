"""A report reads a suite's rows in the order a sequential run stores them, whatever order they finished in."""

from __future__ import annotations

from coopgraph.evals.report import in_job_order
from coopgraph.evals.suite import parse_suite

SUITE = """\
name: order
environment: {name: cwah}
episodes: [test/3, test/1]
seeds: [0, 1]
teams:
  - label: MHP
    members: [mhp]
"""


def test_rows_come_back_in_the_suites_episode_seed_repeat_order_and_strays_last() -> None:
    finished = [{"episode": e, "seed": s, "repeat": 0, "id": i} for i, (e, s) in enumerate(
        [("test/1", 1), ("test/9", 0), ("test/3", 1), ("test/1", 0), ("test/3", 0)])]
    ordered = in_job_order(finished, parse_suite(SUITE))
    assert [(r["episode"], r["seed"]) for r in ordered] == [("test/3", 0), ("test/3", 1), ("test/1", 0),
                                                           ("test/1", 1), ("test/9", 0)]
    assert in_job_order(finished, None) == finished  # no stored suite: the store's order
