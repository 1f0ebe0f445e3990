"""What REVECA and coela-news take from the TDW-MAT kit: containers checked when seen, the observed grabs, the
news reporter whose sentences a partner's reader turns back into facts, and announced grabs as claims."""

from __future__ import annotations

from coopgraph.envs import agent_kit
from coopgraph.envs.protocol import Affordance, AffordanceGroup, Message
from coopgraph.envs.tdw_mat.env import TDWMatEnv
from tests.envs.tdw_mat.conftest import place, put_thing, things


def _seen(env: TDWMatEnv, agent: str = "alice"):  # noqa: ANN202 - an AgentKit that has looked once
    kit = agent_kit("tdw-mat", env.agent_info(agent))
    obs, *_ = env.step({"alice": "[turn_left]", "bob": "[wait]"})
    kit.belief.update(obs[agent])
    return kit


def _apple_and_bowl_in_view(env: TDWMatEnv) -> tuple[int, int]:
    apple, bowl = things(env, "target")[0], things(env, "container")[0]
    place(env, "alice", (0.74, -2.78))
    put_thing(env, apple, (0.74, -1.5))
    put_thing(env, bowl, (0.9, -1.5))
    return apple.id, bowl.id


def test_a_container_seen_is_checked_and_a_target_is_not(env: TDWMatEnv) -> None:
    apple, bowl = _apple_and_bowl_in_view(env)
    kit = _seen(env)
    assert bowl in kit.belief.checked_containers and apple not in kit.belief.checked_containers


def test_observed_offers_containers_while_one_is_held_and_nothing_with_full_hands(env: TDWMatEnv) -> None:
    apple, bowl = _apple_and_bowl_in_view(env)
    kit = _seen(env)
    assert kit.affordances.observed(kit.belief) == []  # all listed already
    other = things(env, "container")[1]
    env.world.agents["alice"].hands = [other.id, None]
    other.holder = "alice"
    kit = _seen(env)
    listed = {o.target_id for o in kit.affordances.available(kit.belief) if o.kind == "gograb"}
    observed = {o.target_id for o in kit.affordances.observed(kit.belief)}
    assert bowl not in listed and bowl in observed and apple in listed and apple not in observed
    env.world.agents["alice"].hands = [other.id, apple]
    env.world.things[apple].holder = "alice"
    kit = _seen(env)
    assert kit.affordances.observed(kit.belief) == []


def test_news_is_read_back_by_the_partner_as_places_and_a_claim(env: TDWMatEnv) -> None:
    apple, bowl = _apple_and_bowl_in_view(env)
    alice, bob = _seen(env, "alice"), agent_kit("tdw-mat", env.agent_info("bob"))
    assert alice.news is not None
    reporter = alice.news(alice.belief)
    grab = next(o for o in alice.affordances.available(alice.belief) if o.target_id == apple)
    text = reporter.compose(alice.belief, grab)
    assert f"({apple})" in text and f"({bowl})" in text and "I will grab" in text
    assert reporter.compose(alice.belief, grab) == ""  # told already: no news
    bob.read_message(bob.belief, Message(sender="alice", step=3, text=text))
    assert bob.belief.objects[bowl].room_id == alice.belief.objects[bowl].room_id
    assert bob.belief.objects[bowl].source == "told"
    assert bob.belief.partner_intents["alice"].target_id == apple
    claimed = next(o for o in bob.affordances.available(bob.belief) if o.target_id == apple)
    assert [c.reason for c in claimed.claims] == ["announced"] and claimed.claimed_by == "Alice"


def test_news_reports_a_delivery_once(env: TDWMatEnv) -> None:
    kit = _seen(env)
    reporter = kit.news(kit.belief)  # type: ignore[misc]
    apple = things(env, "target")[0].id
    kit.belief.hand_items = [apple]
    reporter.note_put(kit.belief, None)  # type: ignore[arg-type]
    kit.belief.hand_items = []
    kit.belief.transported.add(apple)
    kit.belief._note(apple, "apple", "item", env.plan.bed_room, env.plan.bed, None, None)
    reporter.note_put(kit.belief, None)  # type: ignore[arg-type]
    wait = Affordance(kind="explore", group=AffordanceGroup.EXPLORE, target_id=env.plan.bed_room)
    assert f"I transported <apple> ({apple}) to the bed." in reporter.compose(kit.belief, wait)
    assert "transported" not in reporter.compose(kit.belief, wait)
