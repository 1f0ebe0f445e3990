"""C-WAH's experts: MHP alone and in pairs, the silent variant, the oracle bound and plan."""

from __future__ import annotations

from coopgraph.envs import make
from coopgraph.envs.cwah import CWAHBelief, load_episode_set
from coopgraph.envs.cwah.experts.oracle import oracle_bound, plan_team
from coopgraph.envs.cwah.messages import News, read_message, write_message
from coopgraph.envs.partners import make_partner
from coopgraph.envs.protocol import Message
from coopgraph.runtime.episode_loop import run_episode


def _steps(baseline: str, episode: str, agents: int, **options: object) -> tuple[int, bool]:
    env = make("cwah", episode=episode, num_agents=agents, **options)
    result = run_episode(env, [make_partner(baseline) for _ in range(agents)])
    return result.steps, result.success


def test_mhp_solves_alone_and_faster_with_a_partner() -> None:
    alone, solved = _steps("mhp", "test/7", 1)
    assert solved and alone < 250
    pair, solved = _steps("mhp", "test/7", 2)
    assert solved and pair < alone
    silent, solved = _steps("mhp-silent", "test/7", 2)
    assert solved and silent < alone


def test_mhp_team_is_faster_on_average_and_scales_to_four() -> None:
    alone = [_steps("mhp", f"test/{i}", 1)[0] for i in range(10)]
    pair = [_steps("mhp", f"test/{i}", 2)[0] for i in range(10)]
    assert sum(pair) < 0.85 * sum(alone)
    four, solved = _steps("mhp", "test/3", 4)
    assert solved and four < _steps("mhp", "test/3", 1)[0]


def test_oracle_bound_is_below_every_mhp_pair_and_the_oracle_plan_runs() -> None:
    for episode in load_episode_set("test"):
        bound = oracle_bound(episode, 2)
        mhp_steps, _ = _steps("mhp", episode.episode_id, 2)
        oracle_steps, solved = _steps("oracle", episode.episode_id, 2)
        assert 0 < bound <= mhp_steps, episode.episode_id
        assert solved and bound <= oracle_steps, episode.episode_id
        assert oracle_bound(episode, 1) >= bound  # more agents never need more steps


def test_oracle_plan_covers_every_subgoal() -> None:
    episode = load_episode_set("test")[2]
    plan = plan_team(episode, ("alice", "bob"))
    grabbed = [a.target_id for actions in plan.steps.values() for a in actions if a.kind == "gograb"]
    assert len(grabbed) == len(set(grabbed)) == episode.subgoal_count
    assert plan.bound <= plan.estimated_steps


def test_template_messages_round_trip_into_a_partner_belief() -> None:
    env = make("cwah", episode="test/0")
    env.reset()
    belief = CWAHBelief("bob", env.agent_info("bob"))
    news = News(
        puts=["<plate> (401) on <kitchentable> (61) in <kitchen> (60)"],
        intent="Next I will get <fork> (402).",
        empty={"<kitchen> (60)": ["<kitchencabinet> (63)", "<fridge> (64)"]},
        seen=["<fork> (403) inside <kitchencabinet> (65) in <kitchen> (60)"],
    )
    text = write_message(news)
    assert text.startswith("P: I put") and " | I: " in text and " | B: " in text
    read_message(belief, Message(sender="alice", text=text, step=3))
    assert belief.objects[401].on == 61 and belief.objects[403].inside == 65
    assert {63, 64} <= set(belief.checked_containers)
    assert belief.partner_intents["alice"].target_id == 402 and belief.partners["alice"].room_id == 60
    long_news = News(seen=[f"<fork> ({i}) on <desk> (7) in <bedroom> (5)" for i in range(100, 160)])
    assert len(write_message(long_news)) <= 500


def test_a_grab_announced_for_an_unseen_object_is_counted_and_named() -> None:
    env = make("cwah", episode="test/0")
    env.reset()
    belief = CWAHBelief("bob", env.agent_info("bob"))
    name = belief.goal[0].object_name
    before = belief.still_to_fetch()[name]
    read_message(belief, Message(sender="alice", text=f"I: Next I will get <{name}> (9001).", step=3))
    assert belief.still_to_fetch()[name] == before - 1  # alice has that one covered though bob never saw it
    assert belief.label_of(9001) == f"<{name}> (9001)" and 9001 not in {o.id for o in belief.goal_objects()}
