"""The Data Masker service, through a2a-sdk's client, masks exactly as the in-process masker does."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from evals.guard_cases import masker_cases
from guards.masker import Masker
from guards.schema import MaskResult
from services.tests.fixtures import GuardEndpoint
from services.tests.sdk import SdkGuard, sdk_guard, sdk_reply

DETECT = masker_cases("detect.yaml")
LEAVE_ALONE = masker_cases("leave_alone.yaml")


@pytest.fixture(scope="module")
async def sdk(masker_service: GuardEndpoint) -> AsyncIterator[SdkGuard]:
    async with sdk_guard(masker_service) as guard:
        yield guard


async def masked(sdk: SdkGuard, text: str) -> MaskResult:
    return await sdk_reply(sdk, text, MaskResult)


@pytest.mark.parametrize("case", DETECT, ids=[case["id"] for case in DETECT])
async def test_pii_is_masked_with_offsets_in_the_input(sdk: SdkGuard,
                                                      masker_service: GuardEndpoint,
                                                      case: dict[str, Any]) -> None:
    text: str = case["text"]
    result = await masked(sdk, text)
    assert result == Masker(masker_service.settings.masker_types).mask(text)
    found = {(r.type, text[r.start : r.end]) for r in result.redactions}
    for pii in case["pii"]:
        assert (pii["type"], pii["value"]) in found
        assert pii["value"] not in result.text
        assert f"[{pii['type']}]" in result.text


@pytest.mark.parametrize("case", LEAVE_ALONE, ids=[case["id"] for case in LEAVE_ALONE])
async def test_pii_free_text_comes_back_byte_identical(sdk: SdkGuard,
                                                      case: dict[str, Any]) -> None:
    result = await masked(sdk, case["text"])
    assert result.text.encode() == case["text"].encode()
    assert result.redactions == []
