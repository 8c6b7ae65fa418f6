"""The suite cannot reach a hosted model or Mem0 Cloud: a hosted client aimed anywhere but this
machine fails at build time, whatever keys the developer's shell exports."""

from __future__ import annotations

import os
from collections.abc import Callable

import pytest

from guards.llm.providers import build_hosted
from pipeline.core.errors import ConfigError
from pipeline.core.outbound import HOSTED_SWITCHES, OFFLINE_ONLY_ENV, on_this_machine
from pipeline.core.settings import Settings
from pipeline.memory.cloud import CloudMemoryStore


def test_the_suite_runs_offline_only_with_no_hosted_switch_left() -> None:
    assert os.environ[OFFLINE_ONLY_ENV] == "1"
    assert [name for name in HOSTED_SWITCHES if name in os.environ] == []


@pytest.mark.parametrize("overrides", [
    {"google_api_key": "junk-key"},
    {"google_api_key": "junk-key", "supportdesk_model": "gemini-2.5-pro"},
    {"supportdesk_model": "litellm/openai/gpt-4o-mini", "litellm_api_base": "https://api.example.com/v1",
     "litellm_api_key": "junk-key"},
], ids=["gemini-default-endpoint", "gemini-pro", "litellm-remote"])
def test_a_hosted_model_outside_this_machine_fails_loudly(overrides: dict[str, str],
                                                          make_settings: Callable[..., Settings]) -> None:
    with pytest.raises(ConfigError, match="outside calls are disabled"):
        build_hosted(make_settings(**overrides))


@pytest.mark.parametrize("host", [None, "https://api.mem0.ai"], ids=["default-host", "explicit-host"])
def test_mem0_cloud_outside_this_machine_fails_loudly(host: str | None, make_settings: Callable[..., Settings]) -> None:
    with pytest.raises(ConfigError, match="outside calls are disabled"):
        CloudMemoryStore.from_settings(make_settings(mem0_api_key="junk-key", mem0_host=host))


def test_loopback_replay_servers_stay_allowed(make_settings: Callable[..., Settings]) -> None:
    settings = make_settings(supportdesk_model="litellm/openai/qwen", litellm_api_base="http://127.0.0.1:9/v1")
    assert build_hosted(settings).model == "openai/qwen"


@pytest.mark.parametrize(("url", "local"), [
    ("http://127.0.0.1:9", True), ("http://localhost:8080/v1", True), ("http://[::1]:5000", True),
    ("http://127.5.0.1", True), ("https://api.example.com", False), ("http://10.0.0.1", False), (None, False),
    ("http://localhost.example.com", False),
])
def test_on_this_machine(url: str | None, local: bool) -> None:
    assert on_this_machine(url) is local
