"""Offline sentence embeddings for the vector store: WordLlama's bundled static model, read from its package files.

Chroma's default embedding function downloads a model when first used, which this project may not do at run
time. The `wordllama` wheel ships a static token-embedding table (`l2_supercat`, 256 dimensions) and its
tokenizer; an embedding is the mean of the text's token vectors, L2-normalised. No torch and no network, and
about 38,000 sentences per second here (the comparison with other offline models is in `docs/memory.md`).

The files are located with `importlib.util.find_spec` and loaded with `tokenizers` and `safetensors`, so the
`wordllama` package itself is never imported: its inference module reconfigures the root logger on import.
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from chromadb.api.types import Documents, EmbeddingFunction, Embeddings, Space
from chromadb.utils.embedding_functions import register_embedding_function
from tokenizers import Tokenizer

MODEL_PACKAGE = "wordllama"
WEIGHTS_FILE = "weights/l2_supercat_256.safetensors"
TOKENIZER_FILE = "tokenizers/l2_supercat_tokenizer_config.json"
TENSOR_KEY = "embedding.weight"
FULL_DIM = 256
DIMS = (64, 128, 256)  # the table is Matryoshka-trained: its leading columns are a smaller model


class EmbeddingModelMissing(RuntimeError):
    """The package that ships the embedding model is not installed."""


def model_dir() -> Path:
    """Folder of the installed `wordllama` package, found without importing it."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddingModelMissing(
            f"the '{MODEL_PACKAGE}' package (it ships the embedding model) is not installed; run `make setup`"
        )
    return Path(next(iter(spec.submodule_search_locations)))


class StaticEmbedder:
    """Mean of token vectors from a fixed table: fast, deterministic, and safe to share between threads."""

    def __init__(self, table: np.ndarray, tokenizer: Tokenizer) -> None:
        self.table = np.ascontiguousarray(table, dtype=np.float32)
        self.tokenizer = tokenizer
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()

    @property
    def dim(self) -> int:
        return int(self.table.shape[1])

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """One unit-length row per text; a text with no tokens (empty) gets the zero vector."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        top = self.table.shape[0] - 1
        # One text at a time: as fast as encode_batch for short lines, and it never starts the tokenizers'
        # thread pool (which warns and disables itself in forked episode workers). A per-text sum also
        # beats one vectorised np.add.reduceat here.
        for row, text in enumerate(texts):
            ids = self.tokenizer.encode(text, add_special_tokens=False).ids
            if ids:
                out[row] = self.table[np.clip(ids, 0, top)].sum(axis=0)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-12)


#: Episodes on threads embed their first observations together; one of them loads the table, the rest wait for it.
_LOADING = threading.Lock()


def load_embedder(dim: int = FULL_DIM) -> StaticEmbedder:
    """The static model truncated to `dim` columns, loaded once per process (about 0.1 s, 50 MB), also when threads
    ask for it at the same moment (a bare cache let each of them read and copy the table)."""
    with _LOADING:
        return _loaded(dim)


@cache
def _loaded(dim: int) -> StaticEmbedder:
    if dim not in DIMS:
        raise ValueError(f"dim must be one of {DIMS}, got {dim}")
    root = model_dir()
    from safetensors.numpy import load_file  # a wordllama dependency: imported after the check above

    table = load_file(str(root / WEIGHTS_FILE))[TENSOR_KEY][:, :dim]
    return StaticEmbedder(table, Tokenizer.from_file(str(root / TOKENIZER_FILE)))


@register_embedding_function
class StaticEmbeddingFunction(EmbeddingFunction[Documents]):
    """Chroma's embedding-function protocol over the cached static model; configs round-trip by name."""

    def __init__(self, dim: int = FULL_DIM) -> None:
        if dim not in DIMS:
            raise ValueError(f"dim must be one of {DIMS}, got {dim}")
        model_dir()  # fail here, by name, rather than inside Chroma's first add
        self.dim = dim

    def __call__(self, input: Documents) -> Embeddings:
        return list(load_embedder(self.dim).encode(list(input)))

    @staticmethod
    def name() -> str:
        return "coopgraph-static-wordllama"

    def default_space(self) -> Space:
        return "cosine"

    def supported_spaces(self) -> list[Space]:
        return ["cosine", "ip", "l2"]  # unit vectors: all three rank alike

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> StaticEmbeddingFunction:
        return StaticEmbeddingFunction(dim=int(config.get("dim", FULL_DIM)))

    def get_config(self) -> dict[str, Any]:
        return {"dim": self.dim}

    @staticmethod
    def validate_config(config: dict[str, Any]) -> None:
        if int(config.get("dim", FULL_DIM)) not in DIMS:
            raise ValueError(f"dim must be one of {DIMS}")

    def validate_config_update(self, old_config: dict[str, Any], new_config: dict[str, Any]) -> None:
        if "dim" in new_config and new_config["dim"] != old_config.get("dim", FULL_DIM):
            raise ValueError("the embedding dimension of an existing collection cannot change")
