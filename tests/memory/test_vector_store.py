"""VectorMemory: household recall, relevance filters, dedupe, per-episode isolation and cleanup."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from coopgraph.memory.chroma_client import HNSW_CACHE_SIZE, ephemeral_client, index_cache_size
from coopgraph.memory.vector_store import VectorMemory, encode_object_ids

HOUSEHOLD = [
    ("saw <cupcake> (305) inside <fridge> (120) in kitchen", "observation", 12, "kitchen", [305, 120], "seen"),
    ("saw <pudding> (308) inside <fridge> (120) in kitchen", "observation", 13, "kitchen", [308, 120], "seen"),
    ("<kitchencabinet> (112) in kitchen is empty", "observation", 14, "kitchen", [112], "seen"),
    ("<closet> (270) in bedroom is empty", "observation", 20, "bedroom", [270], "seen"),
    ("saw <apple> (312) on <desk> (260) in bedroom", "observation", 21, "bedroom", [312, 260], "seen"),
    ("saw <salmon> (340) inside <microwave> (145) in kitchen", "observation", 15, "kitchen", [340, 145], "seen"),
    ("saw <wineglass> (220) on <coffeetable> (372) in livingroom", "observation", 30, "livingroom", [220, 372], "seen"),
    ("Bob said: I put the <plate> (201) on the <kitchentable> (130)", "message", 40, None, [201, 130], "told"),
    ("Alice said: can you search the bedroom for apples?", "message", 41, None, [], "told"),
    ("Bob said: I will head to the bedroom next and look for cupcakes", "message", 42, None, [], "told"),
    ("[gocheck] <microwave> (145): failed at step 33, path blocked", "action", 33, "kitchen", [145], "seen"),
    ("[goexplore] <kitchen> (11): interrupted at step 60, Bob sent a message", "action", 60, None, [], "seen"),
    ("goal: put 2 plates and 1 wineglass on the kitchentable (130)", "observation", 0, None, [130], "seen"),
]


@pytest.fixture
def memory() -> Iterator[VectorMemory]:
    store = VectorMemory()
    yield store
    store.close()


@pytest.fixture
def household(memory: VectorMemory) -> VectorMemory:
    for text, kind, step, room, objects, source in HOUSEHOLD:
        memory.add(text, kind=kind, step=step, room=room, object_ids=objects, source=source)
    return memory


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("what is inside the fridge", "inside <fridge>"),
        ("where is the salmon", "<salmon> (340)"),
        ("what did Alice ask me to do", "Alice said"),
        ("which containers are already checked and empty", "is empty"),
        ("was any action interrupted", "interrupted"),
        ("what is my goal", "goal:"),
    ],
)
def test_household_queries_rank_the_answer_first(household: VectorMemory, query: str, expected: str) -> None:
    top = household.recall(query, k=3)
    assert expected in top[0].text
    assert [e.distance for e in top] == sorted(e.distance for e in top)


def test_entries_round_trip_their_fields(household: VectorMemory) -> None:
    entry = household.recall("where is the salmon", k=1)[0]
    assert (entry.kind, entry.step, entry.room, entry.object_ids, entry.relevance, entry.source) == (
        "observation", 15, "kitchen", [145, 340], None, "seen")
    message = household.recall("what did Alice ask me to do", k=1)[0]
    assert (message.kind, message.room, message.object_ids, message.source) == ("message", None, [], "told")


def test_relevance_none_is_excluded_by_default(household: VectorMemory) -> None:
    salmon = household.recall("where is the salmon", k=1)[0]
    household.update_relevance(salmon.id, "none")
    assert all(e.id != salmon.id for e in household.recall("where is the salmon", k=20))
    assert household.recall("where is the salmon", k=1, exclude_relevance=())[0].id == salmon.id
    assert household.get(salmon.id).relevance == "none"


def test_min_relevance_keeps_only_rated_entries_at_or_above(memory: VectorMemory) -> None:
    strong = memory.add("saw <plate> (204) on <sofa> (370)", kind="observation", step=1, relevance="strong")
    low = memory.add("saw <plate> (205) on <desk> (260)", kind="observation", step=2, relevance="low")
    memory.add("saw <plate> (206) on <bed> (255)", kind="observation", step=3)
    assert [e.id for e in memory.recall("plate", k=5, min_relevance="medium")] == [strong]
    memory.update_relevance(low, "medium")
    assert {e.id for e in memory.recall("plate", k=5, min_relevance="medium")} == {strong, low}
    memory.update_relevance(low, None)
    assert memory.get(low).relevance is None


def test_bad_relevance_and_unknown_ids_are_refused(memory: VectorMemory) -> None:
    entry = memory.add("saw <mug> (225)", kind="observation", step=1)
    with pytest.raises(ValueError):
        memory.update_relevance(entry, "very")
    with pytest.raises(KeyError):
        memory.update_relevance("e-missing", "low")
    with pytest.raises(ValueError):
        memory.add("saw <mug> (225)", kind="sighting", step=1)
    with pytest.raises(ValueError):
        memory.add("   ", kind="observation", step=1)


def test_kind_and_object_filters(household: VectorMemory) -> None:
    assert {e.kind for e in household.recall("cupcakes", k=10, kinds=["message"])} == {"message"}
    about_fridge = household.recall("anything", k=10, object_id=120)
    assert {e.text for e in about_fridge} == {HOUSEHOLD[0][0], HOUSEHOLD[1][0]}
    assert household.recall("anything", k=10, object_id=999) == []


def test_metadata_is_scalar_only(household: VectorMemory) -> None:
    stored = household.collection.get(include=["metadatas"])["metadatas"]
    assert stored and all(isinstance(v, str | int | float | bool) for m in stored for v in m.values())
    assert encode_object_ids([305, 12, 305]) == ",12,305,"


def test_same_text_for_same_objects_updates_the_step_instead_of_duplicating(memory: VectorMemory) -> None:
    first = memory.add("saw <cupcake> (305) inside <fridge> (120)", kind="observation", step=5, object_ids=[305, 120])
    again = memory.add("saw <cupcake> (305) inside <fridge> (120)", kind="observation", step=9, object_ids=[120, 305])
    older = memory.add("saw <cupcake> (305) inside <fridge> (120)", kind="observation", step=2, object_ids=[305, 120])
    assert first == again == older and memory.count() == 1
    assert memory.get(first).step == 9
    other = memory.add("saw <cupcake> (305) inside <fridge> (120)", kind="observation", step=9, object_ids=[305])
    assert other != first and memory.count() == 2


def test_episodes_do_not_see_each_other() -> None:
    with VectorMemory() as alice, VectorMemory() as bob:
        alice.add("saw <cupcake> (305) inside <fridge> (120)", kind="observation", step=1)
        assert bob.count() == 0 and bob.recall("cupcake") == []
        assert alice.count() == 1


def test_close_and_garbage_collection_free_the_collection() -> None:
    client = ephemeral_client()
    before = len(client.list_collections())
    store = VectorMemory()
    store.add("saw <apple> (312)", kind="observation", step=1)
    assert len(client.list_collections()) == before + 1
    store.close()
    store.close()
    assert len(client.list_collections()) == before
    with pytest.raises(RuntimeError):
        store.recall("apple")
    forgotten = VectorMemory()
    forgotten.add("saw <apple> (312)", kind="observation", step=1)
    del forgotten
    gc.collect()
    assert len(client.list_collections()) == before


def test_empty_memory_and_empty_query_recall_nothing(memory: VectorMemory) -> None:
    assert memory.recall("where is a cupcake") == []
    memory.add("saw <apple> (312)", kind="observation", step=1)
    assert memory.recall("   ") == [] and memory.recall("apple", k=0) == []


def test_persistent_store_survives_close(tmp_path: Path) -> None:
    store = VectorMemory(path=tmp_path / "chroma", name="alice-episode-3")
    entry = store.add("saw <apple> (312) on <desk> (260)", kind="observation", step=4, object_ids=[312])
    store.close()
    reopened = VectorMemory(path=tmp_path / "chroma", name="alice-episode-3")
    assert reopened.get(entry).step == 4 and reopened.count() == 1
    reopened.close()


def test_add_many_writes_a_batch_and_dedupes_within_it(memory: VectorMemory) -> None:
    lines = [
        {"text": "saw <mug> (225) inside <dishwasher> (140)", "kind": "observation", "step": 3, "object_ids": [225]},
        {"text": "Bob said: the fridge is empty", "kind": "message", "step": 4, "source": "told"},
        {"text": "saw <mug> (225) inside <dishwasher> (140)", "kind": "observation", "step": 8, "object_ids": [225],
         "relevance": "low"},
    ]
    ids = memory.add_many(lines)
    assert ids[0] == ids[2] != ids[1] and memory.count() == 2
    mug = memory.get(ids[0])
    assert (mug.step, mug.relevance) == (8, "low")
    again = memory.add_many([{**lines[0], "step": 20}])
    assert again == [ids[0]] and memory.get(ids[0]).step == 20 and memory.get(ids[0]).relevance == "low"
    assert memory.add_many([]) == []


def test_index_cache_is_bounded_and_too_many_open_memories_warn() -> None:
    assert index_cache_size(ephemeral_client()) == HNSW_CACHE_SIZE  # Chroma's internals still as expected
    stores: list[VectorMemory] = []
    try:
        with pytest.warns(RuntimeWarning, match="close"):
            while len(stores) <= HNSW_CACHE_SIZE // 2:
                stores.append(VectorMemory())
    finally:
        for store in stores:
            store.close()
