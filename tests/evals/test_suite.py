"""Suite files: shipped suites load, mistakes are reported with file:line, jobs and config hashes expand right."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from coopgraph.evals.suite import SUITES_DIR, SuiteInvalid, expand_jobs, load_suite, parse_suite, unknown_members

SMALL = """\
name: small
environment: {name: cwah}
episodes: [test/0, test/1, test/2]
seeds: [0, 1]
repeats: 2
teams:
  - label: solo
    members: [mhp]
  - label: pair
    members: [mhp, {name: coela, llm: openai:gpt-4o-mini}]
"""


def test_every_shipped_suite_loads_and_names_the_requested_teams() -> None:
    names = {p.stem for p in SUITES_DIR.glob("*.yaml")}
    assert {"cwah-baselines", "cwah-comparison", "reveca-ablations", "capo-ablations"} <= names
    for name in names:
        suite, path, text = load_suite(name)
        assert path.parent == SUITES_DIR and suite.name == name and text
    comparison = load_suite("cwah-comparison")[0]
    members = [[m.name for m in t.members] for t in comparison.teams]
    assert members == [["mhp"], ["mhp", "mhp"], ["mhp", "coela"], ["coela", "coela"], ["mhp", "coela-lite"],
                       ["coela-lite", "coela-lite"], ["coela-news", "coela-news"], ["mhp", "coela-brief"],
                       ["coela-brief", "coela-brief"], ["capo", "capo"], ["reveca", "reveca"]]
    llms = [[m.llm for m in t.members] for t in comparison.teams]
    assert llms[4:7] == [[None, "local-coop"], ["local-coop"] * 2, ["local-coop"] * 2] and llms[3] == [None, None]
    assert llms[7:9] == [[None, "local-coop-brief"], ["local-coop-brief"] * 2]
    assert comparison.reference_team() == "MHP"
    reveca = load_suite("reveca-ablations")[0]
    assert reveca.environment.options == {"noise": 20} and reveca.kind == "ablation"
    assert {m.name for t in reveca.teams for m in t.members} >= {
        "reveca-nospatial", "reveca-norelevance", "reveca-novalidation", "reveca-alwaysask", "reveca-nopartner",
        "reveca-k2", "reveca-k4"}
    capo = load_suite("capo-ablations")[0]
    assert {m.name for t in capo.teams for m in t.members} >= {
        "capo-nometa", "capo-noeval", "capo-noadapt", *(f"capo-rounds{i}" for i in range(1, 6))}


def test_baselines_suite_needs_no_llm_and_limit_one_keeps_the_comparison_small(tmp_path: Path) -> None:
    baselines = load_suite("cwah-baselines")[0]
    assert not unknown_members(baselines)
    assert all(llm is None for job in expand_jobs(baselines, tmp_path) for llm in job.llms)
    comparison = load_suite("cwah-comparison")[0]
    assert len(expand_jobs(comparison, tmp_path, limit=1)) == len(comparison.teams)


def test_jobs_cover_episodes_seeds_repeats_and_the_llm_override_only_touches_graph_members(tmp_path: Path) -> None:
    suite = parse_suite(SMALL)
    jobs = expand_jobs(suite, tmp_path)
    assert len(jobs) == 2 * 3 * 2 * 2 and len({j.key for j in jobs}) == len(jobs)
    pair = next(j for j in jobs if j.team == "pair")
    assert pair.llms == [None, "openai:gpt-4o-mini"]
    overridden = expand_jobs(suite, tmp_path, llm="vllm:qwen")
    solo_hashes = {j.config_hash for j in jobs if j.team == "solo"}
    assert solo_hashes == {j.config_hash for j in overridden if j.team == "solo"}  # baselines are not rerun
    assert next(j for j in overridden if j.team == "pair").llms == [None, "vllm:qwen"]
    assert {j.config_hash for j in overridden if j.team == "pair"} != {pair.config_hash}
    assert len(expand_jobs(suite, tmp_path, limit=1, teams=["solo"])) == 1 * 2 * 2
    assert jobs[0].trace_file().is_relative_to(tmp_path / "traces" / "small" / "solo")


def test_config_hash_changes_with_the_environment_options_and_the_step_budget(tmp_path: Path) -> None:
    plain = expand_jobs(parse_suite(SMALL), tmp_path)[0]
    noisy = expand_jobs(parse_suite(SMALL.replace("{name: cwah}", "{name: cwah, options: {noise: 5}}")), tmp_path)[0]
    assert plain.config_hash != noisy.config_hash
    assert plain.config_hash == expand_jobs(parse_suite(SMALL), tmp_path)[0].config_hash
    short = expand_jobs(parse_suite(SMALL), tmp_path, max_steps=20)[0]
    assert short.max_steps == 20 and short.config_hash != plain.config_hash


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        (SMALL.replace("seeds: [0, 1]", "seeds: [zero]"), 4, "seeds.0"),
        (SMALL.replace("seeds: [0, 1]", "seeds: [0, -1]"), 4, "seeds.1: Input should be greater than or equal to 0"),
        (SMALL.replace("    members: [mhp]\n", "    members: []\n"), 8, "members"),
        (SMALL.replace("  - label: pair", "  - label: solo"), None, "unique"),
        (SMALL.replace("repeats: 2", "repeats: 2\ncolour: blue"), 6, "colour"),
        (SMALL.replace("episodes: [test/0, test/1, test/2]", "episodes: exam"), 3, "unknown episode set"),
        (SMALL.replace("teams:", "teams: [\n"), None, "invalid YAML"),
    ],
)
def test_mistakes_are_reported_with_file_and_line(text: str, line: int | None, fragment: str) -> None:
    with pytest.raises(SuiteInvalid) as caught:
        parse_suite(text, "my-suite.yaml")
    message = str(caught.value)
    assert message.startswith("my-suite.yaml") and fragment in message
    if line is not None:
        assert caught.value.errors[0].line == line, message


def test_a_missing_suite_lists_the_shipped_ones() -> None:
    with pytest.raises(SuiteInvalid, match="cwah-baselines"):
        load_suite("no-such-suite")


def test_a_new_local_coop_adapter_reruns_its_teams_and_nothing_else(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from dataclasses import replace

    from coopgraph.llm import model_files

    suite = load_suite("cwah-comparison")[0]
    before = {j.team: j.config_hash for j in expand_jobs(suite, tmp_path, limit=1)}
    retrained = replace(model_files.MODEL_FILES["local-coop"], adapter_sha256="0" * 64)
    monkeypatch.setitem(model_files.MODEL_FILES, "local-coop", retrained)
    after = {j.team: j.config_hash for j in expand_jobs(suite, tmp_path, limit=1)}
    changed = {team for team in before if before[team] != after[team]}
    assert changed == {t.label for t in suite.teams if any(m.llm == "local-coop" for m in t.members)} != set()


def test_how_a_profile_is_asked_is_part_of_its_teams_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from dataclasses import replace

    from coopgraph.llm import model_files

    assert model_files.MODEL_FILES["local"].fixes() == {}  # plain profiles keep their hashes
    assert model_files.MODEL_FILES["local-coop"].fixes()["drafts_messages"] is False
    suite = load_suite("cwah-comparison")[0]
    before = {j.team: j.config_hash for j in expand_jobs(suite, tmp_path, limit=1)}
    chatty = replace(model_files.MODEL_FILES["local-coop"], drafts_messages=True)
    monkeypatch.setitem(model_files.MODEL_FILES, "local-coop", chatty)
    after = {j.team: j.config_hash for j in expand_jobs(suite, tmp_path, limit=1)}
    assert {t for t in before if before[t] != after[t]} == {
        t.label for t in suite.teams if any(m.llm == "local-coop" for m in t.members)}


def test_a_change_in_a_base_spec_reruns_the_variants_built_on_it(tmp_path: Path) -> None:
    base = tmp_path / "base.yaml"
    base.write_text((Path(__file__).parents[2] / "graphs" / "coela.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "variant.yaml").write_text("extends: base.yaml\nname: variant\n", encoding="utf-8")
    suite_text = (f"name: chain\nepisodes: [test/0]\nllm: local\nteams:\n"
                  f"  - {{label: variant, members: [{tmp_path / 'variant.yaml'}, mhp]}}\n"
                  f"  - {{label: base, members: [{base}, mhp]}}\n")
    suite_file = tmp_path / "chain.yaml"
    suite_file.write_text(suite_text, encoding="utf-8")
    before = {j.team: j.config_hash for j in expand_jobs(load_suite(str(suite_file))[0], tmp_path)}
    base.write_text(base.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    after = {j.team: j.config_hash for j in expand_jobs(load_suite(str(suite_file))[0], tmp_path)}
    assert before["variant"] != after["variant"] and before["base"] != after["base"]


def test_every_shipped_suite_is_listed_in_the_evaluation_docs() -> None:
    page = (Path(__file__).parents[2] / "docs" / "evals.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `([a-z0-9.\-]+)` \|", page[page.index("### Shipped suites"):], re.MULTILINE))
    assert {p.stem for p in SUITES_DIR.glob("*.yaml")} <= listed


def test_where_a_job_keeps_its_replies_is_neither_its_key_nor_its_config_and_reaches_its_models(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from coopgraph.evals.suite import Job
    from coopgraph.evals.suite_job import run_job
    from coopgraph.testing import scripted_lm
    from tests.runtime.test_replay_decision import by_prompt

    plain = expand_jobs(parse_suite(SMALL), tmp_path)
    own = expand_jobs(parse_suite(SMALL), tmp_path, response_cache=tmp_path / "replies.sqlite")
    none = expand_jobs(parse_suite(SMALL), tmp_path, response_cache=False)
    assert [j.key for j in plain] == [j.key for j in own] == [j.key for j in none]  # a store resumes across them
    assert plain[0].response_cache is True and none[0].response_cache is False
    assert own[0].response_cache == str(tmp_path / "replies.sqlite")
    assert Job.model_validate(own[0].model_dump()) == own[0]  # it ships to a worker as it is
    asked: list[object] = []

    def make_lm(setting: object = None, *, cache: object = True, **_: object) -> object:
        asked.append(cache)
        return scripted_lm(by_prompt())

    monkeypatch.setattr("coopgraph.llm.factory.make_lm", make_lm)
    toy = parse_suite("name: toy\nenvironment: {name: toyhouse}\nepisodes: [toyhouse/0]\nmax_steps: 4\nteams:\n"
                      "  - label: pair\n    members: [coela-brief, toyhouse-expert]\n")
    (job,) = expand_jobs(toy, tmp_path, response_cache=False)
    assert run_job(job.model_dump())["status"] == "done" and asked == [False]


def test_a_jobs_wall_budget_is_neither_its_key_nor_its_config_and_its_row_says_where_it_stopped(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from coopgraph.evals.store import ResultStore
    from coopgraph.evals.suite import Job
    from coopgraph.evals.suite_job import run_job
    from coopgraph.record.trace_file import read_events
    from coopgraph.testing import scripted_lm
    from tests.runtime.test_replay_decision import by_prompt

    plain = expand_jobs(parse_suite(SMALL), tmp_path)
    capped = expand_jobs(parse_suite(SMALL), tmp_path, wall_budget_s=1800)
    assert [j.key for j in plain] == [j.key for j in capped]  # a store resumes across budgets
    assert {j.config_hash for j in plain} == {j.config_hash for j in capped}
    assert plain[0].wall_budget_s is None and capped[0].wall_budget_s == 1800.0
    assert Job.model_validate(capped[0].model_dump()) == capped[0]  # it ships to a worker as it is
    with pytest.raises(ValueError, match="wall_budget_s must be a number of seconds above 0"):
        expand_jobs(parse_suite(SMALL), tmp_path, wall_budget_s=0)
    monkeypatch.setattr("coopgraph.llm.factory.make_lm", lambda *_, **__: scripted_lm(by_prompt()))
    toy = parse_suite("name: toy\nenvironment: {name: toyhouse}\nepisodes: [toyhouse/0]\nmax_steps: 12\nteams:\n"
                      "  - label: pair\n    members: [coela-brief, toyhouse-expert]\n")
    (job,) = expand_jobs(toy, tmp_path, wall_budget_s=1e-9)  # out of budget at the end of the first step
    row = run_job(job.model_dump())
    stop = row["metrics"]["stopped_at_budget"]
    assert row["status"] == "done" and stop["step"] == row["steps"] < 12 and stop["max_steps"] == 12
    assert stop["budget_s"] == 1e-9 and stop["wall_time_s"] > 0
    events = read_events(row["trace_path"])
    assert [e["type"] for e in events].count("env_step") == 1
    assert next(e for e in events if e["type"] == "episode_end")["stopped_at_budget"] == stop
    with ResultStore(tmp_path / "store") as store:
        store.record(row)
        (kept,) = store.rows()
    assert kept["metrics"]["stopped_at_budget"] == stop
    (full,) = expand_jobs(toy, tmp_path / "full")
    assert "stopped_at_budget" not in run_job(full.model_dump())["metrics"]
