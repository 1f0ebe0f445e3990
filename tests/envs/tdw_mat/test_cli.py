"""`coopgraph run --env tdw-mat`: the issue's command lines print the transport rate, frames and messages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from coopgraph.cli import app
from tests.envs.tdw_mat.test_episodes import SHARED


def _run(tmp_path: Path, *args: str) -> dict:
    result = CliRunner().invoke(app, ["run", "--env", "tdw-mat", *args, "--json", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_rhp_pair_on_a_train_episode(tmp_path: Path) -> None:
    payload = _run(tmp_path, "--episode", "train/0", "--team", "rhp,rhp")
    metrics = payload["metrics"]
    assert payload["episode_id"] == "1a_0_0/food" and payload["steps"] == metrics["frames"] == 3000
    assert metrics["transport_rate"] == 0.8 and metrics["communication_steps"] == 0 and payload["messages"] == []


@pytest.mark.skipif(not SHARED.is_dir(), reason="CoELA's train split is not in ../shared/data")
def test_a_dataset_folder_and_the_detector_from_the_command_line(tmp_path: Path) -> None:
    payload = _run(tmp_path, "--env-opt", f"dataset={SHARED}", "--env-opt", "perception=detector",
                   "--episode", "13", "--team", "rhp")
    assert payload["episode_id"] == "1a_0_1/stuff" and 0 <= payload["metrics"]["transport_rate"] <= 1


def test_a_dataset_folder_missing_files_is_refused_in_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["run", "--env", "tdw-mat", "--env-opt", f"dataset={tmp_path}", "--episode",
                                      "0", "--team", "rhp", "--out", str(tmp_path)])
    assert result.exit_code != 0 and "lacks test_env.json" in result.output
