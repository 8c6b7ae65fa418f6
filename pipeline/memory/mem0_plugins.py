"""The desk's providers for Mem0's factories. Import only after `mem0_env.prepare_mem0()`.

Mem0 builds an embedder and an LLM client for every `Memory`. The embedder is our local ONNX
model; the LLM is one that refuses to run: the desk saves with `infer=False`, so Mem0 must never
call a model, and if it ever tried, the call fails loudly instead of going to a network.
"""

from __future__ import annotations

from typing import Any, Literal

from mem0.configs.embeddings.base import BaseEmbedderConfig
from mem0.embeddings.base import EmbeddingBase
from mem0.embeddings.configs import EmbedderConfig
from mem0.llms.base import LLMBase
from mem0.llms.configs import LlmConfig
from mem0.utils.factory import EmbedderFactory, LlmFactory

from pipeline.embedding import Embedder
from pipeline.errors import MemoryBackendError

EMBEDDER_PROVIDER = "supportdesk-local-onnx"
LLM_PROVIDER = "supportdesk-no-llm"


class LocalEmbedding(EmbeddingBase):
    """Mem0 embedder backed by the process's `Embedder` (passed in `model_kwargs["embedder"]`)."""

    def __init__(self, config: BaseEmbedderConfig | None = None) -> None:
        super().__init__(config)
        embedder = self.config.model_kwargs.get("embedder")
        if not isinstance(embedder, Embedder):
            raise TypeError("LocalEmbedding needs model_kwargs={'embedder': Embedder}")
        self._embedder = embedder

    def embed(self, text: str, memory_action: Literal["add", "search", "update"] | None = None) -> list[float]:
        return [float(x) for x in self._embedder.embed_one(text)]

    def embed_batch(self, texts: list[str], memory_action: str = "add") -> list[list[float]]:
        return [[float(x) for x in row] for row in self._embedder.embed(texts)]


class RefusingLlm(LLMBase):
    def generate_response(self, messages: list[dict[str, str]], *args: Any, **kwargs: Any) -> str:
        raise MemoryBackendError("mem0 tried to call a language model; the desk stores memories with "
                                 "infer=False and has no model for mem0")


def register() -> None:
    """Make both providers known to Mem0's factories (idempotent)."""
    EmbedderFactory.provider_to_class[EMBEDDER_PROVIDER] = f"{__name__}.{LocalEmbedding.__name__}"
    LlmFactory.register_provider(LLM_PROVIDER, f"{__name__}.{RefusingLlm.__name__}")


def embedder_config(embedder: Embedder) -> EmbedderConfig:
    # Mem0's config model only accepts its built-in provider names; the factory itself takes any
    # registered one, so the validated model is bypassed for our provider alone.
    return EmbedderConfig.model_construct(
        provider=EMBEDDER_PROVIDER, config={"model_kwargs": {"embedder": embedder}, "embedding_dims": embedder.dims}
    )


def llm_config() -> LlmConfig:
    return LlmConfig.model_construct(provider=LLM_PROVIDER, config={})
