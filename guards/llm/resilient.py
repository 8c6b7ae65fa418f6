"""`ResilientLlm`: timeout, bounded retry, output cap and refusal detection around a hosted model.

One wrapper for every provider (Gemini, LiteLLM), so the policy exists once:
- each attempt gets `timeout_s`; a timed-out attempt is not retried (the turn has a wall budget);
- 429, 5xx and network errors are retried `max_retries` times with exponential backoff and
  jitter; any other provider error fails at once;
- `max_output_tokens` caps every request;
- an answer with no usable content (safety block, content filter, prompt blocked, empty) raises
  `ModelRefused` instead of passing as an empty success; exhausted retries, timeouts and other
  provider failures raise `ModelUnavailable`.
The inner model is called without streaming: a retry must never follow partial output.
The providers' own retries are switched off where they are built (`providers.py`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator

import httpx
from google.adk.models import LlmCapabilities
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from pydantic import Field
from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt, wait_exponential_jitter
from typing_extensions import override

from pipeline.core.errors import ModelRefused, ModelUnavailable, SupportdeskError

logger = logging.getLogger(__name__)


def http_status(exc: BaseException) -> int | None:
    """The HTTP status a provider error carries (google-genai `code`, LiteLLM/OpenAI `status_code`)."""
    for holder in (exc, getattr(exc, "response", None)):
        for attr in ("status_code", "code"):
            value = getattr(holder, attr, None)
            if isinstance(value, int) and 100 <= value < 600:
                return value
    return None


def is_retryable(exc: BaseException) -> bool:
    if isinstance(exc, TimeoutError | SupportdeskError):
        return False
    status = http_status(exc)
    if status is not None:
        return status == 429 or status >= 500
    return isinstance(exc, httpx.TransportError | OSError) or "ConnectionError" in type(exc).__name__


def refusal(response: LlmResponse | None) -> str | None:
    """Why a final response is no usable answer, or None when it is one."""
    if response is None:
        return "the model returned no response"
    if response.error_code:
        return f"{response.error_code}: {response.error_message or 'no message'}"
    parts = response.content.parts if response.content and response.content.parts else []
    if not any((p.text and p.text.strip() and not p.thought) or p.function_call for p in parts):
        reason = response.finish_reason.name if response.finish_reason else "no finish reason"
        return f"empty answer ({reason})"
    return None


class ResilientLlm(BaseLlm):
    inner: BaseLlm
    timeout_s: float = Field(gt=0)
    max_retries: int = Field(ge=0)
    max_output_tokens: int = Field(gt=0)
    backoff_initial_s: float = Field(0.5, gt=0)
    backoff_max_s: float = Field(8.0, gt=0)

    @classmethod
    def wrap(cls, inner: BaseLlm, *, timeout_s: float, max_retries: int, max_output_tokens: int,
             backoff_initial_s: float = 0.5) -> ResilientLlm:
        """The wrapper answers to the inner model's name: ADK sends that name in each request."""
        return cls(model=inner.model, inner=inner, timeout_s=timeout_s, max_retries=max_retries,
                   max_output_tokens=max_output_tokens, backoff_initial_s=backoff_initial_s,
                   backoff_max_s=max(8.0, backoff_initial_s))

    @property
    @override
    def capabilities(self) -> LlmCapabilities:
        return self.inner.capabilities

    async def _attempt(self, llm_request: LlmRequest) -> LlmResponse | None:
        final = None
        async with asyncio.timeout(self.timeout_s):
            async for response in self.inner.generate_content_async(llm_request, stream=False):
                if not response.partial:
                    final = response
        return final

    @override
    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        # Hand-built requests (the Judge's model tier) may not name the model; ADK's always do.
        llm_request.model = llm_request.model or self.inner.model
        config = llm_request.config
        config.max_output_tokens = min(config.max_output_tokens or self.max_output_tokens,
                                       self.max_output_tokens)
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.max_retries + 1),
            wait=wait_exponential_jitter(initial=self.backoff_initial_s, max=self.backoff_max_s),
            retry=retry_if_exception(is_retryable),
            before_sleep=lambda state: logger.warning(
                "model %s attempt %d failed (%s); retrying", self.model, state.attempt_number,
                state.outcome.exception() if state.outcome else None),
            reraise=True,
        )
        attempts = 0
        try:
            async for attempt in retrying:
                with attempt:
                    attempts += 1
                    response = await self._attempt(llm_request)
        except TimeoutError as exc:
            raise ModelUnavailable(f"model {self.model} timed out after {self.timeout_s}s "
                                   f"(attempt {attempts})") from exc
        except SupportdeskError:
            raise
        except Exception as exc:  # the provider boundary: every library error becomes ours
            status = http_status(exc)
            why = "retries exhausted" if is_retryable(exc) else "not retryable"
            raise ModelUnavailable(f"model {self.model} failed after {attempts} attempt(s), {why}: "
                                   f"{type(exc).__name__} (HTTP {status}): {exc}") from exc
        problem = refusal(response)
        if problem:
            raise ModelRefused(f"model {self.model} refused: {problem}")
        assert response is not None  # refusal() rejects None
        yield response
