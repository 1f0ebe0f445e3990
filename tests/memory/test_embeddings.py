"""The offline embedding function: loads from installed package files only, and Chroma takes it as a known EF."""

from __future__ import annotations

import socket
import warnings

import numpy as np
import pytest

from coopgraph.memory import embeddings
from coopgraph.memory.chroma_client import ephemeral_client
from coopgraph.memory.embeddings import EmbeddingModelMissing, StaticEmbeddingFunction, load_embedder
from coopgraph.memory.vector_store import VectorMemory


def test_model_loads_and_embeds_with_the_network_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError("network access attempted")

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    embeddings._loaded.cache_clear()
    vectors = StaticEmbeddingFunction()(["saw <cupcake> (305) inside <fridge> (120)", "Bob said: hello"])
    assert len(vectors) == 2 and vectors[0].shape == (256,)
    with VectorMemory() as memory:  # the whole store path too: client, collection, add, query
        memory.add("saw <cupcake> (305) inside <fridge> (120)", kind="observation", step=1)
        assert memory.recall("where is a cupcake", k=1)[0].step == 1


def test_vectors_are_unit_length_deterministic_and_zero_for_empty_text() -> None:
    model = load_embedder()
    first = model.encode(["<kitchencabinet> (112) is empty", "where is a cupcake", ""])
    again = model.encode(["<kitchencabinet> (112) is empty"])
    assert first.shape == (3, 256)
    assert np.allclose(np.linalg.norm(first[:2], axis=1), 1.0, atol=1e-5)
    assert np.array_equal(first[0], again[0])
    assert not first[2].any()
    assert model.encode([]).shape == (0, 256)


def test_similar_household_texts_are_closer_than_unrelated_ones() -> None:
    cupcake, cupcake_query, cabinet = load_embedder().encode(
        ["saw <cupcake> (305) inside <fridge> (120) in kitchen", "where is a cupcake", "<closet> (270) is empty"]
    )
    assert cupcake @ cupcake_query > cabinet @ cupcake_query


def test_matryoshka_truncation_and_bad_dims() -> None:
    assert StaticEmbeddingFunction(dim=64)(["apple"])[0].shape == (64,)
    with pytest.raises(ValueError):
        StaticEmbeddingFunction(dim=100)
    with pytest.raises(ValueError):
        StaticEmbeddingFunction.validate_config({"dim": 7})


def test_chroma_accepts_the_function_without_legacy_warnings() -> None:
    function = StaticEmbeddingFunction()
    assert not function.is_legacy()
    assert StaticEmbeddingFunction.build_from_config(function.get_config()).dim == function.dim
    client = ephemeral_client()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a legacy or unsupported-space EF makes Chroma warn
        collection = client.create_collection("test-ef-accepted", embedding_function=function)  # type: ignore[arg-type]
        try:
            collection.add(ids=["a", "b"], documents=["the fridge holds a pudding", "the closet is empty"])
            found = collection.query(query_texts=["what is in the fridge"], n_results=1)
        finally:
            client.delete_collection("test-ef-accepted")
    assert found["ids"] == [["a"]]


def test_missing_model_package_is_reported_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embeddings, "MODEL_PACKAGE", "no_such_embedding_package")
    with pytest.raises(EmbeddingModelMissing, match="no_such_embedding_package"):
        StaticEmbeddingFunction()


def test_threads_asking_at_once_load_the_table_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Episodes on threads embed their first observations together: one thread reads the table, the others get
    the same model instead of each reading and copying 50 MB."""
    from concurrent.futures import ThreadPoolExecutor
    from threading import Barrier

    real, reads, start = embeddings.model_dir, [], Barrier(8)

    def counted() -> object:
        reads.append(1)
        return real()

    embeddings._loaded.cache_clear()
    monkeypatch.setattr(embeddings, "model_dir", counted)

    def ask(_: int) -> embeddings.StaticEmbedder:
        start.wait()
        return load_embedder()

    with ThreadPoolExecutor(8) as threads:
        models = list(threads.map(ask, range(8)))
    embeddings._loaded.cache_clear()
    assert len(reads) == 1 and all(model is models[0] for model in models)
