"""The backend seam moved how each backend builds its chat model and its request parameters; the response-cache
keys of every existing backend must not move with it. The keys below were computed on main before the seam."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain_core.caches import BaseCache
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration

from coopgraph.llm.constraints import ChoiceConstraint
from coopgraph.llm.factory import make_lm
from coopgraph.llm.interface import ChatRequest

MESSAGES = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "pick one"}]
CHOICE = ChoiceConstraint(("walk to kitchen", "grab apple"), reasoning_chars=40)
ANSWER_ONLY = ChoiceConstraint(("walk to kitchen", "grab apple"), answer_format="text", reasoning_chars=0)
#: (setting, OPENAI_BASE_URL or None) -> the keys of `_calls`, as main computed them before the backend seam.
KEYS_BEFORE_THE_SEAM: dict[tuple[str, str | None], list[str]] = {
    ('openai:gpt-4o-mini', None): [
        '7d8d11c777757a438b4777ba562559843414a9873daf1c1df69d11ac73426b54',
        '99a6352576ced3d6aee1192cf15cb3fb3759c050708ab43175ee541e36f5e7cd',
        '19176ec9f3fb4c49cc0127fc12bfd33dc3ac36c2337f744c210f7bd4c6a92f63',
        'fb49e2838935273673651b8dd1e8f0877b96b3f83adae4b3a2fa1fbedd52f9d4',
        '799f641dccf48003512e514c70c8495e4f9e7117fe6660386ffd3f90e2e6eed1',
    ],
    ('openai:llama3', 'http://127.0.0.1:11434/v1'): [
        'ad4ff5528a9f4104fd15a74515fa58e95f747897524b315c9022994eeadf2952',
        'c9017bffaf3342891bde3ae6e8254e440dac2c709d1c8d2bed686f28c88ef979',
        '8fc2ff2f1e5fda601acbb2ff0099d42410b0f661813a519b9c3042ecb0a02b55',
        'c87b8b71ff75805822f8d404ba51d1530e5aa49be4c0f5fa753b2140d8d88f85',
        '85a0f4c5fb31217c07a980aeb35c9bc180c7fe7e3c4d51bfcf3950cce8945ca4',
    ],
    ('vllm:m', None): [
        'b43319488bd13a002a11b34f6a6a1a2e91d6cfefc79b4881d35d00743ceddd84',
        'b05b5430aa3c7795dfd2fc77dad9cbf35e0b1991dff7904ba65fe5ad00f40653',
        'f0c8a1cf6500049b625880a8aed93a14cf675c0fc72fc0930aa983195bf5c8c8',
        '182f5b34a5dfa3a8947021efdbdc55a3b205f117b081dcbe3e326be7fe208c1f',
        '989c4f8fe5a90cb2128a9c7550c1db85d6b5b61b24ad99bdb69e319d3629f577',
    ],
    ('vllm:Qwen/Qwen2.5-7B-Instruct', 'http://127.0.0.1:8000/v1'): [
        '91001887fc960210635378cd8542d170a96f8d6a61d6893a364743e374072f62',
        '8346120699056d7f2e05893dbe1c3b34c9a9dbbb8954dfb2d3d92c1a7d947a49',
        'b0122bbeafba99773d20414dd8641b9e8341f32e768196e44c0626467e9e0cf3',
        'de59594bd9d100540c1ec6019e58cf359e54b34ba076790c960088dcc1e51a32',
        'c696f2acc095c722cae17107d001cc10e3e0fb7ab0c2de0c3715d55f0d01da91',
    ],
    ('llamacpp:m', None): [
        'b43319488bd13a002a11b34f6a6a1a2e91d6cfefc79b4881d35d00743ceddd84',
        'b811c215f86908fa38137af8c1c422000b7f4278a4c272ec9f7403bb542349f0',
        'b313a4b5759a10d12dfe4c973685869180ff210eb10bf39e9387ddb4cfe13e3d',
        '182f5b34a5dfa3a8947021efdbdc55a3b205f117b081dcbe3e326be7fe208c1f',
        '989c4f8fe5a90cb2128a9c7550c1db85d6b5b61b24ad99bdb69e319d3629f577',
    ],
    ('local', None): [
        'dfdb63519befbd31f3724d65fcc24af3c6062297a5f8863ce78081c1ef43686c',
        '1eea53266799537c36a5eba6240ecf25c0a441997096a01ad168ff6dbecde621',
        '50faa06698715ac9088ce46a73a32d28ee4d7292cc3d8dbef1f150bde5887a79',
        'bc2798582a81622a3e82dfc8aab154225f51b0e9ba280120f2dcadb07da8e9f4',
        'b867ac76e29d7de5b72583dbe50bd2fb4a0689f900a9f458cea944428e385165',
    ],
    ('local-coop', None): [
        '8257347e0adc4fd4d36d32b6caa493d41ab4e21321b904d946dab5c8bce3efbe',
        '81db4e51cc24c72d7b875061495ee062c84b6dafe9d52a482fcc66a726878fff',
        '8a2d9400c07d1d55412743c0ec0649d0d4f11e3ba109b307c45ed238ebb0749f',
        '4ded67f49f97540cf4cb6f4d16128bed8527fd62db02deea3092c50f7d4a41ce',
        'f9926d73e28fdd1fbb1ee65e1e8aadfadd32408345881c4532aef1fda1067112',
    ],
}


class KeyRecorder(BaseCache):
    """Answers every lookup (so nothing is sent) and keeps the key the SQLite cache it wraps would use."""

    def __init__(self, sqlite: Any) -> None:
        self.sqlite = sqlite
        self.keys: list[str] = []

    def lookup(self, prompt: str, llm_string: str) -> Any:
        self.keys.append(self.sqlite._key(prompt, llm_string))
        return [ChatGeneration(message=AIMessage(content="Answer: grab apple"))]

    def update(self, prompt: str, llm_string: str, return_val: Any) -> None:
        return None

    def clear(self, **kwargs: Any) -> None:
        return None


def _calls(setting: str, tmp_path: Path) -> list[str]:
    lm = make_lm(setting, cache=tmp_path / "responses.sqlite")
    recorder = KeyRecorder(lm.chat_model.cache)
    lm.chat_model.cache = recorder
    lm.complete(ChatRequest(MESSAGES, max_tokens=30))
    lm.complete(ChatRequest(MESSAGES, constraint=CHOICE, max_tokens=40))
    lm.complete(ChatRequest(MESSAGES, constraint=ANSWER_ONLY, max_tokens=12))
    lm.with_seed(7).complete(ChatRequest(MESSAGES, max_tokens=30, options={"temperature": 0.7, "top_p": 1.0}))
    lm.with_seed(7).complete(ChatRequest(MESSAGES, max_tokens=30, options={"temperature": 0.0}))
    return recorder.keys


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Nothing listens anywhere: every lookup is answered, and the embedded model's server is never started."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("COOPGRAPH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr("coopgraph.llm.server.local_url", lambda settings, slot=0: f"http://127.0.0.1:{9 + slot}/v1")


CASES = [("openai:gpt-4o-mini", None), ("openai:llama3", "http://127.0.0.1:11434/v1"), ("vllm:m", None),
         ("vllm:Qwen/Qwen2.5-7B-Instruct", "http://127.0.0.1:8000/v1"), ("llamacpp:m", None), ("local", None),
         ("local-coop", None)]


@pytest.mark.parametrize(("setting", "base_url"), CASES)
def test_each_backends_keys_are_the_ones_main_stored(setting: str, base_url: str | None, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    if base_url is None:
        monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    else:
        monkeypatch.setenv("OPENAI_BASE_URL", base_url)
    assert _calls(setting, tmp_path) == KEYS_BEFORE_THE_SEAM[(setting, base_url)]
