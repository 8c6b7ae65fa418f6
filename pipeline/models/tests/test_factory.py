"""`build_llm`: each configuration builds its model or fails with ConfigError, never falls back.

Cases: `cases/factory_cases.yaml`. Nothing here reaches a network: building a hosted model
makes no request.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from guards.llm.resilient import ResilientLlm
from pipeline.core.errors import ConfigError
from pipeline.core.outbound import OFFLINE_ONLY_ENV
from pipeline.core.settings import Settings
from pipeline.models.factory import build_llm, build_llms, build_offline


@pytest.fixture(autouse=True)
def building_is_not_calling(monkeypatch: pytest.MonkeyPatch) -> None:
    """These cases check what each configuration builds, and building sends no request, so the
    suite-wide refusal of outside endpoints (`test_outbound.py`) is lifted for them alone."""
    monkeypatch.delenv(OFFLINE_ONLY_ENV)


CASES = yaml.safe_load((Path(__file__).parent / "cases" / "factory_cases.yaml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_build_llm(case: dict[str, Any], make_settings: Callable[..., Settings]) -> None:
    settings = make_settings(**case["settings"])
    if "error" in case:
        with pytest.raises(ConfigError, match=case["error"]):
            build_llm(settings, case["role"])
        return
    llm = build_llm(settings, case["role"])
    assert type(llm).__name__ == case["builds"]
    if "threshold" in case:
        assert getattr(llm, "threshold", None) == case["threshold"]
    if "inner" in case:
        assert isinstance(llm, ResilientLlm)
        assert type(llm.inner).__name__ == case["inner"]
        assert (llm.timeout_s, llm.max_retries, llm.max_output_tokens) == (
            settings.model_timeout_s, settings.model_max_retries, settings.model_max_output_tokens)
        assert llm.model == llm.inner.model == case.get("model", llm.inner.model)


@pytest.mark.parametrize(("model", "shared"), [("gemini-2.5-flash", True), ("offline", False)])
def test_one_hosted_model_serves_every_role_of_a_process(model: str, shared: bool,
                                                          make_settings: Callable[..., Settings]) -> None:
    settings = make_settings(supportdesk_model=model, google_api_key="test-key")
    llms = build_llms(settings, ("guardrail", "agent"))
    assert (llms["guardrail"] is llms["agent"]) is shared


def test_a_candidate_folder_is_for_a_guard_and_refused_for_the_agent(make_settings: Callable[..., Settings],
                                                                    tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no model files"):
        build_offline(make_settings(supportdesk_model="offline"), "agent", tmp_path)
