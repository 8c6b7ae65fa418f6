"""The Data Masker's A2A app: the message text in, `MaskResult` (masked text + spans) out."""

from __future__ import annotations

from starlette.applications import Starlette

from guards.masker import Masker
from guards.schema import MaskResult
from pipeline.core.settings import MaskerSettings
from services.common import GuardSpec, build_guard_app

SPEC = GuardSpec(
    name="masker",
    title="Data Masker",
    description="Replaces personal data in a support answer with typed placeholders such as [EMAIL].",
    skill_id="mask-pii",
    skill_description=(
        "Masks e-mail addresses, phone numbers, card numbers, IBANs, SSNs, IP and street addresses; "
        'answers {"text", "redactions": [{"type", "start", "end"}]} with offsets in the input.'
    ),
    tags=("pii", "masking", "guard"),
)


def build_app(settings: MaskerSettings) -> Starlette:
    masker = Masker(settings.masker_types, phone_regions=settings.masker_phone_regions)

    async def decide(text: str) -> MaskResult:
        return masker.mask(text)

    return build_guard_app(SPEC, decide, url=settings.masker_url, token=settings.guard_secret,
                           max_body_bytes=settings.guard_max_body_bytes)
