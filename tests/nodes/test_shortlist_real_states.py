"""The generic shortlist and list filters agree with C-WAH's own rules at every decision of real MHP episodes.

`planning.shortlist` reads only the world's annotations (group, cost, value, claims, detour), and
`planning.list_actions` only `repeatable` and the claims; on the lists coela-brief's nodes hand on (just-finished
actions and announced grabs left off) they must pick what the belief's `ranked_looks`, `look_before_put` and
`announced_grabs` pick.
"""

from __future__ import annotations

from coopgraph import envs
from coopgraph.envs.cwah import CWAHAffordances
from coopgraph.evals.decisions import RecordingMHP
from coopgraph.nodes.families.planning import without_claimed, without_recent
from coopgraph.nodes.shortlist import ShortlistParams, best_detour, hand_free, look_ranks, shortlist
from coopgraph.runtime.episode_loop import run_episode


def _snapshots(episode: str, agents: int) -> list[object]:
    env = envs.make("cwah", episode=episode, num_agents=agents)
    members = [RecordingMHP("mhp") for _ in range(agents)]
    run_episode(env, members, seed=0)
    return [snap for member in members for snap in member.snapshots]


def test_the_shortlist_picks_what_the_belief_picks_on_the_lists_it_receives() -> None:
    detours = decisions = 0
    brief = ShortlistParams(drop_claimed=True, drop_unneeded=True, rank_looks=True, detour_first=True,
                            fill_hands=True)
    for episode, agents in (("test/3", 2), ("test/6", 2), ("test/9", 2), ("test/2", 3)):
        for snap in _snapshots(episode, agents):
            belief = snap.belief  # type: ignore[attr-defined]
            full = CWAHAffordances().available(belief)
            recent = without_recent(full, snap.episodic, 4)  # type: ignore[attr-defined]
            received = without_claimed(recent)
            announced = belief.announced_grabs()
            unclaimed = [o for o in recent if not (o.kind == "gograb" and o.target_id in announced)]
            assert received == (unclaimed or recent)
            for options in (full, recent, received):
                ranks = look_ranks(options)
                assert [options[i].text for i in sorted(ranks, key=ranks.__getitem__)] == [
                    o.text for o in belief.ranked_looks(options)]
                assert best_detour(options) is belief.look_before_put(options)
                detours += best_detour(options) is not None
            kept = shortlist(received, brief, hand_free(belief))
            detour = belief.look_before_put(received)
            if detour is not None and any(o is detour for o, _ in kept):
                assert kept[0][0] is detour
            decisions += 1
    assert decisions > 100 and detours >= 9, (decisions, detours)
