"""Setting strings resolve to backends; keys come from the environment and never leave redacted."""

from __future__ import annotations

import pytest

from coopgraph.llm.settings import LLMSettingError, parse_setting


def test_local_is_the_default(monkeypatch) -> None:
    monkeypatch.delenv("COOPGRAPH_LLM", raising=False)
    s = parse_setting()
    assert (s.kind, s.backend, s.model) == ("local", "llamacpp", "local")


def test_openai_reads_url_and_key_from_env_and_hides_the_key(monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-1234567890abcdef")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9999/v1")
    s = parse_setting("openai:gpt-4o-mini")
    assert s.base_url == "http://127.0.0.1:9999/v1" and s.backend == "openai"
    assert s.api_key.get_secret_value() == "sk-test-1234567890abcdef"
    assert "sk-test" not in str(s.public()) and "sk-test" not in repr(s)


def test_vllm_gets_guided_decoding_backend(monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    s = parse_setting("vllm:Qwen/Qwen2.5-7B-Instruct")
    assert s.backend == "vllm" and s.base_url == "http://127.0.0.1:8000/v1"


def test_unknown_setting_lists_what_exists() -> None:
    with pytest.raises(LLMSettingError, match="local-tiny.*openai:MODEL"):
        parse_setting("gpt5")


def test_distilled_profile_declares_its_limits_and_validation_enforces_them() -> None:
    from coopgraph.graphs.compiler import node_context
    from coopgraph.graphs.loader import load_spec
    from coopgraph.nodes.context import AgentResources
    from coopgraph.nodes.programs import adapter_for
    from coopgraph.testing import scripted_lm

    assert parse_setting("local-coop").reasoning_chars_max == 0
    assert parse_setting("local").reasoning_chars_max is None
    assert parse_setting("local-coop").drafts_messages is False and parse_setting("local").drafts_messages
    lm = scripted_lm(["Answer: A"])
    loaded = load_spec("coela")
    ctx = node_context(loaded, "choose_action", AgentResources(env="cwah", lm=lm))
    assert (adapter_for(ctx).reasoning_chars, adapter_for(ctx).answer_format) == (160, "letter")
    lm.settings_public = parse_setting("local-coop").public()  # the profile no longer bends the spec...
    assert (adapter_for(ctx).reasoning_chars, adapter_for(ctx).answer_format) == (160, "letter")
    from coopgraph.graphs.profile_checks import check_profile

    codes = [e.code for e in check_profile(loaded, "local-coop")]  # ...it refuses it before a run
    assert sorted(codes) == ["E320", "E321", "E322"] and check_profile(loaded, "local") == []
    assert check_profile(load_spec("coela-lite"), "local-coop") == []
    refusal = str(check_profile(load_spec("llmco"), "local-coop")[0])  # the refusal names what would run
    assert "local-coop learned coela-lite's cwah prompt" in refusal
    assert "local-coop-kitchen (llmco-lite-nohistory, overcooked)" in refusal
    assert ["distilled planners" in e.message for e in check_profile(loaded, "local-coop")] == [True, False, False]
