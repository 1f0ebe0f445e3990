"""The per-scene TDW-MAT benchmark: which episodes it plays, and its table's rows beside CoELA table 1."""

from __future__ import annotations

from coopgraph.evals.bench.tdw_mat_scenes import COLUMNS, PAPER, Rates, episode_ids, main, table


def test_episode_ids_take_the_first_of_each_scene_and_task() -> None:
    assert len(episode_ids("test")) == 24
    assert episode_ids("test", limit=1) == ["test/0", "test/6", "test/12", "test/18"]  # 5a/2a x food/stuff


def test_the_table_has_a_row_per_scene_a_total_and_coelas_numbers() -> None:
    rates = Rates({"test/0": 1.0, "test/6": 0.0, "test/12": 0.5, "test/18": 0.5},
                  {"test/0": "5a", "test/6": "2a", "test/12": "5a", "test/18": "2a"},
                  {"test/0": "food", "test/6": "food", "test/12": "stuff", "test/18": "stuff"})
    rows = table({"test": dict.fromkeys(COLUMNS, rates)}).splitlines()
    assert rows[2] == "| test | 2a | 2 | 0.25 | 0.25 | 0.25 | 0.25 |"
    assert rows[3] == "| test | 5a | 2 | 0.75 | 0.75 | 0.75 | 0.75 |"
    assert rows[4].startswith("| test | all (food / stuff / total) | 4 | 0.50 / 0.50 / **0.50** |")
    assert rows[5] == ("| test | CoELA table 1 (food / stuff / total) | 24 | 0.52 / 0.49 / 0.50 | 0.76 / 0.74 / 0.75 | "
                       "0.49 / 0.36 / 0.43 | 0.67 / 0.54 / 0.61 |")
    assert PAPER[("RHP", "oracle")][2] == 0.50 and PAPER[("RHP+RHP", "detector")][2] == 0.61


def test_one_episode_per_scene_and_task_runs_end_to_end(capsys) -> None:  # noqa: ANN001
    assert main(["--split", "test", "--seeds", "1", "--limit", "1"]) == 0
    out = capsys.readouterr().out
    assert "| test | 2a | 2 |" in out and "| test | 5a | 2 |" in out and "CoELA table 1" in out
